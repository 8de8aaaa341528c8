// The one error type of agentwire. Errors thrown by the wasm core are plain `Error`s named
// "ProtocolError" with `code` and `data`; `instanceof ProtocolError` recognises both those and
// the ones made here, so callers need a single check.

export const codes = Object.freeze({
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  TIMEOUT: -32001,
  LOCAL_REFUSAL: -32099,
  CONNECTION_CLOSED: -32098,
  HTTP_ERROR: -32097,
  AUTH_FAILED: -32096,
  REQUEST_CANCELLED: -32800,
});

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
