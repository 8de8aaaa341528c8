// The published ACP types under `tsc --strict`: discriminated unions narrow under `switch`,
// method names are checked in onRequest / request / notify with `_`-prefixed extensions, and
// handlers get a signal. tests/js/types/narrowing.ts holds code that only compiles with
// narrowing, and `@ts-expect-error` lines that fail the compile if they stop being errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

test("tsc --strict: ACP updates and content blocks narrow, method names are checked, the payload types accept what the schemas allow", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-types-"));
  try {
    const config = join(dir, "tsconfig.json");
    writeFileSync(config, JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: "es2022", module: "esnext", moduleResolution: "bundler",
        lib: ["es2022", "dom"], skipLibCheck: false, types: [], noUnusedLocals: false,
        paths: { agentwire: [join(root, "js/index.d.ts")] },
      },
      files: [join(root, "tests/js/types/narrowing.ts"), join(root, "tests/js/types/schema-agreement.ts")],
    }));
    let out = "";
    try {
      execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", config], { encoding: "utf8" });
    } catch (e) {
      out = `${e.stdout}${e.stderr}`;
    }
    assert.equal(out, "", out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
