// Round-trip latency and throughput of one `cat` agent reached four ways, side by side:
// a direct stdio pipe, agentwire-relay, websocat and stdio-to-ws. The same Node client (the
// `ws` package) drives every WebSocket bridge, so the differences are the bridges'.
//
// Usage: node bench/relay/bench.mjs   (bench/relay/run.sh sets the paths below)
//   AGENTWIRE_RELAY  path of the agentwire-relay binary (required)
//   WEBSOCAT         path of the websocat binary (optional: skipped when unset)
//   STDIO_TO_WS      path of stdio-to-ws's dist/main.js (optional: skipped when unset)
//   ROUNDS (2000) sequential round trips, MESSAGES (100000) pipelined, WINDOW (1000) in flight,
//   REPEAT (3) runs per target, each figure being the median
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import net from "node:net";
import WebSocket from "ws";

const ROUNDS = Number(process.env.ROUNDS ?? 2000);
const WARMUP = 200;
const MESSAGES = Number(process.env.MESSAGES ?? 100000);
const WINDOW = Number(process.env.WINDOW ?? 1000);
const message = (i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "session/prompt", params: { sessionId: "bench", prompt: [{ type: "text", text: "x".repeat(40) }] } });

/** A transport: send(text), and onLine(handler) for each message that comes back. */
async function direct() {
  const child = spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  let handler = () => {};
  lines.on("line", (l) => handler(l));
  return {
    send: (t) => child.stdin.write(t + "\n"),
    onLine: (h) => (handler = h),
    close: async () => { child.stdin.end(); child.kill(); },
  };
}

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function connect(url, headers = {}) {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      return await new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { headers, perMessageDeflate: false });
        ws.once("open", () => resolve(ws));
        ws.once("error", reject);
      });
    } catch { await sleep(50); }
  }
  throw new Error(`cannot connect to ${url}`);
}

/** Starts a bridge process, connects, and skips anything that is not the echo (relay events). */
async function bridge(command, args, urlOf, headers = {}) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.on("data", () => {});
  const url = await urlOf(child);
  const ws = await connect(url, headers);
  let handler = () => {};
  ws.on("message", (data) => {
    const text = data.toString();
    if (!text.startsWith('{"relay":')) handler(text.endsWith("\n") ? text.slice(0, -1) : text);
  });
  return {
    send: (t) => ws.send(t),
    onLine: (h) => (handler = h),
    close: async () => { ws.close(); await sleep(100); child.kill("SIGTERM"); },
  };
}

const firstLine = (child) => new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve));

async function agentwire() {
  const port = await freePort();
  return bridge(process.env.AGENTWIRE_RELAY, ["--port", String(port), "--agent", "cat", "--max-connections", "1"], async (child) => {
    const url = new URL(await firstLine(child));
    return `ws://127.0.0.1:${port}/ws?token=${url.searchParams.get("token")}`;
  }, { Origin: `http://127.0.0.1:${port}` });
}

async function websocat() {
  const port = await freePort();
  return bridge(process.env.WEBSOCAT, ["-t", "-E", `ws-l:127.0.0.1:${port}`, "cmd:cat"], async () => `ws://127.0.0.1:${port}/`);
}

async function stdioToWs() {
  const port = await freePort();
  return bridge(process.execPath, [process.env.STDIO_TO_WS, "--port", String(port), "--quiet", "cat"], async () => `ws://127.0.0.1:${port}/`);
}

async function latency(t) {
  const times = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const text = message(i);
    const start = process.hrtime.bigint();
    const back = await new Promise((resolve) => { t.onLine(resolve); t.send(text); });
    if (back !== text) throw new Error(`round ${i}: got ${back.slice(0, 80)}`);
    if (i >= WARMUP) times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function throughput(t) {
  const texts = Array.from({ length: MESSAGES }, (_, i) => message(i));
  let sent = 0, received = 0;
  const start = process.hrtime.bigint();
  await new Promise((resolve, reject) => {
    t.onLine((line) => {
      if (line !== texts[received]) return reject(new Error(`message ${received} lost or reordered`));
      received++;
      if (received === MESSAGES) return resolve();
      if (sent < MESSAGES) t.send(texts[sent++]);
    });
    while (sent < Math.min(WINDOW, MESSAGES)) t.send(texts[sent++]);
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const bytes = texts.reduce((n, s) => n + s.length + 1, 0);
  return { perSecond: MESSAGES / seconds, mbPerSecond: bytes / seconds / 1e6 };
}

const targets = [
  ["direct stdio pipe", direct],
  ["agentwire-relay", agentwire],
  ["websocat 1.13.0", process.env.WEBSOCAT && websocat],
  ["stdio-to-ws 0.2.0", process.env.STDIO_TO_WS && stdioToWs],
].filter(([, start]) => start);

// The machine is shared: each figure is the median of REPEAT runs, the targets taking turns.
const REPEAT = Number(process.env.REPEAT ?? 3);
const runs = targets.map(() => []);
for (let r = 0; r < REPEAT; r++) {
  for (const [i, [name, start]] of targets.entries()) {
    const t = await start();
    runs[i].push({ ...(await latency(t)), ...(await throughput(t)) });
    await t.close();
    console.error(`${name}: run ${r + 1} of ${REPEAT} done`);
  }
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = targets.map(([name], i) => {
  const row = { name };
  for (const key of ["p50", "p99", "perSecond", "mbPerSecond"]) row[key] = median(runs[i].map((x) => x[key]));
  return row;
});
const base = rows[0];
console.log(`${ROUNDS} sequential round trips (after ${WARMUP} warm-up) and ${MESSAGES} pipelined messages (${WINDOW} in flight) of ${message(0).length} bytes, through \`cat\`; medians of ${REPEAT} runs.\n`);
console.log("| path | round trip p50 | p99 | added p50 | messages/s | MB/s |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const r of rows) {
  const added = r === base ? "—" : `+${(r.p50 - base.p50).toFixed(0)} µs`;
  console.log(`| ${r.name} | ${r.p50.toFixed(0)} µs | ${r.p99.toFixed(0)} µs | ${added} | ${Math.round(r.perSecond).toLocaleString("en")} | ${r.mbPerSecond.toFixed(1)} |`);
}
