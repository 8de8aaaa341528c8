// Shared by the JS tests: the built package (Node entry) and an in-memory transport pair.
export * from "../../pkg/node.js";

/** Two connected in-memory transports: what one sends, the other receives (asynchronously). */
export function transportPair() {
  const make = () => ({ onmessage: null, onclose: null, closed: false, sent: [] });
  const a = make();
  const b = make();
  for (const [self, peer] of [[a, b], [b, a]]) {
    self.send = (text) => {
      self.sent.push(text);
      queueMicrotask(() => peer.closed || peer.onmessage?.({ data: text }));
    };
    self.close = () => {
      for (const t of [self, peer]) {
        if (t.closed) continue;
        t.closed = true;
        queueMicrotask(() => t.onclose?.({ code: 1000, reason: "closed" }));
      }
    };
  }
  return [a, b];
}

export const later = (ms) => new Promise((r) => setTimeout(r, ms));

/** A child process speaking NDJSON on stdio, as a transport: one line per message. */
export async function stdioTransport(command, args = []) {
  const { spawn } = await import("node:child_process");
  const { createInterface } = await import("node:readline");
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const t = {
    onmessage: null, onclose: null, child, sent: [],
    send(text) { t.sent.push(text); child.stdin.write(`${text}\n`); },
    close() { child.stdin.end(); child.kill(); },
  };
  createInterface({ input: child.stdout }).on("line", (line) => t.onmessage?.({ data: line }));
  child.on("exit", (code, signal) => t.onclose?.({ code: 1000, reason: `exit ${code ?? signal}` }));
  return t;
}
