// Cold start of the validator, sampled many times: each sample is a fresh page in its own
// browser context (headless Chromium, Debian's) or a fresh Node process, so that no HTTP
// cache and no JS or wasm code cache carries over from an earlier sample (Chromium keeps
// compiled code beside the HTTP cache of a profile; each context has its own, and the files
// are served no-store besides). Ajv compiling the same schema is measured the same way,
// interleaved with agentwire.
//   node bench/validate/cold.mjs [--runs 15] [--only chromium|node] [--js-flags="<V8 flags>"] [--warm] [--pkg <dir>]...
// --warm reuses one browser context and lets the files be cached: a returning visitor.
// --pkg (repeatable; default pkg/) compares builds of the package, interleaved in one run,
// since the load of a shared machine drifts between runs.
// Needs `node scripts/build.mjs` (pkg/) and ../shared. The phases are timed in the page and
// in the process by cold/probe.mjs; the .wasm is served as application/wasm, from localhost.
import { createServer } from "node:http";
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, extname, dirname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { build as esbuild } from "esbuild";
import { launchChromium } from "./chromium.mjs";
import { versions, schemaPath } from "./contenders.mjs";

const { values: opts } = parseArgs({ options: {
  runs: { type: "string", default: "15" },
  only: { type: "string" },
  "js-flags": { type: "string", default: "" },
  warm: { type: "boolean", default: false },
  pkg: { type: "string", multiple: true },
} });
const runs = Number(opts.runs);
const jsFlags = opts["js-flags"].split(/\s+/).filter(Boolean);

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const shared = process.env.AGENTWIRE_SHARED ?? join(root, "../shared/");
const out = join(root, "bench/results/cold");
const builds = opts.pkg?.map((dir) => ({ name: dir, dir: resolve(dir) })) ?? [{ name: "pkg", dir: join(root, "pkg") }];
mkdirSync(out, { recursive: true });

// What both sides get before the clock starts: the first message of the recorded corpus (an
// ACP initialize request), the ACP schema, and the definitions the other benchmarks compile.
const corpus = JSON.parse(readFileSync(join(here, "recorded/corpus.json"), "utf8"));
const version = versions(corpus).acp;
const acp = corpus.filter((m) => m.protocol === "acp");
const data = { message: acp[0], doc: JSON.parse(readFileSync(join(shared, schemaPath("acp", version)), "utf8")), defs: acp.map((m) => m.def) };
const dataPath = join(out, "data.json");
writeFileSync(dataPath, JSON.stringify(data));

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)];
const ms = (x) => `${x.toFixed(1).padStart(7)} ms`;
const width = 52;
function report(title, rows) {
  console.log(`${title.padEnd(width + 2)}  median        p90`);
  for (const [label, xs] of rows) console.log(`  ${label.padEnd(width)}${ms(quantile(xs, 0.5))} ${ms(quantile(xs, 0.9))}`);
}
/** Every sample validated the message: a cold start that rejects it took another path. */
function judgedValid(name, samples) {
  if (samples.some((s) => !s.phases.ok)) throw new Error(`${name} judged the first message invalid: ${data.message.text}`);
}

if (opts.only !== "node") await chromiumRuns();
if (opts.only !== "chromium") nodeRuns();

async function chromiumRuns() {
  await esbuild({ entryPoints: [join(here, "cold/ajv.mjs")], bundle: true, format: "esm", minify: true, target: "es2022",
    outfile: join(out, "ajv.js"), logLevel: "warning" });
  const files = { "/": join(here, "cold/page.html"), "/ajv.js": join(out, "ajv.js") };
  const pages = { "/load": (q) => loadPage(Number(q.get("build")), q.get("hints") === "1") };
  const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };
  // Build i is served under /pkg/ (the first) or /pkg-i/; the page's own scripts from bench/validate/.
  const prefix = (i) => (i === 0 ? "/pkg/" : `/pkg-${i}/`);
  const within = (dir, path) => path.startsWith(dir + sep);
  const server = createServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url, "http://x");
    const url = decodeURIComponent(pathname);
    if (pages[url]) return res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" }).end(pages[url](searchParams));
    const i = builds.findIndex((_, i) => url.startsWith(prefix(i)));
    const path = files[url] ?? (i >= 0 ? resolve(builds[i].dir, `.${url.slice(prefix(i).length - 1)}`) : resolve(root, `.${url}`));
    const served = files[url] || (i >= 0 ? within(builds[i].dir, path) : within(here, path));
    if (!served || !existsSync(path)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream",
      "cache-control": opts.warm ? "max-age=3600" : "no-store" }).end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await launchChromium(jsFlags.length ? [`--js-flags=${jsFlags.join(" ")}`] : []);
  const warmContext = opts.warm ? await browser.newContext() : null;
  // A page as an application would write it: index.js imported statically, init() and the
  // first validation at once; with hints, the modules and the .wasm are requested from the
  // HTML, beside the script, instead of one level of imports after another.
  const loadPage = (b, hints) => {
    const modules = ["index.js", ...["web/agentwire.js", ...readdirSync(builds[b].dir)]
      .filter((f) => f.endsWith(".js") && !["index.js", "node.js"].includes(f) && existsSync(join(builds[b].dir, f)))];
    const head = hints ? modules.map((f) => `<link rel="modulepreload" href="${prefix(b)}${f}">`).join("") +
      `<link rel="preload" href="${prefix(b)}web/agentwire_bg.wasm" as="fetch" crossorigin>` : "";
    return `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">${head}
      <script>window.parsed = performance.now();</script><script type="module">
      import init, { Validator } from "${prefix(b)}index.js";
      const imported = performance.now();
      await init();
      const m = ${JSON.stringify(data.message)};
      const { ok } = new Validator({ protocol: m.protocol, version: m.version }).validate(m.text, { direction: m.direction });
      const ready = performance.now();
      // Resource timing may report the .wasm a moment after its body was consumed.
      const entries = () => performance.getEntriesByType("resource").filter((e) => e.name.endsWith(".wasm"));
      while (!entries().length && performance.now() - ready < 2000) await new Promise((r) => setTimeout(r, 10));
      window.loaded = { phases: { parsed: window.parsed, imported, ready, ok }, wasm: entries().map((e) => e.initiatorType) };
    </script>`;
  };
  const load = async (b, hints) => {
    const context = warmContext ?? await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/load?build=${b}&hints=${hints ? 1 : 0}`);
      await page.waitForFunction(() => window.loaded);
      return await page.evaluate(() => window.loaded);
    } finally {
      if (!warmContext) await context.close();
    }
  };
  const sample = async (which, entry) => {
    const context = warmContext ?? await browser.newContext();
    try {
      const page = await context.newPage();
      page.on("pageerror", (e) => console.error(e.message));
      page.on("console", (m) => m.type() === "warning" && console.error(m.text()));
      await page.goto(origin);
      await page.waitForFunction(() => document.title === "ready");
      const result = await page.evaluate(([w, d, e]) => window.coldStart(w, d, e), [which, data, entry]);
      await page.close();
      return result;
    } finally {
      if (!warmContext) await context.close();
    }
  };
  try {
    const aw = builds.map(() => []), plain = builds.map(() => []), hinted = builds.map(() => []), ajv = [];
    for (let i = 0; i < runs; i++) {
      for (const [b, samples] of aw.entries()) {
        samples.push(await sample("agentwire", `${prefix(b)}index.js`));
        plain[b].push(await load(b, false));
        hinted[b].push(await load(b, true));
      }
      ajv.push(await sample("ajv"));
    }
    [...aw, ...plain, ...hinted].forEach((samples) => judgedValid("agentwire", samples));
    // One request for the .wasm per page: init()'s fetch, or the preload that fetch then used
    // (a preload it could not use would show as a second request).
    const fetchedAs = (samples) => new Set(samples.flat().map((s) => s.wasm.join("+")));
    for (const [samples, expected] of [[plain, "fetch"], [hinted, "link"]]) {
      const seen = fetchedAs(samples);
      if (seen.size !== 1 || !seen.has(expected)) throw new Error(`the .wasm was requested as ${[...seen]}, not once as ${expected}`);
    }
    judgedValid("Ajv", ajv);
    console.log(`Chromium ${browser.version()}: ${runs} ${opts.warm ? "reloads in one context (cached)" : "fresh contexts"}${jsFlags.length ? `, --js-flags=${jsFlags.join(" ")}` : ""}`);
    aw.forEach((samples, b) => chromiumReport(samples, builds[b]));
    builds.forEach((build, b) => report(`a page importing ${build.name}/index.js, from navigation start`, [
      ["the page's HTML parsed (a script before the module)", plain[b].map((s) => s.phases.parsed)],
      ["index.js imported", plain[b].map((s) => s.phases.imported)],
      ["first validation done", plain[b].map((s) => s.phases.ready)],
      ["with modulepreload + preload hints: imported", hinted[b].map((s) => s.phases.imported)],
      ["with modulepreload + preload hints: validated", hinted[b].map((s) => s.phases.ready)],
    ]));
    report(`Ajv (bundled, minified), ACP v${version} schema`, ajvRows(ajv.map((s) => s.phases)));
  } finally {
    await browser.close();
    server.close();
  }
}

function chromiumReport(aw, build) {
  const wasm = aw.map((s) => s.resources.filter((r) => r.name.endsWith(".wasm")));
  if (wasm.some((w) => w.length !== 1)) throw new Error(`the .wasm was fetched ${wasm.map((w) => w.length)} times`);
  const apis = new Set(aw.map((s) => s.wasmApi.map((c) => c.name).join("+")));
  const { name, body } = wasm[0][0];
  const network = wasm.filter((w) => w[0].transfer > 0).length;
  const scripts = aw.map((s) => s.resources.filter((r) => r.type === "script"));
  console.log(`wasm: ${name} (${body} B) fetched once per load, from the network in ${network} of ${runs} loads${network < runs ? " (the others from the HTTP cache)" : ""};` +
    ` compiled by WebAssembly.${[...apis].join(" | ")}; ${scripts[0].length} scripts imported`);
  report(`agentwire (${build.name}/index.js)`, [
    ["import index.js", aw.map((s) => s.phases.import)],
    ["  of which the last script's response", scripts.map((r) => Math.max(...r.map((x) => x.end)))],
    ["init(): fetch + compile + instantiate", aw.map((s) => s.phases.init)],
    ["  init() called to the .wasm request", aw.map((s, i) => wasm[i][0].start - s.phases.import)],
    ["  the .wasm request to its response's end", wasm.map((w) => w[0].end - w[0].start)],
    ["  the response's end to the module instantiated", aw.map((s, i) => s.wasmApi[0].resolved - wasm[i][0].end)],
    ["  the module instantiated to init() resolved", aw.map((s) => s.phases.import + s.phases.init - s.wasmApi[0].resolved)],
    ["new Validator()", aw.map((s) => s.phases.construct)],
    ["first validate()", aw.map((s) => s.phases.validate)],
    ["init + first validation", aw.map(({ phases: p }) => p.init + p.construct + p.validate)],
    ["import + init + first validation", aw.map(({ phases: p }) => p.import + p.init + p.construct + p.validate)],
  ]);
}

function nodeRuns() {
  const child = (...args) => JSON.parse(execFileSync(process.execPath, [...jsFlags, join(here, "cold/node.mjs"), ...args], { encoding: "utf8" }));
  const aw = builds.map(() => []), ajv = [];
  for (let i = 0; i < runs; i++) {
    for (const [b, samples] of aw.entries()) samples.push(child("agentwire", dataPath, builds[b].dir));
    ajv.push(child("ajv", dataPath));
  }
  aw.forEach((samples) => judgedValid("agentwire", samples));
  judgedValid("Ajv", ajv);
  console.log(`Node ${process.version}: ${runs} fresh processes${jsFlags.length ? `, flags ${jsFlags.join(" ")}` : ""}`);
  aw.forEach((samples, b) => report(`agentwire (${builds[b].name}/node.js)`, [
    ["import node.js (read + compile + instantiate)", samples.map((s) => s.phases.import)],
    ["new Validator()", samples.map((s) => s.phases.construct)],
    ["first validate()", samples.map((s) => s.phases.validate)],
    ["import + first validation", samples.map(({ phases: p }) => p.import + p.init + p.construct + p.validate)],
    ["process start to first validation", samples.map((s) => s.sinceProcessStart)],
  ]));
  report(`Ajv, ACP v${version} schema`, [...ajvRows(ajv.map((s) => s.phases)), ["process start to first validation", ajv.map((s) => s.sinceProcessStart)]]);
}

function ajvRows(phases) {
  return [
    ["import", phases.map((p) => p.import)],
    ["compile: top-level", phases.map((p) => p.compileTop)],
    ["compile: top-level + per method (as node.mjs)", phases.map((p) => p.compile)],
    ["first validation", phases.map((p) => p.validate)],
    ["compile + first validation", phases.map((p) => p.compile + p.validate)],
    ["import + compile + first validation", phases.map((p) => p.import + p.compile + p.validate)],
  ];
}
