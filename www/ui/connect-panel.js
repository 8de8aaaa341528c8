// Connect panel: agent (or, for MCP, a server URL spoken to over Streamable HTTP, with an
// optional OAuth client), protocol,
// versions to offer, capabilities to declare (with a live preview of the first message, as
// the library writes it), clientInfo. Emits a config for the connection.
import { h, field, replace } from "../lib/dom.js";

export const ACP_VERSIONS = [2, 1];
export const MCP_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const ACP_CAPS = [
  { id: "cap-fs-read", key: "readTextFile", label: "fs.readTextFile", checked: true },
  { id: "cap-fs-write", key: "writeTextFile", label: "fs.writeTextFile", checked: true },
  { id: "cap-terminal", key: "terminal", label: "terminal", checked: false },
];
const MCP_CAPS = [
  { id: "cap-roots", key: "roots", label: "roots (listChanged)", checked: true },
  { id: "cap-sampling", key: "sampling", label: "sampling", checked: false },
  { id: "cap-elicitation", key: "elicitation", label: "elicitation (form)", checked: false },
  { id: "cap-elicitation-url", key: "elicitationUrl", label: "elicitation (url)", checked: false },
];

/** The capabilities option the library takes (the unified, boolean model for ACP). */
export function capabilitiesOption(protocol, caps) {
  if (protocol === "acp") {
    return { fs: { readTextFile: caps.readTextFile, writeTextFile: caps.writeTextFile }, terminal: caps.terminal };
  }
  const out = {};
  if (caps.roots) out.roots = { listChanged: true };
  if (caps.sampling) out.sampling = {};
  if (caps.elicitation || caps.elicitationUrl) {
    out.elicitation = {};
    if (caps.elicitation) out.elicitation.form = {};
    if (caps.elicitationUrl) out.elicitation.url = {};
  }
  return out;
}

/** Why the preview lacks what the boxes say, or null. */
function previewNote(protocol, versions, caps) {
  if (protocol === "acp" && versions.includes(2) && (caps.readTextFile || caps.writeTextFile || caps.terminal)) {
    return versions.includes(1)
      ? "v2 defines no fs or terminal client capabilities: they travel in the v1 shape (clientCapabilities), for a v1 agent"
      : "v2 defines no fs or terminal client capabilities: those boxes apply to v1 only";
  }
  return null;
}

export function createConnectPanel(root, { token, preview: writePreview, onConnect, onDisconnect, onError, onUnauthorized = onError, onProtocol }) {
  const agentSelect = h("select", { id: "agent-select", "data-testid": "agent-select" });
  const protocolRadios = ["acp", "mcp"].map((p) =>
    h("input", { type: "radio", name: "protocol", id: `protocol-${p}`, "data-testid": `protocol-${p}`, value: p, checked: p === "acp", onchange: refresh }));
  const versionBoxes = {
    acp: ACP_VERSIONS.map((v) => versionBox("acp", v)),
    mcp: MCP_VERSIONS.map((v) => versionBox("mcp", v)),
  };
  const capBoxes = {
    acp: ACP_CAPS.map(capBox),
    mcp: MCP_CAPS.map(capBox),
  };
  // MCP only: a relay agent, or a remote server's URL with optional headers.
  const transportRadios = ["relay", "http"].map((t) =>
    h("input", { type: "radio", name: "transport", id: `transport-${t}`, "data-testid": `transport-${t}`, value: t, checked: t === "relay", onchange: refresh }));
  const mcpUrl = h("input", { id: "mcp-url", "data-testid": "mcp-url", type: "url", placeholder: "https://example.com/mcp", oninput: refresh });
  const mcpHeaders = h("textarea", { id: "mcp-headers", "data-testid": "mcp-headers", rows: "2", placeholder: "Authorization: Bearer …", spellcheck: "false" });
  const transportBox = h("fieldset", { class: "inline", id: "mcp-transport" }, h("legend", {}, "MCP transport"),
    h("label", { class: "check" }, transportRadios[0], "relay agent"),
    h("label", { class: "check" }, transportRadios[1], "URL (Streamable HTTP)"));
  // A server that answers 401 gets an OAuth sign-in (a registered client unless one is named here).
  const oauthClientId = h("input", { id: "oauth-client-id", "data-testid": "oauth-client-id", placeholder: "registered at sign-in", spellcheck: "false" });
  const oauthClientSecret = h("input", { id: "oauth-client-secret", "data-testid": "oauth-client-secret", type: "password", autocomplete: "off" });
  const urlFields = h("div", { class: "stack", id: "mcp-url-fields" }, field("Server URL", mcpUrl), field("Headers (one per line)", mcpHeaders),
    h("details", { class: "oauth-client" }, h("summary", {}, "OAuth client (when the server asks for sign-in)"),
      h("div", { class: "grid-2" }, field("client_id", oauthClientId), field("client_secret", oauthClientSecret))));
  const agentField = field("Agent", agentSelect);
  const clientName = h("input", { id: "client-name", value: "agentwire-playground", required: true, oninput: refresh });
  const clientTitle = h("input", { id: "client-title", value: "agentwire playground", oninput: refresh });
  const clientVersion = h("input", { id: "client-version", value: "0.1.0", required: true, oninput: refresh });
  const timeout = h("input", { id: "timeout-ms", type: "number", min: "100", step: "100", value: "60000" });
  const preview = h("div", { id: "caps-preview", "data-testid": "caps-preview", class: "preview", "aria-live": "polite" });
  const hint = h("p", { class: "field-hint", id: "connect-hint", role: "status" });
  const connectBtn = h("button", { id: "connect-button", "data-testid": "connect-button", type: "submit", class: "primary" }, "Connect & initialize");
  const disconnectBtn = h("button", { id: "disconnect-button", "data-testid": "disconnect-button", type: "button", disabled: true, onclick: () => onDisconnect() }, "Disconnect");
  const fieldsets = {
    acp: h("fieldset", { class: "versions", id: "acp-options" },
      h("legend", {}, "ACP versions (preference order)"), versionBoxes.acp.map((b) => b.label),
      h("div", { class: "caps" }, h("span", { class: "field-label" }, "Client capabilities"), capBoxes.acp.map((b) => b.label))),
    mcp: h("fieldset", { class: "versions", id: "mcp-options" },
      h("legend", {}, "MCP versions (preference order)"), versionBoxes.mcp.map((b) => b.label),
      h("div", { class: "caps" }, h("span", { class: "field-label" }, "Client capabilities"), capBoxes.mcp.map((b) => b.label))),
  };

  const form = h("form", { id: "connect-form", class: "stack", onsubmit: submit },
    h("fieldset", { class: "inline" }, h("legend", {}, "Protocol"),
      protocolRadios.map((r) => h("label", { class: "check" }, r, r.value.toUpperCase()))),
    transportBox, agentField, urlFields,
    fieldsets.acp, fieldsets.mcp,
    h("details", { class: "client-info" }, h("summary", {}, "clientInfo and timeout"),
      h("div", { class: "grid-2" }, field("name", clientName), field("version", clientVersion),
        field("title", clientTitle), field("request timeout (ms)", timeout))),
    h("div", { class: "preview-wrap" }, h("span", { class: "field-label" }, "Initialize will declare"), preview),
    hint,
    h("div", { class: "row" }, connectBtn, disconnectBtn));
  replace(root, form);

  function versionBox(protocol, v) {
    const input = h("input", { type: "checkbox", id: `version-${v}`, "data-testid": `version-${v}`, value: String(v), checked: true, onchange: refresh });
    return { input, version: v, label: h("label", { class: "check" }, input, protocol === "acp" ? `v${v}` : v) };
  }
  function capBox(cap) {
    const input = h("input", { type: "checkbox", id: cap.id, "data-testid": cap.id, checked: cap.checked, onchange: refresh });
    return { input, key: cap.key, label: h("label", { class: "check" }, input, h("code", {}, cap.label)) };
  }

  const protocol = () => protocolRadios.find((r) => r.checked)?.value ?? "acp";
  const transport = () => (protocol() === "mcp" ? transportRadios.find((r) => r.checked)?.value ?? "relay" : "relay");

  /** `Name: value` lines → a headers object; a line without a colon is reported. */
  function headers() {
    const out = {};
    const bad = [];
    for (const line of mcpHeaders.value.split("\n").map((l) => l.trim()).filter(Boolean)) {
      const at = line.indexOf(":");
      if (at <= 0) bad.push(line);
      else out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    return { headers: out, bad };
  }

  function config() {
    const p = protocol();
    const caps = Object.fromEntries(capBoxes[p].map((b) => [b.key, b.input.checked]));
    const versions = versionBoxes[p].filter((b) => b.input.checked).map((b) => b.version);
    const clientInfo = { name: clientName.value.trim(), version: clientVersion.value.trim() };
    if (clientTitle.value.trim()) clientInfo.title = clientTitle.value.trim();
    const t = transport();
    return {
      agent: agentSelect.value, protocol: p, transport: t, url: mcpUrl.value.trim(), headers: headers().headers,
      oauth: { clientId: oauthClientId.value.trim() || undefined, clientSecret: oauthClientSecret.value || undefined },
      versions, caps, clientInfo,
      capabilities: capabilitiesOption(p, caps),
      requestTimeoutMs: Math.max(100, Number(timeout.value) || 60000),
    };
  }

  function problems(c) {
    const out = [];
    if (c.transport === "relay" && unauthorized) out.push(`${token ? "the relay refused this page's token" : "no relay token"}: open the URL the relay printed`);
    else if (c.transport === "relay" && !c.agent) out.push("no agent to connect to");
    if (c.transport === "http") {
      if (!/^https?:\/\/./i.test(c.url)) out.push("the server URL must start with http:// or https://");
      const { bad } = headers();
      if (bad.length) out.push(`a header line needs a colon: ${bad[0]}`);
    }
    if (c.versions.length === 0) out.push("offer at least one version");
    if (!c.clientInfo.name || !c.clientInfo.version) out.push("clientInfo needs a name and a version");
    return out;
  }

  // The first message exactly as the library will send it, written by the library.
  let previewed = 0;
  async function showPreview(c) {
    const mine = ++previewed;
    if (c.versions.length === 0) return replace(preview, h("p", { class: "muted" }, "no version offered"));
    let shown;
    try {
      const first = await writePreview(c);
      const version = first.params?.protocolVersion ?? first.params?._meta?.["io.modelcontextprotocol/protocolVersion"] ?? "";
      shown = h("div", { class: "preview-item", "data-version": String(version) },
        h("span", { class: "badge" }, `${first.method} · ${c.protocol === "acp" ? `v${version}` : version}`),
        h("pre", { class: "json small" }, JSON.stringify(first.params ?? {}, null, 2)),
        h("p", { class: "field-hint" }, previewNote(c.protocol, c.versions, c.caps) ?? ""));
    } catch (err) {
      shown = h("p", { class: "muted" }, `cannot write it: ${err.message}`);
    }
    if (mine === previewed) replace(preview, shown);
  }

  let connected = false;
  let unauthorized = false;
  function refresh() {
    const c = config();
    fieldsets.acp.hidden = c.protocol !== "acp";
    fieldsets.mcp.hidden = c.protocol !== "mcp";
    transportBox.hidden = c.protocol !== "mcp";
    agentField.hidden = c.transport !== "relay";
    urlFields.hidden = c.transport !== "http";
    if (!connected) onProtocol?.(c.protocol);
    showPreview(c);
    const issues = problems(c);
    hint.textContent = issues.join("; ");
    connectBtn.disabled = connected || issues.length > 0;
  }

  async function submit(event) {
    event.preventDefault();
    const c = config();
    if (problems(c).length) return;
    onConnect(c);
  }

  async function loadAgents() {
    try {
      const res = await fetch(`/api/agents?token=${encodeURIComponent(token)}`);
      if (res.status === 401) {
        // The relay's token is missing or wrong: say what to do, not the status code.
        unauthorized = true;
        onUnauthorized();
        refresh();
        return;
      }
      if (!res.ok) throw new Error(`the relay answered ${res.status} ${res.statusText} to /api/agents`);
      const { agents = [] } = await res.json();
      replace(agentSelect, agents.map((a) => h("option", { value: a.name, selected: !!a.default }, a.name)));
      if (agents.length === 0) onError(new Error("the relay lists no agents"));
    } catch (err) {
      onError(new Error(`could not list agents: ${err.message}`));
    }
    refresh();
  }

  refresh();
  loadAgents();

  return {
    config,
    setConnected(value) {
      connected = value;
      for (const el of form.querySelectorAll("input, select, textarea")) el.disabled = value;
      disconnectBtn.disabled = !value;
      refresh();
    },
    setBusy(busy) { connectBtn.disabled = busy || connected; connectBtn.setAttribute("aria-busy", String(busy)); },
  };
}
