// A protected MCP server for the OAuth tests: a small authorization server (RFC 8414 metadata,
// RFC 7591 registration, authorization code with PKCE S256, refresh tokens, RFC 8707
// resources) and, in front of the official SDK's Streamable HTTP server, a bearer check that
// answers 401 with `resource_metadata`. Strict where a client could go wrong: an unknown
// client or redirect URI, a wrong verifier, a code used twice, a token for another resource.
// Its authorization answers carry `iss` (RFC 9207), as its metadata says.
import http from "node:http";
import { createHash, randomBytes } from "node:crypto";
import { CORS, listen, sdkHandler } from "./http-peers.mjs";

const secret = () => randomBytes(24).toString("base64url");
const s256 = (verifier) => createHash("sha256").update(verifier).digest("base64url");

/**
 * Resolves with `{ url, issuer, grants, secrets, bearers, register(meta), expire(), close() }`. `url` is the MCP endpoint.
 * `consent: "deny"` answers every authorization with `access_denied`. `grants` counts the token
 * requests by grant type; `secrets` lists every token, code and client secret handed out (for
 * tests that look for leaks); `expire()` ends every access token (refresh tokens stay good).
 */
export async function protectedServer({ consent = "allow" } = {}) {
  const mcp = sdkHandler();
  const clients = new Map();   // client_id → registration
  const codes = new Map();     // code → { client_id, redirect_uri, challenge, resource }
  const access = new Map();    // access token → resource
  const refresh = new Map();   // refresh token → { client_id, resource }
  const grants = { authorization_code: 0, refresh_token: 0 };
  const secrets = [];
  const bearers = [];          // the token of each request to /mcp (undefined: none)
  const issue = (map, value) => { const t = secret(); map.set(t, value); secrets.push(t); return t; };
  let origin;
  const register = (meta) => {
    if (!Array.isArray(meta.redirect_uris) || meta.redirect_uris.length === 0) return undefined;
    const client = { ...meta, client_id: `client-${clients.size + 1}`, token_endpoint_auth_method: "none" };
    clients.set(client.client_id, client);
    return client;
  };

  const json = (res, status, body, headers = {}) => res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers }).end(JSON.stringify(body));
  const form = (req) => new Promise((resolve) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => resolve(body));
  });

  async function tokenEndpoint(req, res) {
    const f = new URLSearchParams(await form(req));
    const client = clients.get(f.get("client_id"));
    if (!client) return json(res, 401, { error: "invalid_client" });
    if (f.get("grant_type") === "authorization_code") {
      const grant = codes.get(f.get("code"));
      codes.delete(f.get("code")); // single use
      if (!grant || grant.client_id !== client.client_id || grant.redirect_uri !== f.get("redirect_uri")
        || s256(f.get("code_verifier") ?? "") !== grant.challenge || f.get("resource") !== grant.resource) {
        return json(res, 400, { error: "invalid_grant" });
      }
      grants.authorization_code++;
      return json(res, 200, { access_token: issue(access, grant.resource), token_type: "Bearer", expires_in: 3600, scope: "mcp",
        refresh_token: issue(refresh, { client_id: client.client_id, resource: grant.resource }) });
    }
    if (f.get("grant_type") === "refresh_token") {
      const kept = refresh.get(f.get("refresh_token"));
      if (!kept || kept.client_id !== client.client_id || f.get("resource") !== kept.resource) return json(res, 400, { error: "invalid_grant" });
      grants.refresh_token++;
      return json(res, 200, { access_token: issue(access, kept.resource), token_type: "Bearer", expires_in: 3600, scope: "mcp" });
    }
    return json(res, 400, { error: "unsupported_grant_type" });
  }

  function authorize(req, res, q) {
    const client = clients.get(q.get("client_id"));
    const redirect = q.get("redirect_uri");
    if (!client || !client.redirect_uris.includes(redirect)) return json(res, 400, { error: "invalid_request", error_description: "unknown client or redirect_uri" });
    const back = new URL(redirect);
    back.searchParams.set("state", q.get("state") ?? "");
    back.searchParams.set("iss", origin);
    if (consent === "deny") back.searchParams.set("error", "access_denied");
    else if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || q.get("response_type") !== "code") back.searchParams.set("error", "invalid_request");
    else back.searchParams.set("code", issue(codes, { client_id: client.client_id, redirect_uri: redirect, challenge: q.get("code_challenge"), resource: q.get("resource") }));
    res.writeHead(302, { location: back.href }).end();
  }

  const server = http.createServer(async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    res.setHeader("access-control-expose-headers", `${CORS["access-control-expose-headers"]}, www-authenticate`);
    if (req.method === "OPTIONS") return res.writeHead(204).end();
    const url = new URL(req.url, origin);
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
        return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin], scopes_supported: ["mcp"], bearer_methods_supported: ["header"] });
      case "/.well-known/oauth-authorization-server":
        return json(res, 200, { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`, response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"], scopes_supported: ["mcp"],
          authorization_response_iss_parameter_supported: true });
      case "/register": {
        const client = register(JSON.parse(await form(req) || "{}"));
        return client ? json(res, 201, client) : json(res, 400, { error: "invalid_redirect_uri" });
      }
      case "/authorize":
        return authorize(req, res, url.searchParams);
      case "/token":
        return tokenEndpoint(req, res);
      case "/mcp": {
        const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
        bearers.push(token);
        if (access.get(token) !== `${origin}/mcp`) {
          return json(res, 401, { error: "invalid_token" }, {
            "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
          });
        }
        return mcp.handle(req, res);
      }
      default:
        return json(res, 404, { error: "not_found" });
    }
  });
  origin = `http://127.0.0.1:${await listen(server)}`;
  return {
    url: `${origin}/mcp`, issuer: origin, grants, secrets, bearers, register,
    expire: () => access.clear(),
    close: () => { server.closeAllConnections(); server.close(); },
  };
}
