// The transcript model's replay (bench/replay/run.mjs, part 1) for builds side by side in one
// page: each build's package is imported from a path of its own, and the runs alternate
// between them, so that a shared machine's changes of pace weigh on all alike. For telling
// apart changes of a few percent, where separate runs of run.mjs differ by more.
//   node bench/replay/ab.mjs DIR...      DIR: a built package (pkg, or a copy of one)
// Environment: V=2|1 (2), ROUNDS (15) timed after WARMUP (3) not timed, COUNT updates (10000).
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { launchChromium, serveBuilds } from "../validate/chromium.mjs";
import { DEMO_AGENT, SESSION_ID, LAST_WORDS, dataDir, recordReplay } from "./conversation.mjs";

const env = process.env;
const [version, rounds, warmup, count] = [Number(env.V ?? 2), Number(env.ROUNDS ?? 15), Number(env.WARMUP ?? 3), Number(env.COUNT ?? 10_000)];
const builds = process.argv.slice(2).map((d) => resolve(d));
if (builds.length === 0) throw new Error("usage: node bench/replay/ab.mjs DIR...");
for (const need of [...builds.map((d) => join(d, "index.js")), DEMO_AGENT]) {
  if (!existsSync(need)) throw new Error(`${need} is missing: run node scripts/build.mjs and cargo build --release`);
}
const dir = dataDir(count);
const replay = await recordReplay(dir, version);
rmSync(dir, { recursive: true, force: true });

const { server, url } = await serveBuilds(builds, { "/model.mjs": new URL("./model.mjs", import.meta.url).pathname });
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(url);
  const times = await page.evaluate(async ({ replay, version, sessionId, lastWords, n, rounds, warmup }) => {
    const { replayOnce } = await import("/model.mjs");
    const mods = [];
    for (let i = 0; i < n; i++) {
      const mod = await import(`/${i}/index.js`);
      await mod.default();
      mods.push(mod);
    }
    const once = (mod) => {
      const { total, entries } = replayOnce(mod, replay, version, sessionId);
      if (!JSON.stringify(entries.at(-1)).includes(lastWords)) throw new Error("the last entry is not the last update");
      return total;
    };
    const times = mods.map(() => []);
    for (let r = -warmup; r < rounds; r++) {
      // Each round in another order, so that no build always follows the same one.
      for (let k = 0; k < n; k++) {
        const i = (k + Math.max(r, 0)) % n;
        const t = once(mods[i]);
        if (r >= 0) times[i].push(t);
      }
    }
    return times;
  }, { replay, version, sessionId: SESSION_ID, lastWords: LAST_WORDS, n: builds.length, rounds, warmup });
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // Each round's time over the first build's in the same round: the pace of the machine, which
  // changes from round to round, cancels out.
  const ratio = (i) => median(times[i].map((t, r) => t / times[0][r]));
  console.log(`Chromium ${browser.version()}, ACP v${version}, ${count} updates into the transcript model, ${rounds} rounds alternating: ms (min, median), and the median of each round's time over the first build's`);
  builds.forEach((b, i) => console.log(`${b.padEnd(28)} ${Math.min(...times[i]).toFixed(1).padStart(7)} ${median(times[i]).toFixed(1).padStart(7)} ${ratio(i).toFixed(3).padStart(7)}`));
} finally {
  await browser.close();
  server.close();
}
