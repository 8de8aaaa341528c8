// Builds the npm package from wasm-pack.toml: per entry (the full package, ACP alone, MCP
// alone) wasm-pack per target with the entry's features (no download of tools: wasm-bindgen
// is the pinned CLI on PATH, wasm-opt is disabled there and run here from npm binaryen) and
// the entry's modules; then the JS layer, and the gzip size budget of each entry as a browser
// loads it. Exits non-zero on failure.
// `--debug` builds the full entry into pkg-debug/ from the dev profile with readable panics
// (the `debug-panics` feature): no wasm-opt, no minifying, no budget.
// Only what changed is rebuilt: a stamp in the output (.build-stamp) keeps a hash of the
// wasm's inputs (src/, Cargo files, build.rs, wasm-pack.toml) and of the JS layer's (js/, this
// script). Neither changed: nothing runs. Only the JS layer: the .wasm files and their glue
// stay. `--force` rebuilds everything (a new toolchain is not in the stamp: force after one).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, rmSync, readdirSync, copyFileSync, existsSync, statSync } from "node:fs";
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
const out = join(root, debug ? "pkg-debug" : "pkg");
const name = config.build["out-name"];
const wasmName = `${name}_bg.wasm`;
const entries = debug ? config.entry.filter((e) => e.dir === "") : config.entry;

/** A hash of the contents of `paths` (files, or directories walked), names included. */
function hashOf(paths) {
  const hash = createHash("sha256");
  const visit = (path) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
      return;
    }
    hash.update(`${relative(root, path)}\0`).update(readFileSync(path)).update("\0");
  };
  for (const p of paths) visit(join(root, p));
  return hash.digest("hex");
}
const stampFile = join(out, ".build-stamp");
const stamp = {
  wasm: hashOf(["src", "Cargo.toml", "Cargo.lock", "build.rs", "wasm-pack.toml"]),
  js: hashOf(["js", "scripts/build.mjs"]),
};
const previous = (() => { try { return JSON.parse(readFileSync(stampFile, "utf8")); } catch { return null; } })();
const built = existsSync(join(out, "index.js")) && existsSync(join(out, "sizes.json")) || debug && existsSync(join(out, "index.js"));
const force = process.argv.includes("--force");
if (!force && built && previous?.wasm === stamp.wasm && previous?.js === stamp.js) {
  console.log(`package up to date in ${out} (nothing changed since its build; --force rebuilds it)`);
  for (const line of previous.over ?? []) console.error(line);
  process.exit(previous.over?.length ? 1 : 0);
}
const wasmCurrent = !force && built && previous?.wasm === stamp.wasm;
if (wasmCurrent) console.log("the wasm's inputs are unchanged: rebuilding the JS layer only");
else rmSync(out, { recursive: true, force: true });

/** The entry's modules: `index.js`/`node.js` for the full package, `<name>.js`/`<name>-node.js` for the others. */
const modules = (entry) => (entry.dir === "" ? { web: "index.js", node: "node.js" } : { web: `${entry.name}.js`, node: `${entry.name}-node.js` });

/** An entry with ACP's client keeps its transcripts in JS (transcript.js); the others never load it. */
const keepsTranscripts = (entry) => entry.exports.includes("AcpClient");
/** The protocols of an entry, and its JS layer: api.js for both, api-<name>.js for one alone. */
const speaks = (entry) => ({ acp: entry.exports.some((e) => e.startsWith("Acp")), mcp: entry.exports.some((e) => e.startsWith("Mcp")) });
const apiOf = (entry) => (speaks(entry).acp && speaks(entry).mcp ? "api.js" : `api-${entry.name}.js`);
const transcriptImport = (entry) => (keepsTranscripts(entry) ? 'import { Transcripts } from "./transcript.js";\n' : "");
const apiArguments = (entry) => (keepsTranscripts(entry) ? ", { Transcripts }" : "");

function webModule(entry, glue) {
  return `// Browser and bundler entry (${entry.name}): call \`await init()\` once; it loads the .wasm beside its glue.
import initWasm, * as wasm from "./${glue}";
import { createApi, webLoaders } from "./${apiOf(entry)}";
${transcriptImport(entry)}
const api = createApi(wasm${apiArguments(entry)});
const { init, initSync } = webLoaders(initWasm, wasm);
export { init as default, initSync };
export const { ${entry.exports.join(", ")} } = api;
export { ProtocolError, codes } from "./errors.js";
`;
}

function nodeModule(entry, glue) {
  return `// Node entry (${entry.name}): the module is loaded synchronously at import; \`init()\` exists for symmetry.
import { createRequire } from "node:module";
import { createApi } from "./${apiOf(entry)}";
${transcriptImport(entry)}
const api = createApi(createRequire(import.meta.url)("./${glue}")${apiArguments(entry)});
export default async function init() {}
export function initSync() {}
export const { ${entry.exports.join(", ")} } = api;
export { ProtocolError, codes } from "./errors.js";
`;
}

/**
 * wasm-bindgen copies a string argument (a frame received, params to send, a result) into the
 * module a UTF-16 unit at a time in a JS loop, then by `encodeInto` from the first non-ASCII
 * character on. From 1,024 units on, the glue this writes copies it by `encodeInto` alone:
 * Chromium 156 copies 1.4 KB in 2.1 µs against 3.6 µs by the loop, 145 KB in 0.17 against
 * 0.66 ms, Node 20 several times faster still; below a few hundred units the loop is faster in
 * Chromium (`encodeInto`'s fixed cost), so shorter text keeps it (docs/BENCHMARKS.md, "Long
 * text into the module in one copy"). ASCII takes a byte per unit; other text is given room
 * for three as the loop's own fallback gives it. wasm-bindgen is pinned: the build fails if its
 * glue no longer has the lines this rewrites.
 */
function longTextInOneCopy(glue) {
  const text = readFileSync(glue, "utf8");
  const from = "    let len = arg.length;\n    let ptr = malloc(len, 1) >>> 0;\n";
  const to = `    let len = arg.length;
    if (len >= 1024) {
        let at = malloc(len, 1) >>> 0;
        let { read, written } = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(at, at + len));
        if (read < len) {
            const room = written + (len - read) * 3;
            at = realloc(at, len, room, 1) >>> 0;
            written += cachedTextEncoder.encodeInto(arg.slice(read), getUint8ArrayMemory0().subarray(at + written, at + room)).written;
            at = realloc(at, room, written, 1) >>> 0;
        }
        WASM_VECTOR_LEN = written;
        return at;
    }
    let ptr = malloc(len, 1) >>> 0;
`;
  if (text.split(from).length !== 2) throw new Error(`${glue}: wasm-bindgen's string copy to rewrite was not found once`);
  writeFileSync(glue, text.replace(from, to));
}

for (const entry of wasmCurrent ? [] : entries) {
  const features = [...entry.features, ...(debug ? ["debug-panics"] : [])];
  const cargo = [...(entry.features.length ? ["--no-default-features"] : []), ...(features.length ? ["--features", features.join(",")] : [])];
  const dirOf = (target) => join(out, entry.dir, target.dir);
  for (const target of config.target) {
    const outDir = dirOf(target);
    run("wasm-pack", ["build", debug ? "--dev" : `--${config.build.profile}`, "--target", target.name,
      "--out-dir", outDir, "--out-name", name, "--no-pack", "--no-opt", ...(cargo.length ? ["--", ...cargo] : [])]);
    // Our own .d.ts files are the public typing; the generated ones describe internals.
    for (const f of [".gitignore", `${name}.d.ts`, `${name}_bg.wasm.d.ts`]) rmSync(join(outDir, f), { force: true });
    // The nodejs glue is CommonJS; say so, since the package itself is "type": "module".
    if (target.name === "nodejs") writeFileSync(join(outDir, "package.json"), '{ "type": "commonjs" }\n');
    longTextInOneCopy(join(outDir, `${name}.js`));
    const wasm = join(outDir, wasmName);
    if (!debug) run("wasm-opt", [...config["wasm-opt"].flags, wasm, "-o", wasm]);
  }

  // wasm-bindgen emits the same module for every target (only the glue differs): ship it
  // once, and point the other targets' glue at the first copy.
  const [first, ...others] = config.target;
  const firstWasm = join(dirOf(first), wasmName);
  for (const target of others) {
    const outDir = dirOf(target);
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
}

// The entry modules, written with every build (their templates are in this file).
for (const entry of entries) {
  const glue = (targetName) => relative(out, join(out, entry.dir, config.target.find((t) => t.name === targetName).dir, `${name}.js`));
  const { web, node } = modules(entry);
  writeFileSync(join(out, web), webModule(entry, glue("web")));
  writeFileSync(join(out, node), nodeModule(entry, glue("nodejs")));
}

// The hand-written JS layer, types and manifest (js/) complete the package. api.js and the
// modules it imports ship as one module per entry (api.js for both protocols, api-acp.js and
// api-mcp.js for one): a page importing an entry
// unbundled finds every module it needs one level below it instead of three levels deep (one
// round trip per level), so init() fetches the .wasm that much sooner. errors.js stays its
// own module, shared with the entries (one ProtocolError class), with the generated code table
// (codes.js) inlined; `ws` is an optional peer, and auth.js (OAuth), hosting.js (a page's
// MCP server for its agent), acp-http.js (ACP over HTTP) and reconnect.js (ACP's reconnect and
// resume) modules of their own, all imported only when used; transcript.js (ACP's transcript
// model) is imported by the entries with ACP's client only.
// Each entry's JS layer carries its own protocols only (`__ACP__`, `__MCP__` decide what
// stays), and http.js is bundled only where MCP's client is: ACP alone imports it, as its own
// module, only for ACP over HTTP.
const layers = [];
for (const entry of entries) {
  const { acp, mcp } = speaks(entry);
  layers.push(await esbuild({ entryPoints: [join(root, "js/api.js")], bundle: true, format: "esm", target: "es2022",
    define: { __ACP__: String(acp), __MCP__: String(mcp) },
    external: ["./errors.js", "./auth.js", "./hosting.js", "./acp-http.js", "./reconnect.js", "./transcript.js", "ws", ...(mcp ? [] : ["./http.js"])],
    outfile: join(out, apiOf(entry)), absWorkingDir: root, metafile: true, logLevel: "warning" }));
}
const errors = await esbuild({ entryPoints: [join(root, "js/errors.js")], bundle: true, format: "esm", target: "es2022",
  outfile: join(out, "errors.js"), absWorkingDir: root, metafile: true, logLevel: "warning" });
// A module ships as its own file unless every layer (or errors.js) has it inside.
const inputs = (b) => Object.keys(b.metafile.inputs).map((f) => join(root, f));
const bundled = new Set([...inputs(layers[0]).filter((f) => layers.every((b) => inputs(b).includes(f))), ...inputs(errors)]);
for (const file of readdirSync(join(root, "js"))) {
  if (!bundled.has(join(root, "js", file))) copyFileSync(join(root, "js", file), join(out, file));
  // A module bundled into another ships only there (not a copy left by an earlier build).
  else if (file !== "api.js" && file !== "errors.js") rmSync(join(out, file), { force: true });
}

// What ships: every entry's .wasm and glue, the entries and the JS layer. Scripts are
// minified (whitespace, syntax, local names; exports keep their names; short lines): the
// readable sources are js/, this file's templates and wasm-bindgen's output.
const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));
const sizes = new Map();
for (const path of walk(out).filter((f) => /\.(wasm|js)$/.test(f))) {
  // Kept from the last build (the wasm's inputs did not change): already minified.
  const kept = wasmCurrent && relative(out, path).includes("/");
  if (path.endsWith(".js") && !debug && !kept) {
    // Lines of ~160 characters: an uncaught error makes Node print its source line, which
    // must not be a whole minified file.
    const { code } = await transform(readFileSync(path, "utf8"), { minify: true, lineLimit: 160, target: "es2022", legalComments: "none" });
    // Bundlers find the .wasm by the literal `new URL("…", import.meta.url)`: a line break
    // inside it hides the file from them (Vite then emits no .wasm).
    const joined = code.replace(/new URL\(\s*("[^"]+")\s*,\s*import\s*\.\s*meta\s*\.\s*url\s*\)/g, "new URL($1,import.meta.url)");
    if (path.endsWith(`web/${name}.js`) && !/new URL\("[^"]+\.wasm",import\.meta\.url\)/.test(joined)) {
      throw new Error(`${path}: the .wasm URL is not written as new URL("…", import.meta.url)`);
    }
    writeFileSync(path, joined);
  }
  const bytes = readFileSync(path);
  sizes.set(relative(out, path), { file: relative(out, path), bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
}
for (const s of sizes.values()) console.log(`${s.file.padEnd(28)} ${String(s.bytes).padStart(8)} B  ${String(s.gzip).padStart(7)} B gzip`);
const total = [...sizes.values()].reduce((n, f) => n + f.gzip, 0);
console.log(`everything shipped (gzip): ${total} B`);

// What a browser loads for each entry: the entry module, the JS layer, its web glue and .wasm.
let over = 0;
const overLines = [];
const report = [];
for (const entry of entries) {
  const web = join(entry.dir, config.target.find((t) => t.name === "web").dir);
  const files = [modules(entry).web, apiOf(entry), "errors.js", ...(keepsTranscripts(entry) ? ["transcript.js"] : []), join(web, `${name}.js`), join(web, wasmName)];
  const gzip = files.reduce((n, f) => n + sizes.get(f).gzip, 0);
  report.push({ entry: entry.name, files, gzip, budget: entry.budget });
  const line = `${entry.name}: a browser loads ${gzip} B gzip`;
  if (debug) console.log(`${line}; the debug build has no budget`);
  else if (gzip > entry.budget) {
    over++;
    overLines.push(`${line}, over its budget of ${entry.budget} B (wasm-pack.toml [[entry]])`);
    console.error(overLines.at(-1));
  } else console.log(`${line} of a ${entry.budget} B budget (${(100 * gzip / entry.budget).toFixed(1)}%)`);
}
writeFileSync(join(out, "sizes.json"), JSON.stringify({ entries: report, total, files: [...sizes.values()] }, null, 2) + "\n");
if (!existsSync(join(out, "index.js"))) throw new Error("the full entry was not built");
// The stamp keeps a budget overrun: a run that skips the build still fails with it.
writeFileSync(stampFile, JSON.stringify({ ...stamp, over: overLines }) + "\n");
if (over) process.exit(1);
console.log(`package built in ${out}`);
