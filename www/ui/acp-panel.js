// ACP session flows: session/new (cwd + MCP servers), session/load with the replay rendered as
// it streams, session/prompt (text, resource links, and image/audio/embedded resources when the
// agent allows them), session/cancel.
import { h, replace, field, setEnabled, describeError } from "../lib/dom.js";
import { peerHas, gate } from "../lib/caps.js";
import { tryParse } from "../lib/json-view.js";
import { createMcpServerEditor } from "./mcp-server-editor.js";
import { createPageTools } from "./page-tools.js";
import { DEFAULT_ROOT } from "./file-tree.js";

const isAbsolute = (p) => p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p);

export function createAcpPanel(root, { transcript, files, permission, banner, onHostedFrame }) {
  let client = null;
  let session = null;
  let lastSessionId = "";
  let loading = null;           // { sessionId, replayed } while session/load is pending
  let prompting = false;
  let attachments = [];
  let allow = { image: false, audio: false, embeddedContext: false };

  // --- session setup
  const cwd = h("input", { id: "session-cwd", "data-testid": "session-cwd", value: DEFAULT_ROOT, required: true, oninput: refresh, "aria-describedby": "cwd-error" });
  const cwdError = h("span", { id: "cwd-error", class: "field-error", "aria-live": "polite" });
  const serversRoot = h("div");
  const servers = createMcpServerEditor(serversRoot, { onChange: refresh });
  const pageToolsRoot = h("div");
  let pageTools = null;
  pageTools = createPageTools(pageToolsRoot, {
    onChange: () => pageTools && refresh(),
    onFrame: (frame, channel) => onHostedFrame?.(frame, channel),
    onCall: ({ name, args, text, ok }) => transcript.note(`page tool ${name}(${JSON.stringify(args ?? {})}) ${ok ? "answered" : "failed"}: ${text}`),
  });
  const newBtn = h("button", { type: "button", id: "new-session-button", "data-testid": "new-session-button", class: "primary", onclick: newSession }, "New session");
  const loadId = h("input", { id: "load-session-id", "data-testid": "load-session-id", placeholder: "session id", "aria-label": "Session id to load", oninput: refresh });
  const loadBtn = h("button", { type: "button", id: "load-session-button", "data-testid": "load-session-button", onclick: loadSession }, "Load session");
  const sessionOut = h("output", { id: "session-id", "data-testid": "session-id", class: "mono" }, "no session");

  // --- prompt composer
  const input = h("textarea", { id: "prompt-input", "data-testid": "prompt-input", rows: "3", placeholder: "Ask the agent… (Ctrl+Enter sends)", onkeydown: (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send(); } }, oninput: refresh });
  const attachList = h("ul", { id: "prompt-attachments", class: "attachments", "aria-label": "Attachments" });
  const linkUri = h("input", { id: "resource-link-uri", placeholder: "file:///home/user/project/README.md", "aria-label": "Resource link URI" });
  const linkBtn = h("button", { type: "button", id: "add-resource-link", "data-testid": "add-resource-link", onclick: addLink }, "+ Link");
  const imageFile = h("input", { type: "file", accept: "image/*", id: "add-image-file", class: "visually-hidden", tabindex: "-1", onchange: (e) => addBinary(e, "image") });
  const audioFile = h("input", { type: "file", accept: "audio/*", id: "add-audio-file", class: "visually-hidden", tabindex: "-1", onchange: (e) => addBinary(e, "audio") });
  const imageBtn = h("button", { type: "button", id: "add-image", "data-testid": "add-image", onclick: () => imageFile.click() }, "+ Image");
  const audioBtn = h("button", { type: "button", id: "add-audio", "data-testid": "add-audio", onclick: () => audioFile.click() }, "+ Audio");
  const resourceBtn = h("button", { type: "button", id: "add-resource", "data-testid": "add-resource", onclick: addEmbedded }, "+ Embed open file");
  const sendBtn = h("button", { type: "button", id: "send-button", "data-testid": "send-button", class: "primary", onclick: send }, "Send");
  const cancelBtn = h("button", { type: "button", id: "cancel-button", "data-testid": "cancel-button", class: "danger", onclick: cancel }, "Cancel turn");
  const stopOut = h("output", { id: "stop-reason", "data-testid": "stop-reason", class: "muted" });

  replace(root,
    h("div", { class: "stack" },
      h("div", { class: "grid-2" },
        h("div", { class: "stack" }, field("cwd (absolute)", cwd), cwdError),
        h("div", { class: "stack" }, h("span", { class: "field-label" }, "Current session"), sessionOut)),
      serversRoot, pageToolsRoot,
      h("div", { class: "row wrap" }, newBtn, loadId, loadBtn)),
    h("div", { class: "composer stack", role: "group", "aria-label": "Prompt" },
      h("label", { for: "prompt-input", class: "field-label" }, "Prompt"), input, attachList,
      h("div", { class: "row wrap" }, linkUri, linkBtn, imageBtn, imageFile, audioBtn, audioFile, resourceBtn),
      h("div", { class: "row" }, sendBtn, cancelBtn, stopOut)));
  refresh();

  function refresh() {
    const cwdValue = cwd.value.trim();
    const cwdOk = isAbsolute(cwdValue);
    cwdError.textContent = cwdOk ? "" : "cwd must be an absolute path";
    cwd.setAttribute("aria-invalid", String(!cwdOk));
    const serverErrors = servers.errors();
    const methods = client?.methods() ?? [];
    const pageToolsOk = pageTools?.valid() ?? true;
    const setupOk = cwdOk && serverErrors.length === 0 && pageToolsOk && !loading;
    const newGate = client ? gate(methods, "session/new") : { enabled: false, reason: "connect first" };
    const loadGate = client ? gate(methods, "session/load", "session/resume") : { enabled: false, reason: "connect first" };
    setEnabled(newBtn, newGate.enabled && setupOk && !prompting, newGate.enabled ? (setupOk ? "" : "fix the session settings first") : newGate.reason);
    setEnabled(loadBtn, loadGate.enabled && setupOk && !prompting && loadId.value.trim() !== "",
      !loadGate.enabled ? loadGate.reason : loadId.value.trim() === "" ? "enter a session id" : "fix the session settings first");
    loadId.disabled = !client || !loadGate.enabled;
    if (!loadGate.enabled) loadId.title = loadGate.reason; else loadId.removeAttribute("title");

    const ready = !!session && !loading;
    const promptGate = client ? gate(methods, "session/prompt") : { enabled: false, reason: "connect first" };
    const canSend = ready && promptGate.enabled && !prompting && (input.value.trim() !== "" || attachments.length > 0);
    setEnabled(sendBtn, canSend, !session ? "create or load a session first" : !promptGate.enabled ? promptGate.reason : prompting ? "a prompt turn is running" : "write a prompt first");
    setEnabled(cancelBtn, prompting, "no prompt turn is running");
    input.disabled = !ready;
    setEnabled(linkBtn, ready, "create or load a session first");
    linkUri.disabled = !ready;
    setEnabled(imageBtn, ready && allow.image, ready ? "the agent did not advertise image prompts (promptCapabilities.image)" : "create or load a session first");
    setEnabled(audioBtn, ready && allow.audio, ready ? "the agent did not advertise audio prompts (promptCapabilities.audio)" : "create or load a session first");
    setEnabled(resourceBtn, ready && allow.embeddedContext, ready ? "the agent did not advertise embedded resources (promptCapabilities.embeddedContext)" : "create or load a session first");
    sessionOut.textContent = session ? session.id : loading ? `loading ${loading.sessionId}…` : "no session";
  }

  function renderAttachments() {
    replace(attachList, attachments.map((a, i) => h("li", { class: "chip" }, a.label,
      h("button", { type: "button", class: "icon", "aria-label": `Remove ${a.label}`, onclick: () => { attachments.splice(i, 1); renderAttachments(); } }, "×"))));
    refresh();
  }

  function addLink() {
    const uri = linkUri.value.trim() || `file://${files.current()}`;
    const name = uri.split("/").pop() || uri;
    attachments.push({ label: `🔗 ${name}`, block: { type: "resource_link", uri, name } });
    linkUri.value = "";
    renderAttachments();
  }

  function addEmbedded() {
    const path = files.current();
    attachments.push({ label: `📄 ${path.split("/").pop()}`, block: { type: "resource", resource: { uri: `file://${path}`, mimeType: "text/plain", text: files.files().get(path) ?? "" } } });
    renderAttachments();
  }

  function addBinary(event, type) {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      const data = String(reader.result).replace(/^data:[^,]*,/, "");
      attachments.push({ label: `${type === "image" ? "🖼" : "🔊"} ${file.name}`, block: { type, mimeType: file.type || "application/octet-stream", data } });
      renderAttachments();
    };
    reader.readAsDataURL(file);
  }

  /** session/new and session/load's params; the page's own tools join the servers when offered. */
  async function params() {
    return { cwd: cwd.value.trim(), mcpServers: [...servers.value(), ...await pageTools.entries(client)] };
  }

  function attach(next, replayed = 0) {
    session = next;
    lastSessionId = next.id;
    loadId.value = next.id;
    // A library that buffers replayed updates for late subscribers would deliver them now,
    // synchronously or in this turn: those were already rendered from the frames.
    let skip = replayed;
    let replayWindow = true;
    setTimeout(() => { replayWindow = false; }, 0);
    next.onUpdate((update) => {
      if (session !== next) return;
      if (replayWindow && skip > 0) { skip--; return; }
      transcript.update(update);
    });
  }

  async function newSession() {
    files.setRoot(cwd.value.trim());
    transcript.reset();
    banner.clear();
    try {
      const p = await params();
      loading = { sessionId: "new", replayed: 0 };
      refresh();
      const next = await client.newSession(p);
      loading = null;
      attach(next);
      transcript.note(`session ${next.id} created in ${p.cwd}`);
    } catch (err) {
      loading = null;
      transcript.error(`session/new failed: ${describeError(err)}`);
      banner.show("session/new failed", err);
    }
    refresh();
  }

  async function loadSession() {
    const sessionId = loadId.value.trim();
    files.setRoot(cwd.value.trim());
    transcript.reset(`loading session ${sessionId}; the agent replays its history…`);
    banner.clear();
    session = null;
    loading = { sessionId, replayed: 0 };
    refresh();
    try {
      const next = await client.loadSession({ sessionId, ...await params() });
      const replayed = loading.replayed;
      loading = null;
      attach(next, replayed);
      transcript.note(`session ${next.id} loaded (${replayed} updates replayed)`);
    } catch (err) {
      loading = null;
      transcript.error(`session/load failed: ${describeError(err)}`);
      banner.show("session/load failed", err);
    }
    refresh();
  }

  /** Every incoming frame: during session/load the replay is rendered from here as it streams. */
  function frame({ direction, text }) {
    if (!loading || direction !== "in" || !text.includes("session/update")) return;
    const msg = tryParse(text);
    if (msg?.method === "session/update" && msg.params?.sessionId === loading.sessionId) {
      loading.replayed++;
      transcript.update(msg.params.update);
    }
  }

  async function send() {
    if (!session || prompting) return;
    const blocks = [];
    if (input.value.trim()) blocks.push({ type: "text", text: input.value });
    blocks.push(...attachments.map((a) => a.block));
    transcript.userPrompt(blocks);
    input.value = "";
    attachments = [];
    renderAttachments();
    prompting = true;
    stopOut.textContent = "running…";
    refresh();
    try {
      const { stopReason } = await session.prompt(blocks);
      stopOut.textContent = `stop reason: ${stopReason}`;
      transcript.stopped(stopReason);
    } catch (err) {
      stopOut.textContent = "failed";
      transcript.error(`session/prompt failed: ${describeError(err)}`);
      banner.show("session/prompt failed", err);
    } finally {
      prompting = false;
      permission.cancelAll();
      refresh();
      input.focus();
    }
  }

  async function cancel() {
    if (!session || !prompting) return;
    permission.cancelAll();
    try { await session.cancel(); } catch (err) { banner.show("session/cancel failed", err); }
  }

  return {
    frame,
    /** A new connection: the previous one's transcript, session and stop reason go. */
    reset() {
      session = null; loading = null; prompting = false; attachments = [];
      transcript.reset();
      stopOut.textContent = "";
      renderAttachments();
    },
    connected(next) {
      client = next;
      session = null;
      const state = client.state ?? {};
      allow = {
        image: peerHas(state, "promptCapabilities.image", "session.prompt.image", "prompt.image"),
        audio: peerHas(state, "promptCapabilities.audio", "session.prompt.audio", "prompt.audio"),
        embeddedContext: peerHas(state, "promptCapabilities.embeddedContext", "session.prompt.embeddedContext", "prompt.embeddedContext"),
      };
      servers.setAllowed({
        http: peerHas(state, "mcpCapabilities.http", "mcp.http", "session.mcp.http"),
        sse: peerHas(state, "mcpCapabilities.sse", "mcp.sse", "session.mcp.sse"),
      });
      if (lastSessionId) loadId.value = lastSessionId;
      refresh();
    },
    disconnected() {
      client = null; session = null; loading = null; prompting = false;
      pageTools.reset();
      permission.cancelAll();
      refresh();
    },
  };
}
