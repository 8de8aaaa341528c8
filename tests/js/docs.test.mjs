// Runs every ```js example of docs/api.md against the built package and a real relay with
// the demo agent, and compares what it prints with the ```output block after it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const doc = readFileSync(join(root, "docs/api.md"), "utf8");
const blocks = [...doc.matchAll(/```(js|output)\n([\s\S]*?)```/g)].map((m) => ({ kind: m[1], code: m[2] }));
const examples = [];
blocks.forEach((b, i) => {
  if (b.kind !== "js" || i === 0) return; // the first block is the import line shown to readers
  examples.push({ code: b.code, output: blocks[i + 1]?.kind === "output" ? blocks[i + 1].code : null });
});

let relay, relayUrl, scratch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "agentwire-docs-"));
  const demo = join(root, "target/release/agentwire-demo-agent");
  relay = spawn(join(root, "target/release/agentwire-relay"), [
    "--port", "0", "--token", "docs-token", "--allow-missing-origin",
    "--agent", `demo=${demo} --data-dir ${scratch}`, "--agent", `demo-v1=${demo} --versions 1 --data-dir ${scratch}`,
    "--agent", `demo-mcp=${demo} --mcp`,
  ], { stdio: ["ignore", "pipe", "ignore"] });
  relayUrl = await new Promise((resolve, reject) => {
    relay.stdout.once("data", (d) => resolve(String(d).trim()));
    relay.once("exit", (code) => reject(new Error(`relay exited ${code}`)));
  });
});

after(() => {
  relay?.kill();
  rmSync(scratch, { recursive: true, force: true });
});

test("docs/api.md: each example, pasted under the import block, is a module without SyntaxErrors", () => {
  const imports = blocks[0].code;
  examples.forEach((example, n) => {
    const file = join(scratch, `paste-${n}.mjs`);
    writeFileSync(file, `${imports}\n${example.code}`);
    const checked = spawnSync(process.execPath, ["--check", file], { encoding: "utf8" });
    assert.equal(checked.status, 0, `example ${n + 1}:\n${checked.stderr}`);
  });
});

test("docs/api.md has examples with outputs", () => {
  assert.ok(examples.length >= 8, `${examples.length} examples`);
  assert.ok(examples.filter((e) => e.output !== null).length >= 7);
});

examples.forEach((example, n) => {
  test(`docs/api.md example ${n + 1}: ${example.code.split("\n")[0].slice(0, 60)}`, { timeout: 20000 }, async () => {
    const ws = relayUrl.replace(/^http/, "ws").replace(/\/\?token=/, "/ws?token=");
    const file = join(scratch, `example-${n}.mjs`);
    const pkg = pathToFileURL(join(root, "pkg/node.js")).href;
    const printed = [];
    writeFileSync(file, `import init, { AcpClient, AcpAgent, McpClient, McpServer, Validator, AppsValidator, ProtocolError, codes, parseMessage, serializeMessage } from ${JSON.stringify(pkg)};
export default async function (console, RELAY) {
${example.code}
}`);
    const run = (await import(pathToFileURL(file).href)).default;
    await run({ log: (...args) => printed.push(args.map(String).join(" ")) }, ws);
    if (example.output !== null) assert.equal(printed.join("\n"), example.output.trimEnd());
  });
});
