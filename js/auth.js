// OAuth 2.1 for remote MCP servers (the MCP authorization spec, 2025-03-26 … 2025-11-25): what
// a 401 (or a 403 `insufficient_scope`) starts. The rules are pure functions below (which URLs
// to try and in what order, which scope, which client identity, which request to send);
// `authorizeWith` performs them with `fetch` and the app's provider, which keeps tokens and
// client information and sends the user to the authorization server.
//
// The checks are written here rather than taken from oauth4webapi (3.8.8), measured: its ESM
// build is 52,563 B minified, 14,310 B gzip, against 16,386 B / 5,868 B for this whole module
// (flow, providers and checks; the checks add 1,745 B gzip). It would be the package's first
// runtime dependency, which a page without a bundler must map by hand (an import map); it
// does not know MCP's discovery order (RFC 9728, then RFC 8414 or OpenID Connect, path-aware,
// the 2025-03-26 defaults), and refuses `http:` servers (loopback, development) unless each
// call opts out. The checks of it that apply here are made exactly: the metadata's `issuer`
// (RFC 8414 §3.3), the answer's `iss` (RFC 9207), PKCE S256, `state`, a Bearer token's form,
// no redirect of a token request, the form encoding of client_secret_basic; plus bounds on
// every answer.

import { ProtocolError, codes } from "./errors.js";

/** A failure of one step of the flow: `data.step` names it. */
export function authError(step, message, data = {}) {
  return new ProtocolError(codes.AUTH_FAILED, `authorization failed at ${step}: ${message}`, { step, ...data });
}

// Challenges (RFC 9110 §11.6.1): `scheme [token68 | param=value, …]`, several in one header
// (or in several headers, which `Headers.get` joins with ", ").
const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const QUOTED = /"((?:[^"\\]|\\[\s\S])*)"/y;
const TOKEN68 = /[A-Za-z0-9\-._~+/]+=*(?=[ \t]*(?:,|$))/y;
const EQUALS = /[ \t]*=[ \t]*/y;
const SEPARATORS = /[\s,]*/y;
const at = (re, text, i) => { re.lastIndex = i; return re.exec(text); };

/** Every challenge of a `WWW-Authenticate` value: `[{ scheme, params, token68? }]`, schemes lower-cased. */
export function parseChallenges(header) {
  const text = String(header ?? "");
  const challenges = [];
  let current = null;
  for (let i = 0; i < text.length; ) {
    i += at(SEPARATORS, text, i)[0].length;
    const name = i < text.length && at(TOKEN, text, i);
    if (!name) {
      // Not a token: skip to the next item.
      const comma = text.indexOf(",", i + 1);
      i = comma < 0 ? text.length : comma;
      continue;
    }
    i += name[0].length;
    const equals = at(EQUALS, text, i);
    if (equals && current) {
      // A parameter of the current challenge: the first of a name counts (RFC 9110: once each).
      i += equals[0].length;
      const quoted = at(QUOTED, text, i);
      const value = quoted ? quoted[1].replace(/\\([\s\S])/g, "$1") : at(TOKEN, text, i)?.[0] ?? "";
      i += quoted ? quoted[0].length : value.length;
      const key = name[0].toLowerCase();
      if (!current.params.has(key)) current.params.set(key, value);
    } else if (equals) {
      const comma = text.indexOf(",", i);
      i = comma < 0 ? text.length : comma;
    } else {
      current = { scheme: name[0].toLowerCase(), params: new Map() };
      challenges.push(current);
      const gap = at(/[ \t]+/y, text, i);
      const token68 = gap && at(TOKEN68, text, i + gap[0].length);
      if (token68) {
        current.token68 = token68[0];
        i = token68.index + token68[0].length;
      }
    }
  }
  // fromEntries: a parameter named `__proto__` stays a plain key.
  return challenges.map((c) => ({ ...c, params: Object.fromEntries(c.params) }));
}

/**
 * The Bearer challenge of a `WWW-Authenticate` value → `{ scheme: "bearer", params }`; its
 * parameters only (another scheme's `scope` or `error` is not Bearer's). None: `{ scheme: "", params: {} }`.
 */
export function parseWwwAuthenticate(header) {
  const bearer = parseChallenges(header).find((c) => c.scheme === "bearer");
  return { scheme: bearer ? "bearer" : "", params: bearer?.params ?? {} };
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

// application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks of the Basic credentials (a space
// is `+`, and `!'()*~` are escaped, unlike encodeURIComponent).
const formEncode = (text) => new URLSearchParams([["", String(text)]]).toString().slice(1);

/** The token request: URL, headers and form body, the client authenticated as `method` says. */
export function tokenRequest(metadata, client, fields) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.set(k, v);
  const headers = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const method = tokenAuthMethod(client, metadata);
  if (method === "client_secret_basic") {
    headers.authorization = `Basic ${btoa(`${formEncode(client.client_id)}:${formEncode(client.client_secret ?? "")}`)}`;
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
// `error_description` too: a server's free text may echo what was sent to it.
const SECRET = /^(access_token|refresh_token|id_token|token|code|code_verifier|verifier|client_secret|client_assertion|assertion|registration_access_token|password|authorization|error_description)$/i;

/**
 * Limits on every answer of the flow: bytes read of a body (the reading stops there), the
 * length of a token (it goes in a header), the time one request may take (body included).
 */
export const limits = Object.freeze({ bodyBytes: 256 * 1024, tokenLength: 16 * 1024, timeoutMs: 30_000 });

// RFC 6749 §5.2 `error` (NQSCHAR, here without spaces), short: anything else is not echoed.
const ERROR_CODE = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;
/** A server's `error` code if it is one, else undefined: errors and messages carry nothing else of its text. */
export const errorCode = (value) => (typeof value === "string" && ERROR_CODE.test(value) ? value : undefined);
// RFC 6749 Appendix A.12 (VSCHAR), without spaces: a token goes in an Authorization header.
const TOKEN_TEXT = /^[\x21-\x7e]+$/;
const isToken = (value) => typeof value === "string" && value.length <= limits.tokenLength && TOKEN_TEXT.test(value);

/** An http(s) URL's href, or undefined (an endpoint that is neither is refused, e.g. `javascript:`). */
function webUrl(value) {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch { return undefined; }
}

/** The body of `res`, read until `limit` bytes at most: past it the reading stops and the answer is refused. */
async function readBounded(res, limit, aborted) {
  const over = () => Object.assign(new Error(`over ${limit} bytes`), { over: true });
  if (Number(res.headers.get("content-length")) > limit) {
    res.body?.cancel().catch(() => {});
    throw over();
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw over();
      chunks.push(value);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) { bytes.set(c, offset); offset += c.byteLength; }
  return new TextDecoder().decode(bytes);
}

// One flow: the app's fetch, and where each step is reported (redacted) for an auth debugger.
function context(provider, fetchImpl, timeoutMs) {
  const report = (step, fields) => { try { provider.onStep?.(redact({ step, ...fields })); } catch { /* a viewer's failure is not the flow's */ } };
  /**
   * One request, bounded in time (the body too, even with a fetch that ignores the signal) and
   * in bytes. `post`: never follows a redirect, so what it carries (a code, a verifier, a
   * refresh token, a client secret) reaches no other place than `url`.
   */
  async function call(step, url, init = {}, { post = false } = {}) {
    const abort = new AbortController();
    let timer;
    const aborted = new Promise((_, reject) => {
      timer = setTimeout(() => { const e = new Error(`no answer within ${timeoutMs / 1000} s`); abort.abort(e); reject(e); }, timeoutMs);
    });
    aborted.catch(() => {});
    let res, text;
    try {
      res = await Promise.race([fetchImpl(url, { ...init, signal: abort.signal, ...(post ? { redirect: "manual" } : {}) }), aborted]);
      if (post && (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400))) {
        res.body?.cancel().catch(() => {});
        report(step, { url, status: res.status, ok: false, error: "redirect" });
        throw authError(step, `${url} answered with a redirect (HTTP ${res.status}), which is not followed`, { status: res.status });
      }
      text = await readBounded(res, limits.bodyBytes, aborted);
    } catch (e) {
      if (e?.code === codes.AUTH_FAILED) throw e;
      const why = e?.over ? `its answer is ${e.message}` : abort.signal.aborted ? `it gave no answer within ${timeoutMs / 1000} s` : `it could not be fetched (${e.message})`;
      report(step, { url, status: res?.status, ok: false, error: why });
      throw authError(step, `${url}: ${why}`, { status: res?.status });
    } finally {
      clearTimeout(timer);
    }
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    if (json === null || typeof json !== "object" || Array.isArray(json)) json = null;
    // A server's `error` is shown only if it is an error code (its text may echo a secret).
    const shown = json && "error" in json && !errorCode(json.error) ? { ...json, error: "[redacted]" } : json;
    report(step, { url, status: res.status, ok: res.ok && !!json, body: shown ?? undefined });
    return { res, json: res.ok ? json : null, error: errorCode(json?.error) };
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

/**
 * Discovery: the resource's metadata (or null), its authorization server and that server's
 * metadata, whose `issuer` must be the one it was looked up for (RFC 8414 §3.3: else a server
 * could pass for another) and whose endpoints must be http(s) URLs.
 */
async function discover(cx, serverUrl, challenge) {
  const resourceMetadata = await firstJson(cx, "resource metadata", resourceMetadataUrls(serverUrl, challenge.params.resource_metadata));
  if (resourceMetadata && !resourceMatches(resourceMetadata.resource, serverUrl)) {
    const named = webUrl(resourceMetadata.resource) ?? "another resource";
    throw authError("resource metadata", `the metadata is for ${named}, not ${canonicalResource(serverUrl)}`, { resource: webUrl(resourceMetadata.resource) });
  }
  // Without resource metadata (2025-03-26), the server's origin is its authorization server.
  const named = resourceMetadata ? resourceMetadata.authorization_servers?.[0] : new URL(serverUrl).origin;
  const issuer = webUrl(named) && named;
  if (!issuer) throw authError("resource metadata", "it names no authorization server (an http(s) URL)");
  let metadata = await firstJson(cx, "authorization server metadata", authorizationServerMetadataUrls(issuer));
  if (!metadata) {
    if (resourceMetadata) throw authError("authorization server metadata", `none found for ${webUrl(issuer)}`, { issuer });
    // 2025-03-26: the default endpoints on the server's origin.
    const origin = new URL(issuer).origin;
    metadata = { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/register`, defaulted: true };
    cx.report("authorization server metadata", { ok: true, defaulted: true, body: metadata });
    return { resourceMetadata, metadata, issuer };
  }
  // 2025-03-26 looked up metadata at the server's origin (its "authorization base URL"), not at
  // an issuer identifier: there the issuer may have a path, but it must be on that origin.
  const issued = webUrl(metadata.issuer);
  if (resourceMetadata ? issued !== webUrl(issuer) : !issued || new URL(issued).origin !== new URL(issuer).origin) {
    throw authError("authorization server metadata", `its issuer is not ${webUrl(issuer)}, where it was looked up`, { issuer });
  }
  if (!webUrl(metadata.authorization_endpoint) || !webUrl(metadata.token_endpoint)
    || (metadata.registration_endpoint !== undefined && !webUrl(metadata.registration_endpoint))) {
    throw authError("authorization server metadata", "an endpoint is not an http(s) URL", { issuer });
  }
  if (!metadata.code_challenge_methods_supported?.includes?.("S256")) {
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
  const { res, json, error } = await cx.call("registration", metadata.registration_endpoint, {
    method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(provider.clientMetadata),
  }, { post: true });
  if (!json) throw authError("registration", `refused (HTTP ${res.status}${error ? `, ${error}` : ""})`, { status: res.status, error });
  if (!isToken(json.client_id) || (json.client_secret !== undefined && !isToken(json.client_secret))) {
    throw authError("registration", "the client_id or client_secret given is not a short printable string", { status: res.status });
  }
  await provider.saveClientInformation?.(json, issuer);
  return json;
}

async function exchange(cx, metadata, client, fields, step) {
  const { url, headers, body } = tokenRequest(metadata, client, fields);
  const { res, json, error } = await cx.call(step, url, { method: "POST", headers, body }, { post: true });
  if (!json?.access_token) {
    // The server's error code only: descriptions may echo what was sent.
    throw authError(step, `the token endpoint answered HTTP ${res.status}${error ? ` (${error})` : ""}`, { status: res.status, error });
  }
  if (!isToken(json.access_token) || (json.refresh_token !== undefined && !isToken(json.refresh_token))) {
    throw authError(step, `a token given is not printable text of at most ${limits.tokenLength} characters`, { status: res.status });
  }
  if (json.token_type !== undefined && String(json.token_type).toLowerCase() !== "bearer") {
    throw authError(step, "the token is not a Bearer token", { status: res.status });
  }
  return json;
}

/** The user's answer: from a page that came back from a full-page redirect, else from the provider's redirect. */
async function authorizationCode(cx, provider, url, pending) {
  const back = await provider.takeAuthorization?.(pending.server);
  if (back) {
    const { state, verifier, redirectUri, issuer } = back.pending;
    cx.report("authorization", { ok: !!back.code && back.state === state, returned: true, error: errorCode(back.error), code: back.code, iss: back.iss });
    return { ...back, expected: state, verifier, redirectUri, issuer };
  }
  if (typeof provider.redirectToAuthorization !== "function") throw authError("authorization", "the provider cannot send the user to sign in");
  cx.report("authorization", { url });
  const answer = await provider.redirectToAuthorization(url, pending);
  const got = typeof answer === "string" ? { code: answer, state: pending.state } : answer ?? {};
  cx.report("authorization", { ok: !!got.code && got.state === pending.state, error: errorCode(got.error), code: got.code, iss: got.iss });
  return { ...got, verifier: pending.verifier, redirectUri: pending.redirectUri, issuer: pending.issuer, expected: pending.state };
}

/**
 * Whether the answer came from the authorization server the flow sent the user to: its `iss`
 * (RFC 9207) is that server's issuer, or it has none where the server does not send one.
 * A mix-up (a hostile server naming another's authorization endpoint) ends here.
 */
function checkIssuer(answer, metadata) {
  if (answer.issuer !== metadata.issuer) throw authError("authorization", "the sign-in was started with another authorization server");
  if (answer.iss !== undefined && answer.iss !== null) {
    if (answer.iss !== metadata.issuer) throw authError("authorization", `the answer came from another authorization server than ${webUrl(metadata.issuer)} (iss)`);
  } else if (metadata.authorization_response_iss_parameter_supported === true) {
    throw authError("authorization", "the answer carries no iss, which this authorization server sends (RFC 9207)");
  }
}

/**
 * Runs the flow for `serverUrl` after a 401 or 403 whose `WWW-Authenticate` is given; resolves
 * with the headers to retry with, and `retried(status)` to report the retry. A refresh token
 * is tried first unless more scope is asked, and only at the token endpoint of the issuer
 * that gave it. Tokens are kept per server with that issuer, clients per issuer.
 */
export async function authorizeWith(provider, { serverUrl, wwwAuthenticate, status = 401, fetch: fetchImpl = globalThis.fetch, timeoutMs }) {
  const cx = context(provider, fetchImpl, timeoutMs ?? provider.requestTimeoutMs ?? limits.timeoutMs);
  const server = canonicalResource(serverUrl);
  const challenge = parseWwwAuthenticate(wwwAuthenticate);
  cx.report("challenge", { url: server, status, ...challenge.params });
  const { resourceMetadata, metadata, issuer } = await discover(cx, serverUrl, challenge);
  const client = await identify(cx, provider, metadata, issuer);
  const resource = canonicalResource(resourceMetadata?.resource ?? serverUrl);
  const scope = chooseScope(challenge.params.scope, resourceMetadata, metadata);
  // What the tokens are kept with: where they came from, and the only place a refresh goes.
  const origin = { issuer: metadata.issuer, token_endpoint: metadata.token_endpoint, resource };
  const done = async (tokens) => {
    await provider.saveTokens?.({ ...tokens, ...origin }, server);
    return { headers: { authorization: `Bearer ${tokens.access_token}` }, retried: (s) => cx.report("retry", { url: server, status: s, ok: s < 400 }) };
  };
  const saved = await provider.tokens?.(server);
  if (saved?.refresh_token && challenge.params.error !== "insufficient_scope") {
    if (saved.issuer !== origin.issuer || saved.token_endpoint !== origin.token_endpoint || saved.resource !== origin.resource) {
      // The server now names another authorization server (or the tokens say nothing of
      // theirs): the refresh token stays here; the user signs in there.
      cx.report("refresh", { ok: false, error: "the kept refresh token is from another authorization server: not sent" });
      if (typeof provider.redirectToAuthorization !== "function") {
        throw authError("refresh", "the kept refresh token is from another authorization server than the server names now");
      }
    } else {
      try {
        const tokens = await exchange(cx, metadata, client, { grant_type: "refresh_token", refresh_token: saved.refresh_token, resource }, "refresh");
        return await done({ refresh_token: saved.refresh_token, ...tokens });
      } catch (e) {
        // An expired refresh token: the user signs in again, where the provider can send them.
        await provider.saveTokens?.(undefined, server);
        if (typeof provider.redirectToAuthorization !== "function") throw e;
      }
    }
  }
  const { verifier, challenge: codeChallenge } = await pkce();
  const pending = { server, issuer: metadata.issuer, state: await random(16), verifier, redirectUri: String(provider.redirectUrl) };
  const url = authorizationUrl(metadata, { clientId: client.client_id, redirectUri: pending.redirectUri, challenge: codeChallenge, state: pending.state, scope, resource });
  const answer = await authorizationCode(cx, provider, url, pending);
  checkIssuer(answer, metadata);
  if (answer.error) {
    const error = errorCode(answer.error);
    throw authError("authorization", `the server answered ${error ?? "with an error"}`, { error });
  }
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

const sameIssuer = (a, b) => !!webUrl(a) && webUrl(a) === webUrl(b);

/**
 * A provider whose tokens and clients live in `storage`: the base of the ready ones, and of an
 * app's own (add `redirectToAuthorization`). `clientId` (and `clientSecret`) name a pre-registered
 * client, used only at the authorization server `issuer` it was registered with; without
 * `issuer`, at the first one it is used at, pinned in `storage`. Elsewhere: `clientMetadataUrl`
 * or registration with `clientMetadata` over the defaults.
 */
export function storedAuth(storage, { redirectUrl, clientId, clientSecret, issuer, clientMetadata, clientMetadataUrl, onStep, requestTimeoutMs, prefix = "agentwire.oauth." }) {
  const kv = keep(storage, prefix);
  const preRegistered = (at) => {
    if (!clientId) return false;
    if (issuer !== undefined) return sameIssuer(String(issuer), at);
    const pinned = kv.get(`client-issuer ${clientId}`);
    if (pinned === undefined) kv.set(`client-issuer ${clientId}`, at);
    return pinned === undefined || sameIssuer(pinned, at);
  };
  return {
    redirectUrl: String(redirectUrl),
    clientMetadata: {
      client_name: "agentwire", redirect_uris: [String(redirectUrl)], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none", ...clientMetadata,
    },
    clientMetadataUrl,
    onStep,
    requestTimeoutMs,
    clientInformation: (at) => preRegistered(at) ? { client_id: clientId, client_secret: clientSecret } : kv.get(`client ${at}`),
    saveClientInformation: (info, at) => kv.set(`client ${at}`, info),
    tokens: (server) => kv.get(`tokens ${server}`),
    saveTokens: (tokens, server) => kv.set(`tokens ${server}`, tokens),
  };
}

const CHANNEL = "agentwire-oauth";
const ANSWER = ["code", "state", "error", "error_description", "error_uri", "iss"];
/** The answer in a redirect URL's query: code, state, error and iss (RFC 9207); absent ones undefined. */
const answerOf = (q) => Object.fromEntries(["code", "state", "error", "iss"].map((k) => [k, q.get(k) ?? undefined]));

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
    provider.redirectToAuthorization = (url, { server, issuer, state, verifier, redirectUri }) => {
      kv.set("pending", { server, issuer, state, verifier, redirectUri });
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
      return { ...answerOf(q), pending };
    };
  } else {
    provider.redirectToAuthorization = (url, { state }) => new Promise((resolve, reject) => {
      const channel = new BroadcastChannel(CHANNEL);
      // No `closed` polling: an authorization server with a Cross-Origin-Opener-Policy makes
      // the window look closed while the user is still signing in.
      const timer = setTimeout(() => end(reject, authError("authorization", `no answer came back within ${timeoutMs / 1000} s`)), timeoutMs);
      const end = (settle, value) => { clearTimeout(timer); channel.close(); settle(value); };
      channel.onmessage = ({ data }) => {
        if (data?.state === state) end(resolve, { code: data.code ?? undefined, state: data.state, error: data.error ?? undefined, iss: data.iss ?? undefined });
      };
      if (!globalThis.open(url, CHANNEL, "popup,width=520,height=680")) end(reject, authError("authorization", "the browser blocked the sign-in window: connect again from a click"));
    });
  }
  return provider;
}

/**
 * For the callback page (the `redirectUrl` of a popup `browserAuth`): hands the answer in the
 * address bar (code, state, error, iss) to the waiting page (same origin), clears it, and
 * closes the window.
 */
export function completeAuthorization({ close = true } = {}) {
  const answer = answerOf(new URLSearchParams(location.search));
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(answer);
  channel.close();
  history.replaceState(null, "", location.pathname);
  if (close) globalThis.close();
  return { ok: !!answer.code, error: answer.error ?? null };
}
