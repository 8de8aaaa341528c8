// What every engine is asked, whatever drives it: the package in a plain page without a bundler,
// and a smoke test of the playground through a real relay (ACP v2 and v1 with a permission
// turn, MCP, validation badges). Each engine's test file brings a WebDriver session and its own
// way of hearing console errors and uncaught exceptions.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, extname } from "node:path";
import { fileURLToPath } from "node:url";
import { By, until } from "selenium-webdriver";

export const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const WAIT = 10_000;

/** Fails the suite early, naming the install step, when something an engine needs is absent. */
export function needs(list) {
  for (const [path, what] of [...list, [join(root, "pkg/index.js"), "node scripts/build.mjs"]]) {
    assert.ok(existsSync(path), `${path} is needed (${what})`);
  }
}

/** The relay with the demo agent as ACP (v2 and v1) and MCP; resolves to its page URL. */
export async function startRelay(extraArgs = []) {
  const dataDir = mkdtempSync(join(tmpdir(), "agentwire-engine-"));
  const demo = join(root, "target/release/agentwire-demo-agent");
  const child = spawn(join(root, "target/release/agentwire-relay"), ["--port", "0", ...extraArgs,
    "--agent", `demo=${demo} --data-dir ${dataDir}`, "--agent", `demo-v1=${demo} --versions 1 --data-dir ${dataDir}`, "--agent", `demo-mcp=${demo} --mcp`],
  { stdio: ["ignore", "pipe", "ignore"] });
  const url = await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(String(d).trim()));
    child.once("exit", (code) => reject(new Error(`relay exited ${code}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  // dataDir is removed once the relay (and so the demo agents writing in it) has exited.
  return { url, stop: async () => { child.kill(); await exited; rmSync(dataDir, { recursive: true, force: true }); } };
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/** Loads `pkg/` from a plain page (no bundler) and returns what it computed. `head` goes first. */
export async function plainPage(driver, head = "") {
  const page = `<!doctype html><meta charset="utf-8">${head}<pre id="out"></pre><script type="module">
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
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    await driver.get(`http://127.0.0.1:${server.address().port}/`);
    await waitText(driver, "#out", /acp/);
    return JSON.parse(await text(driver, "#out"));
  } finally {
    server.close();
  }
}

export const PLAIN_PAGE_RESULT = { acp: 2, mcp: "2025-11-25", issue: "missing_required" };

const text = async (driver, css) => (await driver.findElement(By.css(css)).getText()).trim();
async function waitText(driver, css, expected) {
  await driver.wait(async () => {
    const found = await driver.findElements(By.css(css));
    const t = found.length ? (await found[0].getText()).trim() : "";
    return expected instanceof RegExp ? expected.test(t) : t === expected;
  }, WAIT, `${css} to read ${expected}`);
}
const click = async (driver, css) => (await driver.wait(until.elementLocated(By.css(css)), WAIT)).click();

/** The playground at `pageUrl` (the relay's, or a page in front of it): three agents, every frame valid. */
export async function playgroundSmoke(driver, pageUrl) {
  async function connect(agent, protocol, versions) {
    await driver.get(pageUrl);
    await driver.wait(until.elementLocated(By.css(`#agent-select option[value="${agent}"]`)), WAIT);
    await click(driver, `#protocol-${protocol}`);
    await click(driver, `#agent-select option[value="${agent}"]`);
    for (const box of await driver.findElements(By.css(`#${protocol}-options input[id^=version-]`))) {
      const want = versions.includes((await box.getAttribute("id")).slice("version-".length));
      if ((await box.isSelected()) !== want) await box.click();
    }
    await click(driver, "#connect-button");
    await waitText(driver, "#negotiated-version", /^(?!—).+/);
    return text(driver, "#negotiated-version");
  }
  async function permissionTurn() {
    await click(driver, "#new-session-button");
    await waitText(driver, "#session-id", /^sess_/);
    await (await driver.findElement(By.css("#prompt-input"))).sendKeys("permission to edit, please");
    await click(driver, "#send-button");
    const allow = "#permission-dialog[open] [data-testid=permission-option][data-kind=allow_once]";
    await driver.wait(until.elementLocated(By.css(allow)), WAIT);
    await click(driver, allow);
    await waitText(driver, "#stop-reason", "stop reason: end_turn");
  }
  async function timelineValid(least) {
    const rows = await driver.findElements(By.css("[data-testid=timeline-row]"));
    assert.ok(rows.length >= least, `${rows.length} timeline rows`);
    for (const row of rows) assert.equal(await row.getAttribute("data-valid"), "true", await row.getText());
  }

  assert.equal(await connect("demo", "acp", ["2", "1"]), "2");
  await permissionTurn();
  await timelineValid(8);
  await click(driver, "#disconnect-button");

  assert.equal(await connect("demo-v1", "acp", ["1"]), "1");
  await permissionTurn();
  await timelineValid(8);
  await click(driver, "#disconnect-button");

  assert.equal(await connect("demo-mcp", "mcp", ["2025-11-25", "2025-06-18"]), "2025-11-25");
  await click(driver, "#mcp-list-tools");
  await driver.wait(until.elementLocated(By.css("[data-testid=mcp-tool][data-name=add]")), WAIT);
  await timelineValid(4);
}
