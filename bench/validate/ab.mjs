// Builds of the module side by side in one Node process, with Ajv per method: short slices of
// each in turn over one protocol's part of a corpus, timed in CPU time (the process's own, so
// the other work of a shared machine weighs less than in wall time); min and median per
// message, and Ajv's time over each build's. For telling apart changes of a few percent:
//   node bench/validate/ab.mjs DIR...          DIR: a build with node.js in it (pkg, or a quick one)
// Environment: P=acp|mcp (mcp), FROM=bytes|text (bytes), CORPUS=file, MIN/MAX message bytes,
// ROUNDS (40), SLICE ms (60).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { build, versions, schemaPath } from "./contenders.mjs";

const env = process.env;
const shared = env.AGENTWIRE_SHARED ?? new URL("../../../shared/", import.meta.url).pathname;
const all = JSON.parse(readFileSync(env.CORPUS ?? new URL("./recorded/corpus.json", import.meta.url), "utf8"));
const [P, FROM] = [env.P ?? "mcp", env.FROM ?? "bytes"];
const [min, max] = [Number(env.MIN ?? 0), Number(env.MAX ?? Infinity)];
const corpus = all.filter((m) => m.protocol === P && m.text.length >= min && m.text.length < max);
const version = versions(corpus);
const schemas = { [P]: JSON.parse(readFileSync(`${shared}${schemaPath(P, version[P])}`, "utf8")) };
const now = () => performance.now();

const fns = {};
for (const dir of process.argv.slice(2)) {
  const agentwire = await import(pathToFileURL(`${resolve(dir)}/node.js`).href);
  const { contenders } = build({ Ajv, Ajv2020, acpZod: {}, mcpZod: {}, agentwire, schemas, corpus, now });
  fns[dir] = contenders.agentwire;
  fns.ajv ??= contenders["ajv per-method"];
}
for (const [name, fn] of Object.entries(fns)) {
  const rejected = corpus.filter((m) => !fn(m, m[FROM])).length;
  if (rejected) console.log(`${name}: ${rejected} judged invalid`);
}
const times = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
const [rounds, slice] = [Number(env.ROUNDS ?? 40), Number(env.SLICE ?? 60)];
for (const t0 = now(); now() - t0 < 1500; ) for (const fn of Object.values(fns)) for (const m of corpus) fn(m, m[FROM]);
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(fns)) {
    let n = 0;
    const [t0, c0] = [now(), process.cpuUsage()];
    do {
      for (const m of corpus) fn(m, m[FROM]);
      n++;
    } while (now() - t0 < slice);
    const c = process.cpuUsage(c0);
    times[name].push(((c.user + c.system) * 1e3) / n / corpus.length);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const least = (a) => Math.min(...a);
console.log(`${P} from ${FROM}, ${corpus.length} messages: CPU ns per message (min, median); Ajv's over it (by min, by median)`);
for (const [name, a] of Object.entries(times)) {
  const ratio = (f) => (f(times.ajv) / f(a)).toFixed(2);
  console.log(`${name.padEnd(24)} ${least(a).toFixed(0).padStart(6)} ${median(a).toFixed(0).padStart(6)}  ${ratio(least)}× ${ratio(median)}×`);
}
