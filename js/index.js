// Browser and bundler entry: call `await init()` once; it loads the .wasm beside this file.
import initWasm, * as wasm from "./web/agentwire.js";
import { createApi } from "./api.js";

const api = createApi(wasm);

/** Loads the WebAssembly module (a URL, Response, bytes or WebAssembly.Module may be given). */
export default async function init(moduleOrPath) {
  await initWasm(moduleOrPath === undefined ? undefined : { module_or_path: moduleOrPath });
}
/** Synchronous initialisation from bytes or a compiled WebAssembly.Module. */
export function initSync(module) {
  wasm.initSync({ module });
}

export const { AcpClient, AcpAgent, McpClient, McpServer, Validator, parseMessage, serializeMessage } = api;
export { ProtocolError, codes } from "./errors.js";
