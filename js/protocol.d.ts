// Message payloads of ACP (v1, v2) and MCP (2024-11-05 … 2026-07-28), as agentwire hands
// them to JS: the wire objects, typed. Open objects (`_meta`, extensions) stay open with
// `[key: string]: unknown`; unknown enum values are possible on input, so string unions
// end in `(string & {})` where peers may send newer values.

import type * as schema from "./schema.js";

export type Meta = { [key: string]: unknown } | null;
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/** A request id. Integers past 2^53 cross as `bigint` so that they stay exact. */
export type RequestId = string | number | bigint | null;

/** A JSON-RPC error object. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

// ─── ACP ──────────────────────────────────────────────────────────────────────────────

export namespace acp {
  type Open<T> = T & { _meta?: Meta; [key: string]: unknown };

  export type ProtocolVersion = number;
  export type SessionId = string;
  export type ToolCallId = string;

  export type Implementation = Open<{ name: string; title?: string | null; version: string }>;

  export interface Annotations {
    audience?: ("user" | "assistant")[] | null;
    lastModified?: string | null;
    priority?: number | null;
    _meta?: Meta;
  }

  export type TextContent = Open<{ type: "text"; text: string; annotations?: Annotations | null }>;
  export type ImageContent = Open<{ type: "image"; data: string; mimeType: string; uri?: string | null; annotations?: Annotations | null }>;
  export type AudioContent = Open<{ type: "audio"; data: string; mimeType: string; annotations?: Annotations | null }>;
  export type ResourceLink = Open<{
    type: "resource_link"; uri: string; name: string; title?: string | null; description?: string | null;
    mimeType?: string | null; size?: number | null; annotations?: Annotations | null;
  }>;
  export type EmbeddedResourceContents =
    | Open<{ uri: string; mimeType?: string | null; text: string }>
    | Open<{ uri: string; mimeType?: string | null; blob: string }>;
  export type EmbeddedResource = Open<{ type: "resource"; resource: EmbeddedResourceContents; annotations?: Annotations | null }>;
  /** Text and resource_link are baseline; image, audio and resource need prompt capabilities. */
  export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

  export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other" | (string & {});
  export type ToolCallStatus = "pending" | "in_progress" | "completed" | "failed" | (string & {});
  export type ToolCallContent =
    | Open<{ type: "content"; content: ContentBlock }>
    | Open<{ type: "diff"; path: string; oldText?: string | null; newText: string }>
    | Open<{ type: "terminal"; terminalId: string }>;
  export type ToolCallLocation = Open<{ path: string; line?: number | null }>;
  export type ToolCall = Open<{
    toolCallId: ToolCallId; title: string; name?: string | null; kind?: ToolKind; status?: ToolCallStatus;
    content?: ToolCallContent[]; locations?: ToolCallLocation[]; rawInput?: unknown; rawOutput?: unknown;
  }>;
  export type ToolCallUpdate = Open<{
    toolCallId: ToolCallId; title?: string | null; name?: string | null; kind?: ToolKind | null; status?: ToolCallStatus | null;
    content?: ToolCallContent[] | null; locations?: ToolCallLocation[] | null; rawInput?: unknown; rawOutput?: unknown;
  }>;
  export type PlanEntry = Open<{ content: string; priority: "high" | "medium" | "low"; status: "pending" | "in_progress" | "completed" }>;
  export type AvailableCommand = Open<{ name: string; description: string; input?: unknown }>;
  export type SessionMode = Open<{ id: string; name: string; description?: string | null }>;
  export type SessionModeState = Open<{ currentModeId: string; availableModes: SessionMode[] }>;

  export type ContentChunk = { content: ContentBlock; messageId?: string | null; _meta?: Meta };
  /** A session configuration option: v1's (`id`) or v2's (`configId`), as the schemas say. */
  export type SessionConfigOption = schema.acp.v1.SessionConfigOption | schema.acp.v2.SessionConfigOption;
  /**
   * The `update` of a `session/update` notification, by its `sessionUpdate` kind (v1 and the v2
   * draft), or an extension's `_`-prefixed kind. A discriminated union: `switch (u.sessionUpdate)`
   * narrows each case to its fields. An agent of a newer version may send a kind not listed here;
   * it reaches the app as it came.
   */
  export type SessionUpdate =
    | Open<{ sessionUpdate: "user_message_chunk" } & ContentChunk>
    | Open<{ sessionUpdate: "agent_message_chunk" } & ContentChunk>
    | Open<{ sessionUpdate: "agent_thought_chunk" } & ContentChunk>
    | ({ sessionUpdate: "tool_call" } & ToolCall)
    | ({ sessionUpdate: "tool_call_update" } & ToolCallUpdate)
    | Open<{ sessionUpdate: "plan"; entries: PlanEntry[] }>
    | Open<{ sessionUpdate: "available_commands_update"; availableCommands: AvailableCommand[] }>
    | Open<{ sessionUpdate: "current_mode_update"; currentModeId: string }>
    | Open<{ sessionUpdate: "config_option_update"; configOptions: SessionConfigOption[] }>
    | Open<{ sessionUpdate: "session_info_update"; title?: string | null; updatedAt?: string | null }>
    | Open<{ sessionUpdate: "usage_update"; used: number; size: number; cost?: { amount: number; currency: string } | null }>
    | Open<{ sessionUpdate: "notice"; severity: "info" | "warning" | "error" | (string & {}); title: string; description?: string | null }>
    | Open<{ sessionUpdate: "compaction_update"; compactionId: string; status: string; summary?: ContentBlock[] | null; error?: string | null }>
    | Open<{ sessionUpdate: "compaction_summary_chunk"; compactionId: string; content: ContentBlock }>
    // v2 draft
    | Open<{ sessionUpdate: "user_message" | "agent_message" | "agent_thought"; messageId: string; content?: ContentBlock[] | null }>
    | Open<{ sessionUpdate: "state_update"; state: "idle" | "running" | "requires_action" | (string & {}); stopReason?: StopReason | null; usage?: unknown }>
    | Open<{ sessionUpdate: "tool_call_content_chunk"; toolCallId: ToolCallId; content: ToolCallContent }>
    | Open<{ sessionUpdate: "terminal_update"; terminalId: string; command?: string | null; cwd?: string | null; output?: unknown; exitStatus?: { exitCode?: number | null; signal?: string | null } | null }>
    | Open<{ sessionUpdate: "terminal_output_chunk"; terminalId: string; data: string }>
    | Open<{ sessionUpdate: "plan_update"; plan: { [key: string]: unknown } }>
    // Unstable (v1 and v2), typed as the schemas say.
    | ({ sessionUpdate: "plan_removed" } & schema.acp.v1.PlanRemoved)
    | ({ sessionUpdate: "subagent_update" } & schema.acp.v1.SubagentUpdate)
    | ({ sessionUpdate: "session_message" } & schema.acp.v1.SessionMessage)
    | ({ sessionUpdate: "session_message_chunk" } & schema.acp.v1.SessionMessageChunk)
    /** An extension's own kind (`_`-prefixed, as the v2 draft asks of custom variants). */
    | Open<{ sessionUpdate: `_${string}` }>;

  export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled" | "error" | (string & {});

  /** v1 client capabilities (booleans). */
  export type ClientCapabilitiesV1 = Open<{
    fs?: Open<{ readTextFile?: boolean; writeTextFile?: boolean }>;
    terminal?: boolean;
  }>;
  /** v2 capabilities: an object marks support (`{}`), omitted or null means none. */
  export type Marker = { _meta?: Meta; [key: string]: unknown } | null;
  export type ClientCapabilitiesV2 = Open<{ fs?: Open<{ readTextFile?: Marker; writeTextFile?: Marker }> | null; terminal?: Marker }>;
  export type AgentCapabilitiesV1 = Open<{
    loadSession?: boolean;
    promptCapabilities?: Open<{ image?: boolean; audio?: boolean; embeddedContext?: boolean }>;
    mcpCapabilities?: Open<{ http?: boolean; sse?: boolean }>;
    sessionCapabilities?: Open<{ list?: Marker; delete?: Marker; additionalDirectories?: Marker; resume?: Marker; close?: Marker }>;
    auth?: Open<{ logout?: Marker }>;
  }>;
  export type AgentCapabilitiesV2 = Open<{
    session?: Open<{
      prompt?: Open<{ image?: Marker; audio?: Marker; embeddedContext?: Marker }> | null;
      mcp?: Open<{ stdio?: Marker; http?: Marker; sse?: Marker }> | null;
      load?: Marker; resume?: Marker; delete?: Marker; list?: Marker; additionalDirectories?: Marker;
    }> | null;
    auth?: Open<{ logout?: Marker }> | null;
  }>;

  export type AuthMethod = Open<{ id: string; name: string; description?: string | null }>;

  export type InitializeRequest = Open<{
    protocolVersion: ProtocolVersion;
    clientCapabilities?: ClientCapabilitiesV1;
    capabilities?: ClientCapabilitiesV2;
    clientInfo?: Implementation | null;
    info?: Implementation;
  }>;
  export type InitializeResponse = Open<{
    protocolVersion: ProtocolVersion;
    agentCapabilities?: AgentCapabilitiesV1;
    capabilities?: AgentCapabilitiesV2;
    agentInfo?: Implementation | null;
    info?: Implementation;
    authMethods?: AuthMethod[];
  }>;

  export type EnvVariable = Open<{ name: string; value: string }>;
  export type HttpHeader = Open<{ name: string; value: string }>;
  export type McpServer =
    | Open<{ type?: "stdio"; name: string; command: string; args: string[]; env: EnvVariable[] }>
    | Open<{ type: "http"; name: string; url: string; headers: HttpHeader[] }>
    | Open<{ type: "sse"; name: string; url: string; headers: HttpHeader[] }>
    /** MCP over ACP (unstable: needs the agent's `mcp.acp` and `allowUnstable`). */
    | Open<{ type: "acp"; name: string; serverId: string }>;

  export type NewSessionRequest = Open<{ cwd: string; mcpServers: McpServer[]; additionalDirectories?: string[] }>;
  export type NewSessionResponse = Open<{ sessionId: SessionId; modes?: SessionModeState | null; configOptions?: unknown[] | null }>;
  export type LoadSessionRequest = NewSessionRequest & { sessionId: SessionId };
  export type PromptRequest = Open<{ sessionId: SessionId; prompt: ContentBlock[] }>;
  export type PromptResponse = Open<{ stopReason: StopReason; messageId?: string }>;

  export type PermissionOption = Open<{ optionId: string; name: string; kind: "allow_once" | "allow_always" | "reject_once" | "reject_always" | (string & {}) }>;
  export type RequestPermissionRequest = Open<{ sessionId: SessionId; toolCall: ToolCallUpdate; options: PermissionOption[] }>;
  export type RequestPermissionResponse = Open<{ outcome: { outcome: "cancelled" } | { outcome: "selected"; optionId: string } }>;
  export type ReadTextFileRequest = Open<{ sessionId: SessionId; path: string; line?: number | null; limit?: number | null }>;
  export type ReadTextFileResponse = Open<{ content: string }>;
  export type WriteTextFileRequest = Open<{ sessionId: SessionId; path: string; content: string }>;

  export type SessionInfo = Open<{ sessionId: SessionId; cwd: string; title?: string | null; updatedAt?: string | null; additionalDirectories?: string[] }>;
  export type ListSessionsRequest = Open<{ cwd?: string | null; cursor?: string | null }>;
  export type ListSessionsResponse = Open<{ sessions: SessionInfo[]; nextCursor?: string | null }>;
  export type SetSessionConfigOptionRequest = Open<{ sessionId: SessionId; configId: string } & ({ type: "boolean"; value: boolean } | { type?: undefined; value: string })>;
  export type SetSessionConfigOptionResponse = Open<{ configOptions: SessionConfigOption[] }>;
  export type ResumeSessionRequest = Open<{ sessionId: SessionId; cwd: string; mcpServers?: McpServer[]; additionalDirectories?: string[] }>;
  export type Empty = Open<{}>;

  /** Requests a client sends to the agent, by method, with their params and results (v1 and v2). */
  export interface AgentRequests {
    "initialize": [InitializeRequest, InitializeResponse];
    "authenticate": [Open<{ methodId: string }>, Empty];
    "logout": [Empty, Empty];
    "auth/login": [Open<{ methodId: string }>, Empty];
    "auth/logout": [Empty, Empty];
    "session/new": [NewSessionRequest, NewSessionResponse];
    "session/load": [LoadSessionRequest, Open<{ modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null }>];
    "session/resume": [ResumeSessionRequest, Open<{ modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null }>];
    "session/list": [ListSessionsRequest, ListSessionsResponse];
    "session/close": [Open<{ sessionId: SessionId }>, Empty];
    "session/delete": [Open<{ sessionId: SessionId }>, Empty];
    "session/set_mode": [Open<{ sessionId: SessionId; modeId: string }>, Empty];
    "session/set_config_option": [SetSessionConfigOptionRequest, SetSessionConfigOptionResponse];
    "session/prompt": [PromptRequest, PromptResponse];
    "tool_call/cancel": [Open<{ sessionId: SessionId; toolCallId: ToolCallId }>, Empty];
    "terminal/cancel": [Open<{ sessionId: SessionId; terminalId: string }>, Empty];
    // Unstable (need `allowUnstable`): typed loosely.
    "session/fork": [Open<{ sessionId: SessionId }>, Open<{ sessionId: SessionId }>];
    "session/archive": [Open<{ sessionId: SessionId }>, Empty];
    "session/unarchive": [Open<{ sessionId: SessionId }>, Empty];
    "session/status": [Open<{ sessionId: SessionId }>, Open<{}>];
    "session/set_title": [Open<{ sessionId: SessionId; title: string }>, Empty];
    "auth/status": [Empty, Open<{}>];
    "providers/list": [Empty, Open<{}>];
    "providers/set": [Open<{}>, Open<{}>];
    "providers/disable": [Open<{}>, Open<{}>];
    "nes/start": [Open<{}>, Open<{}>];
    "nes/suggest": [Open<{}>, Open<{}>];
    "nes/close": [Open<{}>, Open<{}>];
    "mcp/message": [Open<{}>, unknown];
  }
  /** Notifications a client sends to the agent. */
  export interface AgentNotifications {
    "session/cancel": Open<{ sessionId: SessionId }>;
  }
  /** Notifications an agent sends to the client. */
  export interface ClientNotifications {
    "session/update": Open<{ sessionId: SessionId; update: SessionUpdate }>;
    "elicitation/complete": Open<{ elicitationId: string }>;
    /** Unstable: the agent's authentication status changed. */
    "auth/status_update": schema.acp.v1.AuthStatusUpdateNotification;
  }

  /** Requests an agent sends to the client, by method, with their params and results. */
  export interface ClientRequests {
    "session/request_permission": [RequestPermissionRequest, RequestPermissionResponse];
    "fs/read_text_file": [ReadTextFileRequest, ReadTextFileResponse];
    "fs/write_text_file": [WriteTextFileRequest, Open<{}> | null];
    "terminal/create": [Open<{ sessionId: SessionId; command: string; args?: string[]; cwd?: string | null }>, Open<{ terminalId: string }>];
    "terminal/output": [Open<{ sessionId: SessionId; terminalId: string }>, Open<{ output: string; truncated: boolean }>];
    "terminal/wait_for_exit": [Open<{ sessionId: SessionId; terminalId: string }>, Open<{ exitCode?: number | null; signal?: string | null }>];
    "terminal/kill": [Open<{ sessionId: SessionId; terminalId: string }>, Open<{}> | null];
    "terminal/release": [Open<{ sessionId: SessionId; terminalId: string }>, Open<{}> | null];
    "mcp/connect": [Open<{}>, Open<{}>];
    "mcp/disconnect": [Open<{}>, Open<{}>];
    "mcp/message": [Open<{}>, unknown];
    "elicitation/create": [Open<{ message: string; mode?: string; requestedSchema?: unknown; sessionId?: SessionId | null }>, Open<{ action: "accept" | "decline" | "cancel"; content?: { [key: string]: unknown } | null }>];
  }
  /** An extension method: `_`-prefixed, outside the table (passed through, never gated). */
  export type ExtensionMethod = `_${string}`;
}

// ─── MCP ──────────────────────────────────────────────────────────────────────────────

export namespace mcp {
  type Open<T> = T & { _meta?: { [key: string]: unknown }; [key: string]: unknown };

  export type ProtocolVersion = "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" | "2026-07-28" | (string & {});
  export type Icon = Open<{ src: string; mimeType?: string; sizes?: string[]; theme?: "light" | "dark" }>;
  export type Implementation = Open<{ name: string; title?: string; version: string; description?: string; icons?: Icon[]; websiteUrl?: string }>;

  export type ClientCapabilities = Open<{
    roots?: Open<{ listChanged?: boolean }>;
    sampling?: Open<{ context?: object; tools?: object }>;
    elicitation?: Open<{ form?: object; url?: object }>;
    tasks?: Open<{ list?: object; cancel?: object; requests?: object }>;
    experimental?: { [key: string]: object };
  }>;
  export type ServerCapabilities = Open<{
    prompts?: Open<{ listChanged?: boolean }>;
    resources?: Open<{ subscribe?: boolean; listChanged?: boolean }>;
    tools?: Open<{ listChanged?: boolean }>;
    logging?: object;
    completions?: object;
    tasks?: Open<{ list?: object; cancel?: object; requests?: object }>;
    experimental?: { [key: string]: object };
  }>;

  export type InitializeRequest = Open<{ protocolVersion: ProtocolVersion; capabilities: ClientCapabilities; clientInfo: Implementation }>;
  export type InitializeResult = Open<{ protocolVersion: ProtocolVersion; capabilities: ServerCapabilities; serverInfo: Implementation; instructions?: string }>;

  export type Annotations = { audience?: ("user" | "assistant")[]; priority?: number; lastModified?: string };
  export type TextContent = Open<{ type: "text"; text: string; annotations?: Annotations }>;
  export type ImageContent = Open<{ type: "image"; data: string; mimeType: string; annotations?: Annotations }>;
  export type AudioContent = Open<{ type: "audio"; data: string; mimeType: string; annotations?: Annotations }>;
  export type ResourceContents = Open<{ uri: string; mimeType?: string; text: string }> | Open<{ uri: string; mimeType?: string; blob: string }>;
  export type ResourceLink = Open<{ type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }>;
  export type EmbeddedResource = Open<{ type: "resource"; resource: ResourceContents; annotations?: Annotations }>;
  export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

  /** A JSON Schema object (tool input/output schemas). */
  export type JsonSchema = { type?: string | string[]; properties?: { [key: string]: JsonSchema }; required?: string[]; [key: string]: unknown };
  export type ToolAnnotations = { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  export type Tool = Open<{
    name: string; title?: string; description?: string; inputSchema: JsonSchema & { type: "object" };
    outputSchema?: JsonSchema; annotations?: ToolAnnotations; icons?: Icon[];
  }>;
  export type ListToolsResult = Open<{ tools: Tool[]; nextCursor?: string }>;
  export type CallToolResult = Open<{ content: ContentBlock[]; structuredContent?: { [key: string]: unknown }; isError?: boolean }>;

  export type Resource = Open<{ uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }>;
  export type ResourceTemplate = Open<{ uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }>;
  export type ListResourcesResult = Open<{ resources: Resource[]; nextCursor?: string }>;
  export type ListResourceTemplatesResult = Open<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }>;
  export type ReadResourceResult = Open<{ contents: ResourceContents[] }>;

  export type PromptArgument = { name: string; title?: string; description?: string; required?: boolean };
  export type Prompt = Open<{ name: string; title?: string; description?: string; arguments?: PromptArgument[] }>;
  export type PromptMessage = { role: "user" | "assistant"; content: ContentBlock };
  export type ListPromptsResult = Open<{ prompts: Prompt[]; nextCursor?: string }>;
  export type GetPromptResult = Open<{ description?: string; messages: PromptMessage[] }>;

  export type LoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
  export type CompleteResult = Open<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  export type Reference = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

  export type ProgressNotification = { progressToken: string | number; progress: number; total?: number; message?: string };
}
