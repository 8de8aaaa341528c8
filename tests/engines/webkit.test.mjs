// WebKit (Debian's WebKitGTK: WebKitWebDriver driving its MiniBrowser, under xvfb-run for a
// display), through selenium-webdriver. WebKitWebDriver has no BiDi and no log endpoint, so
// console errors and uncaught exceptions are heard by a script that runs before the page's own:
// written into the plain page, and put in front of the playground by a pass-through proxy
// (the page is the relay's, byte for byte, plus that one script tag; the relay allows the
// proxy's origin with --allow-origin, the CSP names the proxy's host instead of the relay's).
// The wasm-bindgen tests run in WebKit in their own step (scripts/test.sh).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, request } from "node:http";
import { connect as tcp, createServer as createTcpServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Builder } from "selenium-webdriver";
import { needs, startRelay, plainPage, PLAIN_PAGE_RESULT, playgroundSmoke } from "./smoke.mjs";

const DRIVER = "/usr/bin/WebKitWebDriver";
const KEY = "agentwire-engine-problems";
const LISTEN = `(() => {
  const note = (s) => sessionStorage.setItem(${JSON.stringify(KEY)}, JSON.stringify([...JSON.parse(sessionStorage.getItem(${JSON.stringify(KEY)}) ?? "[]"), s]));
  const error = console.error;
  console.error = (...args) => { note("console.error: " + args.join(" ")); error.apply(console, args); };
  addEventListener("error", (e) => note("exception: " + e.message));
  addEventListener("unhandledrejection", (e) => note("unhandled rejection: " + e.reason));
})();`;
let driver, webdriver, webdriverExited, xauthDir, relay, proxy;

async function freePort() {
  const s = createTcpServer().listen(0, "127.0.0.1");
  await new Promise((r) => s.once("listening", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** What the listening script heard on the current page's origin (kept across its navigations). */
const problems = async () => JSON.parse(await driver.executeScript(`return sessionStorage.getItem(${JSON.stringify(KEY)}) ?? "[]"`));

/** Serves the relay at another port, with the listening script first in every HTML page. */
function passThrough(relayPort, proxyPort) {
  const relayHost = `127.0.0.1:${relayPort}`, proxyHost = `127.0.0.1:${proxyPort}`;
  const server = createServer((req, res) => {
    if (req.url === "/__listen.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(LISTEN);
    const up = request({ host: "127.0.0.1", port: relayPort, method: req.method, path: req.url, headers: { ...req.headers, host: relayHost } }, (answer) => {
      const headers = { ...answer.headers };
      if (headers["content-security-policy"]) headers["content-security-policy"] = headers["content-security-policy"].replaceAll(relayHost, proxyHost);
      if (!String(headers["content-type"]).startsWith("text/html")) {
        res.writeHead(answer.statusCode, headers);
        return answer.pipe(res);
      }
      const body = [];
      answer.on("data", (c) => body.push(c)).on("end", () => {
        const html = Buffer.concat(body).toString().replace(/<head>/i, `$&<script src="/__listen.js"></script>`);
        delete headers["content-length"];
        res.writeHead(answer.statusCode, headers).end(html);
      });
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  server.on("upgrade", (req, socket, head) => {
    const up = tcp(relayPort, "127.0.0.1", () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        lines.push(`${req.rawHeaders[i]}: ${/^host$/i.test(req.rawHeaders[i]) ? relayHost : req.rawHeaders[i + 1]}`);
      }
      up.write(lines.join("\r\n") + "\r\n\r\n");
      up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on("error", () => socket.destroy());
    socket.on("error", () => up.destroy());
  });
  return server;
}

before(async () => {
  needs([[DRIVER, "apt-get install webkit2gtk-driver"], ["/usr/bin/xvfb-run", "apt-get install xvfb"]]);
  const port = await freePort();
  // The X authority file in a folder of the test's own: xvfb-run removes the folder it would make
  // only when it ends by itself, not when its group is killed (below).
  xauthDir = mkdtempSync(join(tmpdir(), "agentwire-xvfb-"));
  webdriver = spawn("xvfb-run", ["-a", "-f", join(xauthDir, "Xauthority"), DRIVER, `--port=${port}`], { stdio: "ignore", detached: true });
  webdriverExited = new Promise((resolve) => webdriver.once("exit", resolve));
  const proxyPort = await freePort();
  relay = await startRelay(["--allow-origin", `http://127.0.0.1:${proxyPort}`]);
  proxy = passThrough(Number(new URL(relay.url).port), proxyPort);
  await new Promise((r) => proxy.listen(proxyPort, "127.0.0.1", r));
  for (let tries = 0; ; tries++) {
    try {
      driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({ browserName: "MiniBrowser" }).build();
      break;
    } catch (e) {
      if (tries > 50) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});

after(async () => {
  await driver?.quit();
  proxy?.close();
  await relay?.stop();
  if (webdriver) {
    process.kill(-webdriver.pid);
    await webdriverExited;
  }
  if (xauthDir) rmSync(xauthDir, { recursive: true, force: true });
});

test("the package in a plain page, no bundler: init, a client's first message, validation", async () => {
  assert.deepEqual(await plainPage(driver, `<script>${LISTEN}</script>`), PLAIN_PAGE_RESULT);
  assert.deepEqual(await problems(), []);
});

test("the listening script hears what the page's scripts throw and log", async () => {
  await plainPage(driver, `<script>${LISTEN}</script><script>console.error("heard"); setTimeout(() => { throw new Error("thrown"); });</script>`);
  await driver.wait(async () => (await problems()).length === 2, 5_000);
  assert.deepEqual(await problems(), ["console.error: heard", "exception: Error: thrown"]);
});

test("the playground through the relay: ACP v2 and v1 with a permission turn, MCP, every frame valid", { timeout: 60_000 }, async () => {
  const page = new URL(relay.url);
  page.port = String(proxy.address().port);
  await playgroundSmoke(driver, page.href);
  assert.equal(await driver.executeScript("return document.querySelector('script[src=\"/__listen.js\"]') !== null"), true, "the listening script ran in the playground");
  assert.deepEqual(await problems(), [], "no console error, no uncaught exception");
});
