// What copying a string into wasm memory costs, by its length, in Node and in Chromium (Debian's):
// wasm-bindgen's glue loop (a UTF-16 unit at a time, as long as they are ASCII) against one
// `TextEncoder.encodeInto` into a fresh view, as scripts/build.mjs makes the glue copy text
// from 1,024 units on. ns per copy, the faster of two passes.
//   node bench/receive/copy.mjs
import { launchChromium } from "../validate/chromium.mjs";

function measure() {
  const mem = new Uint8Array(1 << 22);
  const encoder = new TextEncoder();
  const loop = (arg, at) => {
    let i = 0;
    for (; i < arg.length; i++) {
      const c = arg.charCodeAt(i);
      if (c > 0x7f) break;
      mem[at + i] = c;
    }
    return i;
  };
  const encodeInto = (arg, at) => encoder.encodeInto(arg, mem.subarray(at, at + arg.length)).written;
  const words = 'the agent reads the file {"a":1} ';
  const rows = [];
  for (const n of [100, 270, 600, 1024, 1400, 5000, 145000]) {
    const texts = Array.from({ length: 64 }, (_, i) => (words.repeat(Math.ceil(n / words.length)) + i).slice(0, n));
    const best = {};
    for (let pass = 0; pass < 2; pass++) {
      for (const [name, copy] of [["loop", loop], ["encodeInto", encodeInto]]) {
        const count = Math.max(200, Math.floor(2e7 / n));
        let sum = 0;
        const t0 = performance.now();
        for (let i = 0; i < count; i++) sum += copy(texts[i & 63], 1024);
        const ns = ((performance.now() - t0) * 1e6) / count;
        if (sum > 0) best[name] = Math.min(best[name] ?? Infinity, ns);
      }
    }
    rows.push([n, Math.round(best.loop), Math.round(best.encodeInto)]);
  }
  return rows;
}

const node = measure();
const browser = await launchChromium();
const page = await browser.newPage();
const chromium = await page.evaluate(`(${measure.toString()})()`);
await browser.close();
console.log("| UTF-16 units | Node: loop | Node: encodeInto | Chromium: loop | Chromium: encodeInto |\n|---:|---:|---:|---:|---:|");
for (let i = 0; i < node.length; i++) console.log(`| ${node[i][0]} | ${node[i][1]} | ${node[i][2]} | ${chromium[i][1]} | ${chromium[i][2]} |`);
