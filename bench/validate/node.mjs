// Validation throughput in Node on the shared corpus (bench/validate/corpus.mjs), side by
// side: Ajv compiled from the official schemas in ../shared (the top-level schema as
// published, and per-method definitions), and the official ACP SDK's zod schemas. Each
// validates from text (JSON.parse included). agentwire's wasm Validator joins this table
// once the package builds (pass its module path as AGENTWIRE_PKG).
//   node bench/validate/corpus.mjs /tmp/corpus.json && node bench/validate/node.mjs /tmp/corpus.json

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
// The SDK does not export its zod schemas; they are loaded from the installed files.
const acpZod = await import(new URL("../../node_modules/@agentclientprotocol/sdk/dist/schema/zod.gen.js", import.meta.url).href);

const shared = process.env.AGENTWIRE_SHARED ?? new URL("../../../shared/", import.meta.url).pathname;
const corpus = JSON.parse(readFileSync(process.argv[2] ?? new URL("./corpus.json", import.meta.url).pathname, "utf8"));
const schemaOf = { acp: "spec/acp/v1/schema.json", mcp: "spec/mcp/2025-06-18/schema.json" };

function compile(protocol) {
  const t0 = performance.now();
  const doc = JSON.parse(readFileSync(shared + schemaOf[protocol], "utf8"));
  const ajv = protocol === "acp" ? new Ajv2020({ strict: false, logger: false }) : new Ajv({ strict: false, logger: false });
  ajv.addSchema(doc, "root");
  const key = doc.$defs ? "$defs" : "definitions";
  const top = protocol === "acp" ? ajv.getSchema("root") : ajv.compile({ $ref: `root#/${key}/JSONRPCMessage` });
  const per = new Map();
  for (const m of corpus.filter((m) => m.protocol === protocol)) {
    if (!per.has(m.def)) per.set(m.def, ajv.compile({ $ref: `root#/${key}/${m.def}` }));
  }
  return { top, per, ms: performance.now() - t0 };
}

const ajv = { acp: compile("acp"), mcp: compile("mcp") };
const part = (m, msg) => (m.part === "params" ? msg.params : m.part === "result" ? msg.result : msg);
const zodOf = (def) => acpZod[`z${def}`];

const contenders = {
  "ajv top-level": (m) => ajv[m.protocol].top(JSON.parse(m.text)),
  "ajv per-method": (m) => ajv[m.protocol].per.get(m.def)(part(m, JSON.parse(m.text))),
  "zod (ACP SDK)": (m) => (m.protocol === "acp" ? zodOf(m.def).safeParse(part(m, JSON.parse(m.text))).success : null),
};
if (process.env.AGENTWIRE_PKG) {
  const pkg = await import(process.env.AGENTWIRE_PKG);
  const validators = new Map();
  contenders.agentwire = (m) => {
    const key = `${m.protocol}/${m.version}`;
    if (!validators.has(key)) validators.set(key, new pkg.Validator({ protocol: m.protocol, version: m.version }));
    return validators.get(key).validate(m.text, { direction: m.direction, inReplyTo: m.inReplyTo ?? undefined }).ok;
  };
}

console.log(`corpus: ${corpus.length} messages; Ajv compile: ACP ${ajv.acp.ms.toFixed(0)} ms, MCP ${ajv.mcp.ms.toFixed(0)} ms`);
for (const [name, fn] of Object.entries(contenders)) {
  for (const protocol of ["acp", "mcp"]) {
    const set = corpus.filter((m) => m.protocol === protocol);
    if (fn(set[0]) === null) continue;
    const bad = set.filter((m) => !fn(m));
    if (bad.length) console.log(`  ${name} ${protocol}: ${bad.length} messages judged invalid (${bad[0].def})`);
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < 1500) for (const m of set) fn(m), n++;
    const s = (performance.now() - t0) / 1000;
    console.log(`${name.padEnd(16)} ${protocol}: ${Math.round(n / s).toString().padStart(9)} messages/s`);
  }
}
