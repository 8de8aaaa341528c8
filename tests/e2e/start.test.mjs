// `npm start` on a checkout that is already built: scripts/build.mjs rebuilds only what changed.
// The script runs on a small copy of the repository whose wasm-pack and wasm-opt are stand-ins
// that log their calls and write what the real ones would (glue with the .wasm URL, the same
// module for every target): the real toolchain takes minutes, and what is under test here is
// which steps run. esbuild and smol-toml are the real ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, copyFileSync, symlinkSync, chmodSync, rmSync, existsSync, statSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A copy of what build.mjs reads, with logging stand-ins for wasm-pack and wasm-opt. */
function fakeRepo() {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-build-"));
  mkdirSync(join(dir, "scripts"));
  copyFileSync(join(ROOT, "scripts/build.mjs"), join(dir, "scripts/build.mjs"));
  // Budgets far above what the stand-ins write.
  writeFileSync(join(dir, "wasm-pack.toml"), readFileSync(join(ROOT, "wasm-pack.toml"), "utf8").replace(/^budget = \d+/gm, "budget = 1000000"));
  for (const f of ["Cargo.toml", "Cargo.lock", "build.rs"]) writeFileSync(join(dir, f), `# ${f}\n`);
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/lib.rs"), "// the crate\n");
  mkdirSync(join(dir, "js"));
  writeFileSync(join(dir, "js/api.js"), 'import { ProtocolError } from "./errors.js";\nexport function createApi() { return { ProtocolError }; }\nexport function webLoaders(i) { return { init: i, initSync: i }; }\n');
  writeFileSync(join(dir, "js/errors.js"), "export class ProtocolError extends Error {}\nexport const codes = {};\n");
  writeFileSync(join(dir, "js/transcript.js"), "export class Transcripts {}\n");
  writeFileSync(join(dir, "js/package.json"), '{ "name": "agentwire" }\n');
  const bin = join(dir, "node_modules/.bin");
  mkdirSync(bin, { recursive: true });
  for (const m of ["esbuild", "smol-toml"]) symlinkSync(join(ROOT, "node_modules", m), join(dir, "node_modules", m));
  const log = join(dir, "calls.log");
  writeFileSync(join(bin, "wasm-pack"), `#!/usr/bin/env node
const fs = require("fs"), path = require("path");
const a = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, "wasm-pack " + a.join(" ") + "\\n");
const out = a[a.indexOf("--out-dir") + 1], target = a[a.indexOf("--target") + 1];
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, "agentwire_bg.wasm"), Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]));
// The lines of wasm-bindgen's string copy that build.mjs rewrites, as the real glue has them.
const copy = "function passStringToWasm0(arg, malloc, realloc) {\\n    let len = arg.length;\\n    let ptr = malloc(len, 1) >>> 0;\\n    return ptr;\\n}\\n";
fs.writeFileSync(path.join(out, "agentwire.js"), copy + (target === "web"
  ? 'export default async function init() { return fetch(new URL("agentwire_bg.wasm", import.meta.url)); }\\n'
  : "const p = \`\${__dirname}/agentwire_bg.wasm\`; module.exports = { p };\\n"));
`);
  writeFileSync(join(bin, "wasm-opt"), `#!/usr/bin/env node
require("fs").appendFileSync(${JSON.stringify(log)}, "wasm-opt\\n");
`);
  for (const f of ["wasm-pack", "wasm-opt"]) chmodSync(join(bin, f), 0o755);
  const build = (...args) => {
    writeFileSync(log, "");
    const started = performance.now();
    const output = execFileSync(process.execPath, [join(dir, "scripts/build.mjs"), ...args], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { output, ms: performance.now() - started, calls: readFileSync(log, "utf8").split("\n").filter(Boolean) };
  };
  return { dir, build, close: () => rmSync(dir, { recursive: true, force: true }) };
}

test("scripts/build.mjs builds only what changed: nothing, the JS layer alone, or everything", { timeout: 60_000 }, () => {
  const repo = fakeRepo();
  try {
    const wasmPacks = (r) => r.calls.filter((c) => c.startsWith("wasm-pack")).length;
    const first = repo.build();
    assert.equal(wasmPacks(first), 6, "three entries, two targets each");
    assert.match(first.output, /package built in/);
    assert.ok(existsSync(join(repo.dir, "pkg/.build-stamp")));
    // Every glue copies long text by one encodeInto (the rewrite of wasm-bindgen's loop).
    for (const glue of ["pkg/web/agentwire.js", "pkg/node/agentwire.js", "pkg/acp/web/agentwire.js", "pkg/mcp/node/agentwire.js"]) {
      assert.match(readFileSync(join(repo.dir, glue), "utf8"), />=1024\)\{let [^;]*encodeInto\(/, glue);
    }
    const wasm = join(repo.dir, "pkg/web/agentwire_bg.wasm");
    const wasmTime = statSync(wasm).mtimeMs;

    // Nothing changed: nothing runs, and pkg/ stays as it was.
    const again = repo.build();
    assert.deepEqual(again.calls, []);
    assert.match(again.output, /package up to date/);
    assert.equal(statSync(wasm).mtimeMs, wasmTime);

    // A file touched but not changed: the stamp is of contents, not times.
    const api = join(repo.dir, "js/api.js");
    writeFileSync(api, readFileSync(api));
    assert.deepEqual(repo.build().calls, []);

    // js/ changed: the JS layer again, the .wasm files and their glue kept.
    appendFileSync(api, "export const added = 1;\n");
    const js = repo.build();
    assert.equal(wasmPacks(js), 0);
    assert.match(js.output, /rebuilding the JS layer only/);
    assert.match(readFileSync(join(repo.dir, "pkg/api.js"), "utf8"), /added/);
    assert.equal(statSync(wasm).mtimeMs, wasmTime, "the .wasm is kept");
    assert.ok(existsSync(join(repo.dir, "pkg/index.js")) && existsSync(join(repo.dir, "pkg/node/agentwire.js")));
    assert.deepEqual(repo.build().calls, [], "and then it is current");

    // src/ changed: everything again; so does --force.
    appendFileSync(join(repo.dir, "src/lib.rs"), "// changed\n");
    assert.equal(wasmPacks(repo.build()), 6);
    assert.equal(wasmPacks(repo.build("--force")), 6);

    // A budget overrun is kept in the stamp: a run that skips the build fails the same way.
    writeFileSync(join(repo.dir, "wasm-pack.toml"), readFileSync(join(repo.dir, "wasm-pack.toml"), "utf8").replace(/^budget = \d+/m, "budget = 10"));
    assert.throws(() => repo.build(), (e) => e.status === 1 && /over its budget of 10 B/.test(e.stderr));
    assert.throws(() => repo.build(), (e) => e.status === 1 && /over its budget of 10 B/.test(e.stderr) && /up to date/.test(e.stdout) && !/wasm-pack/.test(readFileSync(join(repo.dir, "calls.log"), "utf8")));
  } finally {
    repo.close();
  }
});
