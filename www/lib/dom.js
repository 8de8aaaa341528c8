// DOM building without innerHTML: every string becomes a text node, so agent output
// (untrusted) can never inject markup.

/** h("button", { id: "x", onclick: fn, disabled: true }, "text", child, [more]) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "style" && typeof value === "object") {
      // CSSOM, not the style attribute: allowed under a strict style-src CSP.
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "value" || key === "checked" || key === "selected") {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace all children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export const $ = (selector, root = document) => root.querySelector(selector);

/**
 * Keeps the end of the scroll container `scroller` in view while the user is there, whenever
 * `content` (what it scrolls) changes size: after layout, once however many items came (a
 * replay of thousands costs one layout, not one each), and also when items out of view get
 * their real height. Only `scroller` moves (scrollIntoView would scroll the whole page while
 * an agent streams). Scrolling away stops the following; scrolling back to the end resumes it.
 */
export function followEnd(scroller, content) {
  let following = true, ours = -1;
  scroller.addEventListener("scroll", () => {
    if (scroller.scrollTop !== ours) following = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 24;
  }, { passive: true });
  new ResizeObserver(() => {
    if (!following) return;
    scroller.scrollTop = scroller.scrollHeight;
    ours = scroller.scrollTop;
  }).observe(content);
}

/** Enable or disable a control, with the reason as its hover text. */
export function setEnabled(el, enabled, reason = "") {
  el.disabled = !enabled;
  if (enabled) el.removeAttribute("title");
  else if (reason) el.title = reason;
}

/** A labelled form field: <label>text <input></label> wrapped for layout. */
export function field(label, control, hint) {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), control,
    hint ? h("span", { class: "field-hint" }, hint) : null);
}

export function formatTime(ms) {
  const d = new Date(ms);
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function describeError(err) {
  if (!err) return "unknown error";
  const code = typeof err.code === "number" ? ` (${err.code})` : "";
  return `${err.message ?? String(err)}${code}`;
}
