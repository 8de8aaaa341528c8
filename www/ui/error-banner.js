// The error banner: failed negotiation, refused calls, lost connections, shown plainly.
import { h, replace } from "../lib/dom.js";

export function createErrorBanner(root) {
  const text = h("p", { id: "error-message", class: "error-text" });
  const details = h("pre", { class: "json small", hidden: true });
  const banner = h("div", { id: "error-banner", "data-testid": "error-banner", class: "banner error", role: "alert", hidden: true },
    h("div", { class: "banner-body" }, text, details),
    h("button", { type: "button", class: "icon", id: "error-dismiss", "aria-label": "Dismiss error", onclick: clear }, "×"));
  replace(root, banner);

  function show(context, err) {
    const code = typeof err?.code === "number" ? ` [${err.code}]` : "";
    text.textContent = `${context ? `${context}: ` : ""}${err?.message ?? String(err)}${code}`;
    const data = err?.data;
    details.hidden = data === undefined || data === null;
    details.textContent = details.hidden ? "" : JSON.stringify(data);
    banner.hidden = false;
    banner.scrollIntoView?.({ block: "nearest" });
  }
  function clear() { banner.hidden = true; text.textContent = ""; details.textContent = ""; }
  return { show, clear };
}
