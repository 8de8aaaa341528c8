// The MCP Apps tests' setup: a real relay serving two example MCP App servers from the npm
// registry over stdio (@modelcontextprotocol/server-basic-vanillajs and server-basic-preact) and a
// hostile one (tests/peers/hostile-apps-server.mjs) at /mcp/NAME, and its sandbox origin; pages
// on the relay render the views with agentwire/apps. Shared by the Chromium test and the engines'.
//
// Needs the package with apps.js and sandbox.html (pkg/, or AGENTWIRE_PKG=DIR) and the release
// relay (target/release/agentwire-relay, or AGENTWIRE_RELAY=PATH).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const RELAY = process.env.AGENTWIRE_RELAY ?? join(ROOT, "target/release/agentwire-relay");
const PKG = process.env.AGENTWIRE_PKG ?? join(ROOT, "pkg");
const bin = (name) => join(ROOT, "node_modules/@modelcontextprotocol", name, "dist/index.js");
export const SERVERS = {
  vanilla: `node ${bin("server-basic-vanillajs")} --stdio`,
  preact: `node ${bin("server-basic-preact")} --stdio`,
  hostile: `node ${join(ROOT, "tests/peers/hostile-apps-server.mjs")}`,
};

/** Starts the relay; resolves with `{ url, origin, token, log, stop() }`. */
export async function startRelay() {
  const missing = [[RELAY, "cargo build --release -p agentwire-relay"], [join(PKG, "apps.js"), "node scripts/build.mjs"],
    [join(PKG, "sandbox.html"), "node scripts/build.mjs"], [bin("server-basic-vanillajs"), "npm install"], [bin("server-basic-preact"), "npm install"]]
    .filter(([p]) => !existsSync(p));
  assert.deepEqual(missing.map(([p, how]) => `${p} (${how})`), [], "the apps tests need these");
  const token = randomBytes(16).toString("hex");
  const args = ["--port", "0", "--pkg", PKG, "--static", join(ROOT, "www")];
  for (const [name, command] of Object.entries(SERVERS)) args.push("--agent", `${name}=${command}`);
  const relay = spawn(RELAY, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, AGENTWIRE_TOKEN: token } });
  const log = [];
  createInterface({ input: relay.stderr }).on("line", (line) => log.push(line));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the relay printed no URL within 5 s:\n${log.join("\n")}`)), 5000);
    relay.once("exit", (code) => reject(new Error(`the relay exited with ${code}:\n${log.join("\n")}`)));
    createInterface({ input: relay.stdout }).once("line", (line) => { clearTimeout(timer); resolve(line.trim()); });
  });
  const origin = new URL(url).origin;
  return {
    url, origin, token, log,
    async stop() {
      if (relay.exitCode !== null) return;
      const exited = new Promise((resolve) => relay.once("exit", resolve));
      relay.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * In the page (on the relay's origin): connects to /mcp/NAME, renders the tool's view behind the
 * relay's sandbox origin and keeps what the host saw in `window.apps`. Runs in the browser.
 */
export async function renderInPage([name, toolName, token]) {
  const mod = await import("/pkg/index.js");
  await mod.default();
  const apps = await import("/pkg/apps.js");
  const { sandbox } = await (await fetch(`/api/agents?token=${token}`)).json();
  const seen = { logs: [], frames: [], messages: [], links: [], sizes: [], contexts: [] };
  // On the page's own origin: its event stream is a same-origin GET, without an Origin.
  const endpoint = new URL(`/mcp/${name}`, location.href);
  const client = await mod.McpClient.connect(endpoint.href, {
    headers: { authorization: `Bearer ${token}` }, clientInfo: { name: "apps-test", version: "1.0.0" }, protocolVersions: ["2025-11-25"],
    capabilities: apps.appsCapability(),
  });
  await client.initialize();
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  const box = document.createElement("div");
  box.id = `app-${name}`;
  box.style.cssText = "position: fixed; left: 0; top: 0; width: 600px; background: white; z-index: 1000;";
  document.body.append(box);
  window.apps = { client, seen, tools, modelTools: apps.modelTools(tools).map((t) => t.name), sandbox };
  const view = await apps.renderApp(client, tool, {
    sandbox: `${sandbox}/sandbox.html`, container: box, tools,
    onLog: (p) => seen.logs.push(p),
    onFrame: (f) => seen.frames.push({ direction: f.direction, method: f.message?.method, id: f.message?.id, error: f.error }),
    onMessage: (p) => { seen.messages.push(p); return {}; },
    onOpenLink: (url) => { seen.links.push(url); return {}; },
    onSizeChange: (p) => seen.sizes.push(p),
  });
  window.apps.view = view;
  await view.ready;
  return { sandbox, appInfo: view.appInfo, tools: tools.map((t) => t.name), modelTools: window.apps.modelTools };
}
