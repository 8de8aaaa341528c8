// End-to-end tests of the playground: one real relay with real agents (the demo agent in its
// three modes, the official ACP SDK example agent, the MCP "everything" server), driven in a real
// headless Chromium only through the page's UI (the stable ids of docs/playground.md).
//
// Needs: node_modules (playwright-core, the SDK, server-everything), /usr/bin/chromium, the built
// package in pkg/ (`node scripts/build.mjs`) and the release binaries
// (`cargo build --release -p agentwire-relay -p agentwire-demo-agent`). A missing one fails the
// file with a message; nothing is skipped. Screenshots go to test-results/screenshots/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  SHOTS, TEST_TIMEOUT, STEP_TIMEOUT, ALL_VERSIONS, texts,
  withPage, shot, docShot, waitText, connect, newSession, prompt, answerPermission, timelineMethods,
} from "./harness.mjs";
// --- ACP against the demo agent --------------------------------------------------------------

/**
 * The whole ACP flow against the demo agent in one version: initialize, new session, a
 * permission request answered in the dialog, an fs read, a cancelled slow turn, then a second
 * connection that loads the session and sees its history replayed.
 */
async function demoFlow(page, version) {
  assert.equal(await connect(page, { agent: "demo", versions: [version] }), version);
  await waitText(page, "#connection-status", `ACP ${version} · demo`);
  const sessionId = await newSession(page);
  assert.match(sessionId, /^sess_/);

  // Permission: the dialog names the tool call; allowing it completes the tool call.
  await prompt(page, "permission to edit, please");
  await page.locator("#permission-dialog[open]").waitFor();
  const permissionCall = page.locator("[data-testid=tool-call]").first();
  const toolTitle = (await permissionCall.locator("strong").first().textContent()).trim();
  assert.notEqual(toolTitle, "tool call", "the tool call has its own title");
  assert.ok((await page.textContent("#permission-title")).includes(toolTitle), "the dialog's title names the tool call");
  assert.ok((await page.textContent("[data-testid=permission-tool-call]")).includes(toolTitle), "the dialog shows the tool call's title");
  assert.doesNotMatch(await page.textContent("#permission-dialog"), /\?\s*·|tool call \?/);
  if (version === "2") await shot(page, "permission-dialog");
  await answerPermission(page, "allow_once");
  await waitText(page, "#stop-reason", "stop reason: end_turn");
  assert.equal(await permissionCall.getAttribute("data-status"), "completed");
  assert.deepEqual(await texts(page, "[data-testid=transcript-user]"), ["userpermission to edit, please"],
    "the user's prompt appears once");
  if (version === "2") {
    await waitText(page, "[data-testid=session-state]", "state: idle (end_turn)");
    assert.equal(await page.locator("#transcript details:has-text('state_update')").count(), 0, "state updates are not raw JSON");
  }

  // fs read: v1 asks the page for the file and quotes it; v2 has no fs methods.
  await prompt(page, "read README.md", "end_turn");
  const reads = (await timelineMethods(page)).filter((m) => m === "in fs/read_text_file");
  if (version === "1") {
    assert.equal(reads.length, 1);
    await waitText(page, "#fs-log", /read\s*\/home\/user\/project\/README\.md/);
    assert.ok((await texts(page, "[data-testid=transcript-agent]")).some((t) => t.includes("> # Demo project")),
      "the agent quotes the file the page served");
  } else {
    assert.equal(reads.length, 0, "v2 has no fs/read_text_file");
    assert.ok((await texts(page, "[data-testid=transcript-agent]")).some((t) => /not advertise/i.test(t)));
  }

  // A tool call with a diff (v1: path, old and new text; v2: the changed files).
  await prompt(page, "tool", "end_turn");
  assert.equal(await page.locator("[data-testid=tool-call][data-status=completed]").count(), version === "1" ? 3 : 2);
  const diff = await page.locator("[data-testid=tool-call] .diff").last().textContent();
  assert.match(diff, /\/home\/user\/project\/demo\.txt/);
  await page.setViewportSize({ width: 1440, height: 1300 });   // the whole transcript card
  await page.locator(".transcript-scroll").evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await shot(page, `connected-transcript-v${version}`);
  await page.setViewportSize({ width: 1440, height: 1000 });

  // Cancel a slow turn once it has started streaming.
  const agentsBefore = await page.locator("[data-testid=transcript-agent]").count();
  await prompt(page, "slow");
  await page.locator("[data-testid=transcript-agent]").nth(agentsBefore).waitFor();
  await page.click("#cancel-button");
  await waitText(page, "#stop-reason", "stop reason: cancelled");
  assert.ok((await timelineMethods(page)).includes("out session/cancel"));
  await page.locator("[data-testid=transcript-note]:has-text('turn ended: cancelled')").waitFor();

  // Reload the page, connect again and load the session: the history is replayed.
  await page.reload();
  await page.locator("#agent-select option[value=demo]").waitFor({ state: "attached" });
  assert.equal(await connect(page, { agent: "demo", versions: [version] }), version);
  await page.fill("#load-session-id", sessionId);
  await page.click("#load-session-button");
  await waitText(page, "#session-id", sessionId);
  await page.locator("[data-testid=transcript-note]:has-text('updates replayed')").waitFor();
  const users = await texts(page, "[data-testid=transcript-user]");
  assert.deepEqual(users.map((u) => u.replace(/^user/, "")), ["permission to edit, please", "read README.md", "tool", "slow"]);
  assert.equal(await page.locator("[data-testid=tool-call]").count(), version === "1" ? 3 : 2, "tool calls are replayed");
  const replayed = Number((await page.textContent("[data-testid=transcript-note]:has-text('updates replayed')")).match(/\((\d+) updates/)[1]);
  assert.ok(replayed > 4, `replayed ${replayed} updates`);
  // The loaded session takes prompts.
  await prompt(page, "hello again", "end_turn");
  assert.ok((await texts(page, "[data-testid=transcript-agent]")).some((t) => t.includes("You said: hello again")));
}

test("ACP v2 against the demo agent: initialize, new, permission, fs, cancel, load with replay", { timeout: TEST_TIMEOUT }, () =>
  withPage("acp-v2-demo", (page) => demoFlow(page, "2")));

test("ACP v1 against the demo agent: initialize, new, permission, fs read, cancel, load with replay", { timeout: TEST_TIMEOUT }, () =>
  withPage("acp-v1-demo", (page) => demoFlow(page, "1")));

test("ACP v1 against the official SDK example agent", { timeout: TEST_TIMEOUT }, () => withPage("acp-sdk", async (page) => {
  // Offered 2 and 1; the SDK agent answers 1 and the page uses it.
  assert.equal(await connect(page, { agent: "sdk" }), "1");
  assert.match(await page.textContent("#negotiation-detail"), /answered\s*1/);
  await newSession(page);
  assert.equal(await page.isDisabled("#load-session-button"), true, "the SDK agent has no loadSession");
  await prompt(page, "Please improve the configuration");
  await page.locator("#permission-dialog[open]").waitFor();
  assert.equal((await page.textContent("#permission-title")).trim(), "Allow Modifying critical configuration file?");
  await answerPermission(page, "allow_once");
  await waitText(page, "#stop-reason", "stop reason: end_turn");
  assert.equal(await page.locator("[data-testid=tool-call][data-tool-call-id=call_1][data-status=completed]").count(), 1);
  assert.equal(await page.locator("[data-testid=tool-call][data-tool-call-id=call_2][data-status=completed]").count(), 1);
  assert.match((await texts(page, "[data-testid=transcript-agent]")).join(" "), /successfully updated the configuration/);
}));

// --- MCP ------------------------------------------------------------------------------------

async function callTool(page, name, args) {
  await page.click(`[data-testid=mcp-tool][data-name="${name}"]`);
  await waitText(page, "#mcp-tool-name", name);
  await page.fill("#mcp-tool-args", JSON.stringify(args));
  await page.click("#mcp-call-tool");
  await waitText(page, "[data-testid=mcp-tool-status]", /^ok · \d+ ms$/);
  return (await page.textContent("#mcp-tool-result")).trim();
}

test("MCP against server-everything: initialize, tools/list, tools/call echo", { timeout: TEST_TIMEOUT }, () => withPage("mcp-everything", async (page) => {
  assert.equal(await connect(page, { agent: "everything", protocol: "mcp" }), "2025-11-25");
  await page.click("#mcp-list-tools");
  await page.locator("[data-testid=mcp-tool][data-name=echo]").waitFor();
  assert.ok(await page.locator("[data-testid=mcp-tool]").count() > 3);
  assert.match(await callTool(page, "echo", { message: "hello from the browser" }), /hello from the browser/);
  await shot(page, "mcp-tools");
  await page.click("#mcp-ping");
  await page.locator("#mcp-events li:has-text('pong')").waitFor();
}));

test("MCP against the demo agent: tools, resources, prompts", { timeout: TEST_TIMEOUT }, () => withPage("mcp-demo", async (page) => {
  assert.equal(await connect(page, { agent: "demo-mcp", protocol: "mcp", versions: ["2025-06-18"] }), "2025-06-18");
  await page.click("#mcp-list-tools");
  await page.locator("[data-testid=mcp-tool][data-name=add]").waitFor();
  assert.match(await callTool(page, "add", { a: 2, b: 40 }), /42/);
  assert.match(await callTool(page, "echo", { message: "round trip" }), /round trip/);
  await page.click("#mcp-list-resources");
  await page.click("[data-testid=mcp-resource][data-uri='demo://readme'] button:has-text('Read')");
  await page.locator("#mcp-resource-result pre").waitFor();
  assert.ok((await page.textContent("#mcp-resource-result pre")).trim().length > 0);
  await page.click("#mcp-list-prompts");
  await page.click("[data-testid=mcp-prompt][data-name=greet]");
  await page.fill("#mcp-prompt-args input[data-arg=name]", "Ada");
  await page.click("#mcp-get-prompt");
  await waitText(page, "#mcp-prompt-result", /Please greet Ada warmly\./);
}));

// --- failure, timeline, appearance ----------------------------------------------------------

test("offering only v2 to a v1-only agent fails and says why", { timeout: TEST_TIMEOUT }, () => withPage("negotiation-failed", async (page) => {
  assert.equal(await connect(page, { agent: "demo-v1", versions: ["2"] }), "failed");
  await page.locator("#error-banner:not([hidden])").waitFor();
  const message = await page.textContent("#error-message");
  assert.match(message, /\b2\b/, `the message names the offered version: ${message}`);
  assert.match(message, /\b1\b/, `the message names the agent's version: ${message}`);
  await waitText(page, "#connection-status", "initialize failed");
  assert.equal(await page.isEnabled("#connect-button"), true, "the user can try again");
  await shot(page, "negotiation-failed");
}));

test("the timeline lists every frame with a validation badge; the inspector shows one", { timeout: TEST_TIMEOUT }, () => withPage("timeline", async (page) => {
  await connect(page, { agent: "demo", versions: ["2"] });
  await newSession(page);
  await prompt(page, "plan", "end_turn");
  const methods = await timelineMethods(page);
  for (const m of ["out initialize", "in initialize", "out session/new", "in session/update", "out session/prompt"]) {
    assert.ok(methods.includes(m), `${m} in ${methods.join(", ")}`);
  }
  const rows = page.locator("[data-testid=timeline-row]");
  assert.equal(await rows.locator(".badge.ok, .badge.warn, .badge.bad").count() >= await rows.count(), true, "every row has a badge");
  const invalid = await page.locator("[data-testid=timeline-row][data-valid=false]").evaluateAll((r) => r.map((x) => x.textContent));
  assert.deepEqual(invalid, [], "the demo agent and the page speak valid ACP");
  await page.click("[data-testid=timeline-row][data-direction=out][data-method=initialize]");
  await page.locator("[data-testid=timeline-row][data-method=initialize][aria-pressed=true]").waitFor();
  assert.match(await page.textContent("#inspector"), /"method"\s*:\s*"initialize"[^]*"protocolVersion"\s*:\s*2/);
  await page.click("[data-testid=timeline-row][data-direction=out][data-method='session/prompt']");
  await page.locator("#inspector [data-testid=inspector-valid]").waitFor();
  assert.match(await page.textContent("#inspector"), /"method"\s*:\s*"session\/prompt"[^]*"text"\s*:\s*"plan"/);
  assert.equal(await page.locator("[data-testid=plan] .plan-entry[data-status=completed]").count(), 3);
}));

test("dark theme and a narrow viewport", { timeout: TEST_TIMEOUT }, () => withPage("appearance", async (page) => {
  await page.click("#theme-toggle");
  await page.click("#theme-toggle");
  assert.equal(await page.getAttribute("html", "data-theme"), "dark");
  await connect(page, { agent: "demo", versions: ["2"] });
  await newSession(page);
  await prompt(page, "tool", "end_turn");
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = background.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 200, `a dark background (${background})`);
  await shot(page, "dark");

  // Two columns on a laptop: the timeline follows the session column directly.
  await page.setViewportSize({ width: 1280, height: 800 });
  const box = (sel) => page.locator(sel).evaluate((el) => { const r = el.getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left }; });
  const [raw, wire] = [await box("#raw-section"), await box("section:has(#timeline)")];
  assert.ok(wire.top > raw.bottom && wire.top - raw.bottom < 100 && wire.left === raw.left, `timeline ${JSON.stringify(wire)} under the session ${JSON.stringify(raw)}`);

  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0, "nothing overflows a 390 px screen horizontally");
  // One column: the session comes before the timeline, the long capability matrix last.
  const top = (sel) => page.locator(sel).evaluate((el) => el.getBoundingClientRect().top + scrollY);
  assert.ok(await top("#transcript-section") < await top("#timeline"), "the transcript comes before the timeline");
  assert.ok(await top("#timeline") < await top("#capability-matrix"), "the timeline comes before the capability matrix");
  await page.locator("#acp-section").evaluate((el) => el.scrollIntoView({ block: "start" }));
  await shot(page, "narrow-390");
}));

test("the initialize preview is exactly what is then sent, written by the library", { timeout: TEST_TIMEOUT }, () => withPage("preview", async (page) => {
  await page.selectOption("#agent-select", "demo");
  await page.check("#protocol-acp");
  for (const v of ALL_VERSIONS.acp) await page.setChecked(`#version-${v}`, true);
  await page.setChecked("#cap-terminal", false);
  await page.locator("#caps-preview .preview-item[data-version='2'] pre").waitFor();
  const previewed = JSON.parse(await page.textContent("#caps-preview pre"));
  assert.equal(previewed.protocolVersion, 2, "the latest offered version is requested");
  assert.deepEqual(previewed.clientCapabilities, { fs: { readTextFile: true, writeTextFile: true } }, "nothing the wire does not carry (no terminal: false)");
  const frames = [];
  page.on("websocket", (ws) => ws.on("framesent", ({ payload }) => frames.push(String(payload))));
  await page.click("#connect-button");
  await waitText(page, "#negotiated-version", /^(?!—).+/);
  const sent = frames.map((f) => JSON.parse(f)).find((m) => m.method === "initialize");
  assert.deepEqual(sent?.params, previewed, "the frame on the wire");
}));

test("the token leaves the address bar and the history, and a reload still connects", { timeout: TEST_TIMEOUT }, () => withPage("token", async (page) => {
  assert.doesNotMatch(page.url(), /token=/, "the address no longer carries the token");
  assert.match(await page.evaluate(() => sessionStorage.getItem("agentwire-token")), /^[0-9a-f]{32}$/);
  await page.reload();
  await page.locator("#agent-select option[value=demo]").waitFor({ state: "attached" });
  assert.doesNotMatch(page.url(), /token=/);
  assert.equal(await connect(page, { agent: "demo", versions: ["1"] }), "1");
}));

test("a page's McpClient speaks Streamable HTTP to remote servers (server-everything, the official SDK's transport)", { timeout: TEST_TIMEOUT }, async () => {
  const { everything, sdkServer } = await import("../js/http-peers.mjs");
  const se = await everything("streamableHttp");
  const sdk = await sdkServer();
  try {
    await withPage("mcp-http", async (page) => {
      // The page's origin is the relay; both servers are other origins, reached through CORS.
      const outcome = await page.evaluate(async ([seUrl, sdkUrl]) => {
        const mod = await import("/pkg/index.js");
        await mod.default();
        const clientInfo = { name: "page", version: "1" };
        const a = await mod.McpClient.connect(seUrl, { clientInfo, capabilities: { sampling: {} } });
        const sessionIds = [];
        a.onFrame((f) => f.http?.sessionId && sessionIds.push(f.http.sessionId));
        const init = await a.initialize();
        const echo = await a.callTool("echo", { message: "from a page" });
        const progress = [];
        await a.callTool("trigger-long-running-operation", { duration: 0.2, steps: 2 }, { onProgress: (p) => progress.push(p.params.progress) });
        a.onRequest("sampling/createMessage", () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "m" }));
        const sampled = await a.callTool("trigger-sampling-request", { prompt: "p", maxTokens: 5 });
        a.close();
        const b = await mod.McpClient.connect(sdkUrl, { clientInfo, capabilities: { elicitation: {} } });
        await b.initialize();
        b.onRequest("elicitation/create", () => ({ action: "accept", content: { name: "Page" } }));
        const asked = await b.callTool("ask", {});
        const read = await b.readResource("test://one");
        b.close();
        return { server: init.serverInfo.name, echo: echo.content[0].text, progress, sampled: JSON.stringify(sampled),
          session: sessionIds[0], asked: asked.content[0].text, read: read.contents[0].text };
      }, [`${se.url}/mcp`, sdk.url]);
      assert.equal(outcome.server, "mcp-servers/everything");
      assert.equal(outcome.echo, "Echo: from a page");
      assert.deepEqual(outcome.progress, [1, 2]);
      assert.match(outcome.sampled, /ok/);
      assert.match(outcome.session, /^[\x21-\x7e]+$/, "the session id header was exposed to the page");
      assert.equal(outcome.asked, "hello Page");
      assert.equal(outcome.read, "one");
    }, { // The browser logs each 4xx fetch; the 2026 discovery request refused with 400 is one.
      expectedConsole: /^Failed to load resource: the server responded with a status of 400/ });
  } finally {
    se.close();
    sdk.close();
  }
});

test("the MCP panel connects to a server URL over Streamable HTTP; the timeline shows each frame's HTTP facts", { timeout: TEST_TIMEOUT }, async () => {
  const { everything } = await import("../js/http-peers.mjs");
  const se = await everything("streamableHttp");
  try {
    await withPage("mcp-url", async (page) => {
      await page.check("#protocol-mcp");
      await page.check("#transport-http");
      assert.equal(await page.isVisible("#agent-select"), false, "no relay agent for a URL");
      await page.fill("#mcp-url", "not a url");
      await waitText(page, "#connect-hint", /must start with http/);
      await page.fill("#mcp-url", `${se.url}/mcp`);
      await page.fill("#mcp-headers", "X-Playground: 1");
      await page.click("#connect-button");
      await waitText(page, "#negotiated-version", "2025-11-25");
      await waitText(page, "#connection-status", new RegExp(`MCP 2025-11-25 · 127\\.0\\.0\\.1:${new URL(se.url).port}`));
      await page.click("#mcp-list-tools");
      await page.locator("[data-testid=mcp-tool][data-name=echo]").waitFor();
      assert.match(await callTool(page, "echo", { message: "over HTTP" }), /over HTTP/);
      const facts = await page.locator("[data-testid=http-facts]").allTextContents();
      assert.ok(facts.some((f) => /^POST 200 · s\d+ · ev /.test(f)), facts.join(" | "));
      assert.ok(facts.some((f) => /^POST · s\d+$/.test(f)), "a sent frame names the POST's stream");
      await page.locator("[data-testid=timeline-row][data-direction=in]").first().click();
      await waitText(page, "[data-testid=inspector-http]", /^HTTP: POST 200 · stream \d+ · event \S+ · session \S+$/);
      await shot(page, "mcp-url");
    });
  } finally {
    se.close();
  }
});

test("the playground signs in to an OAuth-protected MCP server in a popup, shows each step, refreshes an expired token without the user, and shows no secret", { timeout: TEST_TIMEOUT }, async () => {
  const { protectedServer } = await import("../js/oauth-peers.mjs");
  const server = await protectedServer();
  const steps = (page) => page.locator("[data-testid=auth-step]").evaluateAll((els) => els.map((e) => `${e.dataset.step}:${e.dataset.ok}`));
  try {
    await withPage("mcp-oauth", async (page) => {
      const popups = [];
      const closed = [];
      page.on("popup", (p) => {
        popups.push(p);
        closed.push(new Promise((resolve) => p.once("close", resolve)));
      });
      await page.check("#protocol-mcp");
      await page.check("#transport-http");
      assert.equal(await page.isVisible("#auth-section"), false, "no auth panel before a server asks");
      await page.fill("#mcp-url", server.url);
      await page.click("#connect-button");
      await waitText(page, "#negotiated-version", "2025-11-25");
      assert.equal(popups.length, 1, "one sign-in window");
      // The callback page closes its window (heard from the moment the window opened).
      await Promise.race([closed[0], new Promise((_, reject) => setTimeout(() => reject(new Error("the sign-in window stayed open")), STEP_TIMEOUT).unref())]);
      assert.ok(popups[0].isClosed(), "the callback page closed its window");
      assert.deepEqual(await steps(page), ["challenge:info", "resource metadata:ok", "authorization server metadata:ok", "registration:ok",
        "authorization:info", "authorization:ok", "token:ok", "retry:ok"]);
      await waitText(page, "[data-step=retry] .auth-text", "the request again → 200");
      // The debugger: the stepper went to the end; each step says what was sent, what came back, what comes next.
      const reached = await page.locator("[data-testid=auth-stepper] li").evaluateAll((els) => els.map((e) => `${e.dataset.step}:${e.dataset.state}`));
      assert.deepEqual(reached, ["challenge:done", "resource metadata:done", "authorization server metadata:done", "registration:done",
        "authorization:done", "token:done", "retry:done"]);
      const next = await texts(page, "[data-testid=auth-step] [data-testid=auth-next]");
      assert.equal(next.length, 8);
      assert.ok(next.every((t) => t.length > 20), "every step says what comes next");
      assert.match(next[0], /resource_metadata/);
      assert.match(await page.textContent("li[data-testid=auth-step][data-step=registration] [data-testid=auth-sent]"), /^POST http\S+ .*RFC 7591/);
      assert.match(await page.textContent("li[data-testid=auth-step][data-step=token] [data-testid=auth-next]"), /Authorization: Bearer/);
      assert.match(await page.textContent("li[data-testid=auth-step][data-step=challenge] [data-testid=auth-received]"), /^HTTP 401 with WWW-Authenticate/);
      await page.click("#mcp-list-tools");
      await page.locator("[data-testid=mcp-tool][data-name=slow]").waitFor();
      assert.match(await callTool(page, "slow", {}), /slow done/);
      await page.locator("text=progress 3/3").first().waitFor(); // the tool's progress, as the panel logs it
      await shot(page, "mcp-oauth");
      await page.locator("#auth-section").screenshot({ path: join(SHOTS, "mcp-oauth-steps.png") });
      await docShot(page, "#auth-section", "playground-oauth");

      // The access token expires: the refresh token gets a new one; nobody is asked.
      server.expire();
      assert.match(await callTool(page, "slow", {}), /slow done/);
      assert.deepEqual((await steps(page)).slice(-3), ["registration:ok", "refresh:ok", "retry:ok"]);
      assert.equal(popups.length, 1, "no second sign-in window");
      assert.deepEqual(server.grants, { authorization_code: 1, refresh_token: 1 });

      // No token, code or client secret on the page (panel details included) or in the export.
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-timeline")]);
      const exported = readFileSync(await download.path(), "utf8");
      const shown = await page.evaluate(() => document.body.textContent + [...document.querySelectorAll("input, textarea")].map((e) => e.value).join(" "));
      assert.ok(server.secrets.length >= 4 && exported.includes("tools/call"));
      for (const secret of server.secrets) {
        assert.ok(!shown.includes(secret) && !exported.includes(secret), "a secret is shown or exported");
      }
      assert.match(shown, /\[redacted\]/, "the token response is shown, redacted");
      // Tokens live in sessionStorage under the server's URL, until the user forgets them.
      const kept = () => page.evaluate((u) => sessionStorage.getItem(`agentwire.oauth.tokens ${u}`), server.url);
      assert.match(await kept(), /access_token/);
      await page.click("[data-testid=auth-forget]");
      assert.equal(await kept(), null);
    }, { expectedConsole: /status of 401/ });
  } finally {
    server.close();
  }
});

test("browserAuth in redirect mode: the page leaves for the authorization server and finishes the sign-in when it is back", { timeout: TEST_TIMEOUT }, async () => {
  const { protectedServer } = await import("../js/oauth-peers.mjs");
  const server = await protectedServer();
  const signIn = (url) => (async (serverUrl) => {
    const [mod, { browserAuth }] = await Promise.all([import("/pkg/index.js"), import("/pkg/auth.js")]);
    await mod.default();
    const auth = browserAuth({ mode: "redirect", redirectUrl: `${location.origin}/` });
    const client = await mod.McpClient.connect(serverUrl, { clientInfo: { name: "page", version: "1" }, protocolVersions: ["2025-11-25"], auth });
    await client.initialize();
    const listed = await client.listTools();
    client.close();
    return { tools: listed.tools.map((t) => t.name).join(","), address: location.href };
  })(url);
  try {
    await withPage("mcp-oauth-redirect", async (page) => {
      // The first run leaves the page: its evaluation ends with the page.
      await Promise.all([page.waitForURL(/[?&]code=/), page.evaluate(signIn, server.url).catch(() => {})]);
      await page.locator("#agent-select option[value=everything]").waitFor({ state: "attached" });
      const done = await page.evaluate(signIn, server.url);
      assert.equal(done.tools, "slow,ask");
      assert.doesNotMatch(done.address, /code=|state=/, "the answer left the address bar");
      assert.deepEqual(server.grants, { authorization_code: 1, refresh_token: 0 });
    }, { expectedConsole: /status of 401/ });
  } finally {
    server.close();
  }
});

test("page tools: the playground offers its own tools in session/new, the demo agent calls one, the page answers; the calls are in the timeline and the transcript", { timeout: TEST_TIMEOUT }, () => withPage("page-tools", async (page) => {
  assert.equal(await connect(page, { agent: "demo" }), "2");
  await page.click(".page-tools > summary");
  await page.check("#page-tools-offer");
  // A broken definition blocks the session until it is fixed.
  const tools = await page.inputValue("#page-tools");
  await page.fill("#page-tools", "[{");
  await waitText(page, "#page-tools-error", /^not JSON/);
  assert.equal(await page.isDisabled("#new-session-button"), true);
  await page.fill("#page-tools", tools);
  await waitText(page, "#page-tools-error", "");
  await newSession(page);
  await waitText(page, "#page-tools-status", /^hosted at http:\/\/127\.0\.0\.1:\d+\/hosted\/[0-9a-f]{32}$/);

  await prompt(page, "tools", "end_turn");
  const listed = (await texts(page, "[data-testid=transcript-agent]")).at(-1);
  assert.match(listed, /page: open_editors — The files open in the playground's editor/);
  assert.match(listed, /page: greet — Greets someone by name/);

  await prompt(page, 'use greet {"name": "Ada"}', "end_turn");
  assert.match((await texts(page, "[data-testid=transcript-agent]")).at(-1), /greet answered: Hello, Ada, from the page!/);
  assert.ok((await texts(page, "[data-testid=transcript-note]")).some((t) => t.includes('page tool greet({"name":"Ada"}) answered: Hello, Ada, from the page!')));
  await page.locator("[data-testid=tool-call][data-status=completed]").first().waitFor();

  // The page server's frames are in the timeline on their own channel, paired and valid.
  const channel = page.locator("[data-testid=timeline-row]:has([data-testid=frame-channel])");
  const rows = await channel.evaluateAll((els) => els.map((e) => `${e.dataset.direction} ${e.dataset.method} ${e.dataset.valid}`));
  for (const expected of ["in initialize true", "out initialize true", "in tools/list true", "in tools/call true", "out tools/call true"]) {
    assert.ok(rows.includes(expected), `${expected} in ${rows.join(" | ")}`);
  }
  // The side channel's MCP traffic is not dumped in the stderr pane, and the secret is nowhere on the page.
  const pane = await page.textContent("#stderr-pane");
  assert.match(pane, /relay hosts the page's MCP server "page" at http/);
  assert.doesNotMatch(pane, /"event":"mcp"|Bearer/);
  assert.doesNotMatch(await page.evaluate(() => document.body.textContent), /Bearer [0-9a-f]{64}/);
  await shot(page, "page-tools");
}));
