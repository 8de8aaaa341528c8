// One cold start in a fresh Node process, for cold.mjs: prints the phases as JSON.
//   node bench/validate/cold/node.mjs agentwire <data.json> <package dir>
//   node bench/validate/cold/node.mjs ajv <data.json>
// <data.json> holds the first message, the schema and the definitions (see cold.mjs); it is
// read before the clock starts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { agentwireCold, ajvCold } from "./probe.mjs";

const [which, dataPath, pkg] = process.argv.slice(2);
const { message, doc, defs } = JSON.parse(readFileSync(dataPath, "utf8"));
const now = () => performance.now();
const phases = which === "agentwire"
  ? await agentwireCold({ load: () => import(pathToFileURL(join(pkg, "node.js")).href), message, now })
  : await ajvCold({ load: () => import("./ajv.mjs"), doc, defs, message, now });
console.log(JSON.stringify({ phases, sinceProcessStart: now() }));
