// The end-to-end tests' harness: one real relay with real agents (the demo agent in its three
// modes, the official ACP SDK example agent, the MCP "everything" server) started before a test
// file's tests, a real headless Chromium, and the steps the tests share, driven only through
// the page's UI (the stable ids of docs/playground.md). Importing it registers the file's
// before/after hooks.
//
// Needs: node_modules (playwright-core, the SDK, server-everything), /usr/bin/chromium, the built
// package in pkg/ (`node scripts/build.mjs`) and the release binaries
// (`cargo build --release -p agentwire-relay -p agentwire-demo-agent`). A missing one fails the
// file with a message; nothing is skipped. Screenshots go to test-results/screenshots/.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHROMIUM = "/usr/bin/chromium";
const RELAY = join(ROOT, "target/release/agentwire-relay");
const DEMO = join(ROOT, "target/release/agentwire-demo-agent");
const SDK_AGENT = join(ROOT, "node_modules/@agentclientprotocol/sdk/dist/examples/agent.js");
const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const SHOTS = join(ROOT, "test-results/screenshots");
// The package served at /pkg/: pkg/ of the repo, or another build (AGENTWIRE_PKG=DIR).
const PKG = process.env.AGENTWIRE_PKG ?? join(ROOT, "pkg");
export const TEST_TIMEOUT = 30_000;   // per test
export const STEP_TIMEOUT = 10_000;   // per wait or action inside a test

const REQUIRED = [
  [CHROMIUM, "Debian Chromium (apt-get install chromium)"],
  [join(ROOT, "node_modules/playwright-core/package.json"), "playwright-core (npm install)"],
  [SDK_AGENT, "@agentclientprotocol/sdk (npm install)"],
  [EVERYTHING, "@modelcontextprotocol/server-everything (npm install)"],
  [join(PKG, "index.js"), "the package build (node scripts/build.mjs)"],
  [join(PKG, "web/agentwire_bg.wasm"), "the package build (node scripts/build.mjs)"],
  [RELAY, "the relay (cargo build --release -p agentwire-relay)"],
  [DEMO, "the demo agent (cargo build --release -p agentwire-demo-agent)"],
];

let relay = null;       // the child process
let relayUrl = null;    // http://127.0.0.1:PORT/?token=…
let relayLog = [];      // its stderr, shown when something fails
let browser = null;
let dataDir = null;

before(async () => {
  const missing = REQUIRED.filter(([path]) => !existsSync(path));
  assert.deepEqual(missing.map(([path, what]) => `${path}: ${what}`), [], "the end-to-end tests need these; install or build them first");
  mkdirSync(SHOTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "agentwire-e2e-"));
  const token = randomBytes(16).toString("hex");
  relay = spawn(RELAY, [
    "--port", "0", "--token", token, "--pkg", PKG,
    "--agent", `demo=${DEMO} --data-dir ${dataDir}`,
    "--agent", `demo-v1=${DEMO} --versions 1 --data-dir ${dataDir}`,
    "--agent", `demo-mcp=${DEMO} --mcp`,
    "--agent", `sdk-mcp=node ${join(ROOT, "tests/e2e/sdk-mcp-server.mjs")}`,
    "--agent", `sdk=node ${SDK_AGENT}`,
    "--agent", `everything=node ${EVERYTHING} stdio`,
  ], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  createInterface({ input: relay.stderr }).on("line", (line) => relayLog.push(line));
  relayUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the relay printed no URL within 5 s:\n${relayLog.join("\n")}`)), 5000);
    relay.once("exit", (code) => reject(new Error(`the relay exited with ${code}:\n${relayLog.join("\n")}`)));
    createInterface({ input: relay.stdout }).once("line", (line) => { clearTimeout(timer); resolve(line.trim()); });
  });
  assert.match(relayUrl, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}$/);

  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
});

after(async () => {
  await browser?.close();
  if (relay && relay.exitCode === null) {
    const exited = new Promise((resolve) => relay.once("exit", resolve));
    relay.kill("SIGTERM");
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// --- helpers -------------------------------------------------------------------------------

/**
 * Runs `fn(page)` in a fresh browser context on the playground. Console errors and page errors
 * fail the test; on failure a screenshot and the relay's log are kept for diagnosis.
 */
export async function withPage(name, fn, { viewport = { width: 1440, height: 1000 }, expectedConsole = null, url = null } = {}) {
  const context = await browser.newContext({ viewport, colorScheme: "light", reducedMotion: "reduce" });
  context.setDefaultTimeout(STEP_TIMEOUT);
  const page = await context.newPage();
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && !expectedConsole?.test(msg.text())) problems.push(`console.error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  const logStart = relayLog.length;
  try {
    // `url(relayUrl)`: another address to open first (a tab without the token), left to `fn` to wait for.
    if (url) await page.goto(url(relayUrl));
    else await open(page);
    await fn(page);
    assert.deepEqual(problems, [], "the page reported errors");
  } catch (err) {
    await page.screenshot({ path: join(SHOTS, `FAILED-${name}.png`), fullPage: true }).catch(() => {});
    err.message += `\n-- page errors:\n${problems.join("\n")}\n-- relay log:\n${relayLog.slice(logStart).join("\n")}`;
    throw err;
  } finally {
    await context.close();
  }
}

export async function open(page) {
  await page.goto(relayUrl);
  await page.locator("#agent-select option[value=everything]").waitFor({ state: "attached" });
}

/**
 * A picture of one pane for docs/playground.md: in test-results/screenshots/, and with
 * AGENTWIRE_DOC_SHOTS=1 also as docs/NAME.png (so that an ordinary run leaves docs/ alone).
 */
export async function docShot(page, selector, name) {
  // The sticky top bar would cover a pane taller than the window.
  await page.addStyleTag({ content: ".top { position: static !important; }" });
  const pane = page.locator(selector).first();
  await pane.screenshot({ path: join(SHOTS, `${name}.png`) });
  if (process.env.AGENTWIRE_DOC_SHOTS) await pane.screenshot({ path: join(ROOT, "docs", `${name}.png`) });
}

export async function shot(page, name, options = {}) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), ...options });
}

/** Waits until the text of `selector` (the first match) equals `expected` or matches a RegExp. */
export async function waitText(page, selector, expected) {
  const want = expected instanceof RegExp ? { source: expected.source, flags: expected.flags } : { exact: expected };
  try {
    await page.waitForFunction(([sel, w]) => {
      const text = (document.querySelector(sel)?.textContent ?? "").trim();
      return w.exact !== undefined ? text === w.exact : new RegExp(w.source, w.flags).test(text);
    }, [selector, want], { timeout: STEP_TIMEOUT });
  } catch {
    const actual = await page.locator(selector).first().textContent({ timeout: 1000 }).catch(() => "(absent)");
    assert.fail(`${selector}: expected ${expected}, found ${JSON.stringify(actual?.trim())}`);
  }
}

export const ALL_VERSIONS = { acp: ["2", "1"], mcp: ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] };

/** Picks agent, protocol and versions in the connect panel and connects; returns the negotiated version text. */
export async function connect(page, { agent, protocol = "acp", versions = ALL_VERSIONS[protocol], caps = {} }) {
  await page.selectOption("#agent-select", agent);
  await page.check(`#protocol-${protocol}`);
  for (const v of ALL_VERSIONS[protocol]) await page.setChecked(`#version-${v}`, versions.includes(v));
  for (const [id, on] of Object.entries(caps)) await page.setChecked(`#${id}`, on);
  await page.click("#connect-button");
  await waitText(page, "#negotiated-version", /^(?!—).+/);
  return (await page.textContent("#negotiated-version")).trim();
}

export async function newSession(page) {
  await page.click("#new-session-button");
  await waitText(page, "#session-id", /^(?!no session|loading).+/);
  return (await page.textContent("#session-id")).trim();
}

/** Sends a prompt; with `until`, waits for that stop reason. */
export async function prompt(page, text, until) {
  await page.fill("#prompt-input", text);
  await page.click("#send-button");
  if (until) await waitText(page, "#stop-reason", `stop reason: ${until}`);
}

export async function answerPermission(page, kind) {
  await page.locator("#permission-dialog[open]").waitFor();
  await page.click(`#permission-dialog [data-testid=permission-option][data-kind=${kind}]`);
  await page.locator("#permission-dialog[open]").waitFor({ state: "detached" });
}

export const texts = (page, selector) => page.locator(selector).allTextContents();

export async function timelineMethods(page) {
  return page.locator("[data-testid=timeline-row]").evaluateAll((rows) => rows.map((r) => `${r.dataset.direction} ${r.dataset.method}`));
}

/** The URL the relay printed (with its token). */
export const relayAddress = () => relayUrl;

