// Validation throughput and cold start in headless Chromium (Debian's), side by side with
// Ajv and the SDKs' zod, on the same corpus as the Node benchmark.
//   node bench/validate/browser.mjs                    the recorded corpus (record.mjs)
//   node bench/validate/corpus.mjs /tmp/corpus.json && node bench/validate/browser.mjs /tmp/corpus.json
// Needs `node scripts/build.mjs` (pkg/) and ../shared. Bundles the page with Vite into
// bench/results/ (git-ignored); the cold start includes fetching the .wasm from localhost.
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, extname, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build as vite } from "vite";
import { launchChromium } from "./chromium.mjs";
import { table, versions, schemaPath } from "./contenders.mjs";
import { coldLine } from "./cold/probe.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const shared = process.env.AGENTWIRE_SHARED ?? join(root, "../shared/");
const out = join(root, "bench/results/validate-browser");
await vite({ root: join(here, "browser"), logLevel: "warn", build: { outDir: out, emptyOutDir: true, target: "es2022",
  rollupOptions: { external: ["/pkg/index.js"] } } });

const corpusPath = process.argv[2] ?? join(here, "recorded/corpus.json");
const version = versions(JSON.parse(readFileSync(corpusPath, "utf8")));
const files = {
  "/data/corpus.json": corpusPath,
  ...Object.fromEntries(Object.entries(version).map(([p, v]) => [`/data/${p}.json`, join(shared, schemaPath(p, v))])),
};
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
const server = createServer((req, res) => {
  const url = new URL(req.url, "http://x").pathname;
  const path = files[url] ?? (url.startsWith("/pkg/") ? join(root, url) : join(out, url === "/" ? "index.html" : url));
  if (!existsSync(path)) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error(e.message));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => document.body.dataset.done, null, { timeout: 120000 });
  const { cold, compileMs, rows } = JSON.parse(await page.textContent("#out"));
  console.log(`Chromium ${browser.version()}`);
  console.log(coldLine(cold, compileMs, version));
  console.log(table(rows));
} finally {
  await browser.close();
  server.close();
}
