// agentwire/apps: an MCP Apps host (io.modelcontextprotocol/ui, 2026-01-26) for a page.
import type { McpConnection } from "./index.js";

export declare const APPS_EXTENSION: "io.modelcontextprotocol/ui";
export declare const RESOURCE_MIME_TYPE: "text/html;profile=mcp-app";
export declare const APPS_PROTOCOL_VERSION: "2026-01-26";

/** A tool as tools/list gives it (only what the host reads). */
export interface AppTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: object;
  _meta?: { ui?: { resourceUri?: string; visibility?: Array<"model" | "app"> }; "ui/resourceUri"?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ResourceCsp { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] }
export interface ResourcePermissions { camera?: {}; microphone?: {}; geolocation?: {}; clipboardWrite?: {} }

/** A JSON-RPC error object. */
export interface WireError { code: number; message: string; data?: unknown }
/** One frame across the boundary: `in` from the view, `out` to it; `error` when it was refused. */
export interface BridgeFrame { direction: "in" | "out"; message: unknown; error: WireError | null }

export interface RenderOptions {
  /** URL of the sandbox proxy page (js/sandbox.html) on an origin other than the page's. */
  sandbox: string | URL;
  container?: HTMLElement;
  /** The server's tools (for visibility); listed when absent. */
  tools?: AppTool[];
  hostInfo?: { name: string; version: string };
  hostContext?: Record<string, unknown>;
  maxHeight?: number;
  initialHeight?: number;
  onOpenLink?(url: string): unknown;
  onMessage?(params: { role: "user"; content: unknown[] }): unknown;
  onModelContext?(params: { content?: unknown[]; structuredContent?: Record<string, unknown> }): unknown;
  onDisplayMode?(mode: string): string | undefined | Promise<string | undefined>;
  onLog?(params: { level: string; logger?: string; data: unknown }): void;
  onSizeChange?(params: { width?: number; height?: number }): void;
  onRequestTeardown?(params: unknown): void;
  onFrame?(frame: BridgeFrame): void;
  /** The check of each frame: null, or the JSON-RPC error to answer with. `null` checks shape only. */
  validate?: ((frame: unknown, context: { from: "view" | "host"; inReplyTo?: string }) => WireError | null) | null;
}

export declare class AppView {
  readonly iframe: HTMLIFrameElement;
  readonly state: "loading" | "proxy-ready" | "initializing" | "ready" | "closed";
  readonly hostContext: Record<string, unknown>;
  /** Resolves once the view sent ui/notifications/initialized. */
  readonly ready: Promise<AppView>;
  appInfo?: { name: string; version: string };
  appCapabilities?: Record<string, unknown>;
  toolInput(args: Record<string, unknown>): void;
  toolInputPartial(args: Record<string, unknown>): void;
  toolResult(result: { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean }): void;
  toolCancelled(reason?: string): void;
  setHostContext(patch: Record<string, unknown>): void;
  /** Calls the tool with `args`, sending the view its input and then its result. */
  run(args?: Record<string, unknown>): Promise<unknown>;
  teardown(options?: { timeoutMs?: number }): Promise<void>;
}

export declare function appsCapability(options?: { mimeTypes?: string[] }): { extensions: Record<string, { mimeTypes: string[] }> };
export declare function toolResourceUri(tool: AppTool): string | undefined;
export declare function toolVisibility(tool: AppTool): Array<"model" | "app">;
/** The tools a model may be shown (app-only tools left out). */
export declare function modelTools<T extends AppTool>(tools: T[]): T[];
export declare function buildCsp(csp?: ResourceCsp): string;
export declare function allowAttribute(permissions?: ResourcePermissions): string;
export declare function renderApp(client: McpConnection, tool: AppTool, options: RenderOptions): Promise<AppView>;
