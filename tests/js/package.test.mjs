// The built package, imported as a consumer would: the Node (CommonJS) entry and the web
// entry initialised from bytes. Run `node scripts/build.mjs` first (the test command does).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const node = require("../../pkg/node/agentwire.js");
const web = await import("../../pkg/web/agentwire.js");
web.initSync({ module: readFileSync(new URL("../../pkg/web/agentwire_bg.wasm", import.meta.url)) });

for (const [entry, api] of [["node", node], ["web", web]]) {
  test(`${entry} entry: parseMessage classifies messages`, () => {
    assert.deepEqual(api.parseMessage('{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"}}'), {
      kind: "request", id: 1, method: "session/new", params: { cwd: "/w" },
    });
    assert.deepEqual(api.parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}'), {
      kind: "notification", method: "notifications/initialized",
    });
    const batch = api.parseMessage('[{"jsonrpc":"2.0","id":"a","result":{}},{"x":1}]');
    assert.equal(batch.kind, "batch");
    assert.deepEqual(batch.items.map((i) => i.kind), ["response", "invalid"]);
    assert.equal(batch.items[1].error.code, -32600);
  });

  test(`${entry} entry: failures are Errors with code, data and id`, () => {
    assert.throws(() => api.parseMessage("{"), (e) => e instanceof Error && e.code === -32700 && typeof e.data === "string");
    assert.throws(
      () => api.parseMessage('{"jsonrpc":"2.0","id":9,"method":42}'),
      (e) => e instanceof Error && e.name === "ProtocolError" && e.code === -32600 && e.id === 9 && /method/.test(e.data),
    );
    assert.throws(() => api.serializeMessage({ id: 1 }), (e) => e.code === -32600);
  });

  test(`${entry} entry: serializeMessage writes exact JSON-RPC 2.0`, () => {
    const text = api.serializeMessage({ id: 3, result: null });
    assert.equal(text, '{"jsonrpc":"2.0","id":3,"result":null}');
    assert.deepEqual(api.parseMessage(text), { kind: "response", id: 3, result: null });
  });
}

// Panics that format a value by `Debug` keep core's character escaping and its Unicode tables
// in a module (4 KB gzipped): slicing a `str` by index (`text::part` cuts instead) and
// serde_json's `value[key] = …` (`json_object::set_member` instead). Their messages mark them.
for (const dir of ["web", "acp/web", "mcp/web"]) {
  test(`the ${dir} module carries no str slicing or Value indexing panic`, () => {
    const module = readFileSync(new URL(`../../pkg/${dir}/agentwire_bg.wasm`, import.meta.url)).toString("latin1");
    for (const text of ["is not a char boundary", "cannot access key"]) {
      assert.ok(!module.includes(text), `${dir}: "${text}" is in the module`);
    }
  });
}
