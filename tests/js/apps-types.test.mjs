// agentwire/apps's declarations under `tsc --strict`: tests/js/types/apps.ts uses every part a
// page needs, and a `@ts-expect-error` line fails the compile if a required option stops being one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

test("tsc --strict: renderApp, the view and the helpers type-check as a page uses them", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-apps-types-"));
  try {
    const config = join(dir, "tsconfig.json");
    writeFileSync(config, JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: "es2022", module: "esnext", moduleResolution: "bundler", lib: ["es2022", "dom"], types: [],
        paths: { agentwire: [join(root, "js/index.d.ts")], "agentwire/apps": [join(root, "js/apps.d.ts")] },
      },
      files: [join(root, "tests/js/types/apps.ts")],
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
