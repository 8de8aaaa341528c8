// The browser half of bench/validate/browser.mjs: the same contenders as in Node, bundled by
// Vite; the corpus and the official schemas are fetched from the runner's server.
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import * as mcpZod from "@modelcontextprotocol/sdk/types.js";
import * as acpZod from "../../../node_modules/@agentclientprotocol/sdk/dist/schema/zod.gen.js";
import { build, measure } from "../contenders.mjs";
import { agentwireCold } from "../cold/probe.mjs";

const now = () => performance.now();
const get = (path) => fetch(path).then((r) => r.json());
const corpus = await get("/data/corpus.json");
const protocols = ["acp", "mcp"].filter((p) => corpus.some((m) => m.protocol === p));
const schemas = Object.fromEntries(await Promise.all(protocols.map(async (p) => [p, await get(`/data/${p}.json`)])));

// One cold start, in a page that has just fetched the corpus and schemas (cold.mjs samples many, in fresh pages).
const cold = await agentwireCold({ load: () => import("/pkg/index.js"), message: corpus[0], now });
const agentwire = await import("/pkg/index.js");

const { contenders, compileMs } = build({ Ajv, Ajv2020, acpZod, mcpZod, agentwire, schemas, corpus, now });
const rows = measure(contenders, corpus, { now });
document.getElementById("out").textContent = JSON.stringify({ cold, compileMs, rows });
document.body.dataset.done = "1";
