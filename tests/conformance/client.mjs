// The client the MCP conformance suite drives (`conformance client --command`): built only
// on agentwire's public API. The suite appends the server URL and names the scenario in
// MCP_CONFORMANCE_SCENARIO; each scenario does what a real client would do there.
import { McpClient } from "../../pkg/node.js";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize";

/** An accepted elicitation keeps what the user gave and fills the rest from the schema's defaults (SEP-1034). */
function withDefaults(requestedSchema, content = {}) {
  const filled = { ...content };
  for (const [name, property] of Object.entries(requestedSchema?.properties ?? {})) {
    if (!(name in filled) && property.default !== undefined) filled[name] = property.default;
  }
  return filled;
}

const client = await McpClient.connect(url, {
  clientInfo: { name: "agentwire-conformance", version: "0.1.0" },
  capabilities: { elicitation: {} },
});
client.onRequest("elicitation/create", ({ requestedSchema }) => ({ action: "accept", content: withDefaults(requestedSchema) }));
client.onViolation((v) => console.error("violation:", JSON.stringify(v.issues)));

try {
  const { capabilities } = await client.initialize();
  const { tools } = capabilities?.tools ? await client.listTools() : { tools: [] };
  const calls = {
    tools_call: { add_numbers: { a: 5, b: 3 } },
    "elicitation-sep1034-client-defaults": { test_client_elicitation_defaults: {} },
    "sse-retry": { test_reconnection: {} },
  }[scenario] ?? {};
  for (const [name, args] of Object.entries(calls)) {
    if (!tools.some((t) => t.name === name)) throw new Error(`the server offers no tool ${name}`);
    const result = await client.callTool(name, args);
    console.log(name, JSON.stringify(result));
  }
} catch (e) {
  console.error(`${scenario}: ${e.message}`, e.data ?? "");
  process.exitCode = 1;
} finally {
  client.close();
}
