// The packed npm tarball, made and installed by exactly the README's Install commands:
// publint and arethetypeswrong on the tarball, Node ESM, a TypeScript consumer under
// `tsc --strict`, a plain HTML page with <script type="module"> (no bundler) in Chromium, and
// a Vite build of a small app in Chromium. Needs `node scripts/build.mjs` first (the test
// command does it).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, copyFileSync, rmSync, existsSync, renameSync } from "node:fs";
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
  for (const must of ["package.json", "index.js", "node.js", "index.d.ts", "protocol.d.ts", "web/agentwire.js", "web/agentwire_bg.wasm", "node/agentwire.js"]) {
    assert.ok(files.includes(must), `${must} is in the tarball`);
  }
  assert.ok(!files.some((f) => f.endsWith(".rs") || f === "node/agentwire_bg.wasm" || f === "sizes.json"), files.join(", "));
});

test("publint finds nothing to fix", () => {
  const out = run(bin("publint"), ["--strict", tarball], root);
  assert.doesNotMatch(out, /error|warning/i, out);
});

test("arethetypeswrong: types resolve for ESM consumers (node16, bundler)", () => {
  // attw exits non-zero on any problem in the resolutions the profile checks.
  const out = run(bin("attw"), [tarball, "--profile", "esm-only", "--format", "table-flipped", "--no-color"], root);
  assert.match(out, /"agentwire"\s*│ 🟢 \(ESM\)\s*│ 🟢/, out);
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

test("a Vite build of a small app, in Chromium", async () => {
  const vite = join(scratch, "vite-app");
  mkdirSync(vite);
  writeFileSync(join(vite, "index.html"), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body><script type="module" src="./main.js"></script></body>`);
  writeFileSync(join(vite, "main.js"), PAGE_SCRIPT);
  writeFileSync(join(vite, "package.json"), JSON.stringify({ name: "vite-app", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", "--offline", tarball], vite);
  run("node", [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn", "--outDir", "dist"], vite);
  const { result, errors } = await runPage(join(vite, "dist"), "/index.html");
  assert.deepEqual(result, EXPECTED);
  assert.deepEqual(errors, []);
});
