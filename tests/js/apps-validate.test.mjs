// AppsValidator: every frame between the official MCP Apps View (`App`) and host bridge
// (`AppBridge`) of @modelcontextprotocol/ext-apps, run in Node over a wire that validates each
// frame as it crosses; then hostile frames, each refused with the JSON-RPC error the host sends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { App } from "@modelcontextprotocol/ext-apps";
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import { z } from "zod/v4";
import { AppsValidator, Validator } from "./helpers.mjs";

const MCP = "2025-11-25";
const tick = () => new Promise((r) => setTimeout(r, 5));

/**
 * A View transport and a Host transport joined through `validator`: a frame passes only if
 * `validateFrame` answers null; a refused request is answered with the error, as a host does.
 * Frames go alternately as text and as the object postMessage would deliver.
 */
function validatedWire(validator) {
  const log = { frames: 0, refused: [] };
  const end = (from) => ({
    from,
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    async start() {},
    async send(message) {
      log.frames++;
      const frame = log.frames % 2 ? JSON.stringify(message) : structuredClone(message);
      const error = validator.validateFrame(frame, { from });
      if (error) {
        log.refused.push({ from, message, error });
        if ("id" in error) {
          const { id, ...rest } = error;
          queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id, error: rest }));
        }
        return;
      }
      const copy = JSON.parse(JSON.stringify(message));
      queueMicrotask(() => this.peer.onmessage?.(copy));
    },
    async close() {
      for (const t of [this, this.peer]) t.onclose?.();
    },
  });
  const view = end("view");
  const host = end("host");
  view.peer = host;
  host.peer = view;
  return { view, host, log };
}

const hostInfo = { name: "agentwire-test-host", version: "1.0.0" };
const hostCapabilities = { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, updateModelContext: { text: {} }, message: { text: {} } };
const hostContext = { theme: "dark", displayMode: "inline", locale: "en-US", availableDisplayModes: ["inline", "fullscreen"],
  containerDimensions: { maxHeight: 600, width: 400 }, styles: { variables: { "--color-background-primary": "#000" } } };

test("every frame of the official App and AppBridge passes, both ways, through a whole session", async () => {
  const validator = new AppsValidator({ mcpVersion: MCP });
  assert.equal(validator.version, "2026-01-26");
  assert.equal(validator.mcpVersion, MCP);
  const { view, host, log } = validatedWire(validator);
  const bridge = new AppBridge(null, hostInfo, hostCapabilities, { hostContext });
  const seen = {};
  bridge.onopenlink = async ({ url }) => ((seen.link = url), {});
  bridge.onmessage = async ({ content }) => ((seen.message = content), {});
  bridge.onrequestdisplaymode = async ({ mode }) => ({ mode });
  bridge.onupdatemodelcontext = async ({ content }) => ((seen.context = content), {});
  bridge.onsizechange = (size) => (seen.size = size);
  bridge.onloggingmessage = ({ data }) => (seen.log = data);
  bridge.oncalltool = async ({ name, arguments: args }) => ({ content: [{ type: "text", text: `${name} ${JSON.stringify(args)}` }], structuredContent: { ok: true } });
  bridge.onreadresource = async ({ uri }) => ({ contents: [{ uri, mimeType: "text/plain", text: "hello" }] });
  bridge.onlistresources = async () => ({ resources: [{ uri: "file:///a.txt", name: "a" }] });
  bridge.onrequestteardown = () => (seen.teardownAsked = true);
  const initialized = new Promise((r) => (bridge.oninitialized = r));
  await bridge.connect(host);

  const app = new App({ name: "agentwire-test-view", version: "1.0.0" }, { tools: { listChanged: true } }, { autoResize: false });
  app.ontoolinput = (p) => (seen.input = p.arguments);
  app.ontoolinputpartial = (p) => (seen.partial = p.arguments);
  app.ontoolresult = (p) => (seen.result = p);
  app.ontoolcancelled = (p) => (seen.cancelled = p.reason);
  app.onhostcontextchanged = (p) => (seen.context2 = p);
  app.onteardown = async () => ((seen.teardown = true), {});
  app.registerTool("double", { description: "doubles x", inputSchema: z.object({ x: z.number() }) }, async ({ x }) => ({ content: [{ type: "text", text: String(2 * x) }] }));
  await app.connect(view);
  await initialized;
  assert.deepEqual(app.getHostContext()?.theme, "dark");

  // Host → View
  await bridge.sendToolInputPartial({ arguments: { city: "Par" } });
  await bridge.sendToolInput({ arguments: { city: "Paris" } });
  await bridge.sendToolResult({ content: [{ type: "text", text: "18°C" }], structuredContent: { celsius: 18 }, isError: false });
  await bridge.sendToolCancelled({ reason: "user action" });
  bridge.setHostContext({ ...hostContext, theme: "light" });
  // View → Host
  await app.openLink({ url: "https://example.com/" });
  await app.sendMessage({ role: "user", content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(await app.requestDisplayMode({ mode: "fullscreen" }), { mode: "fullscreen" });
  await app.updateModelContext({ content: [{ type: "text", text: "the user picked Paris" }] });
  await app.sendSizeChanged({ width: 320, height: 200 });
  await app.sendLog({ level: "info", data: "hello from the view" });
  const called = await app.callServerTool({ name: "weather", arguments: { city: "Paris" } });
  assert.equal(called.content[0].text, 'weather {"city":"Paris"}');
  const read = await app.readServerResource({ uri: "file:///a.txt" });
  assert.equal(read.contents[0].text, "hello");
  await app.listServerResources({});
  // The host calls the View's own tools.
  const tools = await bridge.listTools({});
  assert.deepEqual(tools.tools.map((t) => t.name), ["double"]);
  const doubled = await bridge.callTool({ name: "double", arguments: { x: 21 } });
  assert.equal(doubled.content[0].text, "42");
  await app.requestTeardown();
  await bridge.teardownResource({});
  await tick();

  assert.deepEqual(log.refused, [], "no frame of the official pair is refused");
  assert.ok(log.frames >= 30, `${log.frames} frames crossed`);
  assert.equal(validator.inFlight("view"), 0);
  assert.equal(validator.inFlight("host"), 0);
  assert.deepEqual(seen.input, { city: "Paris" });
  assert.deepEqual(seen.partial, { city: "Par" });
  assert.equal(seen.result.structuredContent.celsius, 18);
  assert.equal(seen.cancelled, "user action");
  assert.equal(seen.link, "https://example.com/");
  assert.deepEqual(seen.size, { width: 320, height: 200 });
  assert.equal(seen.log, "hello from the view");
  assert.equal(seen.context2.theme, "light");
  assert.ok(seen.teardown && seen.teardownAsked);
  validator.free();
});

test("a request the View sends with invalid params never reaches the host: the View gets -32602 with the path", async () => {
  const validator = new AppsValidator({ mcpVersion: MCP });
  const { view, host, log } = validatedWire(validator);
  const bridge = new AppBridge(null, hostInfo, hostCapabilities, { hostContext });
  let opened = 0;
  bridge.onopenlink = async () => ((opened++), {});
  await bridge.connect(host);
  const app = new App({ name: "v", version: "1" }, {}, { autoResize: false });
  await app.connect(view);
  // The App itself sends what it is given: a url that is not a string.
  await assert.rejects(app.openLink({ url: 42 }), (e) => e.code === -32602 && /\/params\/url/.test(e.message));
  assert.equal(opened, 0);
  assert.equal(log.refused.length, 1);
  assert.equal(log.refused[0].error.data.issues[0].path, "/params/url");
});

/** The error for one frame sent by `from` (a fresh bridge unless one is given). */
function verdict(frame, from, validator = new AppsValidator({ mcpVersion: MCP })) {
  return validator.validateFrame(typeof frame === "string" ? frame : JSON.stringify(frame), { from });
}

test("hostile frames from a View are refused with the JSON-RPC error the spec names, and the path", () => {
  const cases = [
    // [frame, code, path, id to answer (undefined: nothing is answered)]
    ["{not json", -32700, "", null],
    ["[]", -32600, "", null],
    [{ jsonrpc: "2.0", id: 1, method: "ui/open-link", params: { url: 42 } }, -32602, "/params/url", 1],
    [{ jsonrpc: "2.0", id: "a", method: "ui/open-link", params: { url: "https://x", target: "_top" } }, -32602, "/params/target", "a"],
    [{ jsonrpc: "2.0", id: 2, method: "ui/open-link" }, -32602, "/params", 2],
    [{ jsonrpc: "2.0", id: 3, method: "ui/request-display-mode", params: { mode: "maximized" } }, -32602, "/params/mode", 3],
    [{ jsonrpc: "2.0", id: 4, method: "ui/message", params: { role: "assistant", content: [] } }, -32602, "/params/role", 4],
    [{ jsonrpc: "2.0", id: 5, method: "ui/message", params: { role: "user", content: [{ type: "text" }] } }, -32602, "/params/content/0/text", 5],
    [{ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { width: "wide" } }, -32602, "/params/width", undefined],
    // Host → View messages, from the View: not its to send.
    [{ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: {} } }, -32601, "/method", undefined],
    [{ jsonrpc: "2.0", id: 6, method: "ui/resource-teardown", params: {} }, -32601, "/method", 6],
    [{ jsonrpc: "2.0", id: 7, method: "ui/does-not-exist", params: {} }, -32601, "/method", 7],
    [{ jsonrpc: "2.0", id: 8, method: "tools/list", params: {} }, -32601, "/method", 8],
    [{ jsonrpc: "2.0", id: 9, method: "initialize", params: {} }, -32601, "/method", 9],
    // Proxied MCP requests, judged by MCP 2025-11-25.
    [{ jsonrpc: "2.0", id: 10, method: "tools/call", params: { arguments: {} } }, -32602, "/params/name", 10],
    [{ jsonrpc: "2.0", id: 11, method: "resources/read", params: { uri: 7 } }, -32602, "/params/uri", 11],
    [{ jsonrpc: "2.0", method: "notifications/message", params: { level: "loud", data: 1 } }, -32602, "/params/level", undefined],
    // Envelopes.
    [{ jsonrpc: "1.0", id: 12, method: "ui/open-link", params: { url: "https://x" } }, -32600, "/jsonrpc", 12],
    [{ jsonrpc: "2.0", id: { x: 1 }, method: "ui/open-link", params: { url: "https://x" } }, -32600, "/id", null],
    [{ jsonrpc: "2.0", id: 13, result: {} }, -32600, "/id", undefined], // answers nothing in flight
  ];
  for (const [frame, code, path, id] of cases) {
    const error = verdict(frame, "view");
    const what = typeof frame === "string" ? frame : JSON.stringify(frame);
    assert.ok(error, `${what} passed`);
    assert.equal(error.code, code, `${what}: ${error.message}`);
    assert.ok(error.data.issues.some((i) => i.path === path), `${what}: no issue at ${path}: ${JSON.stringify(error.data.issues)}`);
    if (id === undefined) assert.ok(!("id" in error), `${what}: a notification or a response is not answered`);
    else assert.deepEqual(error.id, id, what);
    assert.equal(typeof error.message, "string");
  }
});

test("a response is judged by the request it answers, from the side that was asked", () => {
  const v = new AppsValidator({ mcpVersion: MCP });
  // The host asks the View to tear down; the View answers with something that is no object.
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 5, method: "ui/resource-teardown", params: {} }, { from: "host" }), null);
  assert.equal(v.inFlight("host"), 1);
  const bad = v.validateFrame({ jsonrpc: "2.0", id: 5, result: 42 }, { from: "view" });
  assert.equal(bad.code, -32602);
  assert.ok(!("id" in bad), "a response is never answered");
  assert.equal(bad.data.issues[0].path, "/result");
  assert.equal(v.inFlight("host"), 0, "answered, if badly: no longer in flight");
  // The View asks for a display mode; the host's answer must name a mode.
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: "m", method: "ui/request-display-mode", params: { mode: "pip" } }, { from: "view" }), null);
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: "m", result: {} }, { from: "host" }).data.issues[0].path, "/result/mode");
  // A proxied tools/call answered by the host: MCP's CallToolResult.
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } }, { from: "view" }), null);
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text" }] } }, { from: "host" }).data.issues[0].path, "/result/content/0/text");
  // The same id may be reused once answered, not while in flight.
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } }, { from: "view" }), null);
  const twice = v.validateFrame({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } }, { from: "view" });
  assert.equal(twice.code, -32600);
  assert.equal(twice.id, 1);
  // An answer from the side that asked is no answer.
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 1, result: { content: [] } }, { from: "view" }).code, -32600);
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 1, result: { content: [] } }, { from: "host" }), null);
  // An error answer is checked as an error object.
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 2, method: "ui/open-link", params: { url: "https://x" } }, { from: "view" }), null);
  assert.equal(v.validateFrame({ jsonrpc: "2.0", id: 2, error: { code: "bad", message: "x" } }, { from: "host" }).data.issues[0].path, "/error/code");
  v.reset();
  assert.equal(v.inFlight("view"), 0);
});

test("the host's tool-result is judged as MCP's CallToolResult too", () => {
  const bad = verdict({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [{ type: "image", data: "x" }] } }, "host");
  assert.equal(bad.code, -32602);
  assert.ok(bad.data.issues.some((i) => i.path === "/params/content/0/mimeType"), JSON.stringify(bad.data.issues));
  assert.equal(verdict({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [{ type: "text", text: "ok" }] } }, "host"), null);
});

test("a View cannot hold unbounded memory: oversized, too deep, too many requests in flight", () => {
  const small = new AppsValidator({ mcpVersion: MCP, maxBytes: 1000, maxDepth: 16 });
  const big = small.validateFrame(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ui/message", params: { role: "user", content: [{ type: "text", text: "x".repeat(2000) }] } }), { from: "view" });
  assert.equal(big.code, -32600);
  assert.equal(big.data.issues[0].code, "too_large");
  const deep = small.validateFrame(`{"jsonrpc":"2.0","id":1,"method":"ui/message","params":${"[".repeat(40)}${"]".repeat(40)}}`, { from: "view" });
  assert.equal(deep.code, -32600);
  assert.equal(deep.data.issues[0].code, "too_deep");
  const v = new AppsValidator({ mcpVersion: MCP });
  for (let i = 0; i < 1024; i++) assert.equal(v.validateFrame({ jsonrpc: "2.0", id: i, method: "ping" }, { from: "view" }), null);
  const flood = v.validateFrame({ jsonrpc: "2.0", id: 1024, method: "ping" }, { from: "view" });
  assert.equal(flood.code, -32600);
  assert.equal(flood.id, 1024);
  assert.equal(v.inFlight("view"), 1024);
});

test("frames that are no JSON text and no plain message are refused, not thrown", () => {
  const v = new AppsValidator({ mcpVersion: MCP });
  const cyclic = { jsonrpc: "2.0", method: "ui/notifications/size-changed" };
  cyclic.params = cyclic;
  for (const frame of [cyclic, undefined, 42, null, () => 1]) {
    const error = v.validateFrame(frame, { from: "view" });
    assert.ok(error && [-32700, -32600].includes(error.code), `${String(frame)}: ${JSON.stringify(error)}`);
    assert.equal(error.id, null);
  }
  assert.throws(() => v.validateFrame("{}", { from: "iframe" }), /from must be "view" or "host"/);
  assert.throws(() => new AppsValidator({}), /mcpVersion is required/);
  assert.throws(() => new AppsValidator({ mcpVersion: "1999-01-01" }), /no MCP rules/);
});

test("the stateless Validator knows mcp-apps 2026-01-26 (View → Host is clientToServer)", () => {
  assert.deepEqual(Validator.versions("mcp-apps"), ["2026-01-26"]);
  const v = new Validator({ protocol: "mcp-apps", version: "2026-01-26" });
  assert.equal(v.validate({ jsonrpc: "2.0", id: 1, method: "ui/open-link", params: { url: "https://x" } }, { direction: "clientToServer" }).ok, true);
  const r = v.validate({ jsonrpc: "2.0", id: 1, method: "ui/open-link", params: { url: "https://x" } }, { direction: "serverToClient" });
  assert.equal(r.ok, false);
  assert.equal(r.issues[0].code, "not_allowed_here");
});

// The ext-apps example servers (from npm, over stdio) give the payloads a host relays: their
// tool's result becomes the host's `tool-result`, their UI resource the answer to the View's
// `resources/read`, their tool call the answer to the View's proxied `tools/call`.
for (const name of ["server-basic-vanillajs", "server-basic-preact"]) {
  test(`a host relaying ${name}'s real payloads sends only frames that pass`, async () => {
    const { McpClient, stdioTransport } = await import("./helpers.mjs");
    const { fileURLToPath } = await import("node:url");
    const server = fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url));
    const transport = await stdioTransport(process.execPath, [server, "--stdio"]);
    const mcp = await McpClient.connect(transport, { clientInfo: { name: "host", version: "1" }, protocolVersions: ["2025-11-25"], era: "handshake",
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } });
    try {
      const init = await mcp.initialize();
      const frames = new AppsValidator({ mcpVersion: init.protocolVersion });
      const { tools } = await mcp.listTools({});
      const tool = tools.find((t) => t._meta?.ui?.resourceUri ?? t._meta?.["ui/resourceUri"]);
      assert.ok(tool, `${name} lists a tool with a UI`);
      const uri = tool._meta.ui?.resourceUri ?? tool._meta["ui/resourceUri"];
      const args = {};
      const result = await mcp.callTool(tool.name, args);
      // Host → View: the input and the result of the call that opened the View.
      assert.equal(frames.validateFrame({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: args } }, { from: "host" }), null);
      assert.equal(frames.validateFrame({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result }, { from: "host" }), null, JSON.stringify(result));
      // View → Host → server → Host → View: a proxied call and a read of its own resource.
      assert.equal(frames.validateFrame({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool.name, arguments: args } }, { from: "view" }), null);
      assert.equal(frames.validateFrame({ jsonrpc: "2.0", id: 1, result: await mcp.callTool(tool.name, args) }, { from: "host" }), null);
      const read = await mcp.readResource(uri);
      assert.match(read.contents[0].mimeType, /^text\/html;profile=mcp-app/);
      assert.equal(frames.validateFrame({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } }, { from: "view" }), null);
      assert.equal(frames.validateFrame({ jsonrpc: "2.0", id: 2, result: read }, { from: "host" }), null);
      // The same result, tampered with on its way to the View, is refused.
      const tampered = { ...result, content: [{ type: "text" }] };
      const refused = frames.validateFrame({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: tampered }, { from: "host" });
      assert.equal(refused?.code, -32602);
      assert.equal(refused.data.issues[0].path, "/params/content/0/text");
    } finally {
      mcp.close?.();
      transport.close();
    }
  });
}
