// `agentwire/mcp`: MCP alone (with its Streamable HTTP client), with a .wasm built without
// ACP. The same classes as the full package (index.d.ts); its Validator knows MCP's versions only.
export { default, initSync, McpClient, McpServer, Validator, AppsValidator, parseMessage, serializeMessage, ProtocolError, codes } from "./index.js";
export type {
  mcp, ErrorObject, RequestId, Meta, JsonValue, JsonObject, ParsedMessage, ParsedFrame, ParseOptions, Direction, Severity,
  IssueCode, Issue, Report, ValidatorOptions, FrameError, Outbound, MethodStatus, McpEvent, SessionState, McpClientOptions,
  McpServerOptions, RequestOptions, ConnectOptions, OAuthProvider, OAuthPending, OAuthAnswer, OAuthStep, OAuthClient,
  OAuthTokens, HttpOptions, HttpFacts, TransportLike, Transport, Frame, RelayEvent, Violation, CloseInfo, CallOptions,
  ProgressEvent, McpConnection, McpServerConnection,
} from "./index.js";
