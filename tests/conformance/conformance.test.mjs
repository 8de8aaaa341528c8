// The official MCP conformance suite. Server scenarios: the relay's Streamable HTTP endpoint
// with the demo agent's MCP mode behind it. Client scenarios: tests/conformance/client.mjs
// (agentwire's public API only) against the suite's own servers. A scenario in baseline.yml
// that fails as expected is reported as skipped with the reason (never as passed); one that
// passes while listed fails the run (a stale entry).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { scenarios, scenario, missing, CLIENT_COMMAND } from "./suite.mjs";
import { relayWithMcp } from "../js/http-peers.mjs";

const why = missing();
const lists = why ? { client: [], server: [] } : await scenarios();
const relay = why ? null : await relayWithMcp();
after(() => relay?.close());

test("the suite lists its scenarios", { skip: why ?? false }, () => {
  assert.ok(lists.server.length >= 32, `only ${lists.server.length} server scenarios`);
  assert.ok(lists.client.length >= 26, `only ${lists.client.length} client scenarios`);
});

for (const name of lists.server) {
  test(`conformance server ${name}`, async () => {
    // The suite cannot set headers: the token goes in the query, which the endpoint accepts.
    const { status, detail } = await scenario("server", name, `${relay.url}?token=${relay.token}`);
    assert.equal(status, "passed", detail);
  });
}

for (const name of lists.client) {
  test(`conformance client ${name}`, async (t) => {
    const { status, detail } = await scenario("client", name, CLIENT_COMMAND);
    if (status === "expected") return t.skip("an expected failure: its reason is in tests/conformance/baseline.yml");
    assert.equal(status, "passed", detail);
  });
}
