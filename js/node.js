// Node entry: the module is loaded synchronously at import; `init()` exists for symmetry.
import { createRequire } from "node:module";
import { createApi } from "./api.js";

const wasm = createRequire(import.meta.url)("./node/agentwire.js");
const api = createApi(wasm);

export default async function init() {}
export function initSync() {}

export const { AcpClient, AcpAgent, McpClient, McpServer, Validator, parseMessage, serializeMessage } = api;
export { ProtocolError, codes } from "./errors.js";
