// The debug build (`node scripts/build.mjs --debug`, into pkg-debug/): a panic inside the
// module prints its message and place on the console before the module traps; the release
// build would only trap. The test command builds it before this runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const glue = join(root, "pkg-debug/node/agentwire.js");

test("a panic in the debug build says what and where before the trap", () => {
  assert.ok(existsSync(glue), "the debug build is there (node scripts/build.mjs --debug)");
  const run = spawnSync(process.execPath, ["-e", `
    const m = require(${JSON.stringify(glue)});
    try { m.__panicForTests("the reason, on purpose"); } catch (e) { console.log("trapped:", e.constructor.name); }
  `], { encoding: "utf8" });
  assert.match(run.stderr, /panicked at src\/wasm\/mod\.rs:\d+:\d+:\s+the reason, on purpose/);
  assert.match(run.stdout, /trapped: RuntimeError/);
});

test("the release build has no such entry", async () => {
  const release = await import(join(root, "pkg/node.js"));
  assert.equal(release.__panicForTests, undefined);
  const { createRequire } = await import("node:module");
  assert.equal(createRequire(import.meta.url)(join(root, "pkg/node/agentwire.js")).__panicForTests, undefined);
});
