// Replay at scale, in headless Chromium (Debian's): `session/load` of a conversation of
// 10,000 updates, as the demo agent really replays it.
//   node bench/replay/run.mjs [count]
// 1. The transcript model: an `AcpClient` (sans-IO) receives the recorded initialize answer,
//    every `session/update` line and the load's answer, then `transcript()` is read. Median of
//    9 runs after 3 not timed, for ACP v2 and v1.
// 2. The playground through the relay: connect (v2), load the session, and time from the
//    load's answer arriving on the WebSocket to the last entry shown in the transcript (in the
//    DOM and scrolled into view). Median of 5 runs, each in a fresh page.
// Needs `node scripts/build.mjs` (pkg/, or the package in AGENTWIRE_PKG for the model) and the
// release relay and demo agent.
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { launchChromium, serveBuilds } from "../validate/chromium.mjs";
import { root, DEMO_AGENT, SESSION_ID, LAST_WORDS, dataDir, recordReplay } from "./conversation.mjs";

const count = Number(process.argv[2] ?? 10_000);
const MODEL_RUNS = Number(process.env.MODEL_RUNS ?? 9), PAGE_RUNS = Number(process.env.PAGE_RUNS ?? 5);
// Runs of the model before those timed: the engine compiles the hot code in its optimizing tier
// during the first few, which would otherwise weigh on whichever version runs first.
const WARMUP = Number(process.env.WARMUP ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pkg = process.env.AGENTWIRE_PKG ?? join(root, "pkg");
for (const need of [join(pkg, "index.js"), DEMO_AGENT, join(root, "target/release/agentwire-relay")]) {
  if (!existsSync(need)) throw new Error(`${need} is missing: run node scripts/build.mjs and cargo build --release`);
}

const dir = dataDir(count);
const replays = { 2: await recordReplay(dir, 2), 1: await recordReplay(dir, 1) };
const bytes = replays[2].updates.reduce((s, l) => s + l.length, 0);
console.log(`conversation: ${replays[2].updates.length} updates, ${(bytes / 1e6).toFixed(2)} MB on the wire (v2)`);

const { server, url } = await serveBuilds([pkg], { "/model.mjs": new URL("./model.mjs", import.meta.url).pathname });

const browser = await launchChromium();
const rows = [];
try {
  // 1. The model.
  const page = await browser.newPage();
  await page.goto(url);
  for (const version of [2, 1]) {
    const r = await page.evaluate(async ({ replay, version, sessionId, lastWords, modelRuns, warmup }) => {
      const { replayOnce } = await import("/model.mjs");
      const mod = await import("/0/index.js");
      await mod.default();
      const runs = [];
      let entries = 0, last = "";
      for (let run = -warmup; run < modelRuns; run++) {
        const t = replayOnce(mod, replay, version, sessionId);
        if (run >= 0) runs.push([t.receive, t.transcript, t.total]);
        entries = t.entries.length;
        last = JSON.stringify(t.entries.at(-1));
      }
      if (!last.includes(lastWords)) throw new Error(`the last entry is not the last update: ${last}`);
      return { runs, entries };
    }, { replay: replays[version], version, sessionId: SESSION_ID, lastWords: LAST_WORDS, modelRuns: MODEL_RUNS, warmup: WARMUP });
    const pick = (i) => median(r.runs.map((x) => x[i]));
    console.log(`model v${version}: ${pick(2).toFixed(1)} ms`);
    rows.push(`| transcript model, ACP v${version} | ${pick(0).toFixed(1)} ms | ${pick(1).toFixed(1)} ms | **${pick(2).toFixed(1)} ms** | ${r.entries} entries |`);
  }
  await page.close();

  // 2. The playground.
  const relay = spawn(join(root, "target/release/agentwire-relay"), ["--port", "0", ...(process.env.PLAYGROUND ? ["--static", process.env.PLAYGROUND] : []), "--agent", `demo=${DEMO_AGENT} --data-dir ${dir}`], { stdio: ["ignore", "pipe", "ignore"] });
  const relayUrl = await new Promise((resolve) => relay.stdout.once("data", (d) => resolve(String(d).trim())));
  const shown = [], frames = [];
  try {
    for (let run = 0; run < PAGE_RUNS; run++) {
      const p = await browser.newPage();
      // Notes when the load's answer (the only `"result":null` of this flow) arrives.
      await p.addInitScript(() => {
        const Real = WebSocket;
        window.WebSocket = class extends Real {
          constructor(...a) {
            super(...a);
            // The playground asks for binary frames: the agent's lines come as bytes.
            const utf8 = new TextDecoder();
            this.addEventListener("message", (e) => {
              const text = typeof e.data === "string" ? e.data : utf8.decode(e.data);
              if (text.includes('"result":null')) window.__answered ??= performance.now();
            });
          }
        };
      });
      await p.goto(relayUrl);
      await p.click("#protocol-acp");
      await p.selectOption("#agent-select", "demo");
      await p.click("#connect-button");
      await p.waitForFunction(() => document.querySelector("#negotiated-version")?.textContent.trim() === "2");
      await p.fill("#load-session-id", SESSION_ID);
      // From the load's answer to the last entry in the DOM and inside the transcript's view.
      await p.evaluate((lastWords) => {
        const visible = () => {
          const items = document.querySelectorAll("#transcript > li");
          const lastItem = [...items].reverse().find((li) => li.textContent.includes(lastWords));
          if (window.__answered && lastItem) {
            const box = lastItem.getBoundingClientRect(), view = lastItem.closest(".transcript-scroll").getBoundingClientRect();
            if (box.bottom <= view.bottom + 1 && box.top >= view.top - 1) {
              window.__shown = [performance.now() - window.__answered, performance.now() - window.__clicked];
              return;
            }
          }
          requestAnimationFrame(visible);
        };
        requestAnimationFrame(visible);
      }, LAST_WORDS);
      p.on("pageerror", (e) => console.log("page error:", e.message));
      p.on("console", (m) => { if (m.type() === "error") console.log("console:", m.text()); });
      await p.evaluate(() => { window.__clicked = performance.now(); });
      await p.click("#load-session-button", { timeout: 5000 });
      await p.waitForFunction(() => window.__shown !== undefined, null, { timeout: Number(process.env.WAIT ?? 120_000), polling: 100 }).catch(async (e) => {
        console.log(await p.evaluate(() => JSON.stringify({ answered: window.__answered, items: document.querySelectorAll("#transcript > li").length,
          last: [...document.querySelectorAll("#transcript > li")].slice(-3).map((li) => li.textContent.slice(0, 80)),
          scroll: (({ scrollTop, scrollHeight, clientHeight }) => ({ scrollTop, scrollHeight, clientHeight }))(document.querySelector(".transcript-scroll")) })));
        throw e;
      });
      shown.push(await p.evaluate(() => window.__shown));
      console.log(`playground run ${run}: ${shown.at(-1).map((x) => x.toFixed(0)).join(" ms, ")} ms`);
      frames.push(await p.evaluate(() => document.querySelector("#timeline-count").textContent));
      await p.close();
    }
  } finally {
    relay.kill();
  }
  const afterAnswer = median(shown.map((x) => x[0])), afterClick = median(shown.map((x) => x[1]));
  // PAGE_RUNS=0: the model alone.
  if (shown.length) rows.push(`| playground: the load's answer → the last entry shown | | | **${afterAnswer.toFixed(0)} ms** | ${frames.at(-1)} in the timeline |`);
  if (shown.length) rows.push(`| playground: "Load session" clicked → the last entry shown | | | ${afterClick.toFixed(0)} ms | the agent's replay streamed and rendered |`);
} finally {
  await browser.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\nChromium ${browser.version()}, ${count} updates, medians\n`);
console.log("| what | receive all | transcript() | total | |\n|---|---:|---:|---:|---|");
for (const row of rows) console.log(row);
