// Builds the npm package from wasm-pack.toml: wasm-pack per target (no download of
// tools: wasm-bindgen is the pinned CLI on PATH, wasm-opt is disabled there and run
// here from npm binaryen), then checks the gzip size budget. Exits non-zero on failure.
// `--debug` builds the same package into pkg-debug/ from the dev profile with readable
// panics (the `debug-panics` feature): no wasm-opt, no minifying, no budget.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, rmSync, readdirSync, copyFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join, dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { build as esbuild, transform } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const config = parse(readFileSync(join(root, "wasm-pack.toml"), "utf8"));
const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}` };
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] });

const debug = process.argv.includes("--debug");
const out = debug ? "pkg-debug" : "pkg";
for (const target of config.target) target["out-dir"] = target["out-dir"].replace(/^pkg\b/, out);
const name = config.build["out-name"];
rmSync(join(root, out), { recursive: true, force: true });
for (const target of config.target) {
  const outDir = join(root, target["out-dir"]);
  rmSync(outDir, { recursive: true, force: true });
  run("wasm-pack", ["build", debug ? "--dev" : `--${config.build.profile}`, "--target", target.name,
    "--out-dir", outDir, "--out-name", name, "--no-pack", "--no-opt", ...(debug ? ["--", "--features", "debug-panics"] : [])]);
  // Our own index.d.ts is the public typing; the generated ones describe internals.
  for (const f of [".gitignore", `${name}.d.ts`, `${name}_bg.wasm.d.ts`]) rmSync(join(outDir, f), { force: true });
  // The nodejs glue is CommonJS; say so, since the package itself is "type": "module".
  if (target.name === "nodejs") writeFileSync(join(outDir, "package.json"), '{ "type": "commonjs" }\n');
  const wasm = join(outDir, `${name}_bg.wasm`);
  if (!debug) run("wasm-opt", [...config["wasm-opt"].flags, wasm, "-o", wasm]);
}

// wasm-bindgen emits the same module for every target (only the glue differs): ship it
// once, and point the other targets' glue at the first copy.
const [first, ...others] = config.target;
const wasmName = `${name}_bg.wasm`;
const firstWasm = join(root, first["out-dir"], wasmName);
for (const target of others) {
  const outDir = join(root, target["out-dir"]);
  const copy = join(outDir, wasmName);
  if (!readFileSync(copy).equals(readFileSync(firstWasm))) continue;
  const glue = join(outDir, `${name}.js`);
  const rel = relative(outDir, firstWasm);
  const text = readFileSync(glue, "utf8");
  const patched = text.replace(`\`\${__dirname}/${wasmName}\``, `require('path').join(__dirname, ${JSON.stringify(rel)})`);
  if (patched === text) throw new Error(`${glue}: the wasm path to rewrite was not found`);
  writeFileSync(glue, patched);
  rmSync(copy);
}

// The hand-written JS layer, types and manifest (js/) complete the package in pkg/. api.js
// and the modules it imports ship as one module: a page importing index.js unbundled finds
// every module it needs one level below index.js instead of three levels deep (one round
// trip per level), so init() fetches the .wasm that much sooner. errors.js stays its own
// module, shared with the entries (one ProtocolError class); `ws` is an optional peer, and
// auth.js (OAuth) and hosting.js (a page's MCP server for its agent) modules of their own,
// all imported only when used.
const layer = await esbuild({ entryPoints: [join(root, "js/api.js")], bundle: true, format: "esm", target: "es2022",
  external: ["./errors.js", "./auth.js", "./hosting.js", "ws"], outfile: join(root, out, "api.js"), absWorkingDir: root, metafile: true, logLevel: "warning" });
const bundled = new Set(Object.keys(layer.metafile.inputs).map((f) => join(root, f)));
for (const file of readdirSync(join(root, "js"))) {
  if (!bundled.has(join(root, "js", file))) copyFileSync(join(root, "js", file), join(root, out, file));
}

// What ships: every target's .wasm and glue, and the JS layer. Scripts are minified
// (whitespace, syntax, local names; exports keep their names; short lines): the readable
// sources are js/ and wasm-bindgen's output.
const shippedFiles = [
  ...config.target.flatMap((t) => readdirSync(join(root, t["out-dir"])).map((f) => join(root, t["out-dir"], f))),
  ...readdirSync(join(root, out)).map((f) => join(root, out, f)),
].filter((f) => /\.(wasm|js)$/.test(f));
const sizes = [];
for (const path of shippedFiles) {
  if (path.endsWith(".js") && !debug) {
    // Lines of ~160 characters: an uncaught error makes Node print its source line, which
    // must not be a whole minified file.
    const { code } = await transform(readFileSync(path, "utf8"), { minify: true, lineLimit: 160, target: "es2022", legalComments: "none" });
    // Bundlers find the .wasm by the literal `new URL("…", import.meta.url)`: a line break
    // inside it hides the file from them (Vite then emits no .wasm).
    const joined = code.replace(/new URL\(\s*("[^"]+")\s*,\s*import\s*\.\s*meta\s*\.\s*url\s*\)/g, "new URL($1,import.meta.url)");
    if (/new URL\(/.test(joined) && !/new URL\("[^"]+\.wasm",import\.meta\.url\)/.test(joined) && path.endsWith("web/agentwire.js")) {
      throw new Error(`${path}: the .wasm URL is not written as new URL("…", import.meta.url)`);
    }
    writeFileSync(path, joined);
  }
  const bytes = readFileSync(path);
  sizes.push({ file: relative(join(root, out), path), bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
}

const total = sizes.reduce((s, f) => s + f.gzip, 0);
const budget = config.budget["gzip-bytes"];
for (const s of sizes) console.log(`${s.file.padEnd(24)} ${String(s.bytes).padStart(8)} B  ${String(s.gzip).padStart(7)} B gzip`);
console.log(debug ? `total (gzip): ${total} B; the debug build has no budget` : `total shipped (gzip): ${total} B of a ${budget} B budget (${(100 * total / budget).toFixed(1)}%)`);
writeFileSync(join(root, out, "sizes.json"), JSON.stringify({ total, budget, files: sizes }, null, 2) + "\n");
if (total > budget && !debug) {
  console.error(`size budget exceeded: ${total} B gzip > ${budget} B (wasm-pack.toml [budget])`);
  process.exit(1);
}
console.log(`package built in ${join(root, out)}`);
