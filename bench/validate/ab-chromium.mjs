// `ab.mjs` in headless Chromium: builds of the module side by side in one page (each build's
// package imported from a path of its own), short slices of each in turn over one protocol's
// part of the corpus, wall time a message; min and median, and the median of each round's time
// over the first build's (the machine's pace, which changes from round to round, cancels out).
//   node bench/validate/ab-chromium.mjs DIR...      DIR: a built package (pkg, or a copy of one)
// Environment: P=acp|mcp (mcp), FROM=bytes|text (bytes), CORPUS=file, ROUNDS (40), SLICE ms (60).
import { readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { launchChromium, serveBuilds } from "./chromium.mjs";

const env = process.env;
const [P, FROM] = [env.P ?? "mcp", env.FROM ?? "bytes"];
const [rounds, slice] = [Number(env.ROUNDS ?? 40), Number(env.SLICE ?? 60)];
const corpus = JSON.parse(readFileSync(env.CORPUS ?? new URL("./recorded/corpus.json", import.meta.url), "utf8"))
  .filter((m) => m.protocol === P)
  .map(({ version, direction, inReplyTo, text }) => ({ version, direction, inReplyTo: inReplyTo ?? undefined, text }));
const builds = process.argv.slice(2).map((d) => resolve(d));
if (builds.length === 0) throw new Error("usage: node bench/validate/ab-chromium.mjs DIR...");
for (const b of builds) if (!existsSync(join(b, "index.js"))) throw new Error(`${b}/index.js is missing: run node scripts/build.mjs`);

const { server, url } = await serveBuilds(builds);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(url);
  const times = await page.evaluate(async ({ corpus, n, P, FROM, rounds, slice }) => {
    const utf8 = new TextEncoder();
    const inputs = corpus.map((m) => (FROM === "bytes" ? utf8.encode(m.text) : m.text));
    const fns = [];
    for (let i = 0; i < n; i++) {
      const mod = await import(`/${i}/index.js`);
      await mod.default();
      const v = new mod.Validator({ protocol: P, version: corpus[0].version });
      fns.push(() => {
        let ok = 0;
        for (let k = 0; k < corpus.length; k++) ok += v.validate(inputs[k], corpus[k]).ok ? 1 : 0;
        return ok;
      });
    }
    for (const fn of fns) if (fn() !== corpus.length) throw new Error("a message of the corpus judged invalid");
    // The engine's optimizing tier takes the hot code over during this.
    for (const t0 = performance.now(); performance.now() - t0 < 1500; ) for (const fn of fns) fn();
    const times = fns.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < n; k++) {
        const i = (k + r) % n;
        let runs = 0;
        const t0 = performance.now();
        do {
          fns[i]();
          runs++;
        } while (performance.now() - t0 < slice);
        times[i].push(((performance.now() - t0) * 1e6) / runs / corpus.length);
      }
    }
    return times;
  }, { corpus, n: builds.length, P, FROM, rounds, slice });
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ratio = (i) => median(times[i].map((t, r) => t / times[0][r]));
  console.log(`Chromium ${browser.version()}, ${P} from ${FROM}, ${corpus.length} messages, ${rounds} rounds: ns a message (min, median), and the median of each round's time over the first build's`);
  builds.forEach((b, i) => console.log(`${b.padEnd(28)} ${Math.min(...times[i]).toFixed(0).padStart(6)} ${median(times[i]).toFixed(0).padStart(6)} ${ratio(i).toFixed(3).padStart(7)}`));
} finally {
  await browser.close();
  server.close();
}
