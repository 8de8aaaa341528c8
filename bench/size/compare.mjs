// What a page loads for agentwire's entries next to the official SDKs that do the same job,
// each bundled here the same way: esbuild, one minified browser ESM bundle per entry, then
// gzip -9 and brotli (max quality). agentwire's figures are its built package's (pkg/, from
// `node scripts/build.mjs`): the entry module, the JS layer, the web glue and the .wasm.
//
//   node bench/size/compare.mjs          # prints the table docs/BENCHMARKS.md shows
//   node bench/size/compare.mjs --floor  # and what validating every message costs alone
//
// `--floor` builds each entry's module once more with `Validator` alone (`--cfg
// agentwire_validator_only`, src/wasm/mod.rs: no session, no JSON-RPC class, no HTTP client),
// the way scripts/build.mjs builds the real one (wasm-pack release for the web target,
// wasm-opt with wasm-pack.toml's flags, the glue minified): the JSON reader, the schema engine and the rule
// tables, the least any design that validates every message in the module ships.
import { build, transform } from "esbuild";
import { execFileSync } from "node:child_process";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";
import { parse } from "smol-toml";

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

/** The entry's module with `Validator` alone: its .wasm and web glue, compressed one by one. */
async function validatorAlone(entry) {
  const config = parse(readFileSync(join(root, "wasm-pack.toml"), "utf8"));
  const { features } = config.entry.find((e) => e.name === entry);
  const target = join(root, "target/floor");
  const env = { ...process.env, RUSTFLAGS: "--cfg agentwire_validator_only", CARGO_TARGET_DIR: target };
  // Quiet unless it fails (the error then carries the tool's stderr).
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
  const out = join(target, `pkg-${entry}`);
  run("wasm-pack", ["build", "--release", "--target", "web", "--out-dir", out, "--out-name", "agentwire", "--no-pack", "--no-opt",
    "--", "--no-default-features", "--features", features.join(",")]);
  const wasm = join(out, "agentwire_bg.wasm");
  run(join(root, "node_modules/.bin/wasm-opt"), [...config["wasm-opt"].flags, wasm, "-o", wasm]);
  // The glue minified as scripts/build.mjs minifies what ships.
  const glue = await transform(readFileSync(join(out, "agentwire.js"), "utf8"), { minify: true, lineLimit: 160, target: "es2022", legalComments: "none" });
  const bytes = [readFileSync(wasm), Buffer.from(glue.code)];
  return { gzip: bytes.reduce((n, b) => n + gz(b), 0), wasmGzip: gz(bytes[0]) };
}

if (!existsSync(join(root, "pkg/sizes.json"))) {
  console.error("build the package first: node scripts/build.mjs");
  process.exit(1);
}
const rows = [["agentwire/acp", "acp", "acp"], ["agentwire/mcp", "mcp", "mcp"], ["agentwire", "agentwire", "both"]];
const n = (x) => x.toLocaleString("en");
const official = {};
const whole = {};
console.log("| entry | agentwire gzip | official gzip | ratio | agentwire brotli | official brotli |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [label, entry, which] of rows) {
  const ours = (whole[entry] = agentwire(entry));
  const b = await bundle(OFFICIAL[which]);
  const theirs = (official[entry] = { gzip: gz(b), brotli: br(b) });
  console.log(`| \`${label}\` | ${n(ours.gzip)} | ${n(theirs.gzip)} | ${(ours.gzip / theirs.gzip).toFixed(2)}× | ${n(ours.brotli)} | ${n(theirs.brotli)} |`);
}
if (process.argv.includes("--floor")) {
  // The rest: the sessions, the JSON-RPC layer, the binding's classes and the JS layer.
  console.log("\n| entry | `Validator` alone: .wasm gzip | with its glue | of the official SDK | the rest may take | the rest today | the rest ÷ |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const [label, entry] of rows) {
    const alone = await validatorAlone(entry);
    const theirs = official[entry].gzip;
    const [may, today] = [theirs - alone.gzip, whole[entry].gzip - alone.gzip];
    console.log(`| \`${label}\` | ${n(alone.wasmGzip)} | ${n(alone.gzip)} | ${Math.round((100 * alone.gzip) / theirs)} % | ${n(may)} | ${n(today)} | ${(today / may).toFixed(1)} |`);
  }
}
