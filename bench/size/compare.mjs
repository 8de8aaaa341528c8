// What a page loads for agentwire's entries next to the official SDKs that do the same job,
// each bundled here the same way: esbuild, one minified browser ESM bundle per entry, then
// gzip -9 and brotli (max quality). agentwire's figures are its built package's (pkg/, from
// `node scripts/build.mjs`): the entry module, the JS layer, the web glue and the .wasm.
//
//   node bench/size/compare.mjs          # prints the table docs/BENCHMARKS.md shows
import { build } from "esbuild";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const root = join(import.meta.dirname, "..", "..");
const gz = (b) => gzipSync(b, { level: 9 }).length;
const br = (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

/** The official SDKs, as an app that does what each agentwire entry does would import them. */
const OFFICIAL = {
  // ACP: the v1 client and agent, the v2 API and the WebSocket stream (@agentclientprotocol/sdk 2.4.0).
  acp: `export { client, agent, ndJsonStream } from "acp-sdk-v2";
        export * as v2 from "acp-sdk-v2/experimental/v2";
        export { createWebSocketStream } from "acp-sdk-v2/experimental/ws-client";`,
  // MCP: the v2 client with Streamable HTTP (@modelcontextprotocol/client 2.4.0).
  mcp: `export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";`,
};
OFFICIAL.both = `${OFFICIAL.acp}\n${OFFICIAL.mcp}`;

async function bundle(source) {
  const out = await build({
    stdin: { contents: source, resolveDir: root, loader: "js" },
    bundle: true, minify: true, format: "esm", platform: "browser", write: false, logLevel: "silent",
  });
  return Buffer.concat(out.outputFiles.map((f) => Buffer.from(f.contents)));
}

/** agentwire's entry as a browser loads it: the files pkg/sizes.json lists for it. */
function agentwire(entry) {
  const sizes = JSON.parse(readFileSync(join(root, "pkg/sizes.json"), "utf8"));
  const files = sizes.entries.find((e) => e.entry === entry).files;
  const bytes = files.map((f) => readFileSync(join(root, "pkg", f)));
  // Compressed one by one, as a browser fetches them.
  return { gzip: bytes.reduce((n, b) => n + gz(b), 0), brotli: bytes.reduce((n, b) => n + br(b), 0) };
}

if (!existsSync(join(root, "pkg/sizes.json"))) {
  console.error("build the package first: node scripts/build.mjs");
  process.exit(1);
}
const rows = [["agentwire/acp", "acp", "acp"], ["agentwire/mcp", "mcp", "mcp"], ["agentwire", "agentwire", "both"]];
console.log("| entry | agentwire gzip | official gzip | ratio | agentwire brotli | official brotli |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [label, entry, official] of rows) {
  const ours = agentwire(entry);
  const b = await bundle(OFFICIAL[official]);
  const theirs = { gzip: gz(b), brotli: br(b) };
  console.log(`| \`${label}\` | ${ours.gzip.toLocaleString("en")} | ${theirs.gzip.toLocaleString("en")} | ${(ours.gzip / theirs.gzip).toFixed(2)}× | ${ours.brotli.toLocaleString("en")} | ${theirs.brotli.toLocaleString("en")} |`);
}
