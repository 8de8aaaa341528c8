// The Node provider of OAuth for remote MCP servers: a loopback redirect listener (RFC 8252),
// or a code handed in by the app's `open`.
import http from "node:http";
import { storedAuth, memoryStorage, authError } from "./auth.js";

const PAGE = (ok) => `<!doctype html><meta charset="utf-8"><title>agentwire</title><p>${ok ? "Signed in" : "Sign-in failed"}: this tab may be closed.</p>`;

/**
 * Listens on `http://127.0.0.1:PORT/callback` (an ephemeral port unless `port` is given) for the
 * authorization server's redirect. `open(url)` sends the user there (by default the URL is
 * printed on stderr); when it resolves with a code (or `{ code, state, iss }`), that answer is
 * used instead of waiting for the redirect. `close()` stops the listener.
 *
 * The listener takes only a GET of its own path, addressed to its own Host, carrying the
 * `state` of the sign-in under way; anything else (another page of the machine probing the
 * port, a stale or forged redirect) gets 404 or 400 and the wait goes on.
 */
export async function loopbackAuth(options = {}) {
  const { port = 0, host = "127.0.0.1", path = "/callback", timeoutMs = 300_000, storage = memoryStorage() } = options;
  const open = options.open ?? ((url) => void process.stderr.write(`Sign in to continue: ${url}\n`));
  let waiting = null; // { state, resolve } while a sign-in is under way
  let hosts = new Set();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://loopback");
    if (req.method !== "GET" || url.pathname !== path) return res.writeHead(404).end();
    if (!hosts.has(String(req.headers.host ?? "").toLowerCase())) return res.writeHead(400).end();
    const q = url.searchParams;
    if (!waiting || !q.get("state") || q.get("state") !== waiting.state) {
      return res.writeHead(400, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end("No sign-in is waiting for this answer.\n");
    }
    const answer = { code: q.get("code") ?? undefined, state: q.get("state"), error: q.get("error") ?? undefined, iss: q.get("iss") ?? undefined };
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(PAGE(!!answer.code));
    waiting.resolve(answer);
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  server.unref();
  const bound = server.address().port;
  const named = host.includes(":") ? `[${host}]` : host;
  hosts = new Set([`${named}:${bound}`.toLowerCase(), ...(host === "127.0.0.1" || host === "::1" ? [`localhost:${bound}`] : [])]);
  const provider = storedAuth(storage, { ...options, redirectUrl: `http://${named}:${bound}${path}` });
  provider.redirectToAuthorization = async (url, pending) => {
    let timer;
    const answered = new Promise((resolve, reject) => {
      waiting = { state: pending?.state, resolve };
      timer = setTimeout(() => reject(authError("authorization", `nothing came back to ${provider.redirectUrl} within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    answered.catch(() => {});
    try {
      return (await open(url)) || (await answered);
    } finally {
      clearTimeout(timer);
      waiting = null;
    }
  };
  provider.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return provider;
}
