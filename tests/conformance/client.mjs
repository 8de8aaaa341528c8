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

/**
 * An OAuth provider for a program with no browser: the authorization server of the suite
 * approves at once, so following its redirect by hand yields the code. Client credentials,
 * where the scenario hands some (pre-registration), come in MCP_CONFORMANCE_CONTEXT.
 */
function headlessProvider() {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
  let client = context.client_id ? { client_id: context.client_id, client_secret: context.client_secret } : undefined;
  let tokens;
  const redirectUrl = "http://localhost:3000/callback";
  return {
    redirectUrl,
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    clientMetadata: { client_name: "agentwire-conformance", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] },
    clientInformation: () => client,
    saveClientInformation: (info) => { client = info; },
    tokens: () => tokens,
    saveTokens: (t) => { tokens = t; },
    async redirectToAuthorization(authorizationUrl) {
      const res = await fetch(authorizationUrl, { redirect: "manual" });
      const back = new URL(res.headers.get("location") ?? "about:blank");
      return { code: back.searchParams.get("code"), state: back.searchParams.get("state"), error: back.searchParams.get("error") ?? undefined };
    },
  };
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
