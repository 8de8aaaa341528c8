// The hand-shaped payload types (js/protocol.d.ts) against the generated schema types
// (js/schema.d.ts): everything a schema allows is accepted by the type agentwire hands out,
// and the method maps name every method the schemas define. A new update kind, content
// block or method upstream (regenerated with `cargo run -p agentwire-gen`) fails this compile
// until protocol.d.ts follows.
import type { acp, mcp, schema } from "agentwire";

type Assert<T extends true> = T;
/** Every A is a B. */
type Accepts<B, A> = [A] extends [B] ? true : false;

// ACP payloads: v1's hand-shaped types accept everything v1's schema allows (v2's known
// kinds come from its schema types directly).
export type AcpAgrees = [
  Assert<Accepts<acp.SessionUpdate, schema.acp.v1.SessionUpdate>>,
  Assert<Accepts<acp.ContentBlock, schema.acp.v1.ContentBlock>>,
  Assert<Accepts<acp.StopReason, schema.acp.v1.StopReason>>,
  Assert<Accepts<acp.ToolCallContent, schema.acp.v1.ToolCallContent>>,
  Assert<Accepts<acp.RequestPermissionResponse, schema.acp.v1.RequestPermissionResponse>>,
  Assert<Accepts<acp.PermissionOption, schema.acp.v1.PermissionOption>>,
  Assert<Accepts<acp.McpServer, schema.acp.v1.McpServer>>,
  Assert<Accepts<acp.PlanEntry, schema.acp.v1.PlanEntry>>,
];

// Every method a schema defines is in agentwire's maps, on the side that serves it.
type SentBy<M, From extends string> = { [K in keyof M]: M[K] extends { from: From | "both" } ? K : never }[keyof M];
type AcpServedByAgent = keyof acp.AgentRequests | keyof acp.AgentNotifications | "$/cancel_request";
type AcpServedByClient = keyof acp.ClientRequests | keyof acp.ClientNotifications | "$/cancel_request";
export type AcpMethods = [
  Assert<Accepts<AcpServedByAgent, SentBy<schema.acp.v1.Requests & schema.acp.v1.Notifications, "client">>>,
  Assert<Accepts<AcpServedByAgent, SentBy<schema.acp.v2.Requests & schema.acp.v2.Notifications, "client">>>,
  Assert<Accepts<AcpServedByClient, SentBy<schema.acp.v1.Requests & schema.acp.v1.Notifications, "agent">>>,
  Assert<Accepts<AcpServedByClient, SentBy<schema.acp.v2.Requests & schema.acp.v2.Notifications, "agent">>>,
];

// MCP payloads of the newest version and the last of the handshake era.
export type McpAgrees = [
  Assert<Accepts<mcp.ContentBlock, schema.mcp.v2025_11_25.ContentBlock>>,
  Assert<Accepts<mcp.LoggingLevel, schema.mcp.v2026_07_28.LoggingLevel>>,
  Assert<Accepts<mcp.ProtocolVersion, schema.mcp.v2025_11_25.InitializeResult["protocolVersion"]>>,
];

// The generated maps type a request's params and result by method.
type ParamsOf<M extends keyof schema.mcp.v2026_07_28.Requests> = schema.mcp.v2026_07_28.Requests[M]["params"];
export const call: ParamsOf<"tools/call"> = { name: "echo", arguments: { text: "hi" }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } as never };
// @ts-expect-error: `name` is required
export const bad: ParamsOf<"tools/call"> = { arguments: {} };
