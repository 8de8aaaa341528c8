// Validation throughput and cold start in Node, side by side (see contenders.mjs).
//   node bench/validate/node.mjs                       the recorded corpus (record.mjs)
//   node bench/validate/corpus.mjs /tmp/corpus.json && node bench/validate/node.mjs /tmp/corpus.json
// Needs `node scripts/build.mjs` (the package in pkg/) and ../shared (official schemas);
// AGENTWIRE_PKG=dir times another build's `node.js` instead (a quick build of the module).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import * as mcpZod from "@modelcontextprotocol/sdk/types.js";
import { build, measure, table, versions, schemaPath } from "./contenders.mjs";
import { agentwireCold, coldLine } from "./cold/probe.mjs";

// The ACP SDK does not export its zod schemas; they are loaded from the installed files.
const acpZod = await import(new URL("../../node_modules/@agentclientprotocol/sdk/dist/schema/zod.gen.js", import.meta.url).href);
const shared = process.env.AGENTWIRE_SHARED ?? new URL("../../../shared/", import.meta.url).pathname;
const corpus = JSON.parse(readFileSync(process.argv[2] ?? new URL("./recorded/corpus.json", import.meta.url), "utf8"));
const version = versions(corpus);
const schemas = Object.fromEntries(Object.entries(version).map(([p, v]) => [p, JSON.parse(readFileSync(`${shared}${schemaPath(p, v)}`, "utf8"))]));
const now = () => performance.now();

// One cold start: loading the module (which instantiates the wasm) and the first validation.
const entry = process.env.AGENTWIRE_PKG ? pathToFileURL(`${process.env.AGENTWIRE_PKG}/node.js`).href : new URL("../../pkg/node.js", import.meta.url).href;
const cold = await agentwireCold({ load: () => import(entry), message: corpus[0], now });
const agentwire = await import(entry);

const { contenders, compileMs } = build({ Ajv, Ajv2020, acpZod, mcpZod, agentwire, schemas, corpus, now });
const counted = Object.entries(version).map(([p, v]) => `${corpus.filter((m) => m.protocol === p).length} ${p.toUpperCase()} ${p === "acp" ? "v" : ""}${v}`);
console.log(`corpus: ${corpus.length} messages (${counted.join(", ")})`);
console.log(coldLine(cold, compileMs, version));
console.log(table(measure(contenders, corpus, { now })));
