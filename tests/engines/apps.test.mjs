// MCP Apps in Firefox (geckodriver) and WebKit (WebKitWebDriver and MiniBrowser under xvfb-run):
// the same render flow as tests/e2e/apps.test.mjs for both example servers from the npm
// registry, through the relay and its sandbox origin, driven over WebDriver: the view renders on
// the sandbox origin, shows the host's tool result, calls the tool through the host from its
// own button, sends a message, resizes its frame, and answers the teardown. Then the hostile
// view's attacks that depend on the engine (top navigation, a fetch outside its CSP, the host
// page's DOM) and a sample of refused frames.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTcpServer } from "node:net";
import { Builder, By, until } from "selenium-webdriver";
import firefox from "selenium-webdriver/firefox.js";
import { startRelay, renderInPage } from "../e2e/apps-setup.mjs";
import { existsSync, mkdtempSync, rmSync } from "node:fs";

const FIREFOX = "/usr/bin/firefox-esr";
const GECKODRIVER = join(homedir(), ".cargo/bin/geckodriver");
const WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver";
const WAIT = 15_000;
let relay;

before(async () => {
  for (const [path, how] of [[FIREFOX, "apt-get install firefox-esr"], [GECKODRIVER, "cargo install geckodriver"],
    [WEBKIT_DRIVER, "apt-get install webkit2gtk-driver"], ["/usr/bin/xvfb-run", "apt-get install xvfb"]]) {
    assert.ok(existsSync(path), `${path} is needed (${how})`);
  }
  relay = await startRelay();
});
after(async () => { await relay?.stop(); });

async function freePort() {
  const s = createTcpServer().listen(0, "127.0.0.1");
  await new Promise((r) => s.once("listening", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** Runs `fn` in the page and waits for its promise (WebDriver's async script). */
function inPage(driver, fn, arg) {
  return driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
    (${fn})(arguments[0]).then((v) => done({ ok: v }), (e) => done({ error: String(e?.stack ?? e) }));`, arg)
    .then((r) => { if (r.error) throw new Error(r.error); return r.ok; });
}

/** Waits until `fn` (run in the page) answers true. */
async function until_(driver, fn, arg, what) {
  await driver.wait(async () => driver.executeScript(`return (${fn})(arguments[0])`, arg), WAIT, what);
}

async function flow(driver, name) {
  await driver.get(relay.url);
  await driver.manage().setTimeouts({ script: 30_000 });
  const rendered = await inPage(driver, renderInPage, [name, "get-time", relay.token]);
  assert.notEqual(new URL(rendered.sandbox).origin, relay.origin);
  assert.equal(rendered.appInfo.name, "Get Time App");
  const result = await inPage(driver, () => window.apps.view.run({}));
  const returned = result.content[0].text;

  // Into the view: the proxy's frame, then the view's.
  await driver.switchTo().frame(await driver.findElement(By.css(`#app-${name} iframe`)));
  await driver.switchTo().frame(await driver.findElement(By.css("iframe")));
  const code = await driver.findElement(By.css("code"));
  await driver.wait(until.elementTextIs(code, returned), WAIT, "the view shows the tool's result");
  await driver.findElement(By.xpath("//button[normalize-space()='Get Server Time']")).click();
  // The view lays itself out again as the tool's answer lands (its size-changed follows), so a
  // pointer click may land where the button was: the click is dispatched to the button itself.
  const send = await driver.findElement(By.xpath("//button[normalize-space()='Send Message']"));
  await driver.executeScript("arguments[0].click()", send);
  await driver.switchTo().defaultContent();

  await until_(driver, () => {
    const f = window.apps.seen.frames;
    const call = f.find((x) => x.direction === "in" && x.method === "tools/call" && !x.error);
    return !!call && f.some((x) => x.direction === "out" && !x.method && x.id === call.id && !x.error);
  }, null, "the view's tools/call was answered");
  await until_(driver, () => window.apps.seen.messages.length === 1 && window.apps.seen.sizes.length > 0, null, "message and size reached the host");
  const height = await driver.executeScript("return window.apps.view.iframe.getBoundingClientRect().height");
  const reported = await driver.executeScript("return window.apps.seen.sizes.at(-1).height");
  assert.ok(Math.abs(height - Math.min(Math.ceil(reported), 800)) <= 2, `frame ${height}px, view asked ${reported}px`);

  await inPage(driver, () => window.apps.view.teardown());
  const frames = await driver.executeScript("return window.apps.seen.frames");
  const teardown = frames.find((f) => f.method === "ui/resource-teardown");
  assert.ok(frames.some((f) => f.direction === "in" && f.id === teardown?.id && !f.method && !f.error), "the view answered the teardown");
  assert.deepEqual(frames.filter((f) => f.error), [], "no frame of a healthy view was refused");
  assert.equal(await driver.executeScript(`return document.querySelectorAll("#app-${name} iframe").length`), 0);
}

/** The hostile view's sandbox and boundary checks that depend on the engine. */
async function hostile(driver) {
  await driver.get(relay.url);
  await driver.manage().setTimeouts({ script: 30_000 });
  await inPage(driver, renderInPage, ["hostile", "attack", relay.token]);
  const attack = (name, args = {}) => inPage(driver, async ([n, a]) => {
    window.apps.view.toolInput({ attack: n, ...a });
    for (let i = 0; i < 200; i++) {
      const found = window.apps.seen.logs.find((l) => l.data?.attack === n);
      if (found) return found.data.outcome;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no outcome for ${n}`);
  }, [name, args]);
  const url = await driver.getCurrentUrl();
  assert.match(await attack("top"), /^blocked/);
  assert.equal(await driver.getCurrentUrl(), url, "the page was not navigated");
  assert.match(await attack("fetch", { target: `${relay.origin}/api/agents?token=${relay.token}` }), /^blocked/);
  assert.match(await attack("parent"), /^blocked/);
  const malformed = await attack("malformed");
  assert.deepEqual(malformed.map((a) => a.error?.code), [-32602, -32600, -32600, -32601, -32600, -32602, -32602, -32602, -32602]);
  assert.equal((await attack("model-only")).error?.code, -32602);
  assert.deepEqual(await driver.executeScript("return window.apps.seen.messages.length + window.apps.seen.links.length"), 0);
  await inPage(driver, () => window.apps.view.teardown());
}

test("Firefox: both example servers' views render and complete their flows; the hostile view is held", { timeout: 120_000 }, async () => {
  const options = new firefox.Options().addArguments("-headless").setBinary(FIREFOX);
  const driver = await new Builder().forBrowser("firefox").setFirefoxOptions(options)
    .setFirefoxService(new firefox.ServiceBuilder(GECKODRIVER)).build();
  try {
    await flow(driver, "vanilla");
    await flow(driver, "preact");
    await hostile(driver);
  } finally {
    await driver.quit();
  }
});

test("WebKit: both example servers' views render and complete their flows; the hostile view is held", { timeout: 120_000 }, async () => {
  const port = await freePort();
  // The X authority file in a folder of the test's own: xvfb-run removes the folder it would make
  // only when it ends by itself, not when its group is killed (below).
  const xauthDir = mkdtempSync(join(tmpdir(), "agentwire-xvfb-"));
  const webdriver = spawn("xvfb-run", ["-a", "-f", join(xauthDir, "Xauthority"), WEBKIT_DRIVER, `--port=${port}`], { stdio: "ignore", detached: true });
  const exited = new Promise((resolve) => webdriver.once("exit", resolve));
  let driver;
  try {
    for (let tries = 0; ; tries++) {
      try {
        driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({ browserName: "MiniBrowser" }).build();
        break;
      } catch (e) {
        if (tries > 50) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await flow(driver, "vanilla");
    await flow(driver, "preact");
    await hostile(driver);
  } finally {
    await driver?.quit();
    process.kill(-webdriver.pid);
    await exited;
    rmSync(xauthDir, { recursive: true, force: true });
  }
});
