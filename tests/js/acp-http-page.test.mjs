// A page in Chromium reaches a stdio agent through the relay over ACP's HTTP transport with
// agentwire's AcpClient, and survives the network dropping mid-turn: every socket between the
// browser and the relay is destroyed, the client reconnects, loads the session in a new agent
// process, and the page's transcript is what the agent wrote, nothing lost or doubled.
//
// The page's server fronts the relay (as a web IDE's own server would): it serves the page and
// the package, and forwards /acp/* to the relay, so the test can cut the network at will. The
// page's event streams are same-origin GETs, which browsers send without an Origin: the relay
// knows them by Sec-Fetch-Site (before, their connection was unknown to them: 404).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { relayWithMcp } from "./http-peers.mjs";

const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// The package served at /pkg/: pkg/ of the repo, or another build (AGENTWIRE_PKG=DIR).
const pkg = (process.env.AGENTWIRE_PKG ?? new URL("../../pkg", import.meta.url).pathname).replace(/\/?$/, "/");
const agent = new URL("../../relay/tests/fixtures/file-acp.mjs", import.meta.url).pathname;

const page = `<!doctype html><script type="module">
  import init, { AcpClient } from "/pkg/index.js";
  window.log = { texts: [], events: [] };
  window.start = async (token, count) => {
    await init();
    const acp = await AcpClient.connect(location.origin + "/acp/files", {
      clientInfo: { name: "page", version: "1" }, protocolVersions: [1],
      headers: { authorization: "Bearer " + token }, reconnect: { delayMs: 100 },
    });
    acp.onDisconnected(() => log.events.push("disconnected"));
    window.reconnected = new Promise((resolve) => acp.onReconnected((e) => { log.events.push("reconnected"); resolve(e); }));
    await acp.initialize();
    const session = await acp.newSession({ cwd: "/page", mcpServers: [] });
    session.onUpdate((u) => log.texts.push(u.content.text));
    window.acp = acp;
    window.session = session;
    window.turn = session.prompt([{ type: "text", text: "count " + count }]).then((r) => r.stopReason, (e) => ({ code: e.code, reconnecting: e.data?.reconnecting }));
    return session.id;
  };
</script>`;

test("in Chromium: agentwire reaches a stdio agent through the relay over HTTP; the network dropped mid-turn, it reconnects and the transcript has every update once", { timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "acp-page-"));
  const sockets = new Set();
  const upstream = new Set();
  let relay;
  // The agent writes its sessions in dir: removed once the relay (and so the agent) has exited.
  after(async () => {
    await relay?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname.startsWith("/acp/")) {
      // Forwarded to the relay as it came, but for the Host the relay answers to.
      const up = request(`${relay.base}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(relay.base).host } }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        res.flushHeaders(); // an event stream's head goes on at once, as the relay sent it
        r.pipe(res);
      });
      upstream.add(up);
      up.on("close", () => upstream.delete(up));
      up.on("error", () => res.destroy());
      return req.pipe(up);
    }
    if (url.pathname === "/") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    const file = normalize(join(pkg, url.pathname.replace(/^\/pkg\//, "")));
    if (!url.pathname.startsWith("/pkg/") || !file.startsWith(pkg)) return res.writeHead(404).end();
    const body = await readFile(file).catch(() => null);
    if (!body) return res.writeHead(404).end();
    const type = file.endsWith(".wasm") ? "application/wasm" : file.endsWith(".js") ? "text/javascript" : "application/octet-stream";
    res.writeHead(200, { "content-type": type }).end(body);
  });
  server.on("connection", (s) => { sockets.add(s); s.on("close", () => sockets.delete(s)); });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  relay = await relayWithMcp(["--agent", `files=node ${agent} ${dir}`, "--allow-origin", origin]);

  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(e.message));
    await tab.goto(`${origin}/`);
    await tab.waitForFunction(() => typeof window.start === "function");
    const sessionId = await tab.evaluate(([token]) => window.start(token, 300), [relay.token]);
    await tab.waitForFunction(() => window.log.texts.length >= 20);
    assert.equal(relay.pids().length, 1);

    // The network drops: every socket between the browser and the relay, both ways.
    for (const up of upstream) up.destroy();
    for (const s of sockets) s.destroy();

    assert.deepEqual(await tab.evaluate(() => window.turn), { code: -32098, reconnecting: true });
    const resumed = await tab.evaluate(() => window.reconnected.then((e) => e.sessions[0]));
    assert.deepEqual([resumed.sessionId, resumed.method, resumed.replayed], [sessionId, "session/load", true]);
    await later(300);
    const written = readFileSync(join(dir, `${sessionId}.jsonl`), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).content.text);
    const texts = await tab.evaluate(() => window.log.texts);
    assert.ok(texts.length >= 20 && texts.length < 300, `${texts.length} updates: the turn was cut`);
    assert.deepEqual(texts, written, "the page has what the agent wrote, nothing lost, nothing doubled");
    assert.deepEqual(texts, Array.from({ length: texts.length }, (_, i) => `${i} `));

    // The session goes on in the new connection.
    assert.equal(await tab.evaluate(() => window.session.prompt([{ type: "text", text: "count 2" }]).then((r) => r.stopReason)), "end_turn");
    assert.deepEqual((await tab.evaluate(() => window.log.texts)).slice(texts.length), ["0 ", "1 "]);
    assert.deepEqual(await tab.evaluate(() => window.log.events), ["disconnected", "reconnected"]);
    await tab.evaluate(() => window.acp.close());
    for (let i = 0; i < 200 && relay.pids().length > 0; i++) await later(25);
    assert.equal(relay.pids().length, 0, "close ended the agent's process (DELETE)");
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
