// Round-trip latency and throughput of one `cat` agent reached four ways, side by side:
// a direct stdio pipe, agentwire-relay, websocat and stdio-to-ws. The same Node client (the
// `ws` package) drives every WebSocket bridge, so the differences are the bridges'.
// Then the relay's two transports side by side: an agent that answers each request (`sed`
// turning it into its response) over the WebSocket and over MCP's Streamable HTTP (`fetch`,
// one POST per request, the answer read from its event stream).
//
// Usage: node bench/relay/bench.mjs   (bench/relay/run.sh sets the paths below)
//   AGENTWIRE_RELAY  path of the agentwire-relay binary (required)
//   WEBSOCAT         path of the websocat binary (optional: skipped when unset)
//   STDIO_TO_WS      path of stdio-to-ws's dist/main.js (optional: skipped when unset)
//   ROUNDS (2000) sequential round trips, MESSAGES (100000) pipelined, WINDOW (1000) in flight
//   (HTTP_WINDOW (32) for Streamable HTTP, which answers at most 20000),
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

// --- the relay over WebSocket and over Streamable HTTP, with an agent that answers ----------

// Turns each request line into its response (same id, the params as the result).
const ANSWER = ["sed", "-u", "-e", 's/"method":"[^"]*","params":/"result":/'];
const HTTP_WINDOW = Number(process.env.HTTP_WINDOW ?? 32);
const ANSWERED = Math.min(MESSAGES, 20000);
const answerOf = (text) => text.replace(/"method":"[^"]*","params":/, '"result":');

async function directAnswer() {
  const child = spawn(ANSWER[0], ANSWER.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  let handler = () => {};
  lines.on("line", (l) => handler(l));
  return { send: (t) => child.stdin.write(t + "\n"), onLine: (h) => (handler = h), close: async () => { child.stdin.end(); child.kill(); } };
}

async function startRelay() {
  const port = await freePort();
  const agent = `answer=${ANSWER.slice(0, 3).join(" ")} '${ANSWER[3]}'`;
  const child = spawn(process.env.AGENTWIRE_RELAY, ["--port", String(port), "--agent", agent], { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.on("data", () => {});
  const token = new URL(await firstLine(child)).searchParams.get("token");
  return { child, port, token };
}

async function relayWs() {
  const { child, port, token } = await startRelay();
  const ws = await connect(`ws://127.0.0.1:${port}/ws?token=${token}&agent=answer`, { Origin: `http://127.0.0.1:${port}` });
  let handler = () => {};
  ws.on("message", (data) => { const t = data.toString(); if (!t.startsWith('{"relay":')) handler(t); });
  return { send: (t) => ws.send(t), onLine: (h) => (handler = h), close: async () => { ws.close(); await sleep(100); child.kill("SIGTERM"); } };
}

/** One POST per message; each answer is read from the POST's event stream (after its priming event). */
async function relayHttp() {
  const { child, port, token } = await startRelay();
  const url = `http://127.0.0.1:${port}/mcp/answer`;
  const base = { authorization: `Bearer ${token}`, accept: "application/json, text/event-stream", "content-type": "application/json" };
  const init = await fetch(url, { method: "POST", headers: base, body: JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }) });
  const headers = { ...base, "mcp-session-id": init.headers.get("mcp-session-id"), "mcp-protocol-version": "2025-11-25" };
  await init.text();
  let handler = () => {};
  const send = async (text) => {
    const res = await fetch(url, { method: "POST", headers, body: text });
    const body = await res.text(); // the stream ends once its one request is answered
    const data = body.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6).map((l) => l.slice(6));
    for (const d of data) handler(d);
  };
  return { send: (t) => { send(t); }, onLine: (h) => (handler = h), close: async () => { await fetch(url, { method: "DELETE", headers }); child.kill("SIGTERM"); } };
}

async function answered(t, window) {
  const times = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const text = message(i);
    const start = process.hrtime.bigint();
    const back = await new Promise((resolve) => { t.onLine(resolve); t.send(text); });
    if (back !== answerOf(text)) throw new Error(`round ${i}: got ${back.slice(0, 80)}`);
    if (i >= WARMUP) times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  // Throughput: `window` requests in flight; answers may come in any order (HTTP), each once.
  const total = ANSWERED;
  const seen = new Set();
  let sent = 0;
  const start = process.hrtime.bigint();
  await new Promise((resolve, reject) => {
    t.onLine((line) => {
      const id = JSON.parse(line).id;
      if (seen.has(id)) return reject(new Error(`answer ${id} twice`));
      seen.add(id);
      if (seen.size === total) return resolve();
      if (sent < total) t.send(message(sent++));
    });
    while (sent < Math.min(window, total)) t.send(message(sent++));
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { p50: at(0.5), p99: at(0.99), perSecond: total / seconds };
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

const transports = [
  ["direct stdio pipe", directAnswer, WINDOW],
  ["agentwire-relay, WebSocket", relayWs, WINDOW],
  ["agentwire-relay, Streamable HTTP", relayHttp, HTTP_WINDOW],
];
const answeredRuns = transports.map(() => []);
for (let r = 0; r < REPEAT; r++) {
  for (const [i, [name, start, window]] of transports.entries()) {
    const t = await start();
    answeredRuns[i].push(await answered(t, window));
    await t.close();
    console.error(`${name}: run ${r + 1} of ${REPEAT} done`);
  }
}
console.log(`\nThe relay's transports: ${ROUNDS} sequential requests answered by \`sed\` (after ${WARMUP} warm-up), then ${ANSWERED} with ${WINDOW} in flight (HTTP: ${HTTP_WINDOW}, one POST each); medians of ${REPEAT} runs.\n`);
console.log("| path | round trip p50 | p99 | requests/s |");
console.log("|---|---:|---:|---:|");
const answeredRows = transports.map(([name], i) => ({ name, ...Object.fromEntries(["p50", "p99", "perSecond"].map((k) => [k, median(answeredRuns[i].map((x) => x[k]))])) }));
for (const r of answeredRows) {
  console.log(`| ${r.name} | ${r.p50.toFixed(0)} µs | ${r.p99.toFixed(0)} µs | ${Math.round(r.perSecond).toLocaleString("en")} |`);
}
const [, ws, http] = answeredRows;
console.log(`\nStreamable HTTP against the WebSocket, same relay and agent: +${(http.p50 - ws.p50).toFixed(0)} µs at the median, ${(ws.perSecond / http.perSecond).toFixed(1)}× fewer requests/s.`);
