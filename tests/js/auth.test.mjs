// OAuth for remote MCP servers: the flow's rules on their own (pure functions), and each
// failure path of the flow against a scripted fetch, naming the step that failed. The whole
// flow against real servers is the conformance suite's auth scenarios (tests/conformance/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { codes } from "./helpers.mjs";
import {
  parseWwwAuthenticate, resourceMetadataUrls, authorizationServerMetadataUrls, resourceMatches, canonicalResource,
  chooseScope, tokenAuthMethod, tokenRequest, authorizationUrl, pkce, authorizeWith,
} from "../../pkg/auth.js";

test("WWW-Authenticate: scheme and parameters, quoted or not, escapes kept", () => {
  const { scheme, params } = parseWwwAuthenticate('Bearer realm="mcp", error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", max_age=5, note="say \\"hi\\""');
  assert.equal(scheme, "bearer");
  assert.deepEqual(params, { realm: "mcp", error: "insufficient_scope", scope: "a b", resource_metadata: "https://x/.well-known/oauth-protected-resource/mcp", max_age: "5", note: 'say "hi"' });
  assert.deepEqual(parseWwwAuthenticate(undefined), { scheme: "", params: {} });
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
    { clientInformation: () => undefined }), failsAt("registration", /refused \(HTTP 400\)/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata() }) }, { redirectToAuthorization: async () => ({ code: "x", state: "forged" }) }),
    failsAt("authorization", /state/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata() }) }, { redirectToAuthorization: async () => ({ error: "access_denied" }) }),
    failsAt("authorization", /access_denied/));
  await assert.rejects(run({ [PRM]: () => ({ json: { resource: "https://other.example/mcp", authorization_servers: ["https://as.example"] } }) }),
    failsAt("resource metadata", /not https:\/\/s\.example\/mcp/));
  await assert.rejects(run({ [PRM]: prm, [ASM]: () => ({ json: asMetadata() }), "https://as.example/token": () => ({ status: 400, json: { error: "invalid_grant", error_description: "code AT-SECRET expired" } }) }),
    (e) => failsAt("token", /invalid_grant/)(e) && !e.message.includes("AT-SECRET"), "the server's description (which may echo secrets) is left out");
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
  const p = provider({ tokens: { access_token: "AT1", refresh_token: "RT1" }, redirectToAuthorization: async (url) => { redirects++; return { code: "c", state: new URL(url).searchParams.get("state") }; } });
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
