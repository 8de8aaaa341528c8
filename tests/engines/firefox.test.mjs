// Firefox (Debian's firefox-esr, headless), driven through WebDriver (geckodriver, with
// selenium-webdriver). Console errors and uncaught exceptions are read over WebDriver BiDi.
// The wasm-bindgen tests run in Firefox in their own step (`wasm-pack test --headless --firefox`).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { Builder } from "selenium-webdriver";
import firefox from "selenium-webdriver/firefox.js";
import logInspector from "selenium-webdriver/bidi/logInspector.js";
import { needs, startRelay, plainPage, PLAIN_PAGE_RESULT, playgroundSmoke } from "./smoke.mjs";

const FIREFOX = "/usr/bin/firefox-esr";
const GECKODRIVER = join(homedir(), ".cargo/bin/geckodriver");
let driver, relay, problems = [];

before(async () => {
  needs([[FIREFOX, "apt-get install firefox-esr"], [GECKODRIVER, "cargo install geckodriver"]]);
  const options = new firefox.Options().addArguments("-headless").setBinary(FIREFOX).enableBidi();
  driver = await new Builder().forBrowser("firefox").setFirefoxOptions(options).setFirefoxService(new firefox.ServiceBuilder(GECKODRIVER)).build();
  const inspector = await (logInspector.default ?? logInspector)(driver);
  await inspector.onConsoleEntry((e) => { if (e.level === "error") problems.push(`console.error: ${e.text}`); });
  await inspector.onJavascriptException((e) => problems.push(`exception: ${e.text}`));
  relay = await startRelay();
});

after(async () => {
  await driver?.quit();
  await relay?.stop();
});

test("the package in a plain page, no bundler: init, a client's first message, validation", async () => {
  assert.deepEqual(await plainPage(driver), PLAIN_PAGE_RESULT);
  assert.deepEqual(problems, []);
});

test("the playground through the relay: ACP v2 and v1 with a permission turn, MCP, every frame valid", { timeout: 60_000 }, async () => {
  await playgroundSmoke(driver, relay.url);
  assert.deepEqual(problems, [], "no console error, no uncaught exception");
});
