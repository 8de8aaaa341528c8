// `npm run conformance`: the official MCP conformance suite against agentwire, one line per
// scenario, then `conformance: server S/32 passed, client C/26 passed`. Server scenarios run
// against the relay's Streamable HTTP endpoint with the demo agent's MCP mode behind it (or
// the URL given with --server-url); client scenarios run tests/conformance/client.mjs
// (agentwire's public API only). Needs `npm run build` and the release binaries.
import { scenarios, scenario, missing, CLIENT_COMMAND } from "../tests/conformance/suite.mjs";
import { relayWithMcp } from "../tests/js/http-peers.mjs";

const at = process.argv.indexOf("--server-url");
const relay = at > 0 ? null : await relayWithMcp();
const serverUrl = at > 0 ? process.argv[at + 1] : `${relay.url}?token=${relay.token}`;
const why = missing();
if (why) {
  console.error(`conformance: ${why}`);
  process.exit(1);
}
const lists = await scenarios();
const counts = { server: 0, client: 0 };
let failed = 0;
for (const side of ["server", "client"]) {
  const target = side === "client" ? CLIENT_COMMAND : serverUrl;
  for (const name of lists[side]) {
    const { status, detail } = await scenario(side, name, target);
    if (status === "passed") counts[side]++;
    if (status === "failed") failed++;
    console.log(`${side} ${name}: ${status}${detail && status !== "failed" ? ` (${detail})` : ""}`);
    if (status === "failed") console.log(detail.replace(/^/gm, "    "));
  }
}
console.log(`conformance: server ${counts.server}/${lists.server.length} passed, client ${counts.client}/${lists.client.length} passed`);
relay?.close();
process.exitCode = failed > 0 ? 1 : 0;
