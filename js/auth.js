// OAuth 2.1 for remote MCP servers (the MCP authorization spec, 2025-03-26 … 2025-11-25): what
// a 401 (or a 403 `insufficient_scope`) starts. The rules are pure functions below (which URLs
// to try and in what order, which scope, which client identity, which request to send);
// `authorizeWith` performs them with `fetch` and the app's provider, which keeps tokens and
// client information and sends the user to the authorization server.

import { ProtocolError, codes } from "./errors.js";

/** A failure of one step of the flow: `data.step` names it. */
export function authError(step, message, data = {}) {
  return new ProtocolError(codes.AUTH_FAILED, `authorization failed at ${step}: ${message}`, { step, ...data });
}

/** `Bearer realm="x", scope="a b", resource_metadata="…"` → `{ scheme, params }`. */
export function parseWwwAuthenticate(header) {
  const text = String(header ?? "").trim();
  const scheme = text.match(/^[A-Za-z][\w.-]*/)?.[0] ?? "";
  const params = {};
  const re = /([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let m; (m = re.exec(text.slice(scheme.length))); ) params[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3];
  return { scheme: scheme.toLowerCase(), params };
}

/** Where Protected Resource Metadata (RFC 9728) is looked for, in order. */
export function resourceMetadataUrls(serverUrl, fromHeader) {
  const url = new URL(serverUrl);
  const out = [];
  if (fromHeader) out.push(new URL(fromHeader, url).href);
  const path = url.pathname.replace(/\/$/, "");
  if (path) out.push(`${url.origin}/.well-known/oauth-protected-resource${path}`);
  out.push(`${url.origin}/.well-known/oauth-protected-resource`);
  return [...new Set(out)];
}

/** Where an authorization server's metadata is looked for (RFC 8414, then OpenID Connect), in order. */
export function authorizationServerMetadataUrls(issuer) {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  if (!path) return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The canonical URI of an MCP server (RFC 8707 `resource`): no fragment, no trailing slash. */
export function canonicalResource(serverUrl) {
  const url = new URL(serverUrl);
  url.hash = "";
  return url.href.replace(/\/$/, "");
}

/** Whether the metadata's `resource` covers the server asked (same origin, a path prefix). */
export function resourceMatches(resource, serverUrl) {
  let r;
  try { r = new URL(resource); } catch { return false; }
  const s = new URL(serverUrl);
  if (r.origin !== s.origin) return false;
  const prefix = r.pathname.replace(/\/$/, "");
  return s.pathname === prefix || s.pathname.startsWith(`${prefix}/`) || prefix === "";
}

/**
 * The scope to ask for: the challenge's, else what the resource supports, else none; with
 * `offline_access` added where the authorization server offers it (a refresh token, SEP-2207).
 */
export function chooseScope(challengeScope, resourceMetadata, metadata) {
  const supported = resourceMetadata?.scopes_supported;
  const scope = challengeScope || (Array.isArray(supported) && supported.length > 0 ? supported.join(" ") : undefined);
  const offline = metadata?.scopes_supported?.includes?.("offline_access") && scope && !scope.split(" ").includes("offline_access");
  return offline ? `${scope} offline_access` : scope;
}

/** How the client authenticates at the token endpoint: its registered method, else the best the server takes. */
export function tokenAuthMethod(client, metadata) {
  if (client.token_endpoint_auth_method) return client.token_endpoint_auth_method;
  if (!client.client_secret) return "none";
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  return supported.includes("client_secret_basic") ? "client_secret_basic" : supported.includes("client_secret_post") ? "client_secret_post" : "client_secret_basic";
}

/** The token request: URL, headers and form body, the client authenticated as `method` says. */
export function tokenRequest(metadata, client, fields) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.set(k, v);
  const headers = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const method = tokenAuthMethod(client, metadata);
  if (method === "client_secret_basic") {
    const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret ?? "")}`;
    headers.authorization = `Basic ${btoa(pair)}`;
  } else {
    body.set("client_id", client.client_id);
    if (method === "client_secret_post") body.set("client_secret", client.client_secret ?? "");
  }
  return { url: metadata.token_endpoint, headers, body: body.toString() };
}

/** The authorization request's URL (authorization code with PKCE S256, `state`, `resource`). */
export function authorizationUrl(metadata, { clientId, redirectUri, challenge, state, scope, resource }) {
  const url = new URL(metadata.authorization_endpoint);
  const q = { response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state, scope, resource };
  for (const [k, v] of Object.entries(q)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

const base64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
// Web Crypto: global in browsers and Node 19+; Node 18 has it in node:crypto.
const webCrypto = async () => globalThis.crypto?.subtle ? globalThis.crypto : (await import("node:crypto")).webcrypto;
const random = async (n) => base64url((await webCrypto()).getRandomValues(new Uint8Array(n)));

/** A PKCE pair: a 43-character verifier and its S256 challenge. */
export async function pkce() {
  const verifier = await random(32);
  const digest = await (await webCrypto()).subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** What the flow may show of a value: secrets (tokens, codes, client secrets, verifiers) replaced. */
export function redact(value) {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET.test(k) && v != null ? "[redacted]" : redact(v)]));
}
const SECRET = /^(access_token|refresh_token|id_token|code|code_verifier|client_secret|assertion|password|authorization)$/i;

// One flow: the app's fetch, and where each step is reported (redacted) for an auth debugger.
function context(provider, fetchImpl) {
  const report = (step, fields) => { try { provider.onStep?.(redact({ step, ...fields })); } catch { /* a viewer's failure is not the flow's */ } };
  async function call(step, url, init = {}) {
    let res;
    try {
      res = await fetchImpl(url, init);
    } catch (e) {
      report(step, { url, ok: false, error: e.message });
      throw authError(step, `${url} could not be fetched: ${e.message}`);
    }
    const json = await res.json().catch(() => null);
    report(step, { url, status: res.status, ok: res.ok && !!json, body: json ?? undefined });
    return { res, json: res.ok ? json : null, error: json?.error };
  }
  return { report, call };
}

/** The first of `urls` that answers JSON, or null. */
async function firstJson(cx, step, urls) {
  for (const url of urls) {
    const { json } = await cx.call(step, url, { headers: { accept: "application/json", "mcp-protocol-version": "2025-11-25" } });
    if (json) return json;
  }
  return null;
}

/** Discovery: the resource's metadata (or null), its authorization server and that server's metadata. */
async function discover(cx, serverUrl, challenge) {
  const resourceMetadata = await firstJson(cx, "resource metadata", resourceMetadataUrls(serverUrl, challenge.params.resource_metadata));
  if (resourceMetadata && !resourceMatches(resourceMetadata.resource, serverUrl)) {
    throw authError("resource metadata", `the metadata is for ${resourceMetadata.resource}, not ${canonicalResource(serverUrl)}`, { resource: resourceMetadata.resource });
  }
  // Without resource metadata (2025-03-26), the server's origin is its authorization server.
  const issuer = resourceMetadata?.authorization_servers?.[0] ?? new URL(serverUrl).origin;
  let metadata = await firstJson(cx, "authorization server metadata", authorizationServerMetadataUrls(issuer));
  if (!metadata) {
    if (resourceMetadata) throw authError("authorization server metadata", `none found for ${issuer}`, { issuer });
    // 2025-03-26: the default endpoints on the server's origin.
    const origin = new URL(issuer).origin;
    metadata = { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/register`, defaulted: true };
    cx.report("authorization server metadata", { ok: true, defaulted: true, body: metadata });
  } else if (!metadata.code_challenge_methods_supported?.includes("S256")) {
    throw authError("authorization server metadata", "the server does not offer PKCE with S256", { issuer });
  }
  return { resourceMetadata, metadata, issuer };
}

/** The client's identity: pre-registered, a Client ID Metadata Document, or registered now (RFC 7591). */
async function identify(cx, provider, metadata, issuer) {
  const known = await provider.clientInformation?.(issuer);
  if (known?.client_id) {
    cx.report("registration", { ok: true, source: "known client", client_id: known.client_id });
    return known;
  }
  if (metadata.client_id_metadata_document_supported && provider.clientMetadataUrl) {
    const client_id = String(provider.clientMetadataUrl);
    cx.report("registration", { ok: true, source: "client ID metadata document", client_id });
    return { client_id, token_endpoint_auth_method: "none" };
  }
  if (!metadata.registration_endpoint) throw authError("registration", "the server offers no registration and the client has no client_id");
  const { res, json } = await cx.call("registration", metadata.registration_endpoint, {
    method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(provider.clientMetadata),
  });
  if (!json?.client_id) throw authError("registration", `refused (HTTP ${res.status})`, { status: res.status });
  await provider.saveClientInformation?.(json, issuer);
  return json;
}

async function exchange(cx, metadata, client, fields, step) {
  const { url, headers, body } = tokenRequest(metadata, client, fields);
  const { res, json, error } = await cx.call(step, url, { method: "POST", headers, body });
  if (!json?.access_token) {
    // The server's error code only: descriptions may echo what was sent.
    throw authError(step, `the token endpoint answered HTTP ${res.status}${typeof error === "string" ? ` (${error})` : ""}`, { status: res.status, error });
  }
  return json;
}

/** The user's answer: from a page that came back from a full-page redirect, else from the provider's redirect. */
async function authorizationCode(cx, provider, url, pending) {
  const back = await provider.takeAuthorization?.(pending.server);
  if (back) {
    const { state, verifier, redirectUri } = back.pending;
    cx.report("authorization", { ok: !!back.code && back.state === state, returned: true, error: back.error, code: back.code });
    return { ...back, expected: state, verifier, redirectUri };
  }
  if (typeof provider.redirectToAuthorization !== "function") throw authError("authorization", "the provider cannot send the user to sign in");
  cx.report("authorization", { url });
  const answer = await provider.redirectToAuthorization(url, pending);
  const got = typeof answer === "string" ? { code: answer, state: pending.state } : answer ?? {};
  cx.report("authorization", { ok: !!got.code && got.state === pending.state, error: got.error, code: got.code });
  return { ...got, verifier: pending.verifier, redirectUri: pending.redirectUri, expected: pending.state };
}

/**
 * Runs the flow for `serverUrl` after a 401 or 403 whose `WWW-Authenticate` is given; resolves
 * with the headers to retry with, and `retried(status)` to report the retry. A refresh token
 * is tried first unless more scope is asked. Tokens are kept per server, clients per issuer.
 */
export async function authorizeWith(provider, { serverUrl, wwwAuthenticate, status = 401, fetch: fetchImpl = globalThis.fetch }) {
  const cx = context(provider, fetchImpl);
  const server = canonicalResource(serverUrl);
  const challenge = parseWwwAuthenticate(wwwAuthenticate);
  cx.report("challenge", { url: server, status, ...challenge.params });
  const { resourceMetadata, metadata, issuer } = await discover(cx, serverUrl, challenge);
  const client = await identify(cx, provider, metadata, issuer);
  const resource = canonicalResource(resourceMetadata?.resource ?? serverUrl);
  const scope = chooseScope(challenge.params.scope, resourceMetadata, metadata);
  const done = async (tokens) => {
    await provider.saveTokens?.(tokens, server);
    return { headers: { authorization: `Bearer ${tokens.access_token}` }, retried: (s) => cx.report("retry", { url: server, status: s, ok: s < 400 }) };
  };
  const saved = await provider.tokens?.(server);
  if (saved?.refresh_token && challenge.params.error !== "insufficient_scope") {
    try {
      const tokens = await exchange(cx, metadata, client, { grant_type: "refresh_token", refresh_token: saved.refresh_token, resource }, "refresh");
      return await done({ refresh_token: saved.refresh_token, ...tokens });
    } catch (e) {
      // An expired refresh token: the user signs in again, where the provider can send them.
      await provider.saveTokens?.(undefined, server);
      if (typeof provider.redirectToAuthorization !== "function") throw e;
    }
  }
  const { verifier, challenge: codeChallenge } = await pkce();
  const pending = { server, state: await random(16), verifier, redirectUri: String(provider.redirectUrl) };
  const url = authorizationUrl(metadata, { clientId: client.client_id, redirectUri: pending.redirectUri, challenge: codeChallenge, state: pending.state, scope, resource });
  const answer = await authorizationCode(cx, provider, url, pending);
  if (answer.error) throw authError("authorization", `the server answered ${answer.error}`, { error: answer.error });
  if (!answer.state || answer.state !== answer.expected) throw authError("authorization", "the state that came back is not the one sent");
  if (!answer.code) throw authError("authorization", "no code came back");
  return done(await exchange(cx, metadata, client, {
    grant_type: "authorization_code", code: answer.code, redirect_uri: answer.redirectUri, code_verifier: answer.verifier, resource,
  }, "token"));
}

// Ready-made providers. Tokens are kept per server and clients per issuer, as JSON in a
// Storage-like object (getItem, setItem, removeItem).

/** An in-memory Storage (the default outside browsers). */
export function memoryStorage() {
  const m = new Map();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, String(v)), removeItem: (k) => void m.delete(k) };
}

function keep(storage, prefix) {
  return {
    get: (k) => { const v = storage.getItem(`${prefix}${k}`); return v ? JSON.parse(v) : undefined; },
    set: (k, v) => v === undefined ? storage.removeItem(`${prefix}${k}`) : storage.setItem(`${prefix}${k}`, JSON.stringify(v)),
  };
}

/**
 * A provider whose tokens and clients live in `storage`: the base of the ready ones, and of an
 * app's own (add `redirectToAuthorization`). `clientId` (and `clientSecret`) name a pre-registered
 * client; else `clientMetadataUrl` or registration with `clientMetadata` over the defaults.
 */
export function storedAuth(storage, { redirectUrl, clientId, clientSecret, clientMetadata, clientMetadataUrl, onStep, prefix = "agentwire.oauth." }) {
  const kv = keep(storage, prefix);
  return {
    redirectUrl: String(redirectUrl),
    clientMetadata: {
      client_name: "agentwire", redirect_uris: [String(redirectUrl)], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none", ...clientMetadata,
    },
    clientMetadataUrl,
    onStep,
    clientInformation: (issuer) => clientId ? { client_id: clientId, client_secret: clientSecret } : kv.get(`client ${issuer}`),
    saveClientInformation: (info, issuer) => kv.set(`client ${issuer}`, info),
    tokens: (server) => kv.get(`tokens ${server}`),
    saveTokens: (tokens, server) => kv.set(`tokens ${server}`, tokens),
  };
}

const CHANNEL = "agentwire-oauth";
const ANSWER = ["code", "state", "error", "error_description", "error_uri", "iss"];

/**
 * The browser's provider. `mode: "popup"` (the default) opens the authorization URL in a
 * window whose callback page calls `completeAuthorization()`; `"redirect"` leaves the page, and
 * the flow ends when the page, back at `redirectUrl`, connects again. Tokens go to
 * `sessionStorage` unless `storage` says otherwise.
 */
export function browserAuth(options = {}) {
  const { mode = "popup", storage = globalThis.sessionStorage, timeoutMs = 300_000 } = options;
  const redirectUrl = options.redirectUrl ?? new URL(mode === "popup" ? "oauth-callback.html" : location.pathname, location.href).href;
  const provider = storedAuth(storage, { ...options, redirectUrl });
  const kv = keep(storage, options.prefix ?? "agentwire.oauth.");
  if (mode === "redirect") {
    provider.redirectToAuthorization = (url, { server, state, verifier, redirectUri }) => {
      kv.set("pending", { server, state, verifier, redirectUri });
      location.assign(url);
      return new Promise(() => {}); // the page is leaving
    };
    provider.takeAuthorization = (server) => {
      const pending = kv.get("pending");
      const q = new URLSearchParams(location.search);
      if (pending?.server !== server || !(q.has("code") || q.has("error"))) return undefined;
      kv.set("pending", undefined);
      const clean = new URL(location.href); // the code leaves the address bar and the history
      for (const k of ANSWER) clean.searchParams.delete(k);
      history.replaceState(history.state, "", clean);
      return { code: q.get("code"), state: q.get("state"), error: q.get("error"), pending };
    };
  } else {
    provider.redirectToAuthorization = (url, { state }) => new Promise((resolve, reject) => {
      const channel = new BroadcastChannel(CHANNEL);
      // No `closed` polling: an authorization server with a Cross-Origin-Opener-Policy makes
      // the window look closed while the user is still signing in.
      const timer = setTimeout(() => end(reject, authError("authorization", `no answer came back within ${timeoutMs / 1000} s`)), timeoutMs);
      const end = (settle, value) => { clearTimeout(timer); channel.close(); settle(value); };
      channel.onmessage = ({ data }) => { if (data?.state === state) end(resolve, data); };
      if (!globalThis.open(url, CHANNEL, "popup,width=520,height=680")) end(reject, authError("authorization", "the browser blocked the sign-in window: connect again from a click"));
    });
  }
  return provider;
}

/**
 * For the callback page (the `redirectUrl` of a popup `browserAuth`): hands the answer in the
 * address bar to the waiting page (same origin), clears it, and closes the window.
 */
export function completeAuthorization({ close = true } = {}) {
  const q = new URLSearchParams(location.search);
  const answer = { code: q.get("code"), state: q.get("state"), error: q.get("error") };
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(answer);
  channel.close();
  history.replaceState(null, "", location.pathname);
  if (close) globalThis.close();
  return { ok: !!answer.code, error: answer.error };
}
