// The packed npm tarball, made and installed by exactly the README's Install commands:
// publint and arethetypeswrong on the tarball, Node ESM, a TypeScript consumer under
// `tsc --strict`, a plain HTML page with <script type="module"> (no bundler) in Chromium, and
// a Vite build of a small app in Chromium; the same for the per-protocol entries
// (`agentwire/acp`, `agentwire/mcp`), whose bundles carry their own .wasm only. Needs `node scripts/build.mjs` first (the test
// command does it).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, mkdirSync, copyFileSync, rmSync, existsSync, renameSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, extname, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = (name) => join(root, "node_modules/.bin", name);
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

let scratch, tarball, app, browser;

/** The README's Install commands: `[command, where]`, "clone" or "project". */
function readmeInstall() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const block = readme.slice(readme.indexOf("## Install")).match(/```sh\n([\s\S]*?)```/)[1];
  return block.trim().split("\n").map((line) => {
    const [command, comment = ""] = line.split(/\s+#\s+/);
    return [command.trim(), /your project/.test(comment) ? "project" : "clone"];
  });
}

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "agentwire-pkg-"));
  app = join(scratch, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "scratch-app", private: true, type: "module" }));
  // Exactly the README's commands, the clone being this repository.
  const commands = readmeInstall();
  assert.deepEqual(commands.map(([c]) => c.split(" ").slice(0, 2).join(" ")), ["npm run", "npm pack", "npm install"]);
  for (const [command, where] of commands) {
    const [cmd, ...args] = command.replace("/path/to/agentwire", root).split(/\s+/);
    run(cmd, args, where === "project" ? app : root);
  }
  // The tarball the README made (in the clone), moved aside for the tests that read it.
  const name = `agentwire-${JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8")).version}.tgz`;
  tarball = join(scratch, name);
  renameSync(join(root, name), tarball);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("the tarball ships the package and nothing else", () => {
  const files = JSON.parse(run("npm", ["pack", join(root, "pkg"), "--dry-run", "--json"], root))[0].files.map((f) => f.path).sort();
  const entry = (dir) => ["web/agentwire.js", "web/agentwire_bg.wasm", "node/agentwire.js"].map((f) => `${dir}${f}`);
  for (const must of ["package.json", "index.js", "node.js", "index.d.ts", "protocol.d.ts", ...entry(""),
    "acp.js", "acp-node.js", "acp.d.ts", ...entry("acp/"), "mcp.js", "mcp-node.js", "mcp.d.ts", ...entry("mcp/")]) {
    assert.ok(files.includes(must), `${must} is in the tarball`);
  }
  assert.ok(!files.some((f) => f.endsWith(".rs") || f.endsWith("node/agentwire_bg.wasm") || f === "sizes.json"), files.join(", "));
});

test("publint finds nothing to fix", () => {
  const out = run(bin("publint"), ["--strict", tarball], root);
  assert.doesNotMatch(out, /error|warning/i, out);
});

test("arethetypeswrong: types resolve for ESM consumers (node16, bundler)", () => {
  // attw exits non-zero on any problem in the resolutions the profile checks. The sandbox
  // proxy is an HTML page a host serves, not a module: it has no types to resolve.
  const out = run(bin("attw"), [tarball, "--profile", "esm-only", "--format", "table-flipped", "--no-color", "--exclude-entrypoints", "./sandbox.html"], root);
  for (const entry of ["agentwire", "agentwire/acp", "agentwire/mcp", "agentwire/apps"]) {
    assert.match(out, new RegExp(`"${entry}"\\s*│ 🟢 \\(ESM\\)\\s*│ 🟢`), out);
  }
  assert.doesNotMatch(out, /💀|❌|🐛|🥴/, out);
});

test("Node ESM: import from the installed package, no init needed", () => {
  const out = run("node", ["--input-type=module", "-e", `
    import init, { AcpClient, Validator, ProtocolError } from "agentwire";
    await init();
    const c = new AcpClient({ protocolVersions: [1] });
    const out = c.initialize();
    const v = new Validator({ protocol: "acp", version: "1" });
    let refused = false;
    try { c.request("session/new", { cwd: "/", mcpServers: [] }); } catch (e) { refused = e instanceof ProtocolError && e.code === -32099; }
    console.log(JSON.stringify({ method: out.method, ok: v.validate(out.text, { direction: "clientToServer" }).ok, refused }));
  `], app);
  assert.deepEqual(JSON.parse(out), { method: "initialize", ok: true, refused: true });
});

test("Node ESM: agentwire/acp and agentwire/mcp each carry their protocol alone", () => {
  const out = run("node", ["--input-type=module", "-e", `
    const acp = await import("agentwire/acp"), mcp = await import("agentwire/mcp");
    const refusal = (m, protocol, version) => { try { new m.Validator({ protocol, version }); } catch (e) { return e.message; } };
    const c = new acp.AcpClient({ protocolVersions: [1] }), a = new acp.AcpAgent({ protocolVersions: [1] });
    const acpEvents = c.receive(a.receive(c.initialize().text).find((e) => e.type === "send").text).map((e) => e.type);
    const mc = new mcp.McpClient({ protocolVersions: ["2025-11-25"], era: "handshake", clientInfo: { name: "c", version: "1" } });
    const ms = new mcp.McpServer({ protocolVersions: ["2025-11-25"], serverInfo: { name: "s", version: "1" } });
    const mcpEvents = mc.receive(ms.receive(mc.initialize().text).find((e) => e.type === "send").text).map((e) => e.type);
    const connected = await acp.AcpClient.connect({ send() {} });
    const hosting = await connected.hostMcpServer({}).catch((e) => e.message);
    console.log(JSON.stringify({ acp: Object.keys(acp).sort(), mcp: Object.keys(mcp).sort(), acpEvents, mcpEvents,
      noMcp: refusal(acp, "mcp", "2025-11-25"), noAcp: refusal(mcp, "acp", "1"), hosting }));
  `], app);
  const common = ["ProtocolError", "Validator", "codes", "default", "initSync", "parseMessage", "serializeMessage"];
  assert.deepEqual(JSON.parse(out), {
    acp: [...common, "AcpAgent", "AcpClient"].sort(), mcp: [...common, "AppsValidator", "McpClient", "McpServer"].sort(),
    acpEvents: ["response", "initialized"], mcpEvents: ["send", "initialized"],
    noMcp: "Invalid params: this module is built without MCP: import agentwire or agentwire/mcp",
    noAcp: "Invalid params: this module is built without ACP: import agentwire or agentwire/acp",
    hosting: "hostMcpServer needs MCP, which agentwire/acp leaves out: import agentwire",
  });
});

/** Compiles one file of the scratch app with `tsc --strict` against the installed package. */
function strictCompile(file, failure) {
  const config = `tsconfig.${file}.json`;
  writeFileSync(join(app, config), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "esnext", moduleResolution: "bundler",
      lib: ["es2022", "dom"], skipLibCheck: false, types: [] },
    files: [file],
  }));
  try {
    run(bin("tsc"), ["-p", config], app);
  } catch (e) {
    assert.fail(`${failure}:\n${e.stdout}${e.stderr}`);
  }
}

test("TypeScript: a consumer of every class compiles with tsc --strict", () => {
  copyFileSync(join(root, "tests/package/consumer.ts"), join(app, "consumer.ts"));
  strictCompile("consumer.ts", "tsc --strict failed");
});

test("TypeScript: each entry declares what it exports, and only that (tsc --strict)", () => {
  writeFileSync(join(app, "entries.ts"), `
    import initAcp, { AcpClient, AcpAgent, Validator as AcpValidator, type acp } from "agentwire/acp";
    import initMcp, { McpClient, McpServer, Validator as McpValidator } from "agentwire/mcp";
    // @ts-expect-error: agentwire/acp carries no MCP
    import { McpClient as NoMcp } from "agentwire/acp";
    // @ts-expect-error: agentwire/mcp carries no ACP
    import { AcpClient as NoAcp } from "agentwire/mcp";
    export async function use(): Promise<string> {
      await initAcp(); await initMcp();
      const c: AcpClient = new AcpClient({ protocolVersions: [2] });
      const info: acp.Implementation = { name: "ide", version: "1" };
      void new AcpAgent({ agentInfo: info }); void new McpServer({}); void NoMcp; void NoAcp;
      const m = new McpClient({ protocolVersions: ["2025-11-25"] });
      return [c.initialize().text, m.initialize().text, new AcpValidator({ protocol: "acp", version: 2 }), new McpValidator({ protocol: "mcp", version: "2025-11-25" })].join();
    }
  `);
  strictCompile("entries.ts", "the entries' types are wrong");
});

test("TypeScript: objects produced by real sessions have exactly the declared types (tsc --strict)", async () => {
  const { observedModule } = await import("./observed.mjs");
  const text = observedModule();
  assert.match(text, /"kind": "toolCall"/, "the observed transcript has a tool call");
  assert.match(text, /"type": "turnEnded"/, "the observed events have a turn end");
  writeFileSync(join(app, "observed.ts"), text);
  strictCompile("observed.ts", "the runtime and index.d.ts disagree");
});

const PAGE_SCRIPT = `
  import init, { AcpClient, AcpAgent, Validator, parseMessage } from "agentwire";
  await init();
  const c = new AcpClient({ protocolVersions: [2, 1], clientInfo: { name: "page", version: "1" } });
  const a = new AcpAgent({ protocolVersions: [1] });
  const answer = a.receive(c.initialize().text).find((e) => e.type === "send");
  const events = c.receive(answer.text);
  const v = new Validator({ protocol: "mcp", version: "2025-11-25" });
  document.body.dataset.result = JSON.stringify({
    version: c.state().protocolVersion,
    events: events.map((e) => e.type),
    valid: v.validate('{"jsonrpc":"2.0","method":"notifications/initialized"}', { direction: "clientToServer" }).ok,
    kind: parseMessage('{"jsonrpc":"2.0","id":1,"result":{}}').kind,
  });
`;
const EXPECTED = { version: 1, events: ["response", "initialized"], valid: true, kind: "response" };

/** A page of each per-protocol entry: its handshake and its validator. */
const ENTRY_PAGES = {
  "agentwire/acp": [`
    import init, { AcpClient, AcpAgent, Validator } from "agentwire/acp";
    await init();
    const c = new AcpClient({ protocolVersions: [2] });
    const a = new AcpAgent({ protocolVersions: [2, 1] });
    const answer = a.receive(c.initialize().text).find((e) => e.type === "send").text;
    const events = c.receive(answer);
    const v = new Validator({ protocol: "acp", version: "2" });
    document.body.dataset.result = JSON.stringify({ version: c.state().protocolVersion, events: events.map((e) => e.type),
      valid: v.validate(new TextEncoder().encode(answer), { direction: "serverToClient", inReplyTo: "initialize" }).ok });
  `, { version: 2, events: ["response", "initialized"], valid: true }],
  "agentwire/mcp": [`
    import init, { McpClient, McpServer, Validator } from "agentwire/mcp";
    await init();
    const c = new McpClient({ protocolVersions: ["2025-11-25"], era: "handshake", clientInfo: { name: "page", version: "1" } });
    const s = new McpServer({ protocolVersions: ["2025-11-25"], serverInfo: { name: "s", version: "1" } });
    const events = c.receive(s.receive(c.initialize().text).find((e) => e.type === "send").text);
    const v = new Validator({ protocol: "mcp", version: "2025-11-25" });
    document.body.dataset.result = JSON.stringify({ version: c.state().protocolVersion, events: events.map((e) => e.type),
      valid: v.validate('{"jsonrpc":"2.0","method":"notifications/initialized"}', { direction: "clientToServer" }).ok });
  `, { version: "2025-11-25", events: ["send", "initialized"], valid: true }],
};

function serve(dir) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
  const server = createServer((req, res) => {
    const path = join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!path.startsWith(dir) || !existsSync(path)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function runPage(dir, path) {
  const server = await serve(dir);
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
    await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 15000 });
    return { result: JSON.parse(await page.evaluate(() => document.body.dataset.result)), errors };
  } finally {
    await page.close();
    server.close();
  }
}

test("a plain HTML page with <script type=module> and no bundler, in Chromium", async () => {
  const script = PAGE_SCRIPT.replace('from "agentwire"', 'from "./node_modules/agentwire/index.js"');
  writeFileSync(join(app, "plain.html"), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body><script type="module">${script}</script></body>`);
  const { result, errors } = await runPage(app, "/plain.html");
  assert.deepEqual(result, EXPECTED);
  assert.deepEqual(errors, []);
});

/** A Vite build of an app whose main.js is `script`, from the tarball; returns its dist folder. */
function viteApp(dirName, script) {
  const vite = join(scratch, dirName);
  mkdirSync(vite);
  writeFileSync(join(vite, "index.html"), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body><script type="module" src="./main.js"></script></body>`);
  writeFileSync(join(vite, "main.js"), script);
  writeFileSync(join(vite, "package.json"), JSON.stringify({ name: dirName, private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", "--offline", tarball], vite);
  run("node", [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn", "--outDir", "dist"], vite);
  return join(vite, "dist");
}

test("a Vite build of a small app, in Chromium", async () => {
  const { result, errors } = await runPage(viteApp("vite-app", PAGE_SCRIPT), "/index.html");
  assert.deepEqual(result, EXPECTED);
  assert.deepEqual(errors, []);
});

for (const [entry, [script, expected]] of Object.entries(ENTRY_PAGES)) {
  test(`${entry}: a plain page and a Vite build in Chromium, each emitting that entry's .wasm only`, async () => {
    const dir = entry.replace("agentwire/", "");
    const plain = `${dir}.html`;
    writeFileSync(join(app, plain), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body><script type="module">${script.replace(`from "${entry}"`, `from "./node_modules/agentwire/${dir}.js"`)}</script></body>`);
    const page = await runPage(app, `/${plain}`);
    assert.deepEqual(page, { result: expected, errors: [] });
    const dist = viteApp(`vite-${dir}`, script);
    const built = await runPage(dist, "/index.html");
    assert.deepEqual(built, { result: expected, errors: [] });
    const wasm = readdirSync(join(dist, "assets")).filter((f) => f.endsWith(".wasm"));
    assert.equal(wasm.length, 1, wasm.join());
    const own = readFileSync(join(root, `pkg/${dir}/web/agentwire_bg.wasm`));
    assert.ok(readFileSync(join(dist, "assets", wasm[0])).equals(own), `the bundle carries ${dir}/web/agentwire_bg.wasm`);
  });
}
