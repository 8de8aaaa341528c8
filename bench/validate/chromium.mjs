// Debian's headless Chromium as every browser benchmark launches it (never a downloaded one),
// and the local server of the benchmarks that compare builds in one page.
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, extname } from "node:path";

const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

/** Launches it, with `extraArgs` after the common ones. */
export const launchChromium = (extraArgs = []) => chromium.launch({ executablePath: "/usr/bin/chromium", args: [...ARGS, ...extraArgs] });

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };

/**
 * Serves a blank page at `/`, build i's package (`dirs[i]`) under `/<i>/`, each imported by the
 * page from a path of its own (a module instance each), and `files` (a URL path → a file) as
 * they are. Resolves to the server and its address.
 */
export async function serveBuilds(dirs, files = {}) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x").pathname;
    if (url === "/") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>bench</title>");
    const m = /^\/(\d+)(\/.*)$/.exec(url);
    const path = files[url] ?? (m && dirs[Number(m[1])] && join(dirs[Number(m[1])], m[2]));
    if (!path || !existsSync(path)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}
