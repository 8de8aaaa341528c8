// Firefox (Debian's firefox-esr, headless), driven through WebDriver (geckodriver, with
// selenium-webdriver): the package in a plain page without a bundler, and a smoke test of the
// playground through a real relay (ACP v2 and v1 with a permission turn, MCP, validation
// badges), with no console error or uncaught exception (read over WebDriver BiDi). The
// wasm-bindgen tests run in Firefox in their own step (`wasm-pack test --headless --firefox`).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, homedir } from "node:os";
import { join, dirname, extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Builder, By, until } from "selenium-webdriver";
import firefox from "selenium-webdriver/firefox.js";
import logInspector from "selenium-webdriver/bidi/logInspector.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const FIREFOX = "/usr/bin/firefox-esr";
const GECKODRIVER = join(homedir(), ".cargo/bin/geckodriver");
const WAIT = 10_000;
let driver, problems = [], relay, relayUrl, dataDir;

before(async () => {
  for (const [path, what] of [[FIREFOX, "apt-get install firefox-esr"], [GECKODRIVER, "cargo install geckodriver"], [join(root, "pkg/index.js"), "node scripts/build.mjs"]]) {
    assert.ok(existsSync(path), `${path} is needed (${what})`);
  }
  const options = new firefox.Options().addArguments("-headless").setBinary(FIREFOX).enableBidi();
  driver = await new Builder().forBrowser("firefox").setFirefoxOptions(options).setFirefoxService(new firefox.ServiceBuilder(GECKODRIVER)).build();
  const inspector = await (logInspector.default ?? logInspector)(driver);
  await inspector.onConsoleEntry((e) => { if (e.level === "error") problems.push(`console.error: ${e.text}`); });
  await inspector.onJavascriptException((e) => problems.push(`exception: ${e.text}`));
  dataDir = mkdtempSync(join(tmpdir(), "agentwire-firefox-"));
  const demo = join(root, "target/release/agentwire-demo-agent");
  relay = spawn(join(root, "target/release/agentwire-relay"), ["--port", "0",
    "--agent", `demo=${demo} --data-dir ${dataDir}`, "--agent", `demo-v1=${demo} --versions 1 --data-dir ${dataDir}`, "--agent", `demo-mcp=${demo} --mcp`],
    { stdio: ["ignore", "pipe", "ignore"] });
  relayUrl = await new Promise((resolve, reject) => {
    relay.stdout.once("data", (d) => resolve(String(d).trim()));
    relay.once("exit", (code) => reject(new Error(`relay exited ${code}`)));
  });
});

after(async () => {
  await driver?.quit();
  relay?.kill();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const text = async (css) => (await driver.findElement(By.css(css)).getText()).trim();
async function waitText(css, expected) {
  await driver.wait(async () => {
    const found = await driver.findElements(By.css(css));
    const t = found.length ? (await found[0].getText()).trim() : "";
    return expected instanceof RegExp ? expected.test(t) : t === expected;
  }, WAIT, `${css} to read ${expected}`);
}
const click = async (css) => (await driver.wait(until.elementLocated(By.css(css)), WAIT)).click();

test("the package in a plain page, no bundler: init, a client's first message, validation", async () => {
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
  const page = `<!doctype html><meta charset="utf-8"><pre id="out"></pre><script type="module">
    import init, { AcpClient, McpClient, Validator } from "/pkg/index.js";
    await init();
    const first = JSON.parse(new AcpClient({ protocolVersions: [2, 1] }).initialize().text);
    const mcp = JSON.parse(new McpClient({ protocolVersions: ["2025-11-25"], era: "handshake" }).initialize().text);
    const report = new Validator({ protocol: "mcp", version: "2025-11-25" }).validate('{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"}]}}', { direction: "serverToClient", inReplyTo: "tools/list" });
    document.getElementById("out").textContent = JSON.stringify({ acp: first.params.protocolVersion, mcp: mcp.params.protocolVersion, issue: report.issues[0].code });
  </script>`;
  const server = createServer((req, res) => {
    const path = req.url === "/" ? null : join(root, decodeURIComponent(req.url.split("?")[0]));
    if (!path) return res.writeHead(200, { "content-type": "text/html" }).end(page);
    if (!path.startsWith(join(root, "pkg")) || !existsSync(path)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    await driver.get(`http://127.0.0.1:${server.address().port}/`);
    await waitText("#out", /acp/);
    assert.deepEqual(JSON.parse(await text("#out")), { acp: 2, mcp: "2025-11-25", issue: "missing_required" });
    assert.deepEqual(problems, []);
  } finally {
    server.close();
  }
});

async function connect(agent, protocol, versions) {
  await driver.get(relayUrl);
  await driver.wait(until.elementLocated(By.css(`#agent-select option[value="${agent}"]`)), WAIT);
  await click(`#protocol-${protocol}`);
  await click(`#agent-select option[value="${agent}"]`);
  for (const box of await driver.findElements(By.css(`#${protocol}-options input[id^=version-]`))) {
    const want = versions.includes((await box.getAttribute("id")).slice("version-".length));
    if ((await box.isSelected()) !== want) await box.click();
  }
  await click("#connect-button");
  await waitText("#negotiated-version", /^(?!—).+/);
  return text("#negotiated-version");
}

async function permissionTurn() {
  await click("#new-session-button");
  await waitText("#session-id", /^sess_/);
  await (await driver.findElement(By.css("#prompt-input"))).sendKeys("permission to edit, please");
  await click("#send-button");
  await driver.wait(until.elementLocated(By.css("#permission-dialog[open] [data-testid=permission-option][data-kind=allow_once]")), WAIT);
  await click("#permission-dialog [data-testid=permission-option][data-kind=allow_once]");
  await waitText("#stop-reason", "stop reason: end_turn");
}

async function timelineValid(least) {
  const rows = await driver.findElements(By.css("[data-testid=timeline-row]"));
  assert.ok(rows.length >= least, `${rows.length} timeline rows`);
  for (const row of rows) assert.equal(await row.getAttribute("data-valid"), "true", await row.getText());
}

test("the playground through the relay: ACP v2 and v1 with a permission turn, MCP, every frame valid", { timeout: 60_000 }, async () => {
  assert.equal(await connect("demo", "acp", ["2", "1"]), "2");
  await permissionTurn();
  await timelineValid(8);
  await click("#disconnect-button");

  assert.equal(await connect("demo-v1", "acp", ["1"]), "1");
  await permissionTurn();
  await timelineValid(8);
  await click("#disconnect-button");

  assert.equal(await connect("demo-mcp", "mcp", ["2025-11-25", "2025-06-18"]), "2025-11-25");
  await click("#mcp-list-tools");
  await driver.wait(until.elementLocated(By.css("[data-testid=mcp-tool][data-name=add]")), WAIT);
  await timelineValid(4);
  assert.deepEqual(problems, [], "no console error, no uncaught exception");
});
