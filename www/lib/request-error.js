// What a request handler throws to answer with a JSON-RPC error: code, message, data.
export class RequestError extends Error {
  constructor(code, message, data) { super(message); this.name = "ProtocolError"; this.code = code; this.data = data; }
}
