// The client the MCP conformance suite drives (`conformance client --command`): built only
// on agentwire's public API. The suite appends the server URL and names the scenario in
// MCP_CONFORMANCE_SCENARIO; each scenario does what a real client would do there.
import { McpClient } from "../../pkg/node.js";
import { storedAuth, memoryStorage } from "../../pkg/auth.js";

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

/**
 * An OAuth provider for a program with no browser: the package's stored provider, with a
 * redirect step that follows the suite's authorization server by hand (it approves at once, so
 * its redirect carries the code). Client credentials, where the scenario hands some
 * (pre-registration), come in MCP_CONFORMANCE_CONTEXT.
 */
function headlessProvider() {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
  const provider = storedAuth(memoryStorage(), {
    redirectUrl: "http://localhost:3000/callback",
    clientId: context.client_id, clientSecret: context.client_secret,
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    // The server picks how a registered client authenticates.
    clientMetadata: { client_name: "agentwire-conformance", token_endpoint_auth_method: undefined },
  });
  provider.redirectToAuthorization = async (authorizationUrl) => {
    const res = await fetch(authorizationUrl, { redirect: "manual" });
    const back = new URL(res.headers.get("location") ?? "about:blank");
    return { code: back.searchParams.get("code"), state: back.searchParams.get("state"), error: back.searchParams.get("error") ?? undefined };
  };
  return provider;
}

const client = await McpClient.connect(url, {
  clientInfo: { name: "agentwire-conformance", version: "0.1.0" },
  capabilities: { elicitation: {} },
  auth: headlessProvider(),
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
  // Behind authorization, a tool call may ask for more scope than listing did (step-up).
  if (scenario.startsWith("auth/") && tools.length > 0) calls[tools[0].name] = {};
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
