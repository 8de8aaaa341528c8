// `agentwire/acp`: ACP alone, with a .wasm built without MCP. The same classes as the full
// package (index.d.ts); its Validator knows ACP's versions only.
export { default, initSync, AcpClient, AcpAgent, Validator, parseMessage, serializeMessage, ProtocolError, codes } from "./index.js";
export type {
  acp, ErrorObject, RequestId, Meta, JsonValue, JsonObject, ParsedMessage, ParsedFrame, ParseOptions, Direction, Severity,
  IssueCode, Issue, Report, ValidatorOptions, Outbound, MethodStatus, AcpEvent, AcpCapabilitiesModel, SessionState,
  AcpClientOptions, AcpAgentOptions, RequestOptions, ConnectOptions, TransportLike, Transport, Frame, RelayEvent,
  Violation, CloseInfo, CallOptions, PromptOutcome, PromptTurn, AcpSession, AcpConnection, AcpAgentConnection,
  Transcript, TranscriptEntry, AcpHttpOptions, ReconnectOptions, ResumedSession, HttpFacts,
} from "./index.js";
