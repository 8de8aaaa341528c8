// Authorization panel: an OAuth sign-in to a remote MCP server step by step (challenge,
// resource metadata, authorization server metadata, registration, authorization, token,
// refresh, retry), as the flow reports them, secrets already redacted by the library.
import { h, replace } from "../lib/dom.js";
import { jsonView } from "../lib/json-view.js";

const SUMMARY = {
  challenge: (s) => `${s.status ?? 401} from ${s.url}${s.scope ? ` · scope "${s.scope}"` : ""}${s.error ? ` · ${s.error}` : ""}`,
  authorization: (s) => s.url ? `sending the user to ${new URL(s.url).origin}` : s.returned ? "back from a redirect" : s.ok ? "a code came back" : `no code: ${s.error ?? "the state did not match"}`,
  registration: (s) => s.source ? `${s.source}: ${s.client_id}` : null,
  retry: (s) => `the request again → ${s.status}`,
};

export function createAuthPanel(root, { onForget }) {
  const list = h("ol", { class: "auth-steps", "data-testid": "auth-steps" });
  const forget = h("button", { type: "button", class: "ghost", "data-testid": "auth-forget", hidden: true, onclick: () => { onForget(); forget.hidden = true; } },
    "Forget this server's tokens");
  const empty = h("p", { class: "muted" }, "Nothing yet: a server that answers 401 starts the OAuth sign-in here.");
  replace(root, empty, list, forget);

  function step(s) {
    root.closest("section")?.removeAttribute("hidden");
    empty.hidden = true;
    const exchange = s.status !== undefined && s.url ? `${s.url} → ${s.status}` : s.url ?? "";
    const text = SUMMARY[s.step]?.(s) ?? (exchange || (s.error ?? ""));
    const state = s.ok === false ? "failed" : s.ok ? "ok" : "info";
    const { step: name, ...detail } = s;
    list.append(h("li", { "data-testid": "auth-step", "data-step": name, "data-ok": state, class: `auth-step ${state}` },
      h("span", { class: "badge" }, name), " ", h("span", { class: "auth-text" }, text),
      s.body !== undefined ? h("details", {}, h("summary", {}, "details"), jsonView(detail)) : null));
    if (s.step === "token" && s.ok) forget.hidden = false;
  }

  function failed(err) {
    list.append(h("li", { "data-testid": "auth-step", "data-step": err.data?.step ?? "error", "data-ok": "failed", class: "auth-step failed" },
      h("span", { class: "badge" }, "failed"), " ", err.message));
  }

  function reset() { list.replaceChildren(); empty.hidden = false; }

  return { step, failed, reset };
}
