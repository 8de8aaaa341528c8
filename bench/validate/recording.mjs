// What the corpus recorders share: a child process as a transport that records every frame
// as it crossed the pipe, and the labelling of recorded frames with the official schema
// definition of their checked part, each checked by Ajv and by agentwire (a disagreement is a
// finding about the peer or about agentwire).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import Ajv from "ajv";
import { schemaPath } from "./contenders.mjs";

export const root = new URL("../../", import.meta.url).pathname;
const shared = process.env.AGENTWIRE_SHARED ?? new URL("../shared/", `file://${root}`).pathname;
const { Validator } = await import(`${root}pkg/node.js`);

/** A child process speaking newline-delimited JSON-RPC, as a transport; records every frame. */
export function stdio(args, { command = process.execPath, env } = {}) {
  const child = spawn(command, args, { cwd: root, env: env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
  const frames = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const transport = {
    frames,
    /** Resolves once the process has exited. */
    exited: new Promise((resolve) => child.once("exit", resolve)),
    send(text) {
      frames.push({ sent: true, text });
      child.stdin.write(`${text}\n`);
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (!line.trim()) return;
    frames.push({ sent: false, text: line });
    transport.onmessage?.({ data: line });
  });
  child.on("exit", (code) => {
    if (code && code !== 143 && !transport.closing) console.error(`${args.join(" ")} exited ${code}: ${stderr}`);
    transport.onclose?.({ code: 1000, reason: "exited" });
  });
  return transport;
}

/** Method -> definition, for requests/notifications and for results, from the schema itself. */
function definitions(protocol, doc) {
  const defs = doc.$defs ?? doc.definitions;
  const call = new Map();
  const result = new Map();
  const put = (map, method, name) => {
    if (map.has(method)) throw new Error(`${protocol}: ${method} is both ${map.get(method)} and ${name}`);
    map.set(method, name);
  };
  for (const [name, def] of Object.entries(defs)) {
    if (protocol === "acp") {
      // ACP marks each method's request/notification and response with x-method.
      if (def["x-method"]) put(name.endsWith("Response") ? result : call, def["x-method"], name);
    } else if (def.properties?.method?.const) {
      put(call, def.properties.method.const, name);
      // MCP names a request's result after it; requests without one answer EmptyResult.
      if (name.endsWith("Request")) put(result, def.properties.method.const, defs[name.replace(/Request$/, "Result")] ? name.replace(/Request$/, "Result") : "EmptyResult");
    }
  }
  const error = ["JSONRPCErrorResponse", "JSONRPCError", "Error"].find((n) => defs[n]);
  return { call, result, error, key: doc.$defs ? "$defs" : "definitions" };
}

export function label(protocol, version, frames) {
  const doc = JSON.parse(readFileSync(join(shared, schemaPath(protocol, version)), "utf8"));
  const { call, result, error, key } = definitions(protocol, doc);
  const ajv = String(doc.$schema ?? "").includes("2020-12") ? new Ajv2020({ strict: false, logger: false }) : new Ajv({ strict: false, logger: false });
  ajv.addSchema(doc, "root");
  const validator = new Validator({ protocol, version });
  const open = new Map(); // direction + id of a request -> its method
  const entries = [];
  const findings = [];
  for (const { sent, text } of frames) {
    const direction = sent ? "clientToServer" : "serverToClient";
    const msg = JSON.parse(text);
    let def, part, inReplyTo = null;
    if (msg.method !== undefined) {
      if (msg.id !== undefined) open.set(`${direction}${JSON.stringify(msg.id)}`, msg.method);
      def = call.get(msg.method);
      part = protocol === "acp" ? "params" : "message";
    } else {
      const asked = sent ? "serverToClient" : "clientToServer";
      inReplyTo = open.get(`${asked}${JSON.stringify(msg.id)}`) ?? null;
      open.delete(`${asked}${JSON.stringify(msg.id)}`);
      if (msg.error !== undefined) [def, part] = protocol === "acp" ? [error, "error"] : [error, "message"];
      else [def, part] = [result.get(inReplyTo), "result"];
    }
    const entry = { protocol, version, direction, inReplyTo, def, part, text };
    entries.push(entry);
    const problems = [];
    if (!def) problems.push(`no official definition for ${msg.method ?? inReplyTo ?? "this message"}`);
    else {
      const check = ajv.compile({ $ref: `root#/${key}/${def}` });
      const value = part === "message" ? msg : msg[part];
      if (!check(value)) problems.push(`Ajv ${def}: ${ajv.errorsText(check.errors.slice(0, 4))}`);
    }
    const report = validator.validate(text, { direction, inReplyTo: inReplyTo ?? undefined });
    const errors = report.issues.filter((i) => i.severity === "error");
    if (!report.ok || errors.length) problems.push(`agentwire: ${errors.map((i) => `${i.path} ${i.code} ${i.message}`).join("; ")}`);
    if (problems.length) findings.push({ entry, problems });
  }
  return { entries, findings };
}

/** Labels each session's frames and writes the corpus; prints the findings and the counts. */
export function writeCorpus(sessions, out) {
  const corpus = [];
  let findings = 0;
  for (const [protocol, { frames, version }] of sessions) {
    const labelled = label(protocol, version, frames);
    corpus.push(...labelled.entries);
    for (const { entry, problems } of labelled.findings) {
      findings++;
      console.log(`FINDING ${protocol} ${version} ${entry.direction} ${entry.def ?? "?"}: ${problems.join(" | ")}\n  ${entry.text.slice(0, 400)}`);
    }
    const counts = {};
    for (const e of labelled.entries) counts[e.def] = (counts[e.def] ?? 0) + 1;
    console.error(`${protocol} ${version}: ${labelled.entries.length} frames; ${Object.entries(counts).map(([d, n]) => `${d} ${n}`).join(", ")}`);
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(corpus, null, 0).replace(/\},\{"protocol"/g, '},\n{"protocol"')}\n`);
  console.error(`${corpus.length} messages, ${corpus.reduce((n, m) => n + m.text.length, 0)} bytes, ${findings} findings -> ${out}`);
}
