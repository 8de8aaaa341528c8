// The Node provider of OAuth for remote MCP servers: a loopback redirect listener (RFC 8252),
// or a code handed in by the app's `open`.
import http from "node:http";
import { storedAuth, memoryStorage, authError } from "./auth.js";

const PAGE = (ok) => `<!doctype html><meta charset="utf-8"><title>agentwire</title><p>${ok ? "Signed in" : "Sign-in failed"}: this tab may be closed.</p>`;

/**
 * Listens on `http://127.0.0.1:PORT/callback` (an ephemeral port unless `port` is given) for the
 * authorization server's redirect. `open(url)` sends the user there (by default the URL is
 * printed on stderr); when it resolves with a code (or `{ code, state }`), that answer is used
 * instead of waiting for the redirect. `close()` stops the listener.
 */
export async function loopbackAuth(options = {}) {
  const { port = 0, host = "127.0.0.1", path = "/callback", timeoutMs = 300_000, storage = memoryStorage() } = options;
  const open = options.open ?? ((url) => void process.stderr.write(`Sign in to continue: ${url}\n`));
  let waiting = null;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://loopback");
    if (url.pathname !== path || !waiting) return res.writeHead(404).end();
    const answer = { code: url.searchParams.get("code"), state: url.searchParams.get("state"), error: url.searchParams.get("error") };
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(PAGE(!!answer.code));
    waiting(answer);
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  server.unref();
  const provider = storedAuth(storage, { ...options, redirectUrl: `http://${host}:${server.address().port}${path}` });
  provider.redirectToAuthorization = async (url) => {
    let timer;
    const answered = new Promise((resolve, reject) => {
      waiting = resolve;
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
