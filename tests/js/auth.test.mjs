// OAuth for remote MCP servers: the flow's rules on their own (pure functions), each failure
// path of the flow against a scripted fetch, naming the step that failed, and the Node
// provider signing in to a protected server (tests/js/oauth-peers.mjs) through McpClient.
// The flow against the suite's servers is the conformance suite's auth scenarios
// (tests/conformance/); the browser's provider is in the end-to-end tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { codes } from "./helpers.mjs";
import {
  parseWwwAuthenticate, parseChallenges, resourceMetadataUrls, authorizationServerMetadataUrls, resourceMatches, canonicalResource,
  chooseScope, tokenAuthMethod, tokenRequest, authorizationUrl, pkce, authorizeWith, redact, storedAuth, memoryStorage,
} from "../../pkg/auth.js";
import { loopbackAuth } from "../../pkg/auth-node.js";
import { McpClient } from "../../pkg/node.js";
import { protectedServer } from "./oauth-peers.mjs";

test("WWW-Authenticate: scheme and parameters, quoted or not, escapes kept", () => {
  const { scheme, params } = parseWwwAuthenticate('Bearer realm="mcp", error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", max_age=5, note="say \\"hi\\""');
  assert.equal(scheme, "bearer");
  assert.deepEqual(params, { realm: "mcp", error: "insufficient_scope", scope: "a b", resource_metadata: "https://x/.well-known/oauth-protected-resource/mcp", max_age: "5", note: 'say "hi"' });
  assert.deepEqual(parseWwwAuthenticate(undefined), { scheme: "", params: {} });
});

test("WWW-Authenticate: each challenge on its own (RFC 9110 §11.6.1), token68 or parameters, the first of a name counts", () => {
  assert.deepEqual(parseChallenges('Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple", Negotiate a87421000492aa874209af8bc028=, Bearer scope="a", scope="b", error=invalid_token'), [
    { scheme: "newauth", params: { realm: "apps", type: "1", title: 'Login to "apps"' } },
    { scheme: "basic", params: { realm: "simple" } },
    { scheme: "negotiate", params: {}, token68: "a87421000492aa874209af8bc028=" },
    { scheme: "bearer", params: { scope: "a", error: "invalid_token" } },
  ]);
  assert.deepEqual(parseWwwAuthenticate('Basic scope="admin", Bearer').params, {}, "Basic's scope is not Bearer's");
  assert.deepEqual(parseWwwAuthenticate('DPoP algs="ES256"'), { scheme: "", params: {} });
  assert.deepEqual(parseChallenges('Bearer __proto__="x"')[0].params, Object.fromEntries([["__proto__", "x"]]));
});

test("discovery order: the header's URL, path-aware then root (RFC 9728); RFC 8414 then OpenID Connect", () => {
  assert.deepEqual(resourceMetadataUrls("https://s.example/api/mcp", "/custom/prm.json"), [
    "https://s.example/custom/prm.json",
    "https://s.example/.well-known/oauth-protected-resource/api/mcp",
    "https://s.example/.well-known/oauth-protected-resource",
  ]);
  assert.deepEqual(resourceMetadataUrls("https://s.example/"), ["https://s.example/.well-known/oauth-protected-resource"]);
  assert.deepEqual(authorizationServerMetadataUrls("https://as.example/tenant1"), [
    "https://as.example/.well-known/oauth-authorization-server/tenant1",
    "https://as.example/.well-known/openid-configuration/tenant1",
    "https://as.example/tenant1/.well-known/openid-configuration",
  ]);
  assert.deepEqual(authorizationServerMetadataUrls("https://as.example"), [
    "https://as.example/.well-known/oauth-authorization-server",
    "https://as.example/.well-known/openid-configuration",
  ]);
});

test("the resource must cover the server; scope comes from the challenge, else the resource", () => {
  assert.ok(resourceMatches("https://s.example/mcp", "https://s.example/mcp"));
  assert.ok(resourceMatches("https://s.example", "https://s.example/mcp"));
  assert.ok(!resourceMatches("https://s.example/other", "https://s.example/mcp"));
  assert.ok(!resourceMatches("https://evil.example/mcp", "https://s.example/mcp"));
  assert.ok(!resourceMatches("https://s.example/mc", "https://s.example/mcp"), "a prefix of a segment is not a path prefix");
  assert.equal(canonicalResource("https://s.example/mcp/#x"), "https://s.example/mcp");
  assert.equal(chooseScope("a b", { scopes_supported: ["c"] }), "a b");
  assert.equal(chooseScope(undefined, { scopes_supported: ["c", "d"] }), "c d");
  assert.equal(chooseScope(undefined, {}), undefined);
  // offline_access where the authorization server lists it, once, and never alone.
  assert.equal(chooseScope("a", {}, { scopes_supported: ["a", "offline_access"] }), "a offline_access");
  assert.equal(chooseScope("a offline_access", {}, { scopes_supported: ["offline_access"] }), "a offline_access");
  assert.equal(chooseScope(undefined, {}, { scopes_supported: ["offline_access"] }), undefined);
  assert.equal(chooseScope("a", {}, { scopes_supported: ["a"] }), "a");
});

test("token requests authenticate the client as registered, else as the server prefers", () => {
  const meta = { token_endpoint: "https://as.example/token", token_endpoint_auth_methods_supported: ["client_secret_post"] };
  assert.equal(tokenAuthMethod({ client_id: "c" }, meta), "none");
  assert.equal(tokenAuthMethod({ client_id: "c", client_secret: "s" }, meta), "client_secret_post");
  assert.equal(tokenAuthMethod({ client_id: "c", client_secret: "s" }, {}), "client_secret_basic");
  const basic = tokenRequest({ token_endpoint: "https://as.example/token" }, { client_id: "c:1", client_secret: "s/2" }, { grant_type: "authorization_code", code: "x", skip: undefined });
  assert.equal(basic.headers.authorization, `Basic ${btoa("c%3A1:s%2F2")}`);
  assert.equal(basic.body, "grant_type=authorization_code&code=x");
  const post = tokenRequest(meta, { client_id: "c", client_secret: "s" }, { grant_type: "refresh_token" });
  assert.equal(post.headers.authorization, undefined);
  assert.equal(post.body, "grant_type=refresh_token&client_id=c&client_secret=s");
  const none = tokenRequest(meta, { client_id: "c" }, { grant_type: "refresh_token" });
  assert.equal(none.body, "grant_type=refresh_token&client_id=c");
});

test("the authorization URL carries PKCE S256, state, scope and resource; the challenge is the verifier's SHA-256", async () => {
  const { verifier, challenge } = await pkce();
  assert.match(verifier, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(challenge, createHash("sha256").update(verifier).digest("base64url"));
  const url = new URL(authorizationUrl({ authorization_endpoint: "https://as.example/authorize?x=1" },
    { clientId: "c", redirectUri: "http://localhost/cb", challenge, state: "st", scope: "a b", resource: "https://s.example/mcp" }));
  assert.deepEqual(Object.fromEntries(url.searchParams), { x: "1", response_type: "code", client_id: "c", redirect_uri: "http://localhost/cb",
    code_challenge: challenge, code_challenge_method: "S256", state: "st", scope: "a b", resource: "https://s.example/mcp" });
});

/** A fetch answering from a table of `url → (init) => { status, json }`; anything else 404. */
function scripted(routes) {
  const seen = [];
  const fetch = async (url, init = {}) => {
    seen.push({ url: String(url), init });
    const route = routes[String(url).split("?")[0]];
    const { status = 200, json } = route ? await route(init) : { status: 404 };
    return new Response(json === undefined ? "" : JSON.stringify(json), { status, headers: { "content-type": "application/json" } });
  };
  return { fetch, seen };
}

const SERVER = "https://s.example/mcp";
const PRM = "https://s.example/.well-known/oauth-protected-resource/mcp";
const ASM = "https://as.example/.well-known/oauth-authorization-server";
const asMetadata = (extra = {}) => ({
  issuer: "https://as.example", authorization_endpoint: "https://as.example/authorize", token_endpoint: "https://as.example/token",
  registration_endpoint: "https://as.example/register", code_challenge_methods_supported: ["S256"], ...extra,
});
const bound = { issuer: "https://as.example", token_endpoint: "https://as.example/token", resource: SERVER };
const provider = ({ tokens: saved, ...over } = {}) => {
  let tokens = saved;
  return {
    redirectUrl: "http://localhost/cb",
    clientMetadata: { client_name: "t", redirect_uris: ["http://localhost/cb"] },
    clientInformation: () => ({ client_id: "c" }),
    tokens: () => tokens,
    saveTokens: (t) => { tokens = t; },
    saved: () => tokens,
    redirectToAuthorization: async (url) => ({ code: "the-code", state: new URL(url).searchParams.get("state") }),
    ...over,
  };
};
const failsAt = (step, text) => (e) => e.code === codes.AUTH_FAILED && e.data.step === step && (!text || text.test(e.message));

test("the flow: discovery, PKCE, the code for tokens; the token is the retry's Authorization header", async () => {
  const { fetch, seen } = scripted({
    [PRM]: () => ({ json: { resource: SERVER, authorization_servers: ["https://as.example"], scopes_supported: ["read"] } }),
    [ASM]: () => ({ json: asMetadata() }),
    "https://as.example/token": () => ({ json: { access_token: "AT", refresh_token: "RT", token_type: "Bearer" } }),
  });
  const p = provider();
  const { headers } = await authorizeWith(p, { serverUrl: SERVER, wwwAuthenticate: 'Bearer resource_metadata="' + PRM + '"', fetch });
  assert.deepEqual(headers, { authorization: "Bearer AT" });
  assert.equal(p.saved().refresh_token, "RT");
  const token = new URLSearchParams(seen.at(-1).init.body);
  assert.equal(token.get("grant_type"), "authorization_code");
  assert.equal(token.get("resource"), SERVER);
  assert.match(token.get("code_verifier"), /^[A-Za-z0-9_-]{43}$/);
});

test("each failure names its step: no metadata, no S256, registration refused, bad state, denied consent, resource mismatch", async () => {
  const prm = () => ({ json: { resource: SERVER, authorization_servers: ["https://as.example"] } });
  const run = (routes, over = {}) => authorizeWith(provider(over), { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch: scripted(routes).fetch });
  await assert.rejects(run({ [PRM]: prm }), failsAt("authorization server metadata", /none found/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata({ code_challenge_methods_supported: ["plain"] }) }) }), failsAt("authorization server metadata", /S256/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata() }), "https://as.example/register": () => ({ status: 400, json: { error: "invalid_client_metadata" } }) },
    { clientInformation: () => undefined }), failsAt("registration", /refused \(HTTP 400, invalid_client_metadata\)/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata() }) }, { redirectToAuthorization: async () => ({ code: "x", state: "forged" }) }),
    failsAt("authorization", /state/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata() }) }, { redirectToAuthorization: async () => ({ error: "access_denied" }) }),
    failsAt("authorization", /access_denied/));
  await assert.rejects(run({ [PRM]: () => ({ json: { resource: "https://other.example/mcp", authorization_servers: ["https://as.example"] } }) }),
    failsAt("resource metadata", /not https:\/\/s\.example\/mcp/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata() }), "https://as.example/token": () => ({ status: 400, json: { error: "invalid_grant", error_description: "code AT-SECRET expired" } }) }),
    (e) => failsAt("token", /invalid_grant/)(e) && !e.message.includes("AT-SECRET"), "the server's description (which may echo secrets) is left out");
});

test("authorization server metadata: its issuer is the one looked up (RFC 8414 §3.3), its endpoints http(s) URLs", async () => {
  const prm = () => ({ json: { resource: SERVER, authorization_servers: ["https://as.example"] } });
  const run = (meta) => {
    const { fetch, seen } = scripted({ [PRM]: prm, [ASM]: () => ({ json: meta }), "https://as.example/token": () => ({ json: { access_token: "AT" } }) });
    let sent = 0;
    const p = provider({ redirectToAuthorization: async (url) => { sent++; return { code: "c", state: new URL(url).searchParams.get("state") }; } });
    return { flow: authorizeWith(p, { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch }), seen, sent: () => sent };
  };
  for (const issuer of ["https://evil.example", "https://as.example/other", undefined]) {
    const { flow, sent } = run(asMetadata({ issuer }));
    await assert.rejects(flow, failsAt("authorization server metadata", /its issuer is not https:\/\/as\.example\/, where it was looked up/));
    assert.equal(sent(), 0, "nobody was sent to sign in");
  }
  for (const endpoint of [{ authorization_endpoint: "javascript:alert(1)" }, { token_endpoint: "data:,x" }, { registration_endpoint: 7 }]) {
    await assert.rejects(run(asMetadata(endpoint)).flow, failsAt("authorization server metadata", /not an http\(s\) URL/));
  }
  // The same identifier with the slash of an empty path is the same URL.
  assert.deepEqual((await run(asMetadata({ issuer: "https://as.example/" })).flow).headers, { authorization: "Bearer AT" });
  // 2025-03-26 (no resource metadata): looked up at the server's origin, the issuer may have a path there, not another origin.
  const legacy = (issuer) => {
    const { fetch, seen } = scripted({
      "https://s.example/.well-known/oauth-authorization-server": () => ({ json: { ...asMetadata(), issuer, token_endpoint: "https://s.example/oauth/token" } }),
      "https://s.example/oauth/token": () => ({ json: { access_token: "AT" } }),
    });
    return { flow: authorizeWith(provider(), { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch }), seen };
  };
  assert.deepEqual((await legacy("https://s.example/oauth").flow).headers, { authorization: "Bearer AT" });
  const other = legacy("https://as.example");
  await assert.rejects(other.flow, failsAt("authorization server metadata", /its issuer is not https:\/\/s\.example\/, where it was looked up/));
  assert.ok(!other.seen.some((s) => s.url.endsWith("/token")));
});

test("the answer's iss (RFC 9207): another issuer's is refused, none is refused where the server sends it, a flow started elsewhere is refused", async () => {
  const run = (extra, over) => {
    const { fetch, seen } = scripted({
      [PRM]: () => ({ json: { resource: SERVER, authorization_servers: ["https://as.example"] } }),
      [ASM]: () => ({ json: asMetadata(extra) }),
      "https://as.example/token": () => ({ json: { access_token: "AT", token_type: "Bearer" } }),
    });
    return { flow: authorizeWith(provider(over), { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch }), redeemed: () => seen.some((s) => s.url.endsWith("/token")) };
  };
  const answering = (fields) => ({ redirectToAuthorization: async (url) => ({ code: "c", state: new URL(url).searchParams.get("state"), ...fields }) });
  let r = run({}, answering({ iss: "https://evil.example" }));
  await assert.rejects(r.flow, failsAt("authorization", /another authorization server than https:\/\/as\.example\/ \(iss\)/));
  assert.ok(!r.redeemed(), "the code was not redeemed");
  r = run({ authorization_response_iss_parameter_supported: true }, answering({}));
  await assert.rejects(r.flow, failsAt("authorization", /carries no iss, which this authorization server sends/));
  assert.ok(!r.redeemed());
  r = run({}, answering({ iss: "https://as.example/", error: "access_denied" }));
  await assert.rejects(r.flow, failsAt("authorization", /\(iss\)/), "compared as strings, the error's iss too");
  assert.deepEqual((await run({ authorization_response_iss_parameter_supported: true }, answering({ iss: "https://as.example" })).flow).headers, { authorization: "Bearer AT" });
  assert.deepEqual((await run({}, answering({})).flow).headers, { authorization: "Bearer AT" }, "no iss where none is promised");
  // A page back from a full-page redirect whose sign-in was started with another server.
  const pending = { server: SERVER, issuer: "https://evil.example", state: "s", verifier: "v", redirectUri: "http://localhost/cb" };
  r = run({}, { takeAuthorization: () => ({ code: "c", state: "s", pending }) });
  await assert.rejects(r.flow, failsAt("authorization", /started with another authorization server/));
  assert.ok(!r.redeemed());
});

test("a kept refresh token without its issuer, or from another, is not sent: the user signs in", async () => {
  for (const tokens of [{ access_token: "A", refresh_token: "RT-OLD" }, { access_token: "A", refresh_token: "RT-OLD", ...bound, token_endpoint: "https://evil.example/token" }]) {
    const { fetch, seen } = scripted({
      [PRM]: () => ({ json: { resource: SERVER, authorization_servers: ["https://as.example"] } }),
      [ASM]: () => ({ json: asMetadata() }),
      "https://as.example/token": () => ({ json: { access_token: "AT", token_type: "Bearer" } }),
    });
    const p = provider({ tokens });
    await authorizeWith(p, { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch });
    assert.ok(!seen.some((s) => String(s.init.body ?? "").includes("RT-OLD")), "the refresh token was sent");
    assert.deepEqual(p.saved(), { access_token: "AT", token_type: "Bearer", ...bound }, "kept with where it came from");
  }
});

test("a refresh token is used first; when it has expired the user signs in again", async () => {
  let refreshes = 0;
  const routes = {
    [PRM]: () => ({ json: { resource: SERVER, authorization_servers: ["https://as.example"] } }),
    [ASM]: () => ({ json: asMetadata() }),
    "https://as.example/token": (init) => {
      const grant = new URLSearchParams(init.body).get("grant_type");
      if (grant === "refresh_token") return ++refreshes === 1 ? { json: { access_token: "AT2" } } : { status: 400, json: { error: "invalid_grant" } };
      return { json: { access_token: "AT3", refresh_token: "RT3" } };
    },
  };
  let redirects = 0;
  const p = provider({ tokens: { access_token: "AT1", refresh_token: "RT1", ...bound }, redirectToAuthorization: async (url) => { redirects++; return { code: "c", state: new URL(url).searchParams.get("state") }; } });
  const first = await authorizeWith(p, { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch: scripted(routes).fetch });
  assert.deepEqual([first.headers.authorization, redirects, p.saved().refresh_token], ["Bearer AT2", 0, "RT1"], "refreshed, the refresh token kept");
  const second = await authorizeWith(p, { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch: scripted(routes).fetch });
  assert.deepEqual([second.headers.authorization, redirects], ["Bearer AT3", 1], "the expired refresh token led to a new sign-in");
});

test("2025-03-26: no resource metadata means the server's origin is the authorization server, with default endpoints", async () => {
  const { fetch, seen } = scripted({ "https://s.example/token": () => ({ json: { access_token: "AT" } }) });
  let asked;
  const p = provider({ redirectToAuthorization: async (url) => { asked = new URL(url); return { code: "c", state: asked.searchParams.get("state") }; } });
  await authorizeWith(p, { serverUrl: SERVER, wwwAuthenticate: "Bearer", fetch });
  assert.equal(`${asked.origin}${asked.pathname}`, "https://s.example/authorize");
  assert.deepEqual(seen.slice(0, 4).map((s) => s.url), [
    PRM, "https://s.example/.well-known/oauth-protected-resource",
    "https://s.example/.well-known/oauth-authorization-server", "https://s.example/.well-known/openid-configuration",
  ]);
});

test("redaction: tokens, codes, secrets and verifiers, at any depth", () => {
  assert.deepEqual(redact({ step: "token", body: { access_token: "a", refresh_token: "r", token_type: "Bearer", nested: [{ client_secret: "s", code: "c" }] }, code_verifier: "v" }),
    { step: "token", body: { access_token: "[redacted]", refresh_token: "[redacted]", token_type: "Bearer", nested: [{ client_secret: "[redacted]", code: "[redacted]" }] }, code_verifier: "[redacted]" });
});

// The user's browser, for the loopback provider: follows the authorization server's redirect
// to the loopback listener.
const userAgent = (url) => fetch(url).then((res) => res.text()).then(() => undefined);

test("Node: the loopback provider signs in to a protected server; every step is reported, no secret in any", async () => {
  const server = await protectedServer();
  const steps = [];
  const auth = await loopbackAuth({ open: userAgent, onStep: (s) => steps.push(s), clientMetadata: { client_name: "agentwire tests" } });
  try {
    assert.match(auth.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // 2025-11-25 only: the first request is initialize (not the 2026 discovery the SDK server refuses).
    const client = await McpClient.connect(server.url, { clientInfo: { name: "t", version: "1" }, protocolVersions: ["2025-11-25"], auth });
    await client.initialize();
    assert.equal((await client.callTool("slow", {})).content[0].text, "slow done");
    assert.deepEqual(steps.map((s) => `${s.step}${s.ok === false ? " ✗" : ""}`), [
      "challenge", "resource metadata", "authorization server metadata", "registration", "authorization", "authorization", "token", "retry",
    ]);
    assert.equal(steps.find((s) => s.step === "registration").body.client_name, "agentwire tests");
    assert.equal(steps.at(-1).status, 200);
    // Expired: the refresh token gets a new one without the user.
    server.expire();
    assert.equal((await client.callTool("slow", {})).content[0].text, "slow done");
    assert.deepEqual(server.grants, { authorization_code: 1, refresh_token: 1 });
    assert.deepEqual(steps.slice(-6).map((s) => s.step), ["challenge", "resource metadata", "authorization server metadata", "registration", "refresh", "retry"]);
    assert.equal(steps.at(-3).source, "known client", "the registered client is kept for its issuer");
    const shown = JSON.stringify(steps);
    assert.ok(server.secrets.length >= 4);
    for (const secret of server.secrets) assert.ok(!shown.includes(secret), "a secret reached onStep");
    client.close();
  } finally {
    await auth.close();
    server.close();
  }
});

test("a token goes only to the server it was issued for", async () => {
  const [a, b] = [await protectedServer(), await protectedServer()];
  const auth = await loopbackAuth({ open: userAgent });
  try {
    const info = { clientInfo: { name: "t", version: "1" }, auth };
    for (const server of [a, b]) {
      const client = await McpClient.connect(server.url, info);
      await client.initialize();
      client.close();
    }
    assert.deepEqual([a.grants.authorization_code, b.grants.authorization_code], [1, 1], "each server its own sign-in");
    const [ta, tb] = [await auth.tokens(a.url), await auth.tokens(b.url)];
    assert.notEqual(ta.access_token, tb.access_token);
    assert.ok(b.bearers.every((t) => t !== ta.access_token), "A's token never went to B");
    assert.equal(b.bearers[0], undefined, "B's first request went without a token");
    // Connecting to A again sends A's kept token from the start: no new sign-in.
    const again = await McpClient.connect(a.url, info);
    await again.initialize();
    again.close();
    assert.equal(a.grants.authorization_code, 1);
    assert.equal(a.bearers.at(-1), ta.access_token);
  } finally {
    await auth.close();
    a.close();
    b.close();
  }
});

test("real servers' refusals name their step: denied consent; an expired refresh token where nobody can sign in", async () => {
  const denying = await protectedServer({ consent: "deny" });
  const auth = await loopbackAuth({ open: userAgent });
  try {
    const client = await McpClient.connect(denying.url, { clientInfo: { name: "t", version: "1" }, auth });
    await assert.rejects(client.initialize(), failsAt("authorization", /the server answered access_denied/));
    client.close();
  } finally {
    await auth.close();
    denying.close();
  }
  // A provider without a way to send the user (a background job) and a refresh token the server no longer takes.
  const server = await protectedServer();
  try {
    const storage = memoryStorage();
    const headless = storedAuth(storage, { redirectUrl: "http://127.0.0.1:9/callback", clientId: "client-1" });
    headless.saveTokens({ access_token: "old", refresh_token: "revoked", issuer: server.issuer, token_endpoint: `${server.issuer}/token`, resource: server.url }, server.url);
    const client = await McpClient.connect(server.url, { clientInfo: { name: "t", version: "1" }, auth: headless });
    await assert.rejects(client.initialize(), failsAt("refresh", /invalid_(grant|client)/));
    assert.equal(headless.tokens(server.url), undefined, "the dead tokens are forgotten");
    client.close();
  } finally {
    server.close();
  }
});

test("a lost answer: nothing comes back to the loopback listener within the time given", async () => {
  const server = await protectedServer();
  const auth = await loopbackAuth({ open: () => {}, timeoutMs: 200 });
  try {
    const client = await McpClient.connect(server.url, { clientInfo: { name: "t", version: "1" }, auth });
    await assert.rejects(client.initialize(), failsAt("authorization", /nothing came back to http:\/\/127\.0\.0\.1:\d+\/callback within 0\.2 s/));
    client.close();
  } finally {
    await auth.close();
    server.close();
  }
});

test("docs/auth.md: the Node examples run against a protected server and print what the page shows", async () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
  const doc = readFileSync(join(root, "docs/auth.md"), "utf8");
  const examples = [...doc.matchAll(/```js node\n([\s\S]*?)```\s*```output\n([\s\S]*?)```/g)];
  assert.equal(examples.length, 2);
  const scratch = mkdtempSync(join(tmpdir(), "agentwire-auth-docs-"));
  const pkg = (file) => JSON.stringify(pathToFileURL(join(root, "pkg", file)).href);
  try {
    for (const [n, [, code, output]] of examples.entries()) {
      const server = await protectedServer();
      const printed = [];
      Object.assign(globalThis, { SERVER: server.url, openInBrowser: userAgent, print: (...a) => printed.push(a.join(" ")) });
      const file = join(scratch, `example-${n}.mjs`);
      writeFileSync(file, code.replace(/from "agentwire\/auth-node"/, `from ${pkg("auth-node.js")}`).replace(/from "agentwire\/auth"/, `from ${pkg("auth.js")}`)
        .replace(/from "agentwire"/, `from ${pkg("node.js")}`).replace(/console\.log\(/g, "print("));
      try {
        await import(pathToFileURL(file).href);
        assert.equal(printed.join("\n"), output.trimEnd());
      } finally {
        server.close();
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
