// Records a second ACP corpus from a real coding agent: the Claude Agent ACP adapter (npm
// `@zed-industries/claude-agent-acp`, Claude Code inside), offline against a local stand-in
// for the model API (tests/peers/anthropic-mock.mjs) that plays a scripted conversation. The
// adapter and Claude Code do everything else for real: plans from TodoWrite, file reads, edits
// and writes with their diffs and permission requests, a shell command, long answers streamed
// in many chunks, usage and session info. agentwire's AcpClient drives it over stdio; every
// frame is recorded, labelled and checked as in record.mjs.
//   node scripts/build.mjs; node bench/validate/record-agent.mjs [out.json]
// Writes bench/validate/recorded/claude-agent.json by default.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root, stdio, writeCorpus } from "./recording.mjs";
import { anthropicMock } from "../../tests/peers/anthropic-mock.mjs";

const out = process.argv[2] ?? `${root}bench/validate/recorded/claude-agent.json`;
const { AcpClient } = await import(`${root}pkg/node.js`);
const home = mkdtempSync(join(tmpdir(), "agentwire-claude-record-"));
const cwd = join(home, "project");
mkdirSync(join(cwd, "src"), { recursive: true });
writeFileSync(join(cwd, "src/lib.rs"), "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n");

const long = (topic, n) => Array.from({ length: n }, (_, i) =>
  `${i ? " " : ""}Step ${i + 1} of ${topic}: the change keeps the public interface, and the tests cover the new case.`).join("");
const todos = (states) => ({ todos: ["Read the module", "Add the greeting", "Run the tests"].map((content, i) =>
  ({ content, status: states[i], activeForm: `${content.replace(/^(\w+)/, "$1ing").replace("Reading", "Reading").replace("Adding", "Adding")}` })) });
const script = [
  // Turn 1: a plan, a read, an edit (asks permission), the plan updated, a command, a long answer.
  { tool: "TodoWrite", input: todos(["in_progress", "pending", "pending"]) },
  { tool: "Read", input: { file_path: join(cwd, "src/lib.rs") } },
  { tool: "Edit", input: { file_path: join(cwd, "src/lib.rs"), old_string: "    a + b\n}\n", new_string: "    a + b\n}\n\npub fn greet(name: &str) -> String {\n    format!(\"Hello, {name}!\")\n}\n" } },
  { tool: "TodoWrite", input: todos(["completed", "completed", "in_progress"]) },
  { tool: "Bash", input: { command: "grep -c 'pub fn' src/lib.rs", description: "Count the public functions" } },
  { text: long("the greeting", 24), chunks: 48 },
  // Turn 2: a new file (asks permission), then a long answer.
  { tool: "Write", input: { file_path: join(cwd, "README.md"), content: `# project\n\n${long("the readme", 6)}\n` } },
  { text: long("the summary", 16), chunks: 32 },
];
const mock = await anthropicMock({ script });

const t = stdio([join(root, "node_modules/@zed-industries/claude-agent-acp/dist/index.js")], {
  env: { ...process.env, ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: "sk-ant-test", IS_SANDBOX: "1", HOME: home, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
});
const acp = await AcpClient.connect(t, {
  clientInfo: { name: "agentwire-recorder", title: "agentwire recorder", version: "0.1.0" },
  capabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  protocolVersions: [1],
});
let permissions = 0;
acp.onRequest("session/request_permission", ({ options }) => {
  permissions++;
  return { outcome: { outcome: "selected", optionId: options.find((o) => o.kind === "allow_once")?.optionId ?? options[0].optionId } };
});
const init = await acp.initialize();
console.error(`recording ${init.agentInfo?.name} ${init.agentInfo?.version} (ACP v${init.protocolVersion})`);
const session = await acp.newSession({ cwd, mcpServers: [] });
for (const text of ["Add a greeting function to src/lib.rs and check it.", "Now write a README for the project."]) {
  const { stopReason } = await session.prompt([{ type: "text", text }]);
  console.error(`turn: ${stopReason}`);
}
t.closing = true;
acp.close();
mock.close();
// Removed once the adapter has exited: running, it could still write into its HOME.
await t.exited;
rmSync(home, { recursive: true, force: true });
console.error(`${permissions} permission requests`);
writeCorpus([["acp", { frames: t.frames, version: "1" }]], out);
