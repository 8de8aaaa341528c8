// A TypeScript consumer of every public class, compiled with `tsc --strict --noEmit` by
// tests/package/package.test.mjs against the packed tarball: the types must be precise enough
// for this to compile without a cast, and the wrong uses below must stay errors.
import init, {
  AcpClient, AcpAgent, McpClient, McpServer, Validator, AppsValidator, ProtocolError, codes, parseMessage, serializeMessage,
  type FrameError, type AcpEvent, type McpEvent, type Report, type acp, type mcp, type MethodStatus, type Transcript,
} from "agentwire";
import { browserAuth, completeAuthorization, storedAuth, memoryStorage, redact, type OAuthStep } from "agentwire/auth";
import { loopbackAuth } from "agentwire/auth-node";

export async function ide(url: string): Promise<acp.StopReason | undefined> {
  await init();
  const conn = await AcpClient.connect(url, {
    clientInfo: { name: "ide", version: "1.0.0" },
    capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    protocolVersions: [2, 1],
    requestTimeoutMs: 60_000,
  });
  conn.onRequest("fs/read_text_file", async (p) => ({ content: `file ${p.path}` }));
  conn.onRequest("session/request_permission", (p) => ({ outcome: { outcome: "selected", optionId: p.options[0].optionId } }));
  conn.onRelay((e) => console.log(e.event));
  conn.onViolation((v) => v.issues.forEach((i) => console.log(i.path, i.code, i.severity)));
  conn.onClose(({ code, error }) => console.log(code, error.code));
  const res: acp.InitializeResponse = await conn.initialize();
  const version: number = res.protocolVersion;
  const session = await conn.newSession({ cwd: "/home/me/project", mcpServers: [] });
  session.onUpdate((u: acp.SessionUpdate) => {
    if (u.sessionUpdate === "agent_message_chunk") console.log(u.content);
  });
  const methods: MethodStatus[] = conn.methods();
  console.log(version, methods.filter((m) => !m.enabled).map((m) => m.reason));
  const t: Transcript = session.transcript();
  console.log(t.entries.length);
  const turn = session.prompt([{ type: "text", text: "hi" }], { signal: AbortSignal.timeout(5000) });
  const ack = await turn.accepted;
  console.log(ack.messageId);
  const { stopReason } = await turn;
  await session.cancel();
  return stopReason;
}

export async function host(url: string): Promise<string[]> {
  const mcpConn = await McpClient.connect(url, { clientInfo: { name: "host", version: "1" }, protocolVersions: ["2025-11-25"] });
  const info: mcp.InitializeResult = await mcpConn.initialize();
  console.log(info.serverInfo.name);
  const { tools } = await mcpConn.listTools();
  const result: mcp.CallToolResult = await mcpConn.callTool(tools[0].name, { text: "x" }, { timeoutMs: 1000 });
  console.log(result.isError);
  return tools.map((tool: mcp.Tool) => tool.name);
}

export async function remote(): Promise<void> {
  const conn = await McpClient.connect("https://example.com/mcp", {
    clientInfo: { name: "host", version: "1" },
    headers: { authorization: "Bearer t" },
    maxBytes: 1 << 20,
    legacy: false,
    authorize: async ({ status }) => (status === 401 ? { headers: { authorization: "Bearer fresh" } } : undefined),
  });
  conn.onFrame((f) => {
    if (f.http) console.log(f.http.method, f.http.status ?? "", f.http.stream, f.http.eventId ?? "", f.http.synthesized === true);
  });
  const code: -32097 = codes.HTTP_ERROR;
  console.log(code);
  let saved: { access_token: string; refresh_token?: string } | undefined;
  await McpClient.connect("https://example.com/mcp", {
    auth: {
      redirectUrl: "https://ide.example/callback",
      clientMetadata: { client_name: "ide", redirect_uris: ["https://ide.example/callback"] },
      clientInformation: () => ({ client_id: "pre-registered" }),
      tokens: () => saved,
      saveTokens: (t) => { saved = t; },
      redirectToAuthorization: async (url) => ({ code: new URL(url).searchParams.get("state"), state: "s" }),
    },
  });
  const failed: -32096 = codes.AUTH_FAILED;
  console.log(failed);
}

export function sansIo(frame: string): void {
  const c = new AcpClient({ protocolVersions: [1] });
  const out = c.initialize();
  const text: string = out.text;
  const events: AcpEvent[] = c.receive(frame);
  for (const e of events) if (e.type === "send") console.log(e.text, text);
  const agent = new AcpAgent({ agentInfo: { name: "a", version: "1" }, negotiation: "draft" });
  agent.receive(text);
  const server = new McpServer({ serverInfo: { name: "s", version: "1" }, capabilities: { tools: {} } });
  const evs: McpEvent[] = server.receive(frame);
  console.log(evs.length, new McpClient().state().offered);
  const v = new Validator({ protocol: "mcp", version: "2025-11-25" });
  const report: Report = v.validate(frame, { direction: "serverToClient", inReplyTo: "tools/list" });
  console.log(report.ok, parseMessage(frame).kind, serializeMessage({ id: 1, result: null }));
  try {
    c.request("session/load", {});
  } catch (e) {
    if (e instanceof ProtocolError && e.code === codes.LOCAL_REFUSAL) console.log(e.data);
  }
  // @ts-expect-error: protocol must be "acp" or "mcp"
  new Validator({ protocol: "lsp", version: "1" });
  // @ts-expect-error: a prompt is content blocks, not a string
  void ({} as import("agentwire").AcpSession).prompt("hi");
}

// OAuth: the ready providers plug into McpClient.connect; steps are typed.
export async function signIn(url: string): Promise<string[]> {
  const steps: OAuthStep[] = [];
  const page = browserAuth({ clientMetadata: { client_name: "ide" }, onStep: (s) => steps.push(s), mode: "popup" });
  await McpClient.connect(url, { clientInfo: { name: "ide", version: "1" }, auth: page });
  const node = await loopbackAuth({ open: async () => ({ code: "c", state: "s" }) });
  const own = storedAuth(memoryStorage(), { redirectUrl: node.redirectUrl, clientId: "pre-registered" });
  own.redirectToAuthorization = async () => "code";
  await McpClient.connect(url, { clientInfo: { name: "ide", version: "1" }, auth: own });
  await node.close();
  // @ts-expect-error: the mode is popup or redirect
  browserAuth({ mode: "tab" });
  const shown: { code: string } = redact({ code: "secret" });
  return [...steps.map((s) => s.step), String(completeAuthorization({ close: false }).ok), shown.code];
}

// A page's own MCP server for the agent: the entry goes into newSession as it is.
export async function pageTools(url: string): Promise<string> {
  const acp = await AcpClient.connect(url, { clientInfo: { name: "ide", version: "1" } });
  await acp.initialize();
  const entry = await acp.hostMcpServer({
    name: "page", capabilities: { tools: {} },
    setup: (server) => { server.onRequest("tools/list", () => ({ tools: [] })); },
  });
  const session = await acp.newSession({ cwd: "/", mcpServers: [entry] });
  // @ts-expect-error: the route is auto, acp or http
  await acp.hostMcpServer({ route: "ws" });
  return entry.type === "http" ? entry.url : entry.serverId + session.id;
}

// MCP Apps: a frame from the View, judged before the host sees it; the error is what to answer.
export function bridgeFrame(data: object, post: (message: object) => void): boolean {
  const frames = new AppsValidator({ mcpVersion: "2025-11-25" });
  const error: FrameError | null = frames.validateFrame(data, { from: "view" });
  if (error && "id" in error) post({ jsonrpc: "2.0", id: error.id, error: { code: error.code, message: error.message, data: error.data } });
  const apps = new Validator({ protocol: "mcp-apps", version: "2026-01-26" });
  // @ts-expect-error: a frame comes from the view or the host
  frames.validateFrame(data, { from: "iframe" });
  return error === null && apps.validate(data, { direction: "clientToServer" }).ok && frames.inFlight("host") === 0;
}
