// Validation throughput and cold start in Node, side by side (see contenders.mjs).
//   node bench/validate/corpus.mjs /tmp/corpus.json && node bench/validate/node.mjs /tmp/corpus.json
// Needs `node scripts/build.mjs` (the package in pkg/) and ../shared (official schemas).
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import * as mcpZod from "@modelcontextprotocol/sdk/types.js";
import { build, measure, table } from "./contenders.mjs";

// The ACP SDK does not export its zod schemas; they are loaded from the installed files.
const acpZod = await import(new URL("../../node_modules/@agentclientprotocol/sdk/dist/schema/zod.gen.js", import.meta.url).href);
const shared = process.env.AGENTWIRE_SHARED ?? new URL("../../../shared/", import.meta.url).pathname;
const corpus = JSON.parse(readFileSync(process.argv[2] ?? "/tmp/corpus.json", "utf8"));
const schemas = {
  acp: JSON.parse(readFileSync(`${shared}spec/acp/v1/schema.json`, "utf8")),
  mcp: JSON.parse(readFileSync(`${shared}spec/mcp/2025-06-18/schema.json`, "utf8")),
};
const now = () => performance.now();

// Cold start: loading the module, instantiating the wasm, and the first validation.
const t0 = now();
const agentwire = await import(new URL("../../pkg/node.js", import.meta.url).href);
new agentwire.Validator({ protocol: "acp", version: "1" }).validate(corpus[0].text, { direction: corpus[0].direction });
const coldMs = now() - t0;

const { contenders, compileMs } = build({ Ajv, Ajv2020, acpZod, mcpZod, agentwire, schemas, corpus, now });
console.log(`corpus: ${corpus.length} messages (${corpus.filter((m) => m.protocol === "acp").length} ACP v1, ${corpus.filter((m) => m.protocol === "mcp").length} MCP 2025-06-18)`);
console.log(`cold start: agentwire load + instantiate + first validation ${coldMs.toFixed(1)} ms; Ajv compile ACP v1 ${compileMs.acp.toFixed(0)} ms, MCP ${compileMs.mcp.toFixed(0)} ms`);
console.log(table(measure(contenders, corpus, { now })));
