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

/** The scope to ask for: the challenge's, else what the resource supports, else none. */
export function chooseScope(challengeScope, resourceMetadata) {
  if (challengeScope) return challengeScope;
  const supported = resourceMetadata?.scopes_supported;
  return Array.isArray(supported) && supported.length > 0 ? supported.join(" ") : undefined;
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

async function getJson(fetchImpl, url, step) {
  let res;
  try {
    res = await fetchImpl(url, { headers: { accept: "application/json", "mcp-protocol-version": "2025-11-25" } });
  } catch (e) {
    throw authError(step, `${url} could not be fetched: ${e.message}`);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  try {
    return await res.json();
  } catch {
    return null;
  }
}

/** Discovery: the resource's metadata (or null), its authorization server and that server's metadata. */
async function discover(fetchImpl, serverUrl, challenge) {
  let resourceMetadata = null;
  for (const url of resourceMetadataUrls(serverUrl, challenge.params.resource_metadata)) {
    resourceMetadata = await getJson(fetchImpl, url, "resource metadata");
    if (resourceMetadata) break;
  }
  if (resourceMetadata && !resourceMatches(resourceMetadata.resource, serverUrl)) {
    throw authError("resource metadata", `the metadata is for ${resourceMetadata.resource}, not ${canonicalResource(serverUrl)}`, { resource: resourceMetadata.resource });
  }
  // Without resource metadata (2025-03-26), the server's origin is its authorization server.
  const issuer = resourceMetadata?.authorization_servers?.[0] ?? new URL(serverUrl).origin;
  let metadata = null;
  for (const url of authorizationServerMetadataUrls(issuer)) {
    metadata = await getJson(fetchImpl, url, "authorization server metadata");
    if (metadata) break;
  }
  if (!metadata) {
    if (resourceMetadata) throw authError("authorization server metadata", `none found for ${issuer}`, { issuer });
    // 2025-03-26: the default endpoints on the server's origin.
    const origin = new URL(issuer).origin;
    metadata = { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/register`, defaulted: true };
  } else if (!metadata.code_challenge_methods_supported?.includes("S256")) {
    throw authError("authorization server metadata", "the server does not offer PKCE with S256", { issuer });
  }
  return { resourceMetadata, metadata };
}

/** The client's identity: pre-registered, a Client ID Metadata Document, or registered now (RFC 7591). */
async function identify(fetchImpl, provider, metadata) {
  const known = await provider.clientInformation?.();
  if (known?.client_id) return known;
  if (metadata.client_id_metadata_document_supported && provider.clientMetadataUrl) {
    return { client_id: String(provider.clientMetadataUrl), token_endpoint_auth_method: "none" };
  }
  if (!metadata.registration_endpoint) throw authError("registration", "the server offers no registration and the client has no client_id");
  let res;
  try {
    res = await fetchImpl(metadata.registration_endpoint, {
      method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(provider.clientMetadata),
    });
  } catch (e) {
    throw authError("registration", e.message);
  }
  const info = res.ok ? await res.json().catch(() => null) : null;
  if (!info?.client_id) throw authError("registration", `refused (HTTP ${res.status})`, { status: res.status });
  await provider.saveClientInformation?.(info);
  return info;
}

async function exchange(fetchImpl, metadata, client, fields, step) {
  const { url, headers, body } = tokenRequest(metadata, client, fields);
  let res;
  try {
    res = await fetchImpl(url, { method: "POST", headers, body });
  } catch (e) {
    throw authError(step, e.message);
  }
  const tokens = await res.json().catch(() => null);
  if (!res.ok || !tokens?.access_token) {
    // The server's error code only: descriptions may echo what was sent.
    throw authError(step, `the token endpoint answered HTTP ${res.status}${tokens?.error ? ` (${tokens.error})` : ""}`, { status: res.status, error: tokens?.error });
  }
  return tokens;
}

/**
 * Runs the flow for `serverUrl` after a 401 or 403 whose `WWW-Authenticate` is given; resolves
 * with the headers to retry with. A refresh token is tried first unless more scope is asked.
 */
export async function authorizeWith(provider, { serverUrl, wwwAuthenticate, fetch: fetchImpl = globalThis.fetch }) {
  const challenge = parseWwwAuthenticate(wwwAuthenticate);
  const { resourceMetadata, metadata } = await discover(fetchImpl, serverUrl, challenge);
  const client = await identify(fetchImpl, provider, metadata);
  const resource = resourceMetadata ? canonicalResource(resourceMetadata.resource ?? serverUrl) : canonicalResource(serverUrl);
  const scope = chooseScope(challenge.params.scope, resourceMetadata);
  const saved = await provider.tokens?.();
  if (saved?.refresh_token && challenge.params.error !== "insufficient_scope") {
    try {
      const tokens = await exchange(fetchImpl, metadata, client, { grant_type: "refresh_token", refresh_token: saved.refresh_token, resource }, "refresh");
      await provider.saveTokens?.({ refresh_token: saved.refresh_token, ...tokens });
      return { headers: { authorization: `Bearer ${tokens.access_token}` } };
    } catch { /* an expired refresh token: the user signs in again */ }
  }
  const { verifier, challenge: codeChallenge } = await pkce();
  const state = await random(16);
  const redirectUri = String(provider.redirectUrl);
  const url = authorizationUrl(metadata, { clientId: client.client_id, redirectUri, challenge: codeChallenge, state, scope, resource });
  const back = await provider.redirectToAuthorization(url);
  const answer = typeof back === "string" ? { code: back, state } : back ?? {};
  if (answer.error) throw authError("authorization", `the server answered ${answer.error}`, { error: answer.error });
  if (answer.state !== state) throw authError("authorization", "the state that came back is not the one sent");
  if (!answer.code) throw authError("authorization", "no code came back");
  const tokens = await exchange(fetchImpl, metadata, client, {
    grant_type: "authorization_code", code: answer.code, redirect_uri: redirectUri, code_verifier: verifier, resource,
  }, "token");
  await provider.saveTokens?.(tokens);
  return { headers: { authorization: `Bearer ${tokens.access_token}` } };
}
