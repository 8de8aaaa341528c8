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
import { openToolUi } from "./ui/app-view.js";
import { createAuthPanel } from "./ui/auth-panel.js";
import { createRawMode } from "./ui/raw-mode.js";
import { createTerminalHandlers, TERMINAL_METHODS } from "./ui/terminal.js";
import { methodSpec } from "./lib/spec.js";
import { createRecordings } from "./ui/recordings.js";

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
let lastConfig = null, lastNegotiated = null, lastState = null;   // the latest connection's, for a recording made after it closed

/** What a recording says about its connection: the peer, the versions offered and negotiated, both sides' capabilities. */
function recordingInfo() {
  const c = conn?.config ?? lastConfig;
  const state = conn ? safeState(conn.client) : lastState;
  return {
    agent: c?.transport === "http" ? c?.url : c?.agent, protocol: c?.protocol, transport: c?.transport, offered: c?.versions,
    negotiatedVersion: conn?.negotiated ?? lastNegotiated ?? null, clientInfo: c?.clientInfo,
    peerInfo: state?.peerInfo ?? null, ownCapabilities: state?.ownCapabilitiesWire ?? null, peerCapabilities: state?.peerCapabilitiesWire ?? null,
  };
}

function safeState(client) {
  try { return client.state ?? null; } catch { return null; }
}

initTheme($("#theme-toggle"));
const status = $("#connection-status");
const banner = createErrorBanner($("#error-root"));
const negotiation = createNegotiation($("#negotiation-root"));
const matrix = createCapabilityMatrix($("#matrix-root"));
const inspector = createInspector($("#inspector-root"), {
  specOf: (entry) => { const p = timeline.protocolNow(); return methodSpec(entry.channel?.protocol ?? p.protocol, entry.method ?? entry.inReplyTo, p.version); },
  onJump: (entry) => timeline.select(entry),
});
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
const mcpPanel = createMcpPanel($("#mcp-root"), {
  banner,
  // A tool's MCP App: its bridge's frames join the timeline on a channel of their own.
  onToolUi: (call) => openToolUi({ ...call, token, addFrame: (frame) => timeline.add(frame), note: (text) => stderr.note(text) }),
});
let forgetTokens = () => {};
const authPanel = createAuthPanel($("#auth-root"), { onForget: () => forgetTokens() });
const timeline = createTimeline($("#timeline-root"), {
  validate: validateFrame,
  onSelect: (entry, issues) => inspector.show(entry, issues),
  exportInfo: () => recordingInfo(),
  protocolOf: () => ({ protocol: (conn?.config ?? lastConfig)?.protocol ?? panel.config().protocol, version: conn?.negotiated ?? lastNegotiated }),
});
createRecordings($("#recordings-root"), { load: (rec, name) => timeline.load(rec, name), isConnected: () => conn !== null });
const raw = createRawMode($("#raw-root"), { validate: validateRaw, send: sendRaw, protocol: "acp" });
const panel = createConnectPanel($("#connect-root"), {
  token,
  preview: initializePreview,
  onConnect: connect,
  onDisconnect: disconnect,
  onError: (err) => banner.show("", err),
  onUnauthorized: () => banner.show("", new Error(relayTokenHelp(!!token))),
  onProtocol: showProtocol,
});

pkgReady.catch((err) => banner.show("The agentwire package did not load from /pkg/", err));

/**
 * The relay answers 401 when its token is missing or wrong: that is not an OAuth challenge.
 * What to tell the user, from whether this tab has a token at all.
 */
function relayTokenHelp(hasToken) {
  return `${hasToken ? "The relay refused this page's token (HTTP 401): it is not the relay's current token (was the relay restarted?)."
    : "This page has no relay token (HTTP 401 from the relay)."} Open the URL the relay printed when it started: "npm start" prints one line like http://127.0.0.1:8765/?token=…, and the token in it is the key. A new tab needs that URL again.`;
}

/** Whether a URL is the relay that serves this page (its /mcp/NAME endpoints take the relay's token, not OAuth). */
const isRelayUrl = (url) => { try { return new URL(url).origin === location.origin; } catch { return false; } };

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

/** Whether the relay answers 401 to this page's token. */
async function relayRefusesToken() {
  try { return (await fetch(`/api/agents?token=${encodeURIComponent(token)}`)).status === 401; } catch { return false; }
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
  let version = channel ? versionOfHandshake(message, inReplyTo) ?? channel.version() ?? "2025-11-25" : versionOf(message, inReplyTo);
  let protocol = channel?.protocol ?? conn.config.protocol;
  // An MCP App's bridge also carries MCP messages (tools/call, resources/read, logging): MCP's rules, the negotiated version.
  const method = message?.method ?? inReplyTo;
  if (protocol === "mcp-apps" && typeof method === "string" && !method.startsWith("ui/")) [protocol, version] = ["mcp", conn.negotiated];
  const v = validatorFor(protocol, version);
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

// The relay's side channel (the agent's stderr and exit, hosting the page's tools) goes only to
// a socket that offers this subprotocol; the library's own client asks for it the same way.
const RELAY_SUBPROTOCOL = "agentwire.relay";

function openSocket(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [RELAY_SUBPROTOCOL]);
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
    const declared = { "roots/list": config.caps.roots, "sampling/createMessage": config.caps.sampling, "elicitation/create": config.caps.elicitation || config.caps.elicitationUrl };
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
  // Nothing of an earlier connection stays: its transcript, session, stop reason, results, frames.
  banner.clear();
  negotiation.reset();
  matrix.reset();
  timeline.clear();
  stderr.reset();
  acpPanel.reset();
  mcpPanel.reset();
  authPanel.reset();
  lastConfig = config; lastNegotiated = null; lastState = null;
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
      if (isRelayUrl(config.url)) {
        // The relay's own endpoint: its token, never an OAuth discovery against the relay.
        const headers = { ...config.headers };
        const given = Object.keys(headers).some((k) => k.toLowerCase() === "authorization");
        if (!given && token) headers.Authorization = `Bearer ${token}`;
        client = await pkg.McpClient.connect(config.url, { ...clientOptions(config), headers });
      } else {
        const { browserAuth, canonicalResource } = await import("/pkg/auth.js");
        const auth = browserAuth({
          ...config.oauth, onStep: authPanel.step,
          redirectUrl: new URL("oauth-callback.html", location.href).href, clientMetadata: { client_name: "agentwire playground" },
        });
        forgetTokens = () => auth.saveTokens(undefined, canonicalResource(config.url));
        client = await pkg.McpClient.connect(config.url, { ...clientOptions(config), headers: config.headers, auth });
      }
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
    // A refused WebSocket says nothing about why: ask the relay whether the token is the reason.
    if (config.transport !== "http" && await relayRefusesToken()) banner.show("Could not connect", new Error(relayTokenHelp(!!token)));
    else banner.show("Could not connect", err);
    return;
  }

  let result;
  try {
    result = await client.initialize();
  } catch (err) {
    negotiation.failure({ offered: config.versions, answered: answeredVersion(), error: err });
    const relay401 = config.transport === "http" && isRelayUrl(config.url)
      && (timeline.entries().some((e) => e.http?.status === 401) || err?.data?.status === 401 || /\b401\b/.test(err?.message ?? ""));
    if (err?.code === (await pkgReady).codes.AUTH_FAILED && !relay401) authPanel.failed(err);
    if (relay401) banner.show("Initialize failed", new Error(relayTokenHelp(true).replace("this page's token", "the token sent (the Authorization header)")));
    else banner.show("Initialize failed", err);
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
  lastNegotiated = conn.negotiated;
  lastState = state;
  matrix.render({ state, methods: client.methods(), protocol: config.protocol, version: conn.negotiated, peerLabel: config.protocol === "acp" ? "agent" : "server" });
  setStatus(`${config.protocol.toUpperCase()} ${conn.negotiated} · ${config.transport === "http" ? new URL(config.url).host : config.agent}`, "ok");
  panel.setBusy(false);
  if (config.protocol === "acp") acpPanel.connected(client);
  else mcpPanel.connected(client, { roots: config.caps.roots, listChanged: config.caps.roots, sampling: config.caps.sampling, elicitation: config.caps.elicitation || config.caps.elicitationUrl });
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
