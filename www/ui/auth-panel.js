// The OAuth debugger: a sign-in to a remote MCP server step by step (challenge, resource
// metadata, authorization server metadata, registration, authorization, token, refresh,
// retry), as the library's onStep reports them, secrets already redacted. Each step says what
// was sent, what came back, and what the specification says comes next; a stepper above
// shows how far the flow got.
import { h, replace } from "../lib/dom.js";
import { jsonView } from "../lib/json-view.js";

const SPEC = "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization";
const FLOW = ["challenge", "resource metadata", "authorization server metadata", "registration", "authorization", "token", "retry"];

const SUMMARY = {
  challenge: (s) => `${s.status ?? 401} from ${s.url}${s.scope ? ` · scope "${s.scope}"` : ""}${s.error ? ` · ${s.error}` : ""}`,
  authorization: (s) => s.url ? `sending the user to ${new URL(s.url).origin}` : s.returned ? "back from a redirect" : s.ok ? "a code came back" : `no code: ${s.error ?? "the state did not match"}`,
  registration: (s) => s.source ? `${s.source}: ${s.client_id}` : null,
  retry: (s) => `the request again → ${s.status}`,
};

/** What the step sent: the request, as far as the report tells. */
const SENT = {
  challenge: (s) => `an MCP request to ${s.url}`,
  "resource metadata": (s) => `GET ${s.url} (RFC 9728 protected resource metadata)`,
  "authorization server metadata": (s) => s.defaulted ? "nothing: no metadata found, the 2025-03-26 default endpoints on the server's origin" : `GET ${s.url} (RFC 8414 / OpenID Connect discovery)`,
  registration: (s) => s.source ? `nothing: ${s.source}` : `POST ${s.url} with the client's metadata (RFC 7591 dynamic registration)`,
  authorization: (s) => s.url ? `the user's browser to ${s.url.split("?")[0]} with response_type=code, client_id, redirect_uri, PKCE code_challenge (S256), state, resource`
    : "nothing: the authorization server sent the user back to redirect_uri",
  token: (s) => `POST ${s.url} grant_type=authorization_code with the code, code_verifier, redirect_uri, resource`,
  refresh: (s) => `POST ${s.url} grant_type=refresh_token with the refresh token and resource`,
  retry: (s) => `the MCP request again to ${s.url} with Authorization: Bearer [redacted]`,
};

/** What came back. */
function received(s) {
  if (s.step === "challenge") return `HTTP ${s.status ?? 401} with WWW-Authenticate${s.resource_metadata ? ` naming resource_metadata ${s.resource_metadata}` : " (no resource_metadata)"}${s.scope ? `, scope "${s.scope}"` : ""}`;
  if (s.step === "authorization") return s.url ? "(waiting for the user)" : s.ok ? "a code and the state sent (checked)" : `no usable answer${s.error ? `: ${s.error}` : ""}`;
  if (s.step === "registration" && s.source) return `client_id ${s.client_id}`;
  if (s.error && s.status === undefined) return `nothing: ${s.error}`;
  if (s.status === undefined) return s.ok ? "ok" : "—";
  return `HTTP ${s.status}${s.body !== undefined ? (s.ok ? " with JSON (below)" : " (below)") : s.ok ? "" : ", no JSON"}`;
}

/** What the specification says comes next, after this step went `ok` or not. */
function next(s) {
  const ok = s.ok !== false;
  switch (s.step) {
    case "challenge": return "Find the server's protected resource metadata: the resource_metadata URL of the challenge, else /.well-known/oauth-protected-resource at the server's path, then at its root.";
    case "resource metadata": return ok ? "Take an authorization server from authorization_servers and fetch its metadata: /.well-known/oauth-authorization-server, then /.well-known/openid-configuration."
      : "Try the next well-known URL; when none answers, a 2025-03-26 server's origin is its own authorization server.";
    case "authorization server metadata": return ok ? "Identify the client: a pre-registered client_id, a Client ID Metadata Document when client_id_metadata_document_supported, else dynamic registration at registration_endpoint. PKCE with S256 must be offered."
      : "Try the next discovery URL; without metadata the flow cannot go on.";
    case "registration": return ok ? "Send the user to authorization_endpoint with a PKCE S256 challenge, a fresh state and the resource (RFC 8707)."
      : "The server offers no registration the client can use: give a client_id (and secret) under \"OAuth client\".";
    case "authorization": return s.url ? "The user signs in; the authorization server redirects to redirect_uri with code and state."
      : ok ? "Check that state matches, then exchange the code at token_endpoint with the code_verifier and the same resource." : "The sign-in did not complete: start again.";
    case "token": return ok ? "Retry the MCP request with Authorization: Bearer <access_token>; keep the refresh token for later." : "The code was refused (expired, used, or the verifier does not match): sign in again.";
    case "refresh": return ok ? "Retry the request with the new access token." : "The refresh token is no longer accepted: the user signs in again.";
    case "retry": return s.status < 400 ? "Done: the token goes with this server's later requests; a 401 later starts with a refresh."
      : s.status === 403 ? "403 insufficient_scope asks for more scope: authorize again with the scope of the challenge." : "The server still refuses the token: check its audience (resource) and scopes.";
    default: return "";
  }
}

export function createAuthPanel(root, { onForget }) {
  const stepper = h("ol", { class: "auth-stepper", "data-testid": "auth-stepper", "aria-label": "OAuth flow" },
    FLOW.map((name) => h("li", { "data-step": name, "data-state": "pending" }, name)));
  const list = h("ol", { class: "auth-steps", "data-testid": "auth-steps" });
  const forget = h("button", { type: "button", class: "ghost", "data-testid": "auth-forget", hidden: true, onclick: () => { onForget(); forget.hidden = true; } },
    "Forget this server's tokens");
  const empty = h("p", { class: "muted" }, "Nothing yet: a server that answers 401 starts the OAuth sign-in here.");
  replace(root, empty, stepper, list, h("p", { class: "small" }, h("a", { href: SPEC, target: "_blank", rel: "noopener noreferrer" }, "MCP authorization specification")), forget);
  stepper.hidden = true;

  function mark(name, state) {
    const el = stepper.querySelector(`li[data-step="${name === "refresh" ? "token" : name}"]`);
    if (el && !(el.dataset.state === "failed" && state === "current")) el.dataset.state = state;
  }

  function step(s) {
    root.closest("section")?.removeAttribute("hidden");
    empty.hidden = true;
    stepper.hidden = false;
    const exchange = s.status !== undefined && s.url ? `${s.url} → ${s.status}` : s.url ?? "";
    const text = SUMMARY[s.step]?.(s) ?? (exchange || (s.error ?? ""));
    const state = s.ok === false ? "failed" : s.ok ? "ok" : "info";
    mark(s.step, state === "failed" ? "failed" : state === "ok" || s.step === "challenge" ? "done" : "current");
    const { step: name, ...detail } = s;
    list.append(h("li", { "data-testid": "auth-step", "data-step": name, "data-ok": state, class: `auth-step ${state}` },
      h("div", {}, h("span", { class: "badge" }, name), " ", h("span", { class: "auth-text" }, text)),
      h("dl", { class: "kv auth-kv" },
        h("dt", {}, "sent"), h("dd", { "data-testid": "auth-sent" }, SENT[name]?.(s) ?? s.url ?? "—"),
        h("dt", {}, "came back"), h("dd", { "data-testid": "auth-received" }, received(s)),
        h("dt", {}, "next"), h("dd", { "data-testid": "auth-next" }, next(s))),
      s.body !== undefined ? h("details", {}, h("summary", {}, "what came back (redacted)"), jsonView(detail)) : null));
    if (s.step === "token" && s.ok) forget.hidden = false;
  }

  function failed(err) {
    const stepName = err.data?.step ?? "error";
    mark(stepName, "failed");
    list.append(h("li", { "data-testid": "auth-step", "data-step": stepName, "data-ok": "failed", class: "auth-step failed" },
      h("span", { class: "badge" }, "failed"), " ", err.message));
  }

  /** A new connection: the last sign-in's steps go, and the panel hides until a server asks. */
  function reset() {
    root.closest("section")?.setAttribute("hidden", "");
    forget.hidden = true;
    list.replaceChildren();
    empty.hidden = false;
    stepper.hidden = true;
    for (const li of stepper.children) li.dataset.state = "pending";
  }

  return { step, failed, reset };
}
