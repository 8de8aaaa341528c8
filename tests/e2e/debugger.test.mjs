// End-to-end tests of the playground as a protocol debugger: the capability matrix under the
// negotiated version, state reset between connections, the timeline (update kinds, request and
// response paired, filters, spec links), the relay's 401 told apart from OAuth, the panes that
// let the user answer the server (sampling, elicitation, roots) with completion, tool
// argument forms, outputSchema checks and media, and recordings replayed and compared. Real
// peers only: the demo agent and @modelcontextprotocol/server-everything behind the relay.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_TIMEOUT, withPage, shot, docShot, waitText, connect, newSession, prompt, texts } from "./harness.mjs";

/** The matrix rows of one side as { capability: { advertised, wire, methods } }. */
async function matrix(page, side) {
  return page.locator(`#capability-matrix tr[data-side=${side}]`).evaluateAll((rows) => Object.fromEntries(rows.map((r) => [r.dataset.capability, {
    advertised: r.dataset.advertised === "true",
    wire: r.querySelector("[data-testid=wire-name]")?.textContent ?? "",
    methods: [...r.querySelectorAll(".chip[data-method]")].map((c) => `${c.dataset.method}${c.classList.contains("on") ? "" : " (off)"}`),
  }])));
}


test("the capability matrix: ACP v1 and v2 list each capability with its wire name and the methods it enables", { timeout: TEST_TIMEOUT }, () => withPage("matrix-acp", async (page) => {
  await connect(page, { agent: "demo", versions: ["1"], caps: { "cap-terminal": false } });
  let peer = await matrix(page, "peer");
  let client = await matrix(page, "client");
  assert.deepEqual(peer["session.load"], { advertised: true, wire: "agentCapabilities.loadSession", methods: ["session/load"] });
  assert.deepEqual(client["fs.readTextFile"], { advertised: true, wire: "clientCapabilities.fs.readTextFile", methods: ["fs/read_text_file"] });
  assert.deepEqual(client["fs.writeTextFile"].methods, ["fs/write_text_file"]);
  assert.equal(client.terminal.advertised, false, "terminal was not declared");
  assert.ok(client.terminal.methods.includes("terminal/create (off)"), "terminal/create is enabled by terminal, and off");
  assert.match(peer["session.new"].wire, /always in v1/);
  assert.ok(peer["session.new"].methods.includes("session/prompt"), "session/prompt needs a session");
  for (const side of [peer, client]) {
    const baseline = side["(baseline)"]?.methods ?? [];
    assert.ok(!baseline.includes("session/load") && !baseline.includes("fs/read_text_file"), `gated methods are not baseline: ${baseline}`);
  }
  assert.ok(client["(baseline)"].methods.includes("session/update"), "the agent may always send session/update");
  await page.click("#disconnect-button");

  await connect(page, { agent: "demo", versions: ["2"] });
  peer = await matrix(page, "peer");
  client = await matrix(page, "client");
  assert.deepEqual(peer["session.load"], { advertised: true, wire: "capabilities.session.load", methods: ["session/load"] });
  assert.match(peer["session.list"].wire, /^implied by capabilities\.session$/);
  assert.equal(client["fs.readTextFile"]?.wire ?? "not in v2", "not in v2", "v2 has no fs capability");
  assert.deepEqual(client["fs.readTextFile"]?.methods ?? [], [], "and no fs method");
  await page.locator("#methods-table a[data-testid=spec-link][href$='session-setup#loading-sessions']").first().waitFor({ state: "attached" });
  await docShot(page, "#matrix-section", "playground-matrix");
}));

test("the capability matrix: MCP against server-everything, internal keys left out", { timeout: TEST_TIMEOUT }, () => withPage("matrix-mcp", async (page) => {
  await connect(page, { agent: "everything", protocol: "mcp", versions: ["2025-11-25"], caps: { "cap-sampling": true } });
  const peer = await matrix(page, "peer");
  const client = await matrix(page, "client");
  const all = [...Object.keys(peer), ...Object.keys(client)];
  assert.ok(!all.some((c) => c === "side" || c.startsWith("features")), `no internal keys: ${all}`);
  assert.deepEqual(peer.tools, { advertised: true, wire: "capabilities.tools", methods: ["tools/list", "tools/call"] });
  assert.ok(peer.completions.methods.includes("completion/complete"));
  assert.deepEqual(client.roots.methods, ["roots/list"]);
  assert.deepEqual(client["roots.listChanged"].methods, ["notifications/roots/list_changed"]);
  assert.equal(client.sampling.advertised, true);
  assert.deepEqual(client.sampling.methods, ["sampling/createMessage"]);
  assert.equal(client["elicitation.form"].advertised, false);
  assert.deepEqual(client["elicitation.form"].methods, ["elicitation/create (off)"]);
}));

test("a new connection, and a failed negotiation, leave nothing of the last one: transcript, session id, stop reason", { timeout: TEST_TIMEOUT }, () => withPage("reset", async (page) => {
  await connect(page, { agent: "demo", versions: ["2"] });
  await newSession(page);
  await prompt(page, "hello", "end_turn");
  assert.ok((await page.locator("#transcript > li").count()) > 1);
  await page.click("#disconnect-button");
  await connect(page, { agent: "demo", versions: ["2"] });
  assert.equal(await page.textContent("#session-id"), "no session");
  assert.equal(await page.locator("#transcript > li").count(), 0, "the old transcript is gone");
  assert.equal(await page.textContent("#stop-reason"), "");
  await newSession(page);
  await prompt(page, "hello", "end_turn");
  await page.click("#disconnect-button");

  assert.equal(await connect(page, { agent: "demo-v1", versions: ["2"] }), "failed");
  assert.equal(await page.textContent("#session-id"), "no session");
  assert.equal(await page.locator("#transcript > li").count(), 0);
  assert.equal(await page.textContent("#stop-reason"), "");
  assert.match(await page.textContent("#capability-matrix caption"), /Connect to see/);
}));

test("MCP: a new connection clears the tools, results and events of the last one", { timeout: TEST_TIMEOUT }, () => withPage("reset-mcp", async (page) => {
  await connect(page, { agent: "everything", protocol: "mcp", versions: ["2025-11-25"] });
  await page.click("#mcp-list-tools");
  await page.locator("[data-testid=mcp-tool][data-name=echo]").waitFor();
  await page.click("#disconnect-button");
  await connect(page, { agent: "demo-mcp", protocol: "mcp", versions: ["2025-06-18"] });
  assert.equal(await page.locator("[data-testid=mcp-tool]").count(), 0);
  assert.equal(await page.locator("#mcp-events li").count(), 0);
}));

test("the timeline: update kinds, a request and its response paired with the latency, filters, spec links", { timeout: TEST_TIMEOUT }, () => withPage("timeline-debugger", async (page) => {
  await connect(page, { agent: "demo", versions: ["2"] });
  await newSession(page);
  await prompt(page, "hello", "end_turn");
  const chunk = page.locator("[data-testid=timeline-row][data-update=agent_message_chunk]").first();
  assert.match(await chunk.textContent(), /session\/update · agent_message_chunk/);

  // A request selected: its response is highlighted, the inspector names it and the latency.
  await page.click("[data-testid=timeline-row][data-direction=out][data-method='session/prompt']");
  await page.locator("[data-testid=timeline-row][data-direction=in][data-method='session/prompt'][data-paired=true]").waitFor();
  await waitText(page, "[data-testid=inspector-pair]", /^answered by its response \(frame \d+\) in \d+ ms$/);
  await waitText(page, "[data-testid=inspector-spec]", /^session\/prompt — Send the user's message/);
  assert.equal(await page.getAttribute("[data-testid=inspector-spec] a", "href"), "https://agentclientprotocol.com/protocol/prompt-turn");
  await page.click("[data-testid=inspector-pair-jump]");
  await page.locator("[data-testid=timeline-row][data-direction=out][data-method='session/prompt'][data-paired=true]").waitFor();
  await waitText(page, "[data-testid=inspector-pair]", /^answers the session\/prompt request \(frame \d+\) after \d+ ms$/);
  await docShot(page, "section:has(#timeline)", "playground-timeline");

  // An invalid frame from raw mode, sent anyway.
  await page.click("#raw-mode > summary");
  await page.fill("#raw-input", JSON.stringify({ jsonrpc: "2.0", id: "raw-1", method: "session/prompt", params: {} }));
  await page.click("#raw-send");
  await page.click("#raw-confirm");
  await page.locator("[data-testid=timeline-row][data-direction=in][data-kind=error]").waitFor();

  const visible = () => page.locator("[data-testid=timeline-row]").evaluateAll((rows) => rows.filter((r) => !r.closest("li").hidden)
    .map((r) => ({ kind: r.dataset.kind, direction: r.dataset.direction, valid: r.dataset.valid, method: r.dataset.method })));
  const total = (await visible()).length;
  await page.selectOption("#timeline-filter-kind", "notification");
  let rows = await visible();
  assert.ok(rows.length > 0 && rows.every((r) => r.kind === "notification"), JSON.stringify(rows));
  await page.selectOption("#timeline-filter-kind", "");
  await page.selectOption("#timeline-filter-direction", "out");
  rows = await visible();
  assert.ok(rows.length > 0 && rows.every((r) => r.direction === "out"));
  await page.selectOption("#timeline-filter-direction", "");
  await page.selectOption("#timeline-filter-validity", "invalid");
  rows = await visible();
  assert.deepEqual(rows.map((r) => `${r.direction} ${r.method}`), ["out session/prompt"], "only the hand-written frame is invalid");
  await page.selectOption("#timeline-filter-validity", "valid");
  assert.equal((await visible()).length, total - 1);
  await page.selectOption("#timeline-filter-validity", "");
  await page.fill("#timeline-filter", "agent_message");
  rows = await visible();
  assert.ok(rows.length > 0 && rows.every((r) => r.method === "session/update"));
}));

test("the relay's 401: a tab without the token and a wrong token on /mcp say what to do; no OAuth against the relay", { timeout: TEST_TIMEOUT }, async () => {
  await withPage("no-token", async (page) => {
    await page.locator("#error-banner:not([hidden])").waitFor();
    const message = await page.textContent("#error-message");
    assert.match(message, /no relay token/);
    assert.match(message, /npm start/);
    assert.doesNotMatch(message, /401 \/api\/agents|answered 401/);
    await waitText(page, "#connect-hint", /no relay token: open the URL the relay printed/);
    assert.equal(await page.isDisabled("#connect-button"), true);
    await shot(page, "no-token");
    await docShot(page, ".top", "playground-no-token");
  }, { url: (address) => new URL("/", address).href, expectedConsole: /status of 401/ });

  // An old token (the relay restarted with a new one): the same, naming the token as refused.
  await withPage("old-token", async (page) => {
    await page.locator("#error-banner:not([hidden])").waitFor();
    const message = await page.textContent("#error-message");
    assert.match(message, /relay refused this page's token \(HTTP 401\)/);
    assert.match(message, /npm start/);
    await waitText(page, "#connect-hint", /the relay refused this page's token: open the URL the relay printed/);
  }, { url: (address) => new URL(`/?token=${"0".repeat(32)}`, address).href, expectedConsole: /status of 401/ });

  await withPage("relay-401", async (page) => {
    const asked = [];
    page.on("request", (r) => asked.push(new URL(r.url()).pathname));
    const endpoint = new URL("/mcp/everything", await page.evaluate(() => location.origin)).href;
    await page.check("#protocol-mcp");
    await page.check("#transport-http");
    await page.fill("#mcp-url", endpoint);
    await page.fill("#mcp-headers", "Authorization: Bearer wrong");
    await page.click("#connect-button");
    await waitText(page, "#negotiated-version", "failed");
    const message = await page.textContent("#error-message");
    assert.match(message, /relay refused the token sent/);
    assert.match(message, /npm start/);
    assert.equal(await page.isVisible("#auth-section"), false, "no OAuth sign-in against the relay");
    assert.ok(!asked.some((p) => p.startsWith("/.well-known/") || p === "/register"), `no discovery: ${asked.join(" ")}`);
    // Without a header the page sends its own relay token: the relay's endpoint works.
    await page.fill("#mcp-headers", "");
    await page.click("#connect-button");
    await waitText(page, "#negotiated-version", "2025-11-25");
  }, { expectedConsole: /status of 401/ });
});

/** Exports the timeline as a recording; returns the file's path. */
async function exportRecording(page, dir, name) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-timeline")]);
  const path = join(dir, `${name}.json`);
  await download.saveAs(path);
  return path;
}

test("recordings: export every frame, load it back offline, compare two", { timeout: TEST_TIMEOUT }, (t) => withPage("recordings", async (page) => {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-recordings-"));
  t.after(() => rmSync(dir, { recursive: true, force: true })); // once the page is closed
  await connect(page, { agent: "demo", versions: ["2"] });
  await newSession(page);
  await prompt(page, "hello", "end_turn");
  const live = await page.locator("[data-testid=timeline-row]").evaluateAll((rows) => rows.map((r) => `${r.dataset.direction} ${r.dataset.method} ${r.dataset.valid}`));
  const v2 = await exportRecording(page, dir, "v2");
  const rec = JSON.parse(readFileSync(v2, "utf8"));
  assert.equal(rec.format, "agentwire-recording");
  assert.equal(rec.negotiatedVersion, 2);
  assert.deepEqual(rec.offered, [2]);
  assert.equal(rec.frames.length, live.length);
  assert.ok(rec.frames.every((f) => typeof f.text === "string" && typeof f.time === "number" && f.valid === true && Array.isArray(f.issues)));
  assert.ok(rec.frames.some((f) => f.inReplyTo === "session/prompt" && f.latencyMs >= 0));
  await page.click("#disconnect-button");

  // Offline: the same rows, the same verdicts, pairing and the inspector.
  await page.click("#recordings > summary");
  await page.setInputFiles("#recording-load", v2);
  await waitText(page, "#timeline-source", "offline: v2.json");
  const offline = await page.locator("[data-testid=timeline-row]").evaluateAll((rows) => rows.map((r) => `${r.dataset.direction} ${r.dataset.method} ${r.dataset.valid}`));
  assert.deepEqual(offline, live);
  await page.click("[data-testid=timeline-row][data-direction=out][data-method='session/prompt']");
  await waitText(page, "[data-testid=inspector-pair]", /^answered by its response/);

  // The same prompts to the v1 agent, and the two compared.
  await connect(page, { agent: "demo", versions: ["1"] });
  await newSession(page);
  await prompt(page, "hello", "end_turn");
  const v1 = await exportRecording(page, dir, "v1");
  await page.click("#disconnect-button");
  await page.setInputFiles("#diff-a", v2);
  await page.setInputFiles("#diff-b", v2);
  await waitText(page, "[data-testid=diff-summary]", `${live.length} same, 0 changed, 0 only in A, 0 only in B`);
  await page.setInputFiles("#diff-b", v1);
  await waitText(page, "[data-testid=diff-summary]", /^\d+ same, [1-9]\d* changed, \d+ only in A, \d+ only in B$/);
  const changed = await texts(page, "[data-testid=diff-row][data-change=changed] [data-testid=diff-detail]");
  assert.ok(changed.some((t) => /protocolVersion/.test(t)), `the version differs: ${changed.join(" | ")}`);
  // A file that is not a recording is refused with a reason.
  const bad = join(dir, "bad.json");
  writeFileSync(bad, JSON.stringify({ hello: 1 }));
  await page.setInputFiles("#recording-load", bad);
  await waitText(page, "#recording-status", "bad.json: not a recording: no frames");
  await docShot(page, "#recordings-section", "playground-recordings");
}));

/** Picks a listed tool, fills its form fields (`fill`: name → value) and calls it; returns the result's text. */
async function callWithForm(page, name, fill = {}, { wait = true } = {}) {
  await page.click(`[data-testid=mcp-tool][data-name="${name}"]`);
  await waitText(page, "#mcp-tool-name", name);
  for (const [arg, value] of Object.entries(fill)) {
    const field = page.locator(`[data-testid=tool-arg][data-name="${arg}"]`);
    if (await field.evaluate((el) => el.tagName) === "SELECT") await field.selectOption(JSON.stringify(value));
    else await field.fill(String(value));
  }
  await page.click("#mcp-call-tool");
  if (!wait) return "";
  await waitText(page, "[data-testid=mcp-tool-status]", /^ok · \d+ ms$/);
  return (await page.textContent("#mcp-tool-result")).trim();
}

const CLIENT_CAPS = { "cap-roots": true, "cap-sampling": true, "cap-elicitation": true, "cap-elicitation-url": true };

test("MCP tools: arguments as a form from the inputSchema, the result checked against the outputSchema, images shown", { timeout: TEST_TIMEOUT }, () => withPage("mcp-forms", async (page) => {
  await connect(page, { agent: "everything", protocol: "mcp", versions: ["2025-11-25"] });
  await page.click("#mcp-list-tools");
  await page.locator("[data-testid=mcp-tool][data-name=echo]").waitFor();
  assert.match(await callWithForm(page, "echo", { message: "from the form" }), /Echo: from the form/);
  assert.deepEqual(JSON.parse(await page.inputValue("#mcp-tool-args")), { message: "from the form" }, "the JSON follows the form");
  // An empty required field blocks the call, with the reason.
  await page.fill("[data-testid=tool-arg][data-name=message]", "");
  await waitText(page, "#mcp-tool-args-error", /message: required, missing/);
  assert.equal(await page.isDisabled("#mcp-call-tool"), true);

  // get-sum: numbers from number inputs.
  assert.match(await callWithForm(page, "get-sum", { a: 2, b: 40 }), /42/);

  // get-structured-content declares an outputSchema: the result is checked against it.
  await callWithForm(page, "get-structured-content", { location: "Chicago" });
  await page.locator("[data-testid=mcp-output-check][data-ok=true]").waitFor();
  assert.match(await page.textContent("[data-testid=mcp-output-check]"), /conforms to the outputSchema/);
  await docShot(page, "#mcp-section .sub:has(#mcp-tools-h)", "playground-tool-form");

  // get-tiny-image: the image itself, decoded by the browser.
  await callWithForm(page, "get-tiny-image");
  const image = page.locator("#mcp-tool-result img[data-testid=content-image]");
  await image.waitFor();
  await page.waitForFunction(() => document.querySelector("#mcp-tool-result img[data-testid=content-image]")?.complete);
  assert.ok(await image.evaluate((img) => img.naturalWidth > 0), "the image decodes");
}));

test("MCP: the user answers sampling and elicitation (form and URL), edits the roots, and completion fills prompt and template arguments", { timeout: TEST_TIMEOUT }, () => withPage("mcp-panes", async (page) => {
  await connect(page, { agent: "everything", protocol: "mcp", versions: ["2025-11-25"], caps: CLIENT_CAPS });
  await page.click("#mcp-list-tools");
  await page.locator("[data-testid=mcp-tool][data-name=trigger-sampling-request]").waitFor();

  // Sampling: the server's messages are shown; the user writes the answer.
  await callWithForm(page, "trigger-sampling-request", { prompt: "What is 2+2?" }, { wait: false });
  await page.locator("[data-testid=sampling-request]").waitFor();
  assert.match(await page.textContent("[data-testid=sampling-request]"), /What is 2\+2\?[^]*maxTokens|maxTokens[^]*What is 2\+2\?/);
  assert.equal(await page.isDisabled("#sampling-approve"), true, "no empty answer");
  await page.fill("#sampling-answer", "Four, says a person");
  await docShot(page, "#mcp-requests-section", "playground-sampling");
  await page.click("#sampling-approve");
  await waitText(page, "[data-testid=mcp-tool-status]", /^ok · \d+ ms$/);
  assert.match(await page.textContent("#mcp-tool-result"), /Four, says a person/);
  assert.equal(await page.locator("[data-testid=sampling-request]").count(), 0, "the card goes once answered");

  // Elicitation: a form from requestedSchema; the required name must be given.
  await callWithForm(page, "trigger-elicitation-request", {}, { wait: false });
  await page.locator("[data-testid=elicitation-request][data-mode=form]").waitFor();
  assert.equal(await page.isDisabled("#elicitation-accept"), true, "name is required");
  assert.equal(await page.inputValue("[data-testid=elicitation-field][data-name=integer]"), "42", "defaults filled");
  assert.deepEqual(await page.locator("[data-testid=elicitation-field][data-name=untitledSingleSelectEnum] option").allTextContents(),
    ["—", "Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"]);
  assert.deepEqual(await page.locator("[data-testid=elicitation-field][data-name=legacyTitledEnum] option").allTextContents(),
    ["—", "Cats", "Dogs", "Birds", "Fish", "Reptiles"], "enumNames label the values");
  assert.deepEqual(await page.locator("[data-testid=elicitation-field][data-name=titledSingleSelectEnum] option").allTextContents(),
    ["—", "Superman", "Green Lantern", "Wonder Woman"], "the oneOf titles, and nothing for an optional field");
  await page.fill("[data-testid=elicitation-field][data-name=name]", "Ada Lovelace");
  await page.fill("[data-testid=elicitation-field][data-name=email]", "ada@example.com");
  await docShot(page, "#mcp-requests-section", "playground-elicitation");
  await page.click("#elicitation-accept");
  await waitText(page, "[data-testid=mcp-tool-status]", /^ok · \d+ ms$/);
  const answered = await page.textContent("#mcp-tool-result");
  assert.match(answered, /- Name: Ada Lovelace/);
  assert.match(answered, /- Favorite Integer: 42/);
  assert.match(answered, /- Email: ada@example.com/);

  // URL mode: the address is shown; declining answers decline.
  await callWithForm(page, "trigger-url-elicitation", { url: "https://auth.example.com/consent" }, { wait: false });
  await page.locator("[data-testid=elicitation-request][data-mode=url]").waitFor();
  assert.equal(await page.textContent("[data-testid=elicitation-url]"), "https://auth.example.com/consent");
  await page.click("#elicitation-decline");
  await waitText(page, "[data-testid=mcp-tool-status]", /./);
  assert.match(await page.textContent("#mcp-tool-result"), /decline/i);

  // Roots: the list the server gets, edited; the change is announced and the server asks again.
  assert.match(await callWithForm(page, "get-roots-list"), /file:\/\/\/home\/user\/project/);
  await page.click("#root-add");
  await page.locator("[data-testid=root-uri]").nth(1).fill("file:///srv/other");
  await page.locator("[data-testid=root-name]").nth(1).fill("other");
  const asked = await page.locator("[data-testid=timeline-row][data-direction=in][data-method='roots/list']").count();
  await page.click("#roots-apply");
  await waitText(page, "#roots-status", /notifications\/roots\/list_changed sent/);
  await page.locator("[data-testid=timeline-row][data-direction=out][data-method='notifications/roots/list_changed']").waitFor();
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=timeline-row][data-direction=in][data-method='roots/list']").length > n, asked);
  assert.match(await callWithForm(page, "get-roots-list"), /other\s+URI: file:\/\/\/srv\/other/);
  await docShot(page, "#mcp-requests-section", "playground-roots");

  // Completion: the prompt's arguments, the second narrowed by the first (context.arguments).
  await page.click("#mcp-list-prompts");
  await page.click("[data-testid=mcp-prompt][data-name=completable-prompt]");
  assert.equal(await page.isDisabled("#mcp-get-prompt"), true, "prompts/get waits for the required arguments");
  await waitText(page, "#mcp-prompt-args-error", "required: department, name");
  await page.fill("#mcp-prompt-args input[data-arg=department]", "E");
  await waitText(page, "[data-testid=completions][data-argument=department]", "suggested: Engineering");
  await page.fill("#mcp-prompt-args input[data-arg=department]", "Engineering");
  await page.fill("#mcp-prompt-args input[data-arg=name]", "A");
  await waitText(page, "[data-testid=completions][data-argument=name]", "suggested: Alice");
  assert.equal(await page.isDisabled("#mcp-get-prompt"), false);
  await docShot(page, "#mcp-section .sub:has(#mcp-prompts-h)", "playground-completion");
  await page.fill("#mcp-prompt-args input[data-arg=name]", "Alice");
  await page.click("#mcp-get-prompt");
  await waitText(page, "#mcp-prompt-result", /Please promote Alice to the head of the Engineering team\./);
  const gets = await page.locator("[data-testid=timeline-row][data-direction=out][data-method='prompts/get']").count();
  assert.equal(gets, 1, "prompts/get went once, with both arguments");

  // A resource template's variable, completed, then read.
  await page.click("#mcp-list-templates");
  await page.click("[data-testid=mcp-template][data-uri-template='demo://resource/dynamic/text/{resourceId}']");
  await page.fill("input[data-template-var=resourceId]", "7");
  await waitText(page, "[data-testid=completions][data-argument=resourceId]", "suggested: 7");
  await waitText(page, "[data-testid=mcp-template-uri]", "demo://resource/dynamic/text/7");
  await page.click("[data-testid=mcp-template-read]");
  await waitText(page, "#mcp-resource-result", /Resource 7: This is a plaintext resource/);

  const invalid = await page.locator("[data-testid=timeline-row][data-valid=false]").evaluateAll((r) => r.map((x) => x.textContent));
  assert.deepEqual(invalid, [], "every frame valid, the user's answers included");
}));

test("MCP on the official SDK: audio decoded in the page and playable; structuredContent that breaks the outputSchema, or is missing, is reported", { timeout: TEST_TIMEOUT }, () => withPage("mcp-audio", async (page) => {
  await connect(page, { agent: "sdk-mcp", protocol: "mcp", versions: ["2025-11-25"] });
  await page.click("#mcp-list-tools");
  await callWithForm(page, "tone");
  const audio = page.locator("#mcp-tool-result [data-testid=content-audio]");
  await audio.waitFor();
  await page.waitForFunction(() => document.querySelector("#mcp-tool-result [data-testid=content-audio]")?.dataset.state !== "decoding");
  assert.equal(await audio.getAttribute("data-state"), "ready", await page.textContent("[data-testid=content-audio-info]"));
  assert.equal(await page.isEnabled("[data-testid=content-audio-play]"), true);
  assert.match(await page.textContent("[data-testid=content-audio-info]"), /audio audio\/wav 4044 bytes · 0\.25 s/);

  await callWithForm(page, "bad-weather");
  await page.locator("[data-testid=mcp-output-check][data-ok=false]").waitFor();
  const verdict = await page.textContent("[data-testid=mcp-output-check]");
  assert.match(verdict, /does not conform to the outputSchema \(2\)/);
  assert.match(verdict, /\/temperature expected number, got string/);
  assert.match(verdict, /\/conditions required, missing/);
  await callWithForm(page, "no-weather");
  await waitText(page, "[data-testid=mcp-output-check][data-ok=false]", "outputSchema: the tool declares one but returned no structuredContent");
}));

test("schemas from a hostile peer: the form builder and the checker neither throw nor hang, and keep to a bound", { timeout: TEST_TIMEOUT }, () => withPage("hostile-schemas", async (page) => {
  const outcome = await page.evaluate(async () => {
    const { schemaForm, check } = await import("/lib/schema-form.js");
    const odd = schemaForm({ type: "object", properties: { a: 5, b: null, c: { type: "string", enum: "x" }, d: { oneOf: [null, 3] }, e: { enum: [1, { x: 2 }], enumNames: "no" } }, required: 7 });
    let deep = { type: "object" };
    for (let i = 0; i < 5000; i++) deep = { type: "object", properties: { x: deep } };
    let value = {};
    for (let i = 0; i < 5000; i++) value = { x: value };
    const started = performance.now();
    const deepIssues = check(deep, value);
    const many = schemaForm({ type: "object", properties: Object.fromEntries(Array.from({ length: 10000 }, (_, i) => [`p${i}`, { type: "string" }])) });
    return {
      oddFields: odd.fields.map((f) => `${f.name}:${f.kind}`), oddErrors: odd.errors(), oddValue: odd.value(),
      deepIssues: deepIssues.length, ms: performance.now() - started, manyFields: many.fields.length,
      notObject: check({ type: "object", required: ["a"] }, { b: 1 }).map((i) => i.path),
      proto: check({ type: "object", required: ["toString"] }, {}).map((i) => i.path),
      // What the outputSchema check reports for structuredContent that does not conform.
      weather: check({ type: "object", properties: { temperature: { type: "number" }, conditions: { type: "string" } }, required: ["temperature", "conditions"], additionalProperties: false },
        { temperature: "hot", wind: 3 }).map((i) => `${i.path} ${i.message}`),
    };
  });
  assert.deepEqual(outcome.oddFields, ["a:json", "b:json", "c:string", "d:json", "e:enum"]);
  assert.deepEqual(outcome.oddErrors, []);
  assert.equal(outcome.deepIssues, 0, "a nesting past the depth bound is not walked");
  assert.ok(outcome.ms < 2000, `${outcome.ms} ms`);
  assert.equal(outcome.manyFields, 200, "at most 200 fields");
  assert.deepEqual(outcome.notObject, ["/a"]);
  assert.deepEqual(outcome.proto, ["/toString"], "an inherited name is not a property");
  assert.deepEqual(outcome.weather, ["/conditions required, missing", "/temperature expected number, got string", "/wind not allowed (additionalProperties: false)"]);
}));
