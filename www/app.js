// The playground's wiring: loads the agentwire package, connects through the relay, and
// routes what the library reports to the panels. Everything protocol-related goes through the
// package's public API (AcpClient, McpClient, Validator).
import { $, describeError } from "./lib/dom.js";
import { initTheme } from "./lib/theme.js";
import { createConnectPanel } from "./ui/connect-panel.js";
import { createErrorBanner } from "./ui/error-banner.js";
import { createNegotiation } from "./ui/negotiation.js";
import { createCapabilityMatrix } from "./ui/capability-matrix.js";
import { createTimeline } from "./ui/timeline.js";
import { createInspector } from "./ui/inspector.js";
import { createStderrPane } from "./ui/stderr-pane.js";
import { createFileTree } from "./ui/file-tree.js";
import { createPermissionDialog } from "./ui/permission-dialog.js";
import { createTranscript } from "./ui/transcript.js";
import { createAcpPanel } from "./ui/acp-panel.js";
import { createMcpPanel } from "./ui/mcp-panel.js";
import { createAuthPanel } from "./ui/auth-panel.js";
import { createRawMode } from "./ui/raw-mode.js";
import { createTerminalHandlers, TERMINAL_METHODS } from "./ui/terminal.js";

const token = takeToken();

/** The relay's token: read from the address once, then removed from it (and so from the
 * history) and kept in sessionStorage, where a reload of this tab finds it. */
function takeToken() {
  const url = new URL(location.href);
  const given = url.searchParams.get("token");
  if (given) {
    sessionStorage.setItem("agentwire-token", given);
    url.searchParams.delete("token");
    history.replaceState(history.state, "", url);
  }
  return given ?? sessionStorage.getItem("agentwire-token") ?? "";
}

// The package loads in parallel with the page; a failure is shown, not thrown.
const pkgReady = import("/pkg/index.js").then(async (mod) => { await mod.default(); return mod; });

let conn = null;   // { client, ws, config, negotiated, userClosed }

initTheme($("#theme-toggle"));
const status = $("#connection-status");
const banner = createErrorBanner($("#error-root"));
const negotiation = createNegotiation($("#negotiation-root"));
const matrix = createCapabilityMatrix($("#matrix-root"));
const inspector = createInspector($("#inspector-root"));
const stderr = createStderrPane($("#stderr-root"));
const files = createFileTree($("#files-root"));
const transcript = createTranscript($("#transcript-root"));
const permission = createPermissionDialog($("#dialog-root"), { toolCallData: transcript.toolCallData });
const acpPanel = createAcpPanel($("#acp-root"), {
  transcript, files, permission, banner,
  // The page's own MCP server (page tools): its frames join the timeline on a channel of their own.
  onHostedFrame: (frame, { label, session, server }) => timeline.add({ ...frame, channel: {
    label, session, protocol: "mcp", role: "server", version: () => server.state?.protocolVersion } }),
});
const mcpPanel = createMcpPanel($("#mcp-root"), { banner });
let forgetTokens = () => {};
const authPanel = createAuthPanel($("#auth-root"), { onForget: () => forgetTokens() });
const timeline = createTimeline($("#timeline-root"), {
  validate: validateFrame,
  onSelect: (entry, issues) => inspector.show(entry, issues),
  exportInfo: () => ({
    agent: conn?.config.agent, protocol: conn?.config.protocol, offered: conn?.config.versions,
    negotiatedVersion: conn?.negotiated ?? null, clientInfo: conn?.config.clientInfo,
  }),
});
const raw = createRawMode($("#raw-root"), { validate: validateRaw, send: sendRaw, protocol: "acp" });
const panel = createConnectPanel($("#connect-root"), {
  token,
  preview: initializePreview,
  onConnect: connect,
  onDisconnect: disconnect,
  onError: (err) => banner.show("", err),
  onProtocol: showProtocol,
});

pkgReady.catch((err) => banner.show("The agentwire package did not load from /pkg/", err));
if (!token) banner.show("", new Error("this page's URL has no ?token=…; open the URL the relay printed"));

/** The library's options for a connect-panel config. */
function clientOptions(config) {
  return {
    clientInfo: config.clientInfo,
    capabilities: config.capabilities,
    protocolVersions: config.versions,
    requestTimeoutMs: config.requestTimeoutMs,
  };
}

/** Exactly what the first request of a connection will carry: a sans-IO client of the same
 * options writes it (the playground does not rebuild the wire shape itself). */
async function initializePreview(config) {
  const pkg = await pkgReady;
  const Client = config.protocol === "acp" ? pkg.AcpClient : pkg.McpClient;
  const client = new Client(clientOptions(config));
  try {
    return JSON.parse(client.initialize().text);
  } finally {
    client.free();
  }
}

function setStatus(text, kind = "") {
  status.textContent = text;
  status.className = `status ${kind}`;
}

function showProtocol(protocol) {
  for (const el of document.querySelectorAll("[data-protocol]")) el.hidden = el.dataset.protocol !== protocol;
  raw.setProtocol(protocol);
}

// --- validation of every frame -------------------------------------------------------------

function validatorFor(protocol, version) {
  const key = `${protocol}:${version}`;
  conn.validators ??= new Map();
  if (!conn.validators.has(key)) {
    try { conn.validators.set(key, new conn.pkg.Validator({ protocol, version: String(version) })); }
    catch (err) { conn.validators.set(key, err); }
  }
  const v = conn.validators.get(key);
  if (v instanceof Error) throw v;
  return v;
}

/** Which version a frame is checked against: what it carries during initialize, else the negotiated one. */
function versionOf(message, inReplyTo) {
  return versionOfHandshake(message, inReplyTo) ?? conn.negotiated ?? conn.config.versions[0];
}

/** The version an initialize request or its answer names, if the frame is one. */
function versionOfHandshake(message, inReplyTo) {
  if (message?.method === "initialize" && message.params?.protocolVersion !== undefined) return message.params.protocolVersion;
  if (inReplyTo === "initialize" && message?.result?.protocolVersion !== undefined) return message.result.protocolVersion;
  return undefined;
}

function validateFrame(text, { direction, inReplyTo, message, channel }) {
  if (!conn) return null;
  // A channel (page tools) has its own protocol, version and role: there the page is the server.
  const version = channel ? versionOfHandshake(message, inReplyTo) ?? channel.version() ?? "2025-11-25" : versionOf(message, inReplyTo);
  const v = validatorFor(channel?.protocol ?? conn.config.protocol, version);
  const sentByClient = (direction === "out") === (channel?.role !== "server");
  const opts = { direction: sentByClient ? "clientToServer" : "serverToClient" };
  if (inReplyTo) opts.inReplyTo = inReplyTo;
  return v.validate(text, opts);
}

function validateRaw(text) {
  if (!conn) return null;
  // A hand-written response answers a request the peer sent: find which one.
  const message = JSON.parse(text);
  let inReplyTo = null;
  if (message && !("method" in message) && "id" in message) {
    inReplyTo = timeline.entries().find((e) => e.direction === "in" && e.kind === "request" && e.id === message.id)?.method ?? null;
  }
  return validateFrame(text, { direction: "out", inReplyTo, message });
}

function sendRaw(text) {
  if (!conn?.ws) throw new Error(conn ? "raw frames go through the relay's WebSocket; this connection is HTTP" : "not connected");
  if (conn.ws.readyState !== WebSocket.OPEN) throw new Error("not connected");
  conn.ws.send(text);
  timeline.add({ direction: "out", text, time: Date.now(), raw: true });
}

// --- connection ----------------------------------------------------------------------------

function wsUrl(agent) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // frames=binary: the agent's lines come as bytes, which the session reads without a detour
  // through a JS string (the relay's own events stay text frames).
  return `${scheme}://${location.host}/ws?token=${encodeURIComponent(token)}&agent=${encodeURIComponent(agent)}&frames=binary`;
}

function openSocket(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const fail = (why) => () => reject(new Error(`could not open the relay's WebSocket for agent "${new URL(url).searchParams.get("agent")}" (${why})`));
    ws.addEventListener("open", () => resolve(ws), { once: true });
    ws.addEventListener("error", fail("connection refused or rejected"), { once: true });
    ws.addEventListener("close", (e) => fail(`closed with ${e.code}${e.reason ? ` ${e.reason}` : ""}`)(), { once: true });
  });
}

function safely(what, fn) {
  try { fn(); } catch (err) { stderr.note(`${what}: ${describeError(err)}`); }
}

function wire(client, config) {
  client.onFrame((frame) => {
    timeline.add(frame);
    if (config.protocol === "acp") acpPanel.frame(frame);
  });
  // The page tools' MCP traffic rides the side channel; the timeline shows it as frames.
  client.onRelay((event) => {
    if (event?.event === "mcp" || event?.event === "mcpEnded") return;
    stderr.relay(event);
  });
  client.onViolation((v) => timeline.violation(v));
  client.onClose((info) => closed(client, info));
  if (config.protocol === "acp") {
    const log = (text) => stderr.note(`client: ${text}`);
    // Handlers only for what we declared: the library answers undeclared methods itself.
    if (config.caps.readTextFile) safely("fs/read_text_file handler", () => client.onRequest("fs/read_text_file", async (p) => files.read(p)));
    if (config.caps.writeTextFile) safely("fs/write_text_file handler", () => client.onRequest("fs/write_text_file", async (p) => files.write(p)));
    safely("permission handler", () => client.onRequest("session/request_permission", (p) => permission.ask(p)));
    if (config.caps.terminal) {
      const terminal = createTerminalHandlers({ log });
      for (const method of TERMINAL_METHODS) safely(`${method} handler`, () => client.onRequest(method, terminal[method]));
    }
  } else {
    const declared = { "roots/list": config.caps.roots, "sampling/createMessage": config.caps.sampling, "elicitation/create": config.caps.elicitation };
    for (const [method, handler] of Object.entries(mcpPanel.handlers)) {
      if (declared[method]) safely(`${method} handler`, () => client.onRequest(method, handler));
    }
    client.onNotification((method, params) => mcpPanel.notification(method, params));
  }
}

/** The version the peer answered, read from the initialize response in the timeline. */
function answeredVersion() {
  const reply = timeline.entries().find((e) => e.direction === "in" && e.inReplyTo === "initialize");
  const m = reply?.message;
  return m?.result?.protocolVersion ?? m?.error?.data?.supported ?? undefined;
}

async function connect(config) {
  if (conn) return;
  banner.clear();
  negotiation.reset();
  matrix.reset();
  timeline.clear();
  stderr.reset();
  panel.setBusy(true);
  showProtocol(config.protocol);
  setStatus("connecting…", "busy");
  let client = null;
  try {
    const pkg = await pkgReady;
    let ws = null;
    if (config.transport === "http") {
      // A remote MCP server over Streamable HTTP: the library speaks it; no relay involved.
      // A 401 starts an OAuth sign-in in a popup (oauth-callback.html), each step in the auth panel.
      const { browserAuth, canonicalResource } = await import("/pkg/auth.js");
      authPanel.reset();
      const auth = browserAuth({
        ...config.oauth, onStep: authPanel.step,
        redirectUrl: new URL("oauth-callback.html", location.href).href, clientMetadata: { client_name: "agentwire playground" },
      });
      forgetTokens = () => auth.saveTokens(undefined, canonicalResource(config.url));
      client = await pkg.McpClient.connect(config.url, { ...clientOptions(config), headers: config.headers, auth });
    } else {
      ws = await openSocket(wsUrl(config.agent));
      const Client = config.protocol === "acp" ? pkg.AcpClient : pkg.McpClient;
      client = await Client.connect(ws, clientOptions(config));
    }
    conn = { client, ws, pkg, config, negotiated: null, userClosed: false };
    wire(client, config);
    panel.setConnected(true);
    setStatus("initializing…", "busy");
  } catch (err) {
    panel.setBusy(false);
    setStatus("disconnected");
    banner.show("Could not connect", err);
    return;
  }

  let result;
  try {
    result = await client.initialize();
  } catch (err) {
    negotiation.failure({ offered: config.versions, answered: answeredVersion(), error: err });
    if (err?.code === (await pkgReady).codes.AUTH_FAILED) authPanel.failed(err);
    banner.show("Initialize failed", err);
    setStatus("initialize failed", "bad");
    disconnect();
    return;
  }
  const state = client.state ?? {};
  conn.negotiated = state.protocolVersion ?? result?.protocolVersion;
  negotiation.result({
    offered: state.offered ?? config.versions, answered: result?.protocolVersion,
    chosen: conn.negotiated, peerInfo: state.peerInfo ?? result?.agentInfo ?? result?.info ?? result?.serverInfo,
  });
  matrix.render({ state, methods: client.methods(), peerLabel: config.protocol === "acp" ? "agent" : "server" });
  setStatus(`${config.protocol.toUpperCase()} ${conn.negotiated} · ${config.transport === "http" ? new URL(config.url).host : config.agent}`, "ok");
  panel.setBusy(false);
  if (config.protocol === "acp") acpPanel.connected(client);
  else mcpPanel.connected(client);
}

function disconnect() {
  if (!conn) return;
  conn.userClosed = true;
  const { client } = conn;
  try { client.close(); } catch { /* already closed */ }
  closed(client, null);
}

function closed(client, info) {
  if (!conn || conn.client !== client) return;
  const { userClosed } = conn;
  conn = null;
  panel.setConnected(false);
  panel.setBusy(false);
  acpPanel.disconnected();
  mcpPanel.disconnected();
  if (!status.classList.contains("bad")) setStatus("disconnected");
  if (info) stderr.note(`connection closed${info.code != null ? ` (${info.code}${info.reason ? ` ${info.reason}` : ""})` : ""}`);
  if (!userClosed && info?.error) banner.show("Connection closed", info.error);
}
