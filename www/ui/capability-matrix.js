// Capability matrix for both sides: each capability, advertised or not, and the methods it
// enables; then every method with whether it is allowed now and why not.
import { h, replace } from "../lib/dom.js";

const norm = (s) => String(s).replaceAll("/", ".").toLowerCase();
const CLIENT_SIDE = new Set(["agentToClient", "serverToClient"]);

/** Flatten a capability tree into [{ path, advertised, value }], parents before children. */
export function flattenCapabilities(tree, prefix = []) {
  const out = [];
  if (!tree || typeof tree !== "object") return out;
  for (const [key, value] of Object.entries(tree)) {
    if (key === "_meta" || Array.isArray(value)) continue;
    const path = [...prefix, key];
    const advertised = value === true || (value !== null && typeof value === "object") || (typeof value !== "boolean" && value != null);
    out.push({ path: path.join("."), advertised, value });
    if (value && typeof value === "object") out.push(...flattenCapabilities(value, path));
  }
  return out;
}

export function createCapabilityMatrix(root) {
  const capTable = h("table", { id: "capability-matrix", "data-testid": "capability-matrix", class: "matrix" });
  const methodTable = h("table", { id: "methods-table", "data-testid": "methods-table", class: "matrix" });
  const wire = h("div", { class: "wire-caps" });
  replace(root, capTable,
    h("details", {}, h("summary", {}, "Methods"), methodTable),
    h("details", {}, h("summary", {}, "Capabilities on the wire"), wire));
  reset();

  function reset() {
    replace(capTable, h("caption", {}, "Connect to see both sides' capabilities."));
    methodTable.replaceChildren();
    wire.replaceChildren();
  }

  function methodChip(m) {
    return h("span", {
      class: `chip ${m.enabled ? "on" : "off"}`, "data-method": m.method, "aria-disabled": String(!m.enabled),
      title: m.enabled ? `${m.method}: allowed` : `${m.method}: ${m.reason ?? "not allowed"}`,
    }, m.method);
  }

  function render({ state, methods, clientLabel = "client (us)", peerLabel = "agent" }) {
    const sides = [
      { name: clientLabel, key: "client", caps: state.ownCapabilities, wire: state.ownCapabilitiesWire, methods: methods.filter((m) => CLIENT_SIDE.has(m.direction)) },
      { name: peerLabel, key: "peer", caps: state.peerCapabilities, wire: state.peerCapabilitiesWire, methods: methods.filter((m) => !CLIENT_SIDE.has(m.direction)) },
    ];
    const body = [];
    for (const side of sides) {
      const rows = flattenCapabilities(side.caps).map((r) => ({ ...r, methods: [] }));
      const extra = new Map();
      const baseline = [];
      for (const m of side.methods) {
        if (!m.capability) { baseline.push(m); continue; }
        const row = rows.find((r) => norm(r.path) === norm(m.capability));
        if (row) row.methods.push(m);
        else {
          if (!extra.has(m.capability)) extra.set(m.capability, { path: m.capability, advertised: null, methods: [] });
          extra.get(m.capability).methods.push(m);
        }
      }
      for (const row of extra.values()) row.advertised = row.methods.some((m) => m.enabled);
      const all = [...rows, ...extra.values()];
      if (baseline.length) all.unshift({ path: "(baseline)", advertised: true, baseline: true, methods: baseline });
      body.push(h("tr", { class: "side" }, h("th", { colspan: "3", scope: "colgroup" }, side.name)));
      if (all.length === 0) body.push(h("tr", {}, h("td", { colspan: "3", class: "muted" }, "no capabilities advertised")));
      for (const row of all) {
        body.push(h("tr", { "data-side": side.key, "data-capability": row.path, "data-advertised": String(row.advertised), class: row.advertised ? "" : "off" },
          h("th", { scope: "row" }, h("code", {}, row.path)),
          h("td", {}, row.baseline ? h("span", { class: "muted", title: "baseline: always available" }, "✓") :
            row.advertised ? h("span", { class: "yes", title: "advertised" }, "✓") : h("span", { class: "no", title: "not advertised" }, "✗")),
          h("td", {}, row.methods.length ? row.methods.map(methodChip) : h("span", { class: "muted" }, "—"))));
      }
    }
    replace(capTable,
      h("caption", {}, "Capabilities"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "capability"), h("th", { scope: "col", title: "advertised" }, "adv."), h("th", { scope: "col" }, "enables"))),
      h("tbody", {}, body));

    replace(methodTable,
      h("thead", {}, h("tr", {}, ["method", "dir.", "kind", "allowed"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, methods.map((m) => h("tr", {
        class: m.enabled ? "" : "off", title: m.enabled ? "" : (m.reason ?? "not allowed"),
        "data-method": m.method, "data-enabled": String(m.enabled),
      },
        h("td", {}, h("code", {}, m.method), m.unstable ? h("span", { class: "badge warn" }, "unstable") : null),
        h("td", {}, m.direction === "clientToAgent" || m.direction === "clientToServer" ? h("span", { title: "we send it" }, "→") : h("span", { title: "the peer sends it" }, "←")),
        h("td", {}, m.kind),
        h("td", {}, m.enabled ? h("span", { class: "yes" }, "yes") : h("span", { class: "no" }, `no — ${m.reason ?? ""}`))))));

    replace(wire, sides.map((s) => h("div", {}, h("span", { class: "field-label" }, s.name),
      h("pre", { class: "json small" }, JSON.stringify(s.wire ?? null, null, 2)))));
  }

  return { render, reset };
}
