// The one error type of agentwire. Errors thrown by the wasm core are plain `Error`s named
// "ProtocolError" with `code` and `data`; `instanceof ProtocolError` recognises both those and
// the ones made here, so callers need a single check.

// The codes: one table with Rust, generated from the schemas (codes.js, `cargo run -p agentwire-gen`).
import { codes } from "./codes.js";

export { codes };

export class ProtocolError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  static [Symbol.hasInstance](value) {
    return value instanceof Error && value.name === "ProtocolError" && typeof value.code === "number";
  }

  /** From a JSON-RPC error object `{ code, message, data }`. */
  static from(error) {
    return new ProtocolError(error?.code ?? codes.INTERNAL_ERROR, error?.message ?? "Unknown error", error?.data);
  }

  /** The JSON-RPC error object for a thrown value (an app handler's failure). */
  static toWire(thrown) {
    if (thrown instanceof ProtocolError) {
      const e = { code: thrown.code, message: thrown.message };
      if (thrown.data !== undefined) e.data = thrown.data;
      return e;
    }
    return { code: codes.INTERNAL_ERROR, message: String(thrown?.message ?? thrown) };
  }
}
