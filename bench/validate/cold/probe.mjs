// One cold start, phase by phase, the same in a page and in Node: the caller says how the
// modules load (a URL in the page, a file in Node) and gives the message and schema, read
// before the clock starts. Used by cold.mjs (many fresh pages and processes) and by the
// one-sample cold start lines of browser.mjs and node.mjs.
import { compileAjv } from "../contenders.mjs";

/** agentwire: import the entry, `init()` (in a page: fetch, compile, instantiate), the first Validator, the first validation. */
export async function agentwireCold({ load, message, now }) {
  const t0 = now();
  const agentwire = await load();
  const t1 = now();
  await agentwire.default();
  const t2 = now();
  const validator = new agentwire.Validator({ protocol: message.protocol, version: message.version });
  const t3 = now();
  const { ok } = validator.validate(message.text, { direction: message.direction });
  const t4 = now();
  return { import: t1 - t0, init: t2 - t1, construct: t3 - t2, validate: t4 - t3, ok };
}

/** Ajv: import it, compile the schema (top-level, then per method as in contenders.mjs), the first validation. */
export async function ajvCold({ load, doc, defs, message, now }) {
  const t0 = now();
  const { Ajv, Ajv2020 } = await load();
  const t1 = now();
  const { top, topMs, totalMs } = compileAjv({ Ajv, Ajv2020, doc, defs, now });
  const t2 = now();
  const ok = top(JSON.parse(message.text));
  const t3 = now();
  return { import: t1 - t0, compileTop: topMs, compile: totalMs, validate: t3 - t2, ok };
}

/** The one-sample cold start line of browser.mjs and node.mjs, beside Ajv's compile times from `build`. */
export function coldLine(cold, compileMs, version) {
  const f = (x) => `${x.toFixed(1)} ms`;
  return `cold start (one sample; bench/validate/cold.mjs takes many): agentwire import ${f(cold.import)}, init ${f(cold.init)}, ` +
    `first Validator + validation ${f(cold.construct + cold.validate)}; Ajv compile ` +
    Object.entries(version).map(([p, v]) => `${p.toUpperCase()} ${p === "acp" ? "v" : ""}${v} ${compileMs[p].toFixed(0)} ms`).join(", ");
}
