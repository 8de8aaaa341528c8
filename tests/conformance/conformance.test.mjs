// The official MCP conformance suite, client scenarios: each one drives
// tests/conformance/client.mjs (agentwire's public API only) against the suite's own server.
// A scenario in baseline.yml that fails as expected is reported as skipped with the reason
// (never as passed); one that passes while listed fails the run (a stale entry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { scenarios, scenario, missing, CLIENT_COMMAND } from "./suite.mjs";

const why = missing();
const lists = why ? { client: [] } : await scenarios();

test("the suite lists its client scenarios", { skip: why ?? false }, () => {
  assert.ok(lists.client.length >= 26, `only ${lists.client.length} client scenarios`);
});

for (const name of lists.client) {
  test(`conformance client ${name}`, async (t) => {
    const { status, detail } = await scenario("client", name, CLIENT_COMMAND);
    if (status === "expected") return t.skip("expected failure (tests/conformance/baseline.yml): authorization is not built yet");
    assert.equal(status, "passed", detail);
  });
}
