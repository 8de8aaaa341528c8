// OAuth against hostile servers: authorization and resource servers written for these tests on
// loopback, each trying one way to take a code, a token or a secret, or to exhaust the client.
// Each test asserts what the hostile side never received, besides the error the flow ends with.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { codes } from "./helpers.mjs";
import { authorizeWith, storedAuth, memoryStorage, parseWwwAuthenticate, tokenRequest } from "../../pkg/auth.js";
import { loopbackAuth } from "../../pkg/auth-node.js";
import { protectedServer } from "./oauth-peers.mjs";

const failsAt = (step, text) => (e) => {
  assert.equal(e.code, codes.AUTH_FAILED, e.stack);
  assert.equal(e.data.step, step, e.message);
  if (text) assert.match(e.message, text);
  return true;
};

/**
 * A server that records every request (method, path, headers, body) and answers with
 * `handle(req, res, body, origin)`; `seen` for what reached it, `text()` all of it as one string.
 */
async function peer(handle) {
  const seen = [];
  let origin;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      seen.push({ method: req.method, path: req.url, headers: req.headers, body });
      handle(req, res, body, origin);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin, seen,
    text: () => JSON.stringify(seen) + seen.map((s) => atob(/^Basic (.*)$/.exec(s.headers.authorization ?? "")?.[1] ?? "")).join(" "),
    close: () => { server.closeAllConnections(); server.close(); },
  };
}
const json = (res, status, body, headers = {}) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
const PRM = "/.well-known/oauth-protected-resource/mcp";
const ASM = "/.well-known/oauth-authorization-server";
const challengeOf = (origin) => `Bearer resource_metadata="${origin}${PRM}"`;
const asMetadata = (origin, extra = {}) => ({
  issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/register`,
  code_challenge_methods_supported: ["S256"], ...extra,
});

/** The user's browser: follows the authorization endpoint's redirect and reads the answer in it. */
const userAgent = async (url) => {
  const res = await fetch(url, { redirect: "manual" });
  const back = new URL(res.headers.get("location") ?? "about:blank");
  return Object.fromEntries(["code", "state", "error", "iss"].map((k) => [k, back.searchParams.get(k) ?? undefined]));
};
const provider = (options = {}) => {
  const p = storedAuth(memoryStorage(), { redirectUrl: "http://127.0.0.1:9/callback", clientMetadata: { client_name: "hostile tests" }, ...options });
  p.redirectToAuthorization = userAgent;
  return p;
};

test("mix-up (RFC 9207): a hostile server's metadata names an honest authorization endpoint; the code never reaches the hostile token endpoint", async () => {
  const honest = await protectedServer();
  // The attacker holds a client at the honest server with the victim's redirect URI.
  const stolen = honest.register({ redirect_uris: ["http://127.0.0.1:9/callback"] });
  const hostile = await peer((req, res, body, origin) => {
    if (req.url === PRM) return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    if (req.url === ASM) return json(res, 200, asMetadata(origin, { authorization_endpoint: `${honest.issuer}/authorize` }));
    if (req.url === "/register") return json(res, 201, { client_id: stolen.client_id });
    json(res, 200, { access_token: "x", token_type: "Bearer" });
  });
  try {
    await assert.rejects(authorizeWith(provider(), { serverUrl: `${hostile.origin}/mcp`, wwwAuthenticate: challengeOf(hostile.origin) }),
      failsAt("authorization", /another authorization server than http:\/\/127\.0\.0\.1:\d+\/ \(iss\)/));
    assert.ok(!hostile.seen.some((s) => s.path === "/token"), "the hostile token endpoint got no request");
    for (const code of honest.secrets) assert.ok(!hostile.text().includes(code), "a code of the honest server reached the hostile one");
    assert.equal(honest.grants.authorization_code, 0, "nobody redeemed the code");
  } finally {
    honest.close();
    hostile.close();
  }
});

test("issuer mismatch (RFC 8414 §3.3): metadata whose issuer is another server is refused before the user is sent anywhere", async () => {
  const honest = await protectedServer();
  const hostile = await peer((req, res, body, origin) => {
    if (req.url === PRM) return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    // Claims the honest issuer, so that the honest server's iss would match.
    if (req.url === ASM) return json(res, 200, asMetadata(origin, { issuer: honest.issuer, authorization_endpoint: `${honest.issuer}/authorize` }));
    json(res, 404, {});
  });
  let sent = 0;
  const p = provider();
  p.redirectToAuthorization = async (url) => { sent++; return userAgent(url); };
  try {
    await assert.rejects(authorizeWith(p, { serverUrl: `${hostile.origin}/mcp`, wwwAuthenticate: challengeOf(hostile.origin) }),
      failsAt("authorization server metadata", /its issuer is not http:\/\/127\.0\.0\.1:\d+\/, where it was looked up/));
    assert.equal(sent, 0, "the user was not sent to sign in");
    assert.ok(!hostile.seen.some((s) => s.method === "POST"));
  } finally {
    honest.close();
    hostile.close();
  }
});

test("a refresh token goes only to the issuer that gave it: after the resource metadata names another server, it is not sent there", async () => {
  const honest = await protectedServer();
  let attacker = false;
  const server = await peer((req, res, body, origin) => {
    if (req.url === PRM) return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [attacker ? origin : honest.issuer] });
    if (req.url === ASM) return json(res, 200, asMetadata(origin));
    if (req.url.startsWith("/authorize")) {
      const q = new URL(req.url, origin).searchParams;
      return res.writeHead(302, { location: `${q.get("redirect_uri")}?code=evil-code&state=${q.get("state")}` }).end();
    }
    if (req.url === "/register") return json(res, 201, { client_id: "evil-client" });
    if (req.url === "/token") return json(res, 400, { error: "invalid_grant" });
    json(res, 404, {});
  });
  const p = provider();
  const steps = [];
  p.onStep = (s) => steps.push(s);
  try {
    const info = { serverUrl: `${server.origin}/mcp`, wwwAuthenticate: challengeOf(server.origin) };
    await authorizeWith(p, info);
    const kept = p.tokens(`${server.origin}/mcp`);
    assert.ok(kept.refresh_token);
    attacker = true;
    await assert.rejects(authorizeWith(p, info), failsAt("token", /HTTP 400 \(invalid_grant\)/));
    assert.ok(!server.text().includes(kept.refresh_token), "the refresh token reached the new authorization server");
    assert.equal(kept.issuer, honest.issuer, "kept with its issuer");
    assert.equal(steps.find((s) => s.step === "refresh")?.ok, false, "the skipped refresh is reported");
    assert.equal(honest.grants.refresh_token, 0);
  } finally {
    honest.close();
    server.close();
  }
});

test("a pre-registered client secret goes only to its issuer: another server's authorization server never sees it", async () => {
  const SECRET = "pre-registered-secret";
  const hostile = await peer((req, res, body, origin) => {
    if (req.url === PRM) return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    if (req.url === ASM) return json(res, 200, asMetadata(origin, { token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"] }));
    if (req.url.startsWith("/authorize")) {
      const q = new URL(req.url, origin).searchParams;
      return res.writeHead(302, { location: `${q.get("redirect_uri")}?code=c&state=${q.get("state")}` }).end();
    }
    if (req.url === "/register") return json(res, 201, { client_id: "registered-here" });
    if (req.url === "/token") return json(res, 200, { access_token: "AT", token_type: "Bearer" });
    json(res, 404, {});
  });
  try {
    const info = { serverUrl: `${hostile.origin}/mcp`, wwwAuthenticate: challengeOf(hostile.origin) };
    // Registered with one issuer, named.
    const named = provider({ clientId: "pre", clientSecret: SECRET, issuer: "https://as.example" });
    assert.deepEqual((await authorizeWith(named, info)).headers, { authorization: "Bearer AT" });
    // Not named: pinned to the first issuer it is used at.
    const pinned = provider({ clientId: "pre", clientSecret: SECRET });
    assert.deepEqual(pinned.clientInformation("https://as.example"), { client_id: "pre", client_secret: SECRET });
    await authorizeWith(pinned, info);
    assert.equal(pinned.clientInformation("https://as.example/").client_id, "pre", "still there at its issuer");
    assert.ok(!hostile.text().includes(SECRET), "the secret reached another authorization server");
    const clientIds = (path) => hostile.seen.filter((s) => s.path.startsWith(path)).map((s) => new URLSearchParams(path === "/token" ? s.body : new URL(s.path, hostile.origin).search).get("client_id"));
    assert.deepEqual(clientIds("/authorize"), ["registered-here", "registered-here"], "nor the pre-registered client_id");
    assert.deepEqual(clientIds("/token"), ["registered-here", "registered-here"]);
    assert.ok(hostile.seen.every((s) => !s.headers.authorization));
  } finally {
    hostile.close();
  }
});

test("an endless metadata body: the reading stops at the limit, the flow fails at once; a dripping one times out", async () => {
  let written = 0;
  let closed;
  const gone = new Promise((resolve) => { closed = resolve; });
  const flood = await peer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.on("close", () => closed(written));
    const chunk = `{"resource":"${"a".repeat(64 * 1024)}`;
    const pump = () => {
      // At most 64 MiB, so that a client without a limit ends too.
      while (written < 64 * 1024 * 1024 && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
  const started = Date.now();
  try {
    await assert.rejects(authorizeWith(provider(), { serverUrl: `${flood.origin}/mcp`, wwwAuthenticate: challengeOf(flood.origin) }),
      failsAt("resource metadata", /its answer is over 262144 bytes/));
    assert.ok(Date.now() - started < 5000, "failed at once");
    const sent = await gone;
    assert.ok(sent < 16 * 1024 * 1024, `the server could write ${sent} bytes before the client hung up`);
  } finally {
    flood.close();
  }
  // A body that drips a byte now and then, for 10 s at most.
  const drip = await peer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write("{");
    const timer = setInterval(() => res.write(" "), 100);
    const end = setTimeout(() => { clearInterval(timer); res.end("}"); }, 10_000);
    res.on("close", () => { clearInterval(timer); clearTimeout(end); });
  });
  const dripStarted = Date.now();
  try {
    await assert.rejects(authorizeWith(provider({ requestTimeoutMs: 500 }), { serverUrl: `${drip.origin}/mcp`, wwwAuthenticate: challengeOf(drip.origin) }),
      failsAt("resource metadata", /gave no answer within 0\.5 s/));
    assert.ok(Date.now() - dripStarted < 3000);
  } finally {
    drip.close();
  }
});

/** A server that is its own authorization server, approving at once, with `token(res, body)` as its token endpoint. */
async function selfServing(token, extra = {}) {
  return peer((req, res, body, origin) => {
    if (req.url === PRM) return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    if (req.url === ASM) return json(res, 200, asMetadata(origin, extra.metadata));
    if (req.url.startsWith("/authorize")) {
      const q = new URL(req.url, origin).searchParams;
      return res.writeHead(302, { location: `${q.get("redirect_uri")}?code=the-code&state=${q.get("state")}${extra.answer ?? ""}` }).end();
    }
    if (req.url === "/register") return json(res, 201, extra.registration ?? { client_id: "c" });
    if (req.url === "/token") return token(res, body, origin);
    json(res, 404, {});
  });
}

test("a huge token is refused: over the token length, and a body over the limit", async () => {
  for (const [answer, refused] of [
    [{ access_token: "A".repeat(100 * 1024), token_type: "Bearer" }, /not printable text of at most 16384 characters/],
    [{ access_token: "A".repeat(2 * 1024 * 1024), token_type: "Bearer" }, /its answer is over 262144 bytes/],
    [{ access_token: "AT", refresh_token: "R".repeat(20 * 1024), token_type: "Bearer" }, /at most 16384 characters/],
  ]) {
    const server = await selfServing((res) => json(res, 200, answer));
    const p = provider();
    try {
      await assert.rejects(authorizeWith(p, { serverUrl: `${server.origin}/mcp`, wwwAuthenticate: challengeOf(server.origin) }), failsAt("token", refused));
      assert.equal(p.tokens(`${server.origin}/mcp`), undefined, "nothing kept");
    } finally {
      server.close();
    }
  }
});

test("a server's error text is never echoed: only a well-formed error code, in errors and in the steps", async () => {
  const SECRET = "the-code";
  const server = await selfServing((res) => json(res, 400, { error: `invalid_grant: code ${SECRET} <b>expired</b>`, error_description: `code ${SECRET} expired` }));
  const steps = [];
  try {
    await assert.rejects(authorizeWith(provider({ onStep: (s) => steps.push(s) }), { serverUrl: `${server.origin}/mcp`, wwwAuthenticate: challengeOf(server.origin) }),
      (e) => failsAt("token", /^authorization failed at token: the token endpoint answered HTTP 400$/)(e) && e.data.error === undefined);
    assert.ok(!JSON.stringify(steps).includes(SECRET), "the server's text reached onStep");
    assert.deepEqual(steps.at(-1).body, { error: "[redacted]", error_description: "[redacted]" });
  } finally {
    server.close();
  }
  // The same in the authorization answer.
  const denying = await selfServing(() => assert.fail("no token request"), { answer: "&error=access_denied%20because%20evil" });
  try {
    await assert.rejects(authorizeWith(provider(), { serverUrl: `${denying.origin}/mcp`, wwwAuthenticate: challengeOf(denying.origin) }),
      failsAt("authorization", /^authorization failed at authorization: the server answered with an error$/));
  } finally {
    denying.close();
  }
});

test("onStep shows no registration_access_token, client_secret or token of a registration", async () => {
  const server = await selfServing((res) => json(res, 200, { access_token: "AT-SECRET", refresh_token: "RT-SECRET", token_type: "Bearer" }), {
    registration: { client_id: "c", client_secret: "CS-SECRET", registration_access_token: "RAT-SECRET", registration_client_uri: "https://x/c" },
    metadata: { token_endpoint_auth_methods_supported: ["client_secret_post"] },
  });
  const steps = [];
  try {
    await authorizeWith(provider({ onStep: (s) => steps.push(s) }), { serverUrl: `${server.origin}/mcp`, wwwAuthenticate: challengeOf(server.origin) });
    const shown = JSON.stringify(steps);
    for (const secret of ["RAT-SECRET", "CS-SECRET", "AT-SECRET", "RT-SECRET", "the-code"]) assert.ok(!shown.includes(secret), `${secret} in onStep`);
    assert.equal(steps.find((s) => s.step === "registration").body.registration_access_token, "[redacted]");
  } finally {
    server.close();
  }
});

/** A GET to the listener with the Host header given. */
const probe = (port, path, host = `127.0.0.1:${port}`) => new Promise((resolve, reject) => {
  http.get({ host: "127.0.0.1", port, path, headers: { host } }, (res) => { res.resume(); resolve(res.statusCode); }).on("error", reject);
});

test("the loopback listener answers only its own path, its own Host and the state of the sign-in under way", async () => {
  let probes;
  const auth = await loopbackAuth({
    open: async () => {
      const port = Number(new URL(auth.redirectUrl).port);
      probes = [
        await probe(port, "/other?code=x&state=the-state"),
        await probe(port, "/callback?code=x&state=the-state", `evil.example:${port}`),
        await probe(port, "/callback?code=x&state=the-state", "127.0.0.1:1"),
        await probe(port, "/callback?code=x"),
        await probe(port, "/callback?code=x&state=another"),
        await probe(port, "/callback?code=good&state=the-state&iss=https%3A%2F%2Fas.example", `localhost:${port}`),
      ];
    },
  });
  try {
    const answer = await auth.redirectToAuthorization("http://127.0.0.1:9/authorize", { state: "the-state" });
    assert.deepEqual(probes, [404, 400, 400, 400, 400, 200]);
    assert.deepEqual(answer, { code: "good", state: "the-state", error: undefined, iss: "https://as.example" });
    // No sign-in under way: nothing is taken.
    assert.equal(await probe(Number(new URL(auth.redirectUrl).port), "/callback?code=late&state=the-state"), 400);
  } finally {
    await auth.close();
  }
});

test("merged challenges: Bearer's parameters are used, never another scheme's", async () => {
  assert.equal(parseWwwAuthenticate('Bearer scope="mcp", resource_metadata="https://s/prm", Basic realm="x", scope="admin"').params.scope, "mcp");
  assert.deepEqual(parseWwwAuthenticate('Basic realm="x", scope="admin", error="insufficient_scope"').params, {});
  // Two headers, as fetch joins them; the flow asks for Bearer's scope.
  const headers = new Headers();
  let asked;
  const server = await selfServing((res) => json(res, 200, { access_token: "AT", token_type: "Bearer" }));
  headers.append("www-authenticate", `Bearer scope="mcp", resource_metadata="${server.origin}${PRM}"`);
  headers.append("www-authenticate", 'Basic realm="x", scope="admin"');
  const p = provider();
  p.redirectToAuthorization = async (url) => { asked = new URL(url).searchParams.get("scope"); return userAgent(url); };
  try {
    await authorizeWith(p, { serverUrl: `${server.origin}/mcp`, wwwAuthenticate: headers.get("www-authenticate") });
    assert.equal(asked, "mcp");
  } finally {
    server.close();
  }
});

test("a 307 of the token request to another origin is not followed: the other origin never sees the code", async () => {
  const elsewhere = await peer((req, res) => json(res, 200, { access_token: "STOLEN", token_type: "Bearer" }));
  const server = await selfServing((res) => res.writeHead(307, { location: `${elsewhere.origin}/steal` }).end());
  try {
    await assert.rejects(authorizeWith(provider(), { serverUrl: `${server.origin}/mcp`, wwwAuthenticate: challengeOf(server.origin) }),
      failsAt("token", /answered with a redirect \(HTTP 307\), which is not followed/));
    assert.deepEqual(elsewhere.seen, [], "the other origin got a request");
  } finally {
    elsewhere.close();
    server.close();
  }
});

test("client_secret_basic: id and secret form-encoded (RFC 6749 §2.3.1)", () => {
  const { headers } = tokenRequest({ token_endpoint: "https://as.example/token" }, { client_id: "id with space", client_secret: "a b+c%d!'()~*" }, { grant_type: "refresh_token" });
  assert.equal(atob(headers.authorization.slice("Basic ".length)), "id+with+space:a+b%2Bc%25d%21%27%28%29%7E*");
});
