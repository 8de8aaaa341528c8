// What it costs to get a JS string into WebAssembly memory, the first step of validating text
// in wasm (Ajv's side starts from JSON.parse, which reads the string in place). Node and
// headless Chromium, ns per string of 40, 400 and 4000 ASCII characters:
//   node bench/validate/encode.mjs
// encodeInto (what js/input.js uses), encode + set, and a charCodeAt loop (what wasm-bindgen
// does for ASCII; js/input.js uses it for the short method name a response answers).
import { launchChromium } from "./chromium.mjs";

function probe() {
  const view = new Uint8Array(new WebAssembly.Memory({ initial: 2 }).buffer, 0, 65536);
  const utf8 = new TextEncoder();
  const loop = (s) => {
    for (let i = 0; i < s.length; i++) view[i] = s.charCodeAt(i);
    return s.length;
  };
  const ways = {
    encodeInto: (s) => utf8.encodeInto(s, view).written,
    "encode + set": (s) => {
      const b = utf8.encode(s);
      view.set(b);
      return b.length;
    },
    "charCodeAt loop": loop,
  };
  const rows = {};
  for (const len of [40, 400, 4000]) {
    // 64 distinct strings, JSON-like, as a transport hands them over.
    const texts = Array.from({ length: 64 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"x":"${"abcdefghij".repeat(len / 10)}`.slice(0, len));
    for (const [name, f] of Object.entries(ways)) {
      let best = Infinity;
      const reps = Math.max(1, 200000 / len);
      for (let r = 0; r < 7; r++) {
        let bytes = 0;
        const t = performance.now();
        for (let k = 0; k < reps; k++) for (const s of texts) bytes += f(s);
        if (bytes !== reps * texts.length * len) throw new Error(`${name}: wrote ${bytes} bytes`);
        best = Math.min(best, ((performance.now() - t) * 1e6) / (reps * texts.length));
      }
      (rows[name] ??= {})[len] = Math.round(best);
    }
  }
  return rows;
}

const show = (label, rows) => {
  console.log(`${label.padEnd(16)} ${[40, 400, 4000].map((n) => `${n} chars`.padStart(11)).join("")}`);
  for (const [name, r] of Object.entries(rows)) console.log(`  ${name.padEnd(14)} ${Object.values(r).map((ns) => `${ns} ns`.padStart(11)).join("")}`);
};
show(`Node ${process.version}`, probe());
const browser = await launchChromium();
const page = await browser.newPage();
show(`Chromium ${browser.version()}`, await page.evaluate(`(${probe})()`));
await browser.close();
