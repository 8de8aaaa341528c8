// MCP Apps (the `io.modelcontextprotocol/ui` extension, 2026-01-26): a host for a tool's
// interactive UI in a page. The view (the server's `ui://` HTML) runs in a sandboxed iframe
// inside a sandbox proxy served from another origin (sandbox.html); this module runs the
// JSON-RPC bridge over postMessage. Every frame that crosses the boundary is checked before it
// is acted on; a bad request from the view is answered with the JSON-RPC error and goes no
// further. Calls from the view reach only the server the tool came from, and only its tools the
// app may call (visibility). See docs/apps.md.

import { ProtocolError, codes } from "./errors.js";

export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
export const RESOURCE_MIME_TYPE = "text/html;profile=mcp-app";
export const APPS_PROTOCOL_VERSION = "2026-01-26";
const SUPPORTED_VERSIONS = [APPS_PROTOCOL_VERSION];
const FLAT_RESOURCE_URI = "ui/resourceUri";

// ext-apps v2 answers to older spellings of some methods too; each maps to the name used here.
// (v2 renamed only its JS API, not the wire: the table stays for names a view may still send.)
const ALIASES = {};

const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/** Largest frame accepted from a view (its HTML travels the other way). */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Requests a view may have unanswered at once. */
const MAX_PENDING = 64;
/** How long the view has to answer ui/resource-teardown before the frame is removed anyway. */
const TEARDOWN_TIMEOUT_MS = 3000;

/** `capabilities` a client passes to advertise the extension (merged into its own). */
export function appsCapability({ mimeTypes = [RESOURCE_MIME_TYPE] } = {}) {
  return { extensions: { [APPS_EXTENSION]: { mimeTypes } } };
}

/**
 * The tool's UI resource: `_meta.ui.resourceUri`, else the deprecated flat
 * `_meta["ui/resourceUri"]`; undefined when it has none. A value that is not a `ui://` URI
 * throws (it is the server's error, not a tool without UI).
 */
export function toolResourceUri(tool) {
  const meta = tool?._meta;
  let uri = meta?.ui?.resourceUri;
  if (uri === undefined) uri = meta?.[FLAT_RESOURCE_URI];
  if (uri === undefined) return undefined;
  if (typeof uri !== "string" || !uri.startsWith("ui://")) {
    throw new ProtocolError(codes.INVALID_PARAMS, `tool ${tool?.name}: the UI resource URI must be a ui:// URI, not ${JSON.stringify(uri)}`);
  }
  return uri;
}

/** Who may call the tool: `_meta.ui.visibility`, `["model", "app"]` when absent. */
export function toolVisibility(tool) {
  const v = tool?._meta?.ui?.visibility;
  return Array.isArray(v) ? v.filter((x) => x === "model" || x === "app") : ["model", "app"];
}

/** The tools a model may be shown: app-only tools (visibility without "model") left out. */
export function modelTools(tools) {
  return (tools ?? []).filter((t) => toolVisibility(t).includes("model"));
}

// A CSP source list entry: a scheme with host (optionally `*.` wildcard) and port, and nothing
// that could end the directive or add a keyword (`;`, `'`, spaces, commas).
const SOURCE = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?\/?$/i;

/** The entries of a domain list that are safe CSP sources; anything else is dropped. */
function sources(list) {
  return Array.isArray(list) ? list.filter((d) => typeof d === "string" && SOURCE.test(d)) : [];
}

/**
 * The Content-Security-Policy for a view from its resource's `csp` metadata: the spec's
 * restrictive default, to which the declared domains only add their own sources.
 */
export function buildCsp(csp = {}) {
  const resource = sources(csp?.resourceDomains).join(" ");
  const connect = sources(csp?.connectDomains).join(" ");
  const frame = sources(csp?.frameDomains).join(" ");
  const base = sources(csp?.baseUriDomains).join(" ");
  const r = resource ? ` ${resource}` : "";
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${r}`,
    `style-src 'self' 'unsafe-inline'${r}`,
    `img-src 'self' data:${r}`,
    `font-src 'self'${r}`,
    `media-src 'self' data:${r}`,
    `connect-src ${connect || "'none'"}`,
    `frame-src ${frame || "'none'"}`,
    `base-uri ${base || "'self'"}`,
    "object-src 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** The iframe's `allow` (Permissions Policy) from the resource's `permissions`. */
export function allowAttribute(permissions) {
  const names = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
  return Object.entries(names).filter(([k]) => permissions?.[k] && typeof permissions[k] === "object").map(([, v]) => v).join("; ");
}

/** The error object of a JSON-RPC answer, from anything thrown. */
function wireError(e, fallback = INTERNAL_ERROR) {
  const code = Number.isInteger(e?.code) ? e.code : fallback;
  return { code, message: String(e?.message ?? e ?? "error"), ...(e?.data !== undefined ? { data: e.data } : {}) };
}

const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const isId = (id) => typeof id === "string" || (typeof id === "number" && Number.isInteger(id));

/**
 * JSON-RPC 2.0 shape of one frame, before the schema: what a frame must be for an answer to be
 * possible at all. Returns `{ kind, error? }` (kind: request, notification, response, invalid).
 */
function frameShape(m) {
  if (!isObject(m) || m.jsonrpc !== "2.0") return { kind: "invalid", error: { code: INVALID_REQUEST, message: "not a JSON-RPC 2.0 message" } };
  if ("method" in m) {
    if (typeof m.method !== "string") return { kind: "invalid", error: { code: INVALID_REQUEST, message: "method must be a string" } };
    if ("params" in m && !isObject(m.params) && !Array.isArray(m.params)) return { kind: "invalid", error: { code: INVALID_REQUEST, message: "params must be an object" } };
    if ("id" in m) return isId(m.id) ? { kind: "request" } : { kind: "invalid", error: { code: INVALID_REQUEST, message: "id must be a string or an integer" } };
    return { kind: "notification" };
  }
  if ("id" in m && ("result" in m) !== ("error" in m)) return { kind: "response" };
  return { kind: "invalid", error: { code: INVALID_REQUEST, message: "neither a request, a notification nor a response" } };
}

/**
 * agentwire's validator for apps frames (`AppsValidator`, ext-apps' schema and the MCP rules of
 * the version the client negotiated), from the package's full entry when the page passes none.
 */
async function makeValidator(client, given) {
  if (given) return given;
  const mod = await import("./index.js");
  await mod.default?.();
  const mcpVersion = client.state?.protocolVersion;
  return new mod.AppsValidator(mcpVersion ? { mcpVersion } : {});
}

/**
 * Renders the UI of `tool` (a tool of the server `client` is connected to) and runs its bridge.
 * Options: `container` (element the frame goes in), `sandbox` (URL of the sandbox proxy page, on
 * an origin other than this page's), `tools` (the server's tools; listed when absent), host
 * `hostInfo`, `hostContext`, handlers `onOpenLink`, `onMessage`, `onDisplayMode`,
 * `onModelContext`, `onLog`, `onSizeChange`, `onRequestTeardown`, `onFrame` (every frame, both
 * ways, with its check), and `validator` (an `AppsValidator` of the package; one is made from
 * the full entry when absent) or `validate(frame, { from })` (null, or the JSON-RPC error; `null`
 * checks the JSON-RPC shape only).
 */
export async function renderApp(client, tool, options = {}) {
  const uri = toolResourceUri(tool);
  if (!uri) throw new ProtocolError(codes.INVALID_PARAMS, `tool ${tool?.name} has no UI resource (_meta.ui.resourceUri)`);
  if (!options.sandbox) throw new ProtocolError(codes.INVALID_PARAMS, "renderApp needs `sandbox`: the URL of the sandbox proxy page on another origin");
  const sandboxUrl = new URL(options.sandbox, location.href);
  if (sandboxUrl.origin === location.origin) {
    throw new ProtocolError(codes.INVALID_PARAMS, `the sandbox proxy must be on an origin other than this page's (${location.origin})`);
  }
  const read = await client.readResource(uri);
  const content = (read?.contents ?? []).find((c) => c?.uri === uri) ?? read?.contents?.[0];
  if (typeof content?.text !== "string" && typeof content?.blob !== "string") {
    throw new ProtocolError(codes.INVALID_PARAMS, `${uri}: the resource has no HTML`);
  }
  if (content.mimeType !== RESOURCE_MIME_TYPE) {
    throw new ProtocolError(codes.INVALID_PARAMS, `${uri}: the resource is ${JSON.stringify(content.mimeType)}, not ${RESOURCE_MIME_TYPE}`);
  }
  const html = typeof content.text === "string" ? content.text : new TextDecoder().decode(Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0)));
  const tools = options.tools ?? (await listAll(client));
  let validate = options.validate;
  if (validate === undefined) {
    const validator = await makeValidator(client, options.validator);
    validate = (frame, context) => validator.validateFrame(frame, context);
  }
  return new AppView(client, tool, { ...options, uri, html, meta: content._meta?.ui ?? {}, tools, validate, sandboxUrl });
}

async function listAll(client) {
  const tools = [];
  let cursor;
  for (let page = 0; page < 100; page++) {
    const r = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(r?.tools ?? []));
    cursor = r?.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** One rendered view and its bridge. */
export class AppView {
  #client;
  #tool;
  #o;
  #frame;
  #origin;
  #state = "loading";    // loading → proxy-ready → initializing → ready → closed
  #pending = new Map();  // our requests to the view: id → { resolve, reject, method }
  #serving = 0;          // the view's requests being served
  #nextId = 1;
  #queued = [];          // notifications for the view before it is initialized
  #context;
  #onMessage;
  #readyWaiters;
  appInfo;
  appCapabilities;

  constructor(client, tool, o) {
    this.#client = client;
    this.#tool = tool;
    this.#o = o;
    this.#origin = o.sandboxUrl.origin;
    const container = o.container ?? document.body;
    // The frame takes the container's width; its height follows the view up to maxHeight.
    const width = Math.round(container.clientWidth);
    const maxHeight = o.maxHeight ?? 800;
    this.#context = {
      containerDimensions: width > 0 ? { width, maxHeight } : { maxWidth: innerWidth, maxHeight },
      theme: matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light",
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: navigator.userAgent,
      platform: "web",
      toolInfo: { tool: { name: tool.name, inputSchema: tool.inputSchema ?? { type: "object" }, ...(tool.description ? { description: tool.description } : {}) } },
      ...o.hostContext,
    };
    let ready;
    this.ready = new Promise((resolve, reject) => { ready = { resolve, reject }; });
    this.ready.catch(() => {});
    this.#readyWaiters = ready;
    const frame = document.createElement("iframe");
    // The proxy needs scripts and its own origin (to host the view's frame); never top navigation.
    frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
    const allow = allowAttribute(o.meta.permissions);
    if (allow) frame.setAttribute("allow", allow);
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.title = tool.title ?? tool.name;
    frame.dataset.tool = tool.name;
    frame.style.cssText = `width: 100%; height: ${o.initialHeight ?? 120}px; border: ${o.meta.prefersBorder === false ? "0" : "1px solid #ccc"}; display: block;`;
    const src = new URL(o.sandboxUrl);
    src.searchParams.set("host", location.origin);
    if (o.meta.csp) src.searchParams.set("csp", JSON.stringify(o.meta.csp));
    frame.src = src.href;
    this.#frame = frame;
    this.#onMessage = (event) => this.#receive(event);
    addEventListener("message", this.#onMessage);
    container.append(frame);
  }

  get iframe() { return this.#frame; }
  get state() { return this.#state; }
  get hostContext() { return { ...this.#context }; }

  /** The complete arguments of the tool call (ui/notifications/tool-input). */
  toolInput(args) { return this.#notifyView("ui/notifications/tool-input", { arguments: args ?? {} }); }
  /** Arguments as they stream in (ui/notifications/tool-input-partial). */
  toolInputPartial(args) { return this.#notifyView("ui/notifications/tool-input-partial", { arguments: args ?? {} }); }
  /** The tool's CallToolResult (ui/notifications/tool-result). */
  toolResult(result) { return this.#notifyView("ui/notifications/tool-result", result); }
  /** The call was cancelled (ui/notifications/tool-cancelled). */
  toolCancelled(reason) { return this.#notifyView("ui/notifications/tool-cancelled", reason === undefined ? {} : { reason: String(reason) }); }
  /** Changes fields of the host context; the view gets what changed (host-context-changed). */
  setHostContext(patch) {
    const changed = {};
    for (const [k, v] of Object.entries(patch ?? {})) {
      if (JSON.stringify(this.#context[k]) !== JSON.stringify(v)) changed[k] = v;
    }
    if (Object.keys(changed).length === 0) return;
    Object.assign(this.#context, changed);
    return this.#notifyView("ui/notifications/host-context-changed", changed);
  }

  /** Runs the tool with `args` on the view's server and gives the view its input, then its result. */
  async run(args = {}) {
    this.toolInput(args);
    try {
      const result = await this.#client.callTool(this.#tool.name, args);
      this.toolResult(result);
      return result;
    } catch (e) {
      this.toolResult({ content: [{ type: "text", text: String(e?.message ?? e) }], isError: true });
      throw e;
    }
  }

  /** ui/resource-teardown: asks the view to save its state, then removes the frame. */
  async teardown({ timeoutMs = TEARDOWN_TIMEOUT_MS } = {}) {
    if (this.#state === "closed") return;
    if (this.#state === "ready") {
      await Promise.race([
        this.#requestView("ui/resource-teardown", {}).catch(() => {}),
        new Promise((r) => setTimeout(r, timeoutMs)),
      ]);
    }
    this.#close(new ProtocolError(codes.CONNECTION_CLOSED, "the view was torn down"));
  }

  #close(error) {
    if (this.#state === "closed") return;
    this.#state = "closed";
    removeEventListener("message", this.#onMessage);
    this.#frame.remove();
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
    this.#readyWaiters.reject(error);
  }

  #post(message) {
    if (this.#state === "closed") return;
    this.#frame.contentWindow?.postMessage(message, this.#origin);
  }

  /** Checks and sends one frame of ours; an invalid one is refused here, never sent. */
  #send(message, inReplyTo) {
    const problem = this.#check(message, "host", inReplyTo);
    this.#o.onFrame?.({ direction: "out", message, error: problem });
    if (problem) throw new ProtocolError(problem.code, `agentwire refused to send ${message.method ?? "an answer"}: ${problem.message}`, problem.data);
    this.#post(message);
  }

  #notifyView(method, params) {
    const message = { jsonrpc: "2.0", method, params };
    if (this.#state === "closed") throw new ProtocolError(codes.CONNECTION_CLOSED, "the view is closed");
    if (this.#state !== "ready") {
      this.#check(message, "host"); // refused now rather than when the view is ready
      this.#queued.push(message);
      return;
    }
    this.#send(message);
  }

  #requestView(method, params) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      try {
        this.#send({ jsonrpc: "2.0", id, method, params });
      } catch (e) {
        this.#pending.delete(id);
        reject(e);
      }
    });
  }

  /** The shape check, then agentwire's validator: null, or the JSON-RPC error. */
  #check(message, from, inReplyTo) {
    const shape = frameShape(message);
    if (shape.error) return shape.error;
    if (!this.#o.validate) return null;
    try {
      const e = this.#o.validate(message, { from, ...(inReplyTo ? { inReplyTo } : {}) });
      return e ? { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } : null;
    } catch (e) {
      return wireError(e, INVALID_REQUEST);
    }
  }

  #reply(id, result) {
    this.#send({ jsonrpc: "2.0", id, result }, this.#answering.get(id));
    this.#answering.delete(id);
  }
  #fail(id, error) {
    this.#answering.delete(id);
    if (id === undefined || id === null) return;
    // Error answers are ours and carry no params to check beyond their shape.
    const message = { jsonrpc: "2.0", id, error };
    // The validator sees it too, to close the request it let through (its verdict on our own
    // error answer does not stop it: a refused frame is still owed its answer).
    try { this.#o.validate?.(message, { from: "host" }); } catch { /* the answer goes all the same */ }
    this.#o.onFrame?.({ direction: "out", message, error: null });
    this.#post(message);
  }
  #answering = new Map();

  #receive(event) {
    if (event.source !== this.#frame.contentWindow || event.origin !== this.#origin) return;
    if (this.#state === "closed") return;
    let message = event.data;
    // Bounded before anything else looks at it.
    let size;
    try {
      size = typeof message === "string" ? message.length : JSON.stringify(message)?.length ?? 0;
    } catch {
      size = Infinity;
    }
    if (size > MAX_FRAME_BYTES) {
      const id = isObject(message) && isId(message.id) ? message.id : null;
      this.#o.onFrame?.({ direction: "in", message: { jsonrpc: "2.0", id, method: message?.method }, error: { code: INVALID_REQUEST, message: "frame too large" } });
      return this.#fail(id, { code: INVALID_REQUEST, message: `frame over ${MAX_FRAME_BYTES} bytes` });
    }
    if (typeof message === "string") {
      try { message = JSON.parse(message); } catch {
        this.#o.onFrame?.({ direction: "in", message, error: { code: -32700, message: "parse error" } });
        return this.#fail(null, { code: -32700, message: "parse error" });
      }
    }
    if (isObject(message) && typeof message.method === "string" && ALIASES[message.method]) message = { ...message, method: ALIASES[message.method] };
    const shape = frameShape(message);
    const inReplyTo = shape.kind === "response" ? this.#pending.get(message.id)?.method : undefined;
    const problem = shape.error ?? this.#checkIn(message, shape.kind, inReplyTo);
    this.#o.onFrame?.({ direction: "in", message, error: problem });
    if (problem) {
      // The answer goes to requests (and to frames whose id can be read); nothing else reaches the app.
      const id = isObject(message) && isId(message.id) && shape.kind !== "response" ? message.id : null;
      if (shape.kind === "response") {
        const p = this.#pending.get(message.id);
        if (p) { this.#pending.delete(message.id); p.reject(new ProtocolError(problem.code, `the view's answer to ${p.method} is invalid: ${problem.message}`, problem.data)); }
        return;
      }
      if (shape.kind === "notification") return;
      return this.#fail(id, problem);
    }
    if (shape.kind === "response") return this.#onResponse(message);
    if (shape.kind === "notification") return this.#onNotification(message);
    return this.#onRequest(message);
  }

  #checkIn(message, kind, inReplyTo) {
    if (kind === "response" && !this.#pending.has(message.id)) return { code: INVALID_REQUEST, message: "an answer to no request of the host" };
    // The proxy's own message is accepted once, before the view exists.
    if (message.method?.startsWith("ui/notifications/sandbox-")) {
      return message.method === "ui/notifications/sandbox-proxy-ready" && this.#state === "loading"
        ? null : { code: INVALID_REQUEST, message: `${message.method} is not a view's message` };
    }
    if (this.#state === "loading") return { code: INVALID_REQUEST, message: "the sandbox proxy is not ready" };
    return this.#check(message, "view", inReplyTo);
  }

  #onResponse(message) {
    const p = this.#pending.get(message.id);
    this.#pending.delete(message.id);
    if ("error" in message) p.reject(ProtocolError.from?.(message.error) ?? new ProtocolError(message.error.code, message.error.message, message.error.data));
    else p.resolve(message.result);
  }

  #onNotification({ method, params }) {
    const o = this.#o;
    switch (method) {
      case "ui/notifications/sandbox-proxy-ready": {
        this.#state = "proxy-ready";
        const meta = o.meta;
        const ready = { html: o.html, ...(meta.csp ? { csp: meta.csp } : {}), ...(meta.permissions ? { permissions: meta.permissions } : {}) };
        this.#send({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: ready });
        this.#state = "initializing";
        return;
      }
      case "ui/notifications/initialized": {
        if (this.#state !== "initializing" || !this.appInfo) return;
        this.#state = "ready";
        for (const m of this.#queued.splice(0)) this.#send(m);
        this.#readyWaiters.resolve(this);
        return;
      }
      case "ui/notifications/size-changed": {
        const max = this.#o.maxHeight ?? 800;
        const h = params?.height;
        if (typeof h === "number" && Number.isFinite(h) && h >= 0) this.#frame.style.height = `${Math.min(Math.ceil(h), max)}px`;
        o.onSizeChange?.(params);
        return;
      }
      case "ui/notifications/request-teardown":
        if (o.onRequestTeardown) o.onRequestTeardown(params);
        else this.teardown();
        return;
      case "notifications/message":
        o.onLog?.(params);
        return;
      default:
        return; // other notifications (notifications/cancelled …) need nothing from the host
    }
  }

  async #onRequest({ id, method, params }) {
    if (this.#serving >= MAX_PENDING) return this.#fail(id, { code: INTERNAL_ERROR, message: `more than ${MAX_PENDING} requests at once` });
    if (method !== "ui/initialize" && method !== "ping" && this.#state !== "ready") {
      return this.#fail(id, { code: INVALID_REQUEST, message: `${method} before ui/notifications/initialized` });
    }
    this.#serving++;
    this.#answering.set(id, method);
    try {
      const result = await this.#serve(method, params ?? {});
      if (this.#state !== "closed") this.#reply(id, result);
    } catch (e) {
      if (this.#state !== "closed") this.#fail(id, wireError(e));
    } finally {
      this.#serving--;
    }
  }

  async #serve(method, params) {
    const o = this.#o;
    switch (method) {
      case "ping":
        return {};
      case "ui/initialize": {
        if (this.#state !== "initializing") throw { code: INVALID_REQUEST, message: "ui/initialize was already answered" };
        this.appInfo = params.appInfo;
        this.appCapabilities = params.appCapabilities;
        const version = SUPPORTED_VERSIONS.includes(params.protocolVersion) ? params.protocolVersion : APPS_PROTOCOL_VERSION;
        return { protocolVersion: version, hostCapabilities: this.#capabilities(), hostInfo: o.hostInfo ?? { name: "agentwire", version: "0.1.0" }, hostContext: this.hostContext };
      }
      case "ui/open-link": {
        let url;
        try { url = new URL(params.url); } catch { throw { code: INVALID_PARAMS, message: "url is not a URL" }; }
        if (url.protocol !== "https:" && url.protocol !== "http:") throw { code: INVALID_PARAMS, message: `only http(s) links open, not ${url.protocol}` };
        if (o.onOpenLink) return (await o.onOpenLink(url.href)) ?? {};
        window.open(url.href, "_blank", "noopener,noreferrer");
        return {};
      }
      case "ui/message":
        if (!o.onMessage) throw { code: METHOD_NOT_FOUND, message: "this host takes no ui/message" };
        return (await o.onMessage(params)) ?? {};
      case "ui/update-model-context":
        if (!o.onModelContext) throw { code: METHOD_NOT_FOUND, message: "this host takes no ui/update-model-context" };
        return (await o.onModelContext(params)) ?? {};
      case "ui/request-display-mode": {
        const available = this.#context.availableDisplayModes ?? ["inline"];
        // A mode the host does not offer, or no handler to switch: the current mode stays.
        let mode = this.#context.displayMode;
        if (available.includes(params.mode) && o.onDisplayMode) mode = (await o.onDisplayMode(params.mode)) ?? mode;
        if (mode !== this.#context.displayMode) this.setHostContext({ displayMode: mode });
        return { mode };
      }
      case "tools/call": {
        const tool = this.#o.tools.find((t) => t.name === params.name);
        // A tool of another server, or one that does not exist, is one this server does not have.
        if (!tool) throw { code: INVALID_PARAMS, message: `tool ${JSON.stringify(params.name)} is not a tool of this app's server` };
        if (!toolVisibility(tool).includes("app")) throw { code: INVALID_PARAMS, message: `tool ${JSON.stringify(params.name)} is not callable by apps (visibility: model only)` };
        return this.#client.callTool(params.name, params.arguments ?? {});
      }
      case "resources/read":
        return this.#client.readResource(params.uri);
      default:
        throw { code: METHOD_NOT_FOUND, message: `method not found: ${method}` };
    }
  }

  #capabilities() {
    const o = this.#o;
    return {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      ...(o.onMessage ? { message: { text: {} } } : {}),
      ...(o.onModelContext ? { updateModelContext: { text: {}, structuredContent: {} } } : {}),
      sandbox: { ...(o.meta.permissions ? { permissions: o.meta.permissions } : {}), ...(o.meta.csp ? { csp: o.meta.csp } : {}) },
    };
  }
}
