// Public types of the agentwire package. Payload types are in protocol.d.ts.
import type { acp, mcp, ErrorObject, RequestId, Meta } from "./protocol.js";
export type { acp, mcp, ErrorObject, RequestId, Meta, JsonValue, JsonObject } from "./protocol.js";
/** The schemas' own types, one namespace per version (`schema.acp.v1`, `schema.mcp.v2026_07_28`, …), generated. */
export type * as schema from "./schema.js";

/** Web entry: loads the .wasm (default: the file beside the module). The Node entry needs no call. */
export default function init(moduleOrPath?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
export function initSync(module: BufferSource | WebAssembly.Module): void;

// ─── errors ───────────────────────────────────────────────────────────────────────────

export { codes } from "./codes.js";

/** Every error agentwire throws or rejects with: a JSON-RPC code, a message, and data. */
export declare class ProtocolError extends Error {
  constructor(code: number, message: string, data?: unknown);
  readonly name: "ProtocolError";
  code: number;
  data?: unknown;
  /** Set when a parse failure could read the id of the message. */
  id?: RequestId;
  static from(error: ErrorObject): ProtocolError;
}

// ─── JSON-RPC ─────────────────────────────────────────────────────────────────────────

export type ParsedMessage =
  | { kind: "request"; id: RequestId; method: string; params?: unknown }
  | { kind: "notification"; method: string; params?: unknown }
  | { kind: "response"; id: RequestId; result: unknown }
  | { kind: "error"; id: RequestId; error: ErrorObject };
export type ParsedFrame = ParsedMessage | { kind: "batch"; items: (ParsedMessage | { kind: "invalid"; id: RequestId; error: ErrorObject })[] };
export interface ParseOptions { allowBatch?: boolean; allowNullId?: boolean }
/** Classifies one frame; throws a ProtocolError (-32700, -32600) with `data` saying why. */
export function parseMessage(text: string, options?: ParseOptions): ParsedFrame;
/** Exact JSON-RPC 2.0 text for `{ id?, method?, params?, result?, error? }`. */
export function serializeMessage(message: Partial<{ id: RequestId; method: string; params: unknown; result: unknown; error: ErrorObject }>): string;

// ─── validation ───────────────────────────────────────────────────────────────────────

export type Direction = "clientToServer" | "serverToClient";
export type Severity = "error" | "warning";
/** What an issue is, in one spelling: the module's codes (docs/validation.md), the checks of
 * ACP's rules overlay (`acp.cwd.not_absolute`, …), and the connection's own about the transport. */
export type IssueCode =
  | "missing_required" | "wrong_type" | "unknown_enum_value" | "not_allowed_here" | "unknown_method"
  | "capability_not_negotiated" | "too_large" | "too_deep" | "invalid_json" | "invalid_envelope"
  | "out_of_range" | "pattern" | "format" | "ambiguous" | "tolerated" | "unknown_version"
  | "lifecycle" | "defaulted" | "skipped_invalid_item"
  | `acp.${string}`
  | "transport_error" | "transport_warning" | "binary_frame" | "invalid_outgoing" | (string & {});
export interface Issue { path: string; code: IssueCode; message: string; severity: Severity }
export interface Report { ok: boolean; issues: Issue[] }
export type ValidatorOptions =
  | { protocol: "acp"; version: 1 | 2 | "1" | "2"; maxBytes?: number; maxDepth?: number }
  | { protocol: "mcp"; version: mcp.ProtocolVersion; maxBytes?: number; maxDepth?: number }
  /** MCP Apps' `ui/*` messages alone; the View is the client (`clientToServer`: View → Host). */
  | { protocol: "mcp-apps"; version: "2026-01-26"; maxBytes?: number; maxDepth?: number };

export declare class Validator {
  constructor(options: ValidatorOptions);
  /** Validates one message (text or parsed object). For a response, say which method it answers. */
  validate(message: string | object, context: { direction: Direction; inReplyTo?: string }): Report;
  free(): void;
}

/** The JSON-RPC error for a refused bridge frame; `id` is there when the frame is to be answered (a request, or no message at all: null). */
export interface FrameError { code: -32700 | -32600 | -32601 | -32602; message: string; data: { issues: Issue[] }; id?: RequestId | null }

/**
 * MCP Apps: every frame across a View ↔ Host bridge, judged as it crosses — `ui/*` messages by
 * the ext-apps schema (2026-01-26), proxied MCP messages by the MCP rules of `mcpVersion`, a
 * response by the request it answers (remembered per side, at most 1024 in flight each).
 */
export declare class AppsValidator {
  constructor(options: { mcpVersion: mcp.ProtocolVersion; maxBytes?: number; maxDepth?: number });
  /** `null`: let it through. Otherwise the error to answer with (when `id` is present) and to drop the frame. */
  validateFrame(frame: string | object, options: { from: "view" | "host" }): FrameError | null;
  /** Requests `from` sent that are not answered yet. */
  inFlight(from: "view" | "host"): number;
  /** Forgets the requests in flight (the View was reloaded or torn down). */
  reset(): void;
  readonly version: "2026-01-26";
  readonly mcpVersion: string;
  free(): void;
}

// ─── sessions (sans-IO) ───────────────────────────────────────────────────────────────

/** What a session call returns: the frame to send, and for a request its id. */
export interface Outbound { id?: RequestId; method?: string; text: string }

/** One row of the method table: a method and whether it may be used now. */
export interface MethodStatus {
  method: string;
  /** ACP: "clientToAgent" | "agentToClient" | "both"; MCP: "clientToServer" | "serverToClient" | "both". */
  direction: string;
  kind: "request" | "notification" | "either";
  enabled: boolean;
  /** Why it is not enabled (the missing capability, the lifecycle state). */
  reason?: string;
  /** ACP: in which schema of the negotiated version the method is. */
  availability?: "stable" | "unstable" | "seed";
  /** ACP: what gates it: the lifecycle, nothing, or the capability flag(s) named. */
  gate?: { type: "lifecycle" | "baseline" | "flag" | "anyFlag" | "authMethods" | "flagOrAuthMethods"; name?: string | string[] };
}

type CommonEvent =
  | { type: "send"; text: string }
  | { type: "response"; id: RequestId; method: string; result: unknown }
  | { type: "error"; id: RequestId; method: string; error: ErrorObject }
  | { type: "timeout"; id: RequestId; method: string; error: ErrorObject }
  | { type: "request"; id: RequestId; method: string; params?: unknown }
  | { type: "notification"; method: string; params?: unknown }
  /** Validation issues of one message: its id and method (for a response, the method it
   * answers), and whether it came `in` or went `out` (an answer the session sent itself). */
  | { type: "violation"; id?: RequestId; method?: string; direction: "in" | "out"; issues: Issue[] }
  | { type: "stray"; id: RequestId | null; alreadyAnswered: boolean; error?: ErrorObject }
  | { type: "protocolError"; error: ErrorObject };

export type AcpEvent =
  | CommonEvent
  | { type: "initialized"; protocolVersion: number; peerCapabilities: acp.AgentCapabilitiesV1 | acp.AgentCapabilitiesV2 | acp.ClientCapabilitiesV1 | acp.ClientCapabilitiesV2; peerInfo?: acp.Implementation; authMethods: acp.AuthMethod[] }
  | { type: "sessionUpdate"; sessionId: string; update: acp.SessionUpdate; replay: boolean }
  /** A prompt turn is over: v1 with the prompt's answer, v2 with the idle state after the acknowledgement. */
  | { type: "turnEnded"; id: RequestId; sessionId: string; outcome?: PromptOutcome; error?: ErrorObject }
  | { type: "cancelRequested"; id: RequestId }
  /** Connected: a handler registered with `onRequest` that the negotiated version never calls. */
  | { type: "warning"; code: "unreachable_handler" | (string & {}); method?: string; message: string }
  | { type: "closed"; error?: ErrorObject }
  /** Connected with `reconnect`: the transport dropped; what was pending failed (`data.reconnecting`). */
  | { type: "disconnected"; error: ErrorObject }
  /** Connected with `reconnect`: a new connection is up and each open session was resumed. */
  | { type: "reconnected"; attempt: number; sessions: ResumedSession[] };
/** How one session came back after a reconnection: `replayed` when the agent replayed its
 * history (`skipped`: updates the app already had; `delivered`: new ones); `error` if it did not. */
export interface ResumedSession { sessionId: string; method?: "session/load" | "session/resume"; replayed?: boolean; skipped: number; delivered: number; error?: string }

export type McpEvent =
  | CommonEvent
  | { type: "initialized"; protocolVersion: string; era: "handshake" | "stateless"; peerCapabilities: mcp.ClientCapabilities | mcp.ServerCapabilities; peerInfo?: mcp.Implementation; instructions?: string }
  | { type: "progress"; id?: RequestId; progressToken: string | number; params: mcp.ProgressNotification }
  | { type: "cancelled"; requestId: RequestId; reason?: string }
  /** `era: "auto"` left the stateless era: why, and the handshake version offered next. */
  | { type: "eraFallback"; from: string; to: string; reason: ErrorObject }
  | { type: "closed"; pending: { id: RequestId; method: string }[] };

export interface AcpCapabilitiesModel {
  fs: { readTextFile: boolean; writeTextFile: boolean };
  terminal: boolean;
  [key: string]: unknown;
}

export interface SessionState<V> {
  /** The negotiated version, once initialize completed. */
  protocolVersion?: V;
  /** The versions offered or supported, in preference order. */
  offered: V[];
  phase: string;
  closed: boolean;
  closeError?: ErrorObject | null;
  ownCapabilities: unknown;
  peerCapabilities?: unknown;
  peerInfo?: unknown;
  [key: string]: unknown;
}

/** Options every session shares. An unknown option is an error (-32602). */
interface CommonOptions<V> {
  /** The versions this side supports, as a set: a client requests the latest, an agent or
   * server answers with its latest when the requested one is not among them. Default: all. */
  protocolVersions?: V[];
  /** Deadline of ordinary requests in ms (default 60000; `null`: none). Prompts, permission
   * requests and elicitations never time out by themselves. */
  requestTimeoutMs?: number | null;
  /** Refuse to send messages that fail validation (default true). */
  validateOutgoing?: boolean;
}
type Meta_ = { _meta?: { [key: string]: unknown } };
export interface AcpClientOptions extends CommonOptions<number> {
  /** `info` and `clientInfo` are the same option (v2 calls it `info`). */
  clientInfo?: acp.Implementation;
  info?: acp.Implementation;
  /** Unified capability model; written in the v1 or v2 shape the negotiated version needs.
   * `_meta` is sent where given; `extensions` is merged into the wire object as it is. */
  capabilities?: Meta_ & {
    fs?: Meta_ & { readTextFile?: boolean; writeTextFile?: boolean };
    terminal?: boolean;
    auth?: Meta_ & { terminal?: boolean };
    elicitation?: Meta_ & { form?: boolean; url?: boolean };
    extensions?: { [key: string]: unknown };
  };
  /** Send and serve the methods of the unstable schemas (default false). */
  allowUnstable?: boolean;
  /** Deliver incoming messages exactly as they came (default false: what the schema marks
   * default-on-error / skip-invalid-items is repaired first, each repair a warning). */
  strict?: boolean;
}
export interface AcpAgentOptions extends CommonOptions<number> {
  /** `info` and `agentInfo` are the same option (v2 calls it `info`). */
  agentInfo?: acp.Implementation;
  info?: acp.Implementation;
  capabilities?: Meta_ & {
    session?: { new?: boolean; load?: boolean; list?: boolean; delete?: boolean; additionalDirectories?: boolean; resume?: boolean; close?: boolean; fork?: boolean };
    prompt?: { image?: boolean; audio?: boolean; embeddedContext?: boolean };
    mcp?: { stdio?: boolean; http?: boolean; sse?: boolean };
    auth?: Meta_ & { logout?: boolean };
    extensions?: { [key: string]: unknown };
  };
  authMethods?: acp.AuthMethod[];
  allowUnstable?: boolean;
  /** As for the client: no lenient repairs of incoming messages. */
  strict?: boolean;
  /** "seed": answer the own latest version when the request is unsupported; "draft": -32022. */
  negotiation?: "seed" | "draft";
}
export interface McpClientOptions extends CommonOptions<mcp.ProtocolVersion> {
  clientInfo?: mcp.Implementation;
  capabilities?: mcp.ClientCapabilities;
  /** Cap on a request's total time when progress pushes its deadline (default 600000). */
  maxTotalTimeoutMs?: number | null;
  era?: "handshake" | "stateless" | "auto";
}
/** A page's MCP server for its agent: McpServer's options, and how each MCP session is set up. */
export interface HostMcpServerOptions extends McpServerOptions {
  /** The server's name as the agent sees it ("page" by default; Claude Code keeps "ide" for itself). */
  name?: string;
  /** "auto" (default): MCP over ACP where the agent and the connection allow it, else HTTP through the relay. */
  route?: "auto" | "acp" | "http";
  /** Registers the handlers of one MCP session's server before its first message. */
  setup?: (server: McpServerConnection, info: { session: string; name: string }) => void | Promise<void>;
  /** How long the relay may take to host it (10 s by default). */
  timeoutMs?: number;
}
/** The `mcpServers` entry of a hosted server. */
export type HostedMcpServer =
  | { type: "acp"; name: string; serverId: string }
  | { type: "http"; name: string; url: string; headers: { name: string; value: string }[] };
export interface McpServerOptions extends CommonOptions<mcp.ProtocolVersion> {
  serverInfo?: mcp.Implementation;
  capabilities?: mcp.ServerCapabilities;
  instructions?: string | null;
  maxTotalTimeoutMs?: number | null;
  /** Answer an unsupported version with -32602 { supported, requested } instead of the own latest. */
  rejectUnsupportedVersions?: boolean;
}

/** Per request: a timeout; MCP also: ask for progress (adds a progressToken) so that each progress
 * notification pushes the deadline out again, never past `maxTotalMs`. */
export interface RequestOptions { timeoutMs?: number; resetOnProgress?: boolean; maxTotalMs?: number }

declare class SansIoSession<Event, V> {
  request(method: string, params?: unknown, options?: RequestOptions): Outbound;
  notify(method: string, params?: unknown): Outbound;
  /** Answers an incoming request; returns the text to send. */
  respond(id: RequestId, result: unknown): string;
  respondError(id: RequestId, error: ErrorObject): string;
  /** Feeds one incoming frame, text or UTF-8 bytes; returns what happened, including text to send back. */
  receive(frame: string | Uint8Array | ArrayBuffer | ArrayBufferView): Event[];
  /** Reports requests past their deadline (call at nextDeadline()). */
  tick(): Event[];
  /** The transport closed: fails what is pending. */
  close(): Event[];
  /** Withdraws one of our requests, telling the peer where the protocol has a way. */
  cancelRequest(id: RequestId): Event[];
  nextDeadline(): number | undefined;
  state(): SessionState<V>;
  methods(): MethodStatus[];
  free(): void;
}

export interface ConnectOptions {
  /** A WebSocket constructor for Node without a global one (e.g. `ws`). */
  WebSocket?: unknown;
  /**
   * Ask agentwire's relay for its own frames (agent stderr and exit, page-hosted MCP servers)
   * with the `agentwire.relay` subprotocol. Default: when the URL has the relay's shape
   * (`…/ws?…agent=…`). Without it the relay passes the agent's messages and nothing else.
   */
  relay?: boolean;
}
/** What the app keeps and does for OAuth (docs/auth.md); `agentwire/auth` has ready ones. */
export interface OAuthProvider {
  /** Where the authorization server sends the user back (registered with it). */
  redirectUrl: string | URL;
  /** Sent for Dynamic Client Registration (RFC 7591) when the client has no `client_id`. */
  clientMetadata: { redirect_uris: string[]; client_name?: string; [key: string]: unknown };
  /** An HTTPS URL used as `client_id` where the server takes Client ID Metadata Documents. */
  clientMetadataUrl?: string | URL;
  /** The client known for an authorization server (`issuer`), if any. */
  clientInformation?(issuer: string): OAuthClient | undefined | Promise<OAuthClient | undefined>;
  saveClientInformation?(client: OAuthClient, issuer: string): void | Promise<void>;
  /** The tokens kept for one server (its canonical URL): they are sent to that server only. */
  tokens?(server: string): OAuthTokens | undefined | Promise<OAuthTokens | undefined>;
  /** `undefined` forgets them (a refresh token that no longer works). */
  saveTokens?(tokens: OAuthTokens | undefined, server: string): void | Promise<void>;
  /** Sends the user to `url`; resolves with what came back to the redirect URL (`state` is checked). */
  redirectToAuthorization?(url: string, pending: OAuthPending): Promise<OAuthAnswer | string>;
  /** A page back from a full-page redirect: the answer in its address bar, with the flow it ends. */
  takeAuthorization?(server: string): (OAuthAnswer & { pending: OAuthPending }) | undefined | Promise<(OAuthAnswer & { pending: OAuthPending }) | undefined>;
  /** Each step of the flow as it happens, secrets redacted (an auth debugger's feed). */
  onStep?(step: OAuthStep): void;
  /** How long one request of the flow may take (30 s by default). */
  requestTimeoutMs?: number;
}
/** A sign-in under way; `issuer` is the authorization server it was sent to (its answer must come from there). */
export interface OAuthPending { server: string; issuer: string; state: string; verifier: string; redirectUri: string }
/** What came back to the redirect URL; `iss` (RFC 9207) where the authorization server sends it. */
export interface OAuthAnswer { code?: string | null; state?: string | null; error?: string | null; iss?: string | null }
/** `step`: challenge, resource metadata, authorization server metadata, registration, refresh,
 * authorization, token, retry. An HTTP exchange has `url`, `status` and its JSON `body`. */
export interface OAuthStep { step: string; url?: string; status?: number; ok?: boolean; error?: string; body?: unknown; [key: string]: unknown }
export interface OAuthClient { client_id: string; client_secret?: string; token_endpoint_auth_method?: string; [key: string]: unknown }
/** Kept with the `issuer`, `token_endpoint` and `resource` that gave them: a refresh goes only there. */
export interface OAuthTokens { access_token: string; refresh_token?: string; token_type?: string; expires_in?: number; scope?: string; issuer?: string; token_endpoint?: string; resource?: string; [key: string]: unknown }
/** MCP over Streamable HTTP (an http(s) URL given to `McpClient.connect`); see docs/mcp.md. */
export interface HttpOptions {
  /** OAuth 2.1: a 401 (or a 403 asking for more scope) runs the flow with this provider. */
  auth?: OAuthProvider;
  /** Sent with every request (`Authorization` and the like). */
  headers?: Record<string, string>;
  /** A `fetch` implementation; the global one by default. */
  fetch?: typeof globalThis.fetch;
  /** The most bytes one response body or one event may have (16 MiB by default). */
  maxBytes?: number;
  /** `false`: never fall back to the 2024-11-05 HTTP+SSE transport. */
  legacy?: boolean;
  /** Called on a 401; return `{ headers }` to retry the request once with them. */
  authorize?: (info: { url: string; status: 401; headers: Headers }) => Promise<{ headers?: Record<string, string> } | undefined> | { headers?: Record<string, string> } | undefined;
}
/** ACP's remote transport (an http(s) URL given to `AcpClient.connect`), and reconnecting;
 * see docs/acp.md, "Over HTTP" and "Reconnect and resume". */
export interface AcpHttpOptions {
  /** "http" (default): Streamable HTTP; "websocket": the WebSocket upgrade of the same endpoint. */
  transport?: "http" | "websocket";
  /** Sent with every request (`Authorization` and the like). */
  headers?: Record<string, string>;
  /** A `fetch` implementation; the global one by default. */
  fetch?: typeof globalThis.fetch;
  /** The most bytes one response body or one event may have (16 MiB by default). */
  maxBytes?: number;
  /** fetch's `credentials`: "include" by default, so that a browser sends the agent's cookies. */
  credentials?: "include" | "same-origin" | "omit";
  /** When the transport drops: reconnect, initialize, resume every open session (URLs only). */
  reconnect?: boolean | ReconnectOptions;
}
/** `attempts` (8); `delayMs`, the first wait (the SSE retry floor, 250 ms), doubling up to `maxDelayMs` (5000). */
export interface ReconnectOptions { attempts?: number; delayMs?: number; maxDelayMs?: number }
/** What HTTP said about a frame (Streamable HTTP only): an outgoing one names the POST's
 * stream; an incoming one the response's status, stream and event id. `synthesized`: the frame
 * is the error answer agentwire made for a request the HTTP exchange failed to answer. Over
 * ACP's HTTP transport there is no `stream` number: `sessionId` names a session's stream, and
 * the answer to initialize has `connectionId`. */
export interface HttpFacts { method: "POST" | "GET"; status?: number; stream?: number; sessionId?: string; connectionId?: string; eventId?: string; synthesized?: true }
/** Anything with send(text) that delivers incoming text via onmessage / addEventListener("message"). */
export interface TransportLike { send(text: string): void; close?(): void; [key: string]: unknown }
export type Transport = string | URL | TransportLike;

export interface Frame { direction: "in" | "out"; text: string; time: number; http?: HttpFacts }
export type RelayEvent =
  | { event: "spawned"; agent: string; pid: number }
  | { event: "stderr"; text: string }
  | { event: "exit"; code: number | null; signal: string | number | null }
  | { event: "error"; message: string }
  | { event: string; [key: string]: unknown };
/** What `onViolation` reports: the session's `violation` events, binary frames, and answers of
 * the app's handlers that were refused as invalid (`direction: "out"`, with their issues). */
export interface Violation { direction: "in" | "out"; id?: RequestId; method?: string; issues: Issue[]; text?: string }
export interface CloseInfo { code: number; reason: string; error: ProtocolError }
export interface CallOptions { timeoutMs?: number; signal?: AbortSignal }
/** What a request handler gets beside the params. `signal` aborts when the peer withdraws the
 * request (`$/cancel_request`) or when what asked for it is cancelled (`session/cancel`). */
export interface HandlerContext<M extends string> { id: RequestId; method: M; signal: AbortSignal }
/** A `progress` event of MCP: `params` is the notification's params. */
export interface ProgressEvent { id?: RequestId; progressToken: string | number; params: mcp.ProgressNotification }
type Unsubscribe = () => void;

declare class Connected<S, Event> {
  readonly session: S;
  onFrame(fn: (frame: Frame) => void): Unsubscribe;
  onRelay(fn: (event: RelayEvent) => void): Unsubscribe;
  onViolation(fn: (violation: Violation) => void): Unsubscribe;
  onClose(fn: (info: CloseInfo) => void): Unsubscribe;
  onEvent(fn: (event: Event) => void): Unsubscribe;
  onNotification(fn: (method: string, params: unknown) => void): Unsubscribe;
  request<R = unknown>(method: string, params?: unknown, options?: CallOptions & RequestOptions & { onProgress?: (p: ProgressEvent) => void }): Promise<R>;
  notify(method: string, params?: unknown): Promise<void>;
  close(): void;
}

/** How a prompt turn ended: v1's prompt answer, or v2's idle update with the acknowledgement's
 * `messageId`. `stopReason` is absent when the agent did not report one. */
export interface PromptOutcome {
  stopReason?: acp.StopReason;
  messageId?: string;
  usage?: unknown;
  _meta?: Meta;
  [key: string]: unknown;
}
/** A prompt turn: resolves when the turn is over; `accepted` resolves with the
 * acknowledgement (v2, `{ messageId }`) or the answer (v1). */
export interface PromptTurn extends Promise<PromptOutcome> {
  accepted: Promise<{ messageId?: string; stopReason?: acp.StopReason; [key: string]: unknown }>;
}

export declare class AcpSession {
  readonly id: string;
  result?: unknown;
  onUpdate(fn: (update: acp.SessionUpdate) => void): Unsubscribe;
  transcript(): Transcript;
  /** Resolves when the turn is over (v1 and v2 alike); `timeoutMs` and `signal` cover the whole turn. */
  prompt(prompt: acp.ContentBlock[], options?: CallOptions & { [key: string]: unknown }): PromptTurn;
  cancel(): Promise<void>;
  setMode(modeId: string, options?: CallOptions): Promise<acp.Empty>;
  /** `session/set_config_option`: a value id, or a boolean for a boolean option. */
  setConfigOption(configId: string, value: string | boolean, options?: CallOptions): Promise<acp.SetSessionConfigOptionResponse>;
  /** `session/close`; needs the agent's `session.close`. */
  close(options?: CallOptions): Promise<acp.Empty>;
}

export declare class AcpConnection extends Connected<AcpClient, AcpEvent> {
  get state(): SessionState<number>;
  methods(): MethodStatus[];
  initialize(options?: CallOptions): Promise<acp.InitializeResponse>;
  /** A handler for a request the agent sends: a method of the table (checked), or an extension (`_…`). */
  onRequest<M extends keyof acp.ClientRequests>(method: M, handler: NoInfer<(params: acp.ClientRequests[M][0], ctx: HandlerContext<M>) => acp.ClientRequests[M][1] | Promise<acp.ClientRequests[M][1]>>): Unsubscribe;
  onRequest(method: acp.ExtensionMethod, handler: (params: unknown, ctx: HandlerContext<string>) => unknown): Unsubscribe;
  /** Any method of the table (checked, typed), or an extension method (`_…`), gated and validated. */
  request<M extends keyof acp.AgentRequests>(method: M, params: acp.AgentRequests[M][0], options?: CallOptions): Promise<acp.AgentRequests[M][1]>;
  request<R = unknown>(method: acp.ExtensionMethod, params?: unknown, options?: CallOptions): Promise<R>;
  notify<M extends keyof acp.AgentNotifications>(method: M, params: acp.AgentNotifications[M]): Promise<void>;
  notify(method: acp.ExtensionMethod, params?: unknown): Promise<void>;
  onUpdate(fn: (sessionId: string, update: acp.SessionUpdate) => void): Unsubscribe;
  /** Warnings at `initialize` (and for a handler registered after it): `unreachable_handler`. */
  onWarning(fn: (warning: Extract<AcpEvent, { type: "warning" }>) => void): Unsubscribe;
  /** With `reconnect`: the transport dropped, a new connection is sought. */
  onDisconnected(fn: (event: Extract<AcpEvent, { type: "disconnected" }>) => void): Unsubscribe;
  /** With `reconnect`: the connection is back and its sessions resumed. */
  onReconnected(fn: (event: Extract<AcpEvent, { type: "reconnected" }>) => void): Unsubscribe;
  getSession(id: string): AcpSession | undefined;
  newSession(params: acp.NewSessionRequest, options?: CallOptions): Promise<AcpSession>;
  loadSession(params: acp.LoadSessionRequest, options?: CallOptions & { onUpdate?: (update: acp.SessionUpdate) => void }): Promise<AcpSession>;
  resumeSession(params: acp.LoadSessionRequest, options?: CallOptions): Promise<AcpSession>;
  authenticate(methodId: string, options?: CallOptions): Promise<unknown>;
  /** `logout` (v1) or `auth/logout` (v2); needs the agent's `auth.logout`. */
  logout(options?: CallOptions): Promise<acp.Empty>;
  /** `session/list`; needs the agent's `session.list`. */
  listSessions(params?: acp.ListSessionsRequest, options?: CallOptions): Promise<acp.ListSessionsResponse>;
  /** `session/close`; needs the agent's `session.close`. */
  closeSession(sessionId: string, options?: CallOptions): Promise<acp.Empty>;
  /** `session/delete`; needs the agent's `session.delete`. */
  deleteSession(sessionId: string, options?: CallOptions): Promise<acp.Empty>;
  /** `session/set_mode` (v1). */
  setMode(sessionId: string, modeId: string, options?: CallOptions): Promise<acp.Empty>;
  /** `session/set_config_option`. */
  setConfigOption(params: acp.SetSessionConfigOptionRequest, options?: CallOptions): Promise<acp.SetSessionConfigOptionResponse>;
  /** `tool_call/cancel` (v2). */
  cancelToolCall(sessionId: string, toolCallId: string, options?: CallOptions): Promise<acp.Empty>;
  /** `terminal/cancel` (v2). */
  cancelTerminal(sessionId: string, terminalId: string, options?: CallOptions): Promise<acp.Empty>;
  /** Offers an MCP server of the page to this connection's agent (over ACP, or through the relay); docs/acp.md. */
  hostMcpServer(options: HostMcpServerOptions): Promise<HostedMcpServer>;
}

export declare class AcpAgentConnection extends Connected<AcpAgent, AcpEvent> {
  get state(): SessionState<number>;
  methods(): MethodStatus[];
  /** A handler for a request the client sends: a method of the table (checked), or an extension (`_…`). */
  onRequest<M extends keyof acp.AgentRequests>(method: M, handler: NoInfer<(params: acp.AgentRequests[M][0], ctx: HandlerContext<M>) => acp.AgentRequests[M][1] | Promise<acp.AgentRequests[M][1]>>): Unsubscribe;
  onRequest(method: acp.ExtensionMethod, handler: (params: unknown, ctx: HandlerContext<string>) => unknown): Unsubscribe;
  request<M extends keyof acp.ClientRequests>(method: M, params: acp.ClientRequests[M][0], options?: CallOptions): Promise<acp.ClientRequests[M][1]>;
  request<R = unknown>(method: acp.ExtensionMethod, params?: unknown, options?: CallOptions): Promise<R>;
  notify<M extends keyof acp.ClientNotifications>(method: M, params: acp.ClientNotifications[M]): Promise<void>;
  notify(method: acp.ExtensionMethod, params?: unknown): Promise<void>;
  sendUpdate(sessionId: string, update: acp.SessionUpdate): Promise<void>;
  onWarning(fn: (warning: Extract<AcpEvent, { type: "warning" }>) => void): Unsubscribe;
  requestPermission(params: acp.RequestPermissionRequest, options?: CallOptions): Promise<acp.RequestPermissionResponse>;
  readTextFile(params: acp.ReadTextFileRequest, options?: CallOptions): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest, options?: CallOptions): Promise<unknown>;
  createTerminal(params: acp.ClientRequests["terminal/create"][0], options?: CallOptions): Promise<acp.ClientRequests["terminal/create"][1]>;
  terminalOutput(params: acp.ClientRequests["terminal/output"][0], options?: CallOptions): Promise<acp.ClientRequests["terminal/output"][1]>;
  waitForTerminalExit(params: acp.ClientRequests["terminal/wait_for_exit"][0], options?: CallOptions): Promise<acp.ClientRequests["terminal/wait_for_exit"][1]>;
  killTerminal(params: acp.ClientRequests["terminal/kill"][0], options?: CallOptions): Promise<unknown>;
  releaseTerminal(params: acp.ClientRequests["terminal/release"][0], options?: CallOptions): Promise<unknown>;
  createElicitation(params: acp.ClientRequests["elicitation/create"][0], options?: CallOptions): Promise<acp.ClientRequests["elicitation/create"][1]>;
  completeElicitation(params: acp.ClientNotifications["elicitation/complete"]): Promise<void>;
}

export declare class McpConnection extends Connected<McpClient, McpEvent> {
  get state(): SessionState<string>;
  methods(): MethodStatus[];
  /** The server's answer; `fallback` (not enumerable) says why `era: "auto"` left the stateless era, when it did. */
  initialize(options?: CallOptions): Promise<mcp.InitializeResult & { readonly fallback?: { from: string; to: string; reason: ProtocolError } }>;
  onRequest(method: string, handler: (params: unknown, ctx: HandlerContext<string>) => unknown): Unsubscribe;
  ping(options?: CallOptions): Promise<unknown>;
  listTools(params?: { cursor?: string }, options?: CallOptions): Promise<mcp.ListToolsResult>;
  callTool(name: string, args?: { [key: string]: unknown }, options?: CallOptions & RequestOptions & { onProgress?: (p: ProgressEvent) => void }): Promise<mcp.CallToolResult>;
  listResources(params?: { cursor?: string }, options?: CallOptions): Promise<mcp.ListResourcesResult>;
  listResourceTemplates(params?: { cursor?: string }, options?: CallOptions): Promise<mcp.ListResourceTemplatesResult>;
  readResource(uri: string, options?: CallOptions): Promise<mcp.ReadResourceResult>;
  subscribe(uri: string, options?: CallOptions): Promise<unknown>;
  unsubscribe(uri: string, options?: CallOptions): Promise<unknown>;
  listPrompts(params?: { cursor?: string }, options?: CallOptions): Promise<mcp.ListPromptsResult>;
  getPrompt(name: string, args?: { [key: string]: string }, options?: CallOptions): Promise<mcp.GetPromptResult>;
  setLoggingLevel(level: mcp.LoggingLevel, options?: CallOptions): Promise<unknown>;
  complete(ref: mcp.Reference, argument: { name: string; value: string }, options?: CallOptions): Promise<mcp.CompleteResult>;
}

export declare class McpServerConnection extends Connected<McpServer, McpEvent> {
  get state(): SessionState<string>;
  methods(): MethodStatus[];
  onRequest(method: string, handler: (params: unknown, ctx: HandlerContext<string>) => unknown): Unsubscribe;
}

/** The transcript of one ACP session, the same whether updates came live or from a load replay. */
export interface Transcript {
  sessionId: string;
  entries: TranscriptEntry[];
  /** The latest plan (v1 `plan` without its kind, v2 `plan_update`'s `plan`). */
  plan?: { [key: string]: unknown };
  currentModeId?: string;
  modes?: acp.SessionModeState;
  configOptions?: unknown[];
  availableCommands?: acp.AvailableCommand[];
  /** The latest `usage_update`, without its kind. */
  usage?: { [key: string]: unknown };
  /** `session_info_update` fields merged (title, updatedAt, …). */
  info?: { [key: string]: unknown };
  /** v2: the latest `state_update`, without its kind. */
  state?: { state: string; [key: string]: unknown };
  /** v2 terminals by id: `terminal_update` fields merged, `outputText` grown by chunks. */
  terminals?: { [terminalId: string]: { [key: string]: unknown } };
}
/** One entry of a transcript; every kind the runtime produces, and only those. */
export type TranscriptEntry =
  /** A message, its chunks merged (adjacent text concatenated). */
  | { kind: "message"; role: "user" | "agent"; messageId?: string; content: acp.ContentBlock[] }
  | { kind: "thought"; messageId?: string; content: acp.ContentBlock[] }
  /** A tool call: its latest fields and every update as it came. */
  | { kind: "toolCall"; toolCallId: string; call: { [key: string]: unknown }; updates: { [key: string]: unknown }[] }
  | { kind: "notice"; notice: { [key: string]: unknown } }
  | { kind: "compaction"; compactionId: string; compaction: { [key: string]: unknown }; summary: acp.ContentBlock[] }
  | { kind: "turnEnded"; stopReason: acp.StopReason }
  /** An update of a kind agentwire does not model, as it came. */
  | { kind: "other"; update: { [key: string]: unknown } };

export declare class AcpClient extends SansIoSession<AcpEvent, number> {
  constructor(options?: AcpClientOptions);
  static connect(transport: Transport, options?: AcpClientOptions & ConnectOptions & AcpHttpOptions): Promise<AcpConnection>;
  initialize(): Outbound;
  /** The session's transcript (a copy), kept from the events this client's calls returned. */
  transcript(sessionId: string): Transcript | undefined;
  /** The sessions this client keeps a transcript of, sorted. */
  sessionIds(): string[];
}
export declare class AcpAgent extends SansIoSession<AcpEvent, number> {
  constructor(options?: AcpAgentOptions);
  static connect(transport: Transport, options?: AcpAgentOptions & ConnectOptions): Promise<AcpAgentConnection>;
}
export declare class McpClient extends SansIoSession<McpEvent, string> {
  constructor(options?: McpClientOptions);
  /** An http(s) URL speaks Streamable HTTP (falling back to 2024-11-05 HTTP+SSE); ws(s) a WebSocket. */
  static connect(transport: Transport, options?: McpClientOptions & ConnectOptions & HttpOptions): Promise<McpConnection>;
  initialize(): Outbound;
}
export declare class McpServer extends SansIoSession<McpEvent, string> {
  constructor(options?: McpServerOptions);
  static connect(transport: Transport, options?: McpServerOptions & ConnectOptions): Promise<McpServerConnection>;
}
