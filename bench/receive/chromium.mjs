// What an MCP client costs per result it receives, in Chromium (Debian's), for builds side by
// side in one page: results of a few bytes, 1.4 KB (bench/receive/run.mjs's) and 20 KB, each
// answering a call sent untimed. 30 rounds, each a slice of 1,000 frames of every case of every
// build in turn; min and median µs per frame (`performance.now()` is coarse in a page: a slice
// is a few ms).
//   node bench/receive/chromium.mjs DIR...     DIR: a built package (pkg, or another build's)
import { resolve } from "node:path";
import { launchChromium, serveBuilds } from "../validate/chromium.mjs";

const dirs = process.argv.slice(2).map((d) => resolve(d));
if (!dirs.length) throw new Error("usage: node bench/receive/chromium.mjs DIR...");
const { server, url } = await serveBuilds(dirs);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(url);
  const rows = await page.evaluate(async (builds) => {
    const words = "the agent reads the file then edits the function and runs the tests again".split(" ");
    const text = (k) => Array.from({ length: k }, (_, i) => words[i % words.length]).join(" ");
    const results = {
      "a few bytes": { content: [] },
      "1.4 KB": { content: [{ type: "text", text: text(120) }], structuredContent: { files: Array.from({ length: 12 }, (_, i) => ({ path: `/work/src/m${i}.rs`, lines: 100 + i, changed: i % 2 === 0 })) }, isError: false },
      "20 KB": { content: Array.from({ length: 400 }, (_, i) => ({ type: "text", text: `line ${i} of the tool's output, with some words` })) },
    };
    const sessions = [];
    for (let b = 0; b < builds; b++) {
      const aw = await import(`/${b}/index.js`);
      await aw.default();
      const info = { name: "bench", version: "1" };
      const client = new aw.McpClient({ clientInfo: info, protocolVersions: ["2025-11-25"], era: "handshake" });
      const server = new aw.McpServer({ serverInfo: info, protocolVersions: ["2025-11-25"], capabilities: { tools: {} } });
      const sendOf = (events) => events.find((e) => e.type === "send").text;
      for (const e of client.receive(sendOf(server.receive(client.initialize().text)))) if (e.type === "send") server.receive(e.text);
      sessions.push(client);
    }
    const times = {};
    for (let round = 0; round < 30; round++) {
      for (let b = 0; b < builds; b++) {
        for (const [name, result] of Object.entries(results)) {
          const body = JSON.stringify(result);
          const frames = Array.from({ length: 1000 }, () => {
            const out = sessions[b].request("tools/call", { name: "search", arguments: {} });
            return `{"jsonrpc":"2.0","id":${JSON.stringify(out.id)},"result":${body}}`;
          });
          const t0 = performance.now();
          for (const frame of frames) sessions[b].receive(frame);
          ((times[name] ??= Array.from({ length: builds }, () => []))[b]).push(((performance.now() - t0) * 1000) / frames.length);
        }
      }
    }
    const stat = (xs) => {
      const s = [...xs].sort((x, y) => x - y);
      return `${s[0].toFixed(2)} / ${s[s.length >> 1].toFixed(2)}`;
    };
    return Object.entries(times).map(([name, per]) => `| MCP client: tools/call result, ${name} | ${per.map(stat).join(" | ")} |`);
  }, dirs.length);
  console.log(`| frame | ${dirs.map((d) => `${d} min / median µs`).join(" | ")} |\n|---|${dirs.map(() => "---:").join("|")}|`);
  console.log(rows.join("\n"));
} finally {
  await browser.close();
  server.close();
}
