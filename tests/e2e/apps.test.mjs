// MCP Apps in Chromium: a page on the relay renders the views of two example servers from the
// npm registry (server-basic-vanillajs, server-basic-preact) behind the relay's sandbox origin and
// completes their flows; a hostile view is refused at every attempt. See tests/e2e/apps-setup.mjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { ROOT, startRelay, renderInPage } from "./apps-setup.mjs";

const SHOTS = join(ROOT, "test-results/screenshots");
const STEP = 10_000;
let relay;
let browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  relay = await startRelay();
  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"] });
});
after(async () => {
  await browser?.close();
  await relay?.stop();
});

async function withPage(name, fn) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  context.setDefaultTimeout(STEP);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const logStart = relay.log.length;
  try {
    await page.goto(relay.url);
    await fn(page);
    assert.deepEqual(errors, [], "the page threw");
  } catch (err) {
    await page.screenshot({ path: join(SHOTS, `FAILED-apps-${name}.png`) }).catch(() => {});
    err.message += `\n-- page errors:\n${errors.join("\n")}\n-- relay log:\n${relay.log.slice(logStart).join("\n")}`;
    throw err;
  } finally {
    await context.close();
  }
}

const seen = (page) => page.evaluate(() => window.apps.seen);
const waitSeen = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: STEP });

/** The whole flow of an example server's get-time view. */
async function exampleFlow(page, name) {
  const rendered = await page.evaluate(renderInPage, [name, "get-time", relay.token]);
  assert.notEqual(new URL(rendered.sandbox).origin, relay.origin, "the sandbox is another origin");
  assert.equal(rendered.appInfo.name, "Get Time App");
  const outer = page.frameLocator(`#app-${name} iframe`);
  const view = outer.frameLocator("iframe");
  const time = view.locator("code").first();

  // Input, then result: the view shows the time the tool returned.
  const result = await page.evaluate(() => window.apps.view.run({}));
  const returned = result.content[0].text;
  await assert.doesNotReject(() => view.locator(`code:text-is("${returned}")`).waitFor());
  let frames = (await seen(page)).frames;
  assert.ok(frames.some((f) => f.direction === "out" && f.method === "ui/notifications/tool-input" && !f.error));
  assert.ok(frames.some((f) => f.direction === "out" && f.method === "ui/notifications/tool-result" && !f.error));

  // The host context gave the view its frame's room (the 600 px container, at most 800 px
  // high), and the answer to ui/initialize carrying it passed the validator.
  assert.deepEqual(await page.evaluate(() => window.apps.view.hostContext.containerDimensions), { width: 600, maxHeight: 800 });
  assert.ok(frames.some((f) => f.direction === "out" && !f.method && f.id !== undefined && !f.error));

  // The view calls a tool of its server through the host.
  await view.getByRole("button", { name: "Get Server Time" }).click();
  // The call went in, and its answer went back to the view.
  await waitSeen(page, () => {
    const call = window.apps.seen.frames.find((f) => f.direction === "in" && f.method === "tools/call" && !f.error);
    return call && window.apps.seen.frames.some((f) => f.direction === "out" && !f.method && f.id === call.id && !f.error);
  });
  assert.match((await time.textContent()).trim(), /^\d{4}-\d\d-\d\dT/);

  // Message, log and link reach the host's handlers.
  await view.getByRole("button", { name: "Send Message" }).click();
  await view.getByRole("button", { name: "Send Log" }).click();
  await view.getByRole("button", { name: "Open Link" }).click();
  await waitSeen(page, () => window.apps.seen.messages.length === 1 && window.apps.seen.links.length === 1
    && window.apps.seen.logs.some((l) => l.data === "This is log text."));
  const s = await seen(page);
  assert.equal(s.messages[0].content[0].text, "This is message text.");
  assert.equal(s.links[0], "https://modelcontextprotocol.io/");

  // Resize: the view reported its size and the frame took its height.
  await waitSeen(page, () => window.apps.seen.sizes.length > 0);
  const height = await page.evaluate(() => window.apps.view.iframe.getBoundingClientRect().height);
  const reported = (await seen(page)).sizes.at(-1).height;
  assert.ok(Math.abs(height - Math.min(Math.ceil(reported), 800)) <= 2, `frame ${height}px, view asked ${reported}px`);
  assert.notEqual(height, 120, "the frame left its initial height");

  // Host context changes reach the view (theme).
  await page.evaluate(() => window.apps.view.setHostContext({ theme: "dark" }));
  await view.locator("html[data-theme=dark], html[style*='color-scheme: dark']").waitFor({ state: "attached" }).catch(() => {});
  frames = (await seen(page)).frames;
  assert.ok(frames.some((f) => f.method === "ui/notifications/host-context-changed" && !f.error));
  await page.screenshot({ path: join(SHOTS, `apps-${name}.png`) });

  // Teardown: asked and answered, then the frame is gone.
  await page.evaluate(() => window.apps.view.teardown());
  frames = (await seen(page)).frames;
  const teardown = frames.find((f) => f.method === "ui/resource-teardown");
  assert.ok(teardown, "ui/resource-teardown was sent");
  assert.ok(frames.some((f) => f.direction === "in" && f.id === teardown.id && !f.method && !f.error), "the view answered the teardown");
  assert.equal(await page.locator(`#app-${name} iframe`).count(), 0);
  assert.equal(await page.evaluate(() => window.apps.view.state), "closed");
  // No frame of a healthy view was refused.
  assert.deepEqual(frames.filter((f) => f.error), []);
}

test("server-basic-vanillajs: renders, gets input and result, calls a tool, resizes, tears down", { timeout: 60_000 }, () =>
  withPage("vanilla", (page) => exampleFlow(page, "vanilla")));

test("server-basic-preact: the same flow with a Preact view", { timeout: 60_000 }, () =>
  withPage("preact", (page) => exampleFlow(page, "preact")));

/** Renders the hostile view, runs one attack and returns what the view logged about it. */
async function attack(page, name, args = {}) {
  await page.evaluate(([n, a]) => { window.apps.view.toolInput({ attack: n, ...a }); }, [name, args]);
  const handle = await waitSeen(page, (n) => window.apps.seen.logs.find((l) => l.data?.attack === n)?.data.outcome, name);
  return handle.jsonValue();
}

test("a hostile view: malformed frames, model-only and foreign tools, top navigation, fetch and the parent are refused", { timeout: 60_000 }, () =>
  withPage("hostile", async (page) => {
    const rendered = await page.evaluate(renderInPage, ["hostile", "attack", relay.token]);
    assert.deepEqual(rendered.tools.sort(), ["attack", "refresh", "secret"]);
    assert.deepEqual(rendered.modelTools.sort(), ["attack", "secret"], "the app-only tool is hidden from the model");
    await waitSeen(page, () => window.apps.seen.logs.some((l) => l.data?.attack === "init" && l.data.outcome === "ok"));

    // Malformed frames get the JSON-RPC error and reach no handler.
    const malformed = await attack(page, "malformed");
    assert.equal(malformed[0].error?.code, -32602, `url: 42 → ${JSON.stringify(malformed[0])}`);
    assert.equal(malformed[1].error?.code, -32600, `jsonrpc 1.0 → ${JSON.stringify(malformed[1])}`);
    assert.equal(malformed[2].error?.code, -32600, `params a string → ${JSON.stringify(malformed[2])}`);
    assert.equal(malformed[3].error?.code, -32601, `unknown method → ${JSON.stringify(malformed[3])}`);
    assert.equal(malformed[4].error?.code, -32600, `the proxy's message from the view → ${JSON.stringify(malformed[4])}`);
    // Valid by the schema, refused by the host: only http(s) links open.
    assert.equal(malformed[5].error?.code, -32602, `javascript: link → ${JSON.stringify(malformed[5])}`);
    assert.equal(malformed[6].error?.code, -32602, `role assistant → ${JSON.stringify(malformed[6])}`);
    assert.equal(malformed[7].error?.code, -32602, `an unknown member → ${JSON.stringify(malformed[7])}`);
    assert.equal(malformed[8].error?.code, -32602, `a text block without text → ${JSON.stringify(malformed[8])}`);
    const s = await seen(page);
    assert.deepEqual(s.links, [], "no refused link reached onOpenLink");
    assert.deepEqual(s.messages, [], "no refused message reached onMessage");
    for (const id of ["m1", "m2", "m3", "m4", "m5", "m7", "m8", "m9"]) {
      assert.ok(s.frames.some((f) => f.direction === "in" && f.id === id && f.error), `${id} is marked refused`);
    }

    // Visibility: a model-only tool and another server's tool are refused; an app-only one is served.
    const modelOnly = await attack(page, "model-only");
    assert.equal(modelOnly.error?.code, -32602);
    assert.match(modelOnly.error.message, /not callable by apps/);
    const foreign = await attack(page, "other-server");
    assert.equal(foreign.error?.code, -32602);
    assert.match(foreign.error.message, /not a tool of this app's server/);
    const appOnly = await attack(page, "app-only");
    assert.equal(appOnly.result?.content?.[0]?.text, "refreshed");

    // Bounds: a flood of calls is served up to the bound and the rest answered with an error; a
    // frame over 4 MiB is refused unread.
    const flood = await attack(page, "flood");
    assert.equal(flood.served + flood.refused.length, 200, "every call answered");
    assert.ok(flood.served >= 64 && flood.refused.length > 0, `served ${flood.served}, refused ${flood.refused.length}`);
    assert.ok(flood.refused.every((c) => c === -32603), JSON.stringify(flood.refused.slice(0, 3)));
    const huge = await attack(page, "huge");
    assert.equal(huge.error?.code, -32600);
    assert.deepEqual((await seen(page)).messages, [], "the huge message reached no handler");

    // The other notifications reach the view.
    await page.evaluate(() => {
      window.apps.view.toolInputPartial({ attack: "par" });
      window.apps.view.toolCancelled("user action");
      window.apps.view.setHostContext({ theme: "dark" });
    });
    const logged = await waitSeen(page, () => {
      const by = (n) => window.apps.seen.logs.find((l) => l.data?.attack === n)?.data.outcome;
      return by("partial") && by("cancelled") && by("context") ? [by("partial"), by("cancelled"), by("context")] : null;
    });
    assert.deepEqual(await logged.jsonValue(), [{ arguments: { attack: "par" } }, { reason: "user action" }, { theme: "dark" }]);

    // The sandbox: no top navigation, no fetch outside the CSP, no reach into the host page.
    const url = page.url();
    assert.match(await attack(page, "top"), /^blocked/);
    assert.equal(page.url(), url);
    const fetched = await attack(page, "fetch", { target: `${relay.origin}/api/agents?token=${relay.token}` });
    assert.match(fetched, /^blocked: TypeError/);
    assert.match(await attack(page, "parent"), /^blocked: SecurityError/);

    // A view that navigates its frame away is removed by the proxy: nothing of what loads there
    // can speak for the server's view.
    assert.equal(await attack(page, "navigate"), "navigating");
    const proxy = page.frameLocator("#app-hostile iframe");
    await proxy.locator("iframe").waitFor({ state: "detached" });
    await page.evaluate(() => window.apps.view.teardown());
  }));

test("modelTools, toolResourceUri, buildCsp and allowAttribute", { timeout: 30_000 }, () =>
  withPage("helpers", async (page) => {
    const out = await page.evaluate(async () => {
      const apps = await import("/pkg/apps.js");
      const uri = (meta) => { try { return apps.toolResourceUri({ name: "t", _meta: meta }); } catch (e) { return `throws ${e.code}`; } };
      return {
        nested: uri({ ui: { resourceUri: "ui://a/b" } }),
        flat: uri({ "ui/resourceUri": "ui://c/d" }),
        both: uri({ ui: { resourceUri: "ui://nested" }, "ui/resourceUri": "ui://flat" }),
        none: uri({}) ?? null,
        bad: uri({ ui: { resourceUri: "https://x" } }),
        model: apps.modelTools([{ name: "a" }, { name: "b", _meta: { ui: { visibility: ["app"] } } }, { name: "c", _meta: { ui: { visibility: ["model"] } } }]).map((t) => t.name),
        csp: apps.buildCsp({ connectDomains: ["https://api.example.com", "https://evil; script-src *"], resourceDomains: ["https://*.cdn.example"] }),
        allow: apps.allowAttribute({ camera: {}, clipboardWrite: {}, unknown: {} }),
      };
    });
    assert.equal(out.nested, "ui://a/b");
    assert.equal(out.flat, "ui://c/d");
    assert.equal(out.both, "ui://nested");
    assert.equal(out.none, null);
    assert.equal(out.bad, "throws -32602");
    assert.deepEqual(out.model, ["a", "c"]);
    assert.match(out.csp, /connect-src https:\/\/api\.example\.com;/);
    assert.doesNotMatch(out.csp, /evil/);
    assert.match(out.csp, /^default-src 'none';/);
    assert.match(out.csp, /script-src 'self' 'unsafe-inline' https:\/\/\*\.cdn\.example;/);
    assert.equal(out.allow, "camera; clipboard-write");
  }));

test("the playground: a tool with a UI opens it inline, its bridge's frames in the timeline on their own channel, validated", { timeout: 60_000 }, () =>
  withPage("playground", async (page) => {
    await page.locator("#agent-select option[value=vanilla]").waitFor({ state: "attached" });
    await page.selectOption("#agent-select", "vanilla");
    await page.check("#protocol-mcp");
    for (const v of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) await page.setChecked(`#version-${v}`, v === "2025-11-25");
    await page.click("#connect-button");
    await page.waitForFunction(() => /^2025-11-25$/.test(document.querySelector("#negotiated-version")?.textContent.trim()));
    await page.click("#mcp-list-tools");
    await page.click("[data-testid=mcp-tool][data-name=get-time]");
    await page.fill("#mcp-tool-args", "{}");
    await page.click("#mcp-call-tool");
    await page.waitForFunction(() => /^ok · \d+ ms$/.test(document.querySelector("[data-testid=mcp-tool-status]")?.textContent.trim()));
    // The view opens under the result and shows the time the call returned.
    const returned = await page.evaluate(() => JSON.parse(document.querySelector("#mcp-tool-result details:last-of-type pre").textContent).content[0].text);
    assert.match(returned, /^\d{4}-\d\d-\d\dT/);
    const view = page.frameLocator("[data-testid=mcp-tool-ui] iframe").frameLocator("iframe");
    await view.locator(`code:text-is("${returned}")`).waitFor();
    // The page's colours went with the host context, and the view applied them.
    assert.match(await view.locator("html").getAttribute("style"), /--color-background-primary:\s*#ffffff/);
    await view.getByRole("button", { name: "Get Server Time" }).click();

    // The bridge's frames: on the app's channel, paired, every one valid.
    const channelRows = page.locator("[data-testid=timeline-row]:has([data-testid=frame-channel]:text-is('app get-time'))");
    await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=timeline-row]")]
      .some((r) => r.dataset.method === "tools/call" && r.dataset.direction === "in" && r.querySelector("[data-testid=frame-channel]")));
    const rows = await channelRows.evaluateAll((els) => els.map((e) => `${e.dataset.direction} ${e.dataset.method} ${e.dataset.valid}`));
    for (const want of ["in ui/notifications/sandbox-proxy-ready", "out ui/notifications/sandbox-resource-ready", "in ui/initialize",
      "out ui/initialize", "in ui/notifications/initialized", "out ui/notifications/tool-input", "out ui/notifications/tool-result", "in tools/call"]) {
      assert.ok(rows.some((r) => r.startsWith(`${want} `)), `${want} in the timeline: ${rows.join(", ")}`);
    }
    assert.deepEqual(rows.filter((r) => !r.endsWith(" true")), [], "every frame of the bridge is valid");
    await page.screenshot({ path: join(SHOTS, "apps-playground.png") });
    await page.click("[data-testid=mcp-tool-ui-close]");
    await page.locator("[data-testid=mcp-tool-ui]").waitFor({ state: "detached" });
  }));

/** A GET with a chosen Host header (fetch cannot set one). */
function get(url, host) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    request({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers: host ? { host } : {} }, (res) => {
      let body = "";
      res.on("data", (c) => { body += c; }).on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
    }).on("error", reject).end();
  });
}

test("the sandbox origin: another port, the view's CSP as a header, framed only by the relay's pages, nothing else served", { timeout: 30_000 }, async () => {
  const agents = JSON.parse((await get(`${relay.origin}/api/agents?token=${relay.token}`)).body);
  const sandbox = new URL(agents.sandbox);
  assert.equal(sandbox.hostname, "127.0.0.1");
  assert.notEqual(sandbox.port, new URL(relay.origin).port);
  const csp = encodeURIComponent(JSON.stringify({ connectDomains: ["https://api.example.com", "https://x; script-src *"], frameDomains: ["'unsafe-eval'"] }));
  const page = await get(`${agents.sandbox}/sandbox.html?host=${encodeURIComponent(relay.origin)}&csp=${csp}`);
  assert.equal(page.status, 200);
  assert.match(page.headers["content-type"], /^text\/html/);
  const policy = page.headers["content-security-policy"];
  assert.match(policy, /^default-src 'none'; /);
  assert.match(policy, /connect-src https:\/\/api\.example\.com;/);
  assert.match(policy, /frame-src 'none';/);
  assert.doesNotMatch(policy, /unsafe-eval|x; script-src/);
  assert.match(policy, new RegExp(`frame-ancestors ${relay.origin.replace(/[.]/g, "\\.")}( |$)`));
  assert.equal(page.headers["origin-agent-cluster"], "?1");
  assert.equal(page.headers["x-content-type-options"], "nosniff");
  assert.match(page.body, /sandbox-resource-ready/);
  // The relay's pages may frame it, and only it.
  assert.match((await get(relay.url)).headers["content-security-policy"], new RegExp(`frame-src ${agents.sandbox.replace(/[.]/g, "\\.")}$`));
  assert.equal((await get(`${agents.sandbox}/`)).status, 404);
  assert.equal((await get(`${agents.sandbox}/pkg/index.js`)).status, 404);
  assert.equal((await get(`${agents.sandbox}/api/agents?token=${relay.token}`)).status, 404);
  assert.equal((await get(`${agents.sandbox}/sandbox.html`, "evil.example:80")).status, 403, "another Host (DNS rebinding) is refused");
});
