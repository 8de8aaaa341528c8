// The validators compared on the corpus, built the same way in Node and in the browser.
// Each validates what a transport hands over, timed from there: text (a text WebSocket frame;
// JSON.parse included), or UTF-8 bytes (a binary frame, a `fetch` body, a Node stream), which
// agentwire reads as they are and the JS validators decode first (TextDecoder, then JSON.parse):
//   agentwire       the wasm Validator, per protocol version
//   ajv top-level   Ajv compiled from the official schema file as published
//   ajv per-method  Ajv compiled per definition of the same file
//   zod             the official SDKs' zod schemas (ACP SDK, MCP SDK)
// `build` gets the modules and schema documents from its caller, so this file has no I/O.

const part = (m, msg) => (m.part === "message" ? msg : msg[m.part]);

/** The protocol version of each protocol in the corpus (one each: Ajv gets one schema per protocol). */
export function versions(corpus) {
  const found = {};
  for (const m of corpus) {
    if (found[m.protocol] !== undefined && found[m.protocol] !== m.version) throw new Error(`${m.protocol}: the corpus mixes versions ${found[m.protocol]} and ${m.version}`);
    found[m.protocol] = m.version;
  }
  return found;
}

/** The protocols a corpus holds, ACP first. */
const protocolsOf = (corpus) => ["acp", "mcp"].filter((p) => corpus.some((m) => m.protocol === p));

/** Where the official schema of a protocol version lives in ../shared. */
export const schemaPath = (protocol, version) => `spec/${protocol === "acp" ? `acp/v${version}` : `mcp/${version}`}/schema.json`;

const utf8 = new TextDecoder();
/** What a JS validator starts from: the text, or the bytes decoded. */
const parse = (input) => JSON.parse(typeof input === "string" ? input : utf8.decode(input));

/** Contenders are `(message, input)`: `input` is the message's text or its UTF-8 bytes. */
export function build({ Ajv, Ajv2020, acpZod, mcpZod, agentwire, schemas, corpus, now }) {
  const encoder = new TextEncoder();
  for (const m of corpus) m.bytes ??= encoder.encode(m.text);
  const contenders = {};
  const compileMs = {};
  if (agentwire) {
    // One version per protocol (versions() checks): found by protocol, as Ajv's by definition.
    const validators = {};
    for (const m of corpus) validators[m.protocol] ??= new agentwire.Validator({ protocol: m.protocol, version: m.version });
    contenders.agentwire = (m, input) => validators[m.protocol].validate(input, { direction: m.direction, inReplyTo: m.inReplyTo ?? undefined }).ok;
  }
  const ajv = {};
  for (const protocol of protocolsOf(corpus)) {
    const defs = corpus.filter((c) => c.protocol === protocol).map((c) => c.def);
    ajv[protocol] = compileAjv({ Ajv, Ajv2020, doc: schemas[protocol], defs, now });
    compileMs[protocol] = ajv[protocol].totalMs;
  }
  contenders["ajv top-level"] = (m, input) => ajv[m.protocol].top(parse(input));
  contenders["ajv per-method"] = (m, input) => ajv[m.protocol].per.get(m.def)(part(m, parse(input)));
  contenders["zod (SDKs)"] = (m, input) => {
    const schema = m.protocol === "acp" ? acpZod[`z${m.def}`] : mcpZod[`${m.def}Schema`];
    return schema ? schema.safeParse(part(m, parse(input))).success : null;
  };
  return { contenders, compileMs };
}

/**
 * Ajv compiled from an official schema document: the top-level validator (the whole message
 * union) and one validator per definition in `defs`. Times both steps (`topMs`, `totalMs`).
 */
export function compileAjv({ Ajv, Ajv2020, doc, defs, now }) {
  const t0 = now();
  const draft2020 = String(doc.$schema ?? "").includes("2020-12");
  const instance = draft2020 ? new Ajv2020({ strict: false, logger: false }) : new Ajv({ strict: false, logger: false });
  instance.addSchema(doc, "root");
  const key = doc.$defs ? "$defs" : "definitions";
  const top = doc.oneOf || doc.anyOf ? instance.getSchema("root") : instance.compile({ $ref: `root#/${key}/JSONRPCMessage` });
  const t1 = now();
  const per = new Map();
  for (const def of defs) {
    if (!per.has(def)) per.set(def, instance.compile({ $ref: `root#/${key}/${def}` }));
  }
  return { top, per, topMs: t1 - t0, totalMs: now() - t0 };
}

/** Messages per second of each contender on each protocol's part of the corpus, from text and from bytes, after a warm-up. */
export function measure(contenders, corpus, { now, budgetMs = 1500, warmupMs = 500 }) {
  const rows = [];
  for (const from of ["text", "bytes"]) {
    for (const [name, validate] of Object.entries(contenders)) {
      const fn = (m) => validate(m, m[from]);
      for (const protocol of protocolsOf(corpus)) {
        const set = corpus.filter((m) => m.protocol === protocol);
        if (fn(set[0]) === null) continue;
        const rejected = set.filter((m) => !fn(m)).length;
        // Steady state: the engines' tiers (JIT for JS, TurboFan for wasm) settle before timing.
        for (const t0 = now(); now() - t0 < warmupMs; ) for (const m of set) fn(m);
        let n = 0;
        const t0 = now();
        while (now() - t0 < budgetMs) for (const m of set) fn(m), n++;
        rows.push({ name, from, protocol, perSecond: Math.round(n / ((now() - t0) / 1000)), rejected });
      }
    }
  }
  return rows;
}

/** The rows, then agentwire against Ajv per method from the same input, per protocol. */
export function table(rows) {
  const lines = rows.map((r) => `${`${r.name} ← ${r.from}`.padEnd(24)} ${r.protocol}: ${String(r.perSecond).padStart(9)} msgs/s${r.rejected ? `  (${r.rejected} judged invalid)` : ""}`);
  const rate = (name, from, protocol) => rows.find((r) => r.name === name && r.from === from && r.protocol === protocol)?.perSecond;
  for (const from of ["text", "bytes"]) {
    const ratios = [...new Set(rows.map((r) => r.protocol))].map((p) => `${p} ${(rate("agentwire", from, p) / rate("ajv per-method", from, p)).toFixed(2)}×`);
    lines.push(`agentwire / ajv per-method, from ${from}: ${ratios.join(", ")}`);
  }
  return lines.join("\n");
}
