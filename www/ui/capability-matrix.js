// Capability matrix for both sides under the negotiated version: each capability the version
// defines, its wire name, whether it was advertised, and the methods it enables; then every
// method with whether it is allowed now and why not.
import { h, replace } from "../lib/dom.js";
import { acpFlags, capabilityNote, methodGate, methodSpec, wireName } from "../lib/spec.js";

const SENT_BY_US = new Set(["clientToAgent", "clientToServer"]);
const at = (obj, path) => path.split(".").reduce((v, k) => (v !== null && typeof v === "object" ? v[k] : undefined), obj);
const on = (v) => v === true || (v !== null && typeof v === "object");

/** Whether a method row exists in the negotiated version (MCP lists every version's rows). */
const inVersion = (m) => !/ is not defined in MCP /.test(m.reason ?? "");

/**
 * One side's capabilities as [{ name, advertised }] from the library's unified model: for ACP
 * the flags of the model (fs.readTextFile, session.load…), for MCP the `features` map (every
 * capability the version defines) and the open `experimental` / `extensions` entries. The
 * model's own bookkeeping (`side`, the `features` wrapper) is not a capability.
 */
export function capabilityRows(protocol, side, model) {
  if (!model || typeof model !== "object") return [];
  if (protocol === "mcp") {
    const rows = Object.entries(model.features ?? {}).map(([name, advertised]) => ({ name, advertised: advertised === true }));
    for (const open of ["experimental", "extensions"]) {
      for (const key of Object.keys(model[open] ?? {})) rows.push({ name: `${open}.${key}`, advertised: true, open: true });
    }
    return rows;
  }
  const known = acpFlags(side).filter((name) => at(model, name) !== undefined);
  const rows = known.map((name) => ({ name, advertised: on(at(model, name)) }));
  for (const key of Object.keys(model.extensions ?? {})) rows.push({ name: `extensions.${key}`, advertised: true, open: true });
  return rows;
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

  function methodChip(m, protocol, version) {
    const spec = methodSpec(protocol, m.method, version);
    const why = m.enabled ? `${m.method}: allowed` : `${m.method}: ${m.reason ?? "not allowed"}`;
    return h("span", {
      class: `chip ${m.enabled ? "on" : "off"}`, "data-method": m.method, "aria-disabled": String(!m.enabled),
      title: spec ? `${why}\n${spec.purpose}` : why,
    }, SENT_BY_US.has(m.direction) ? "→ " : "← ", m.method);
  }

  /**
   * state: the session's state (capability models and wire shapes); methods: its method table;
   * protocol: "acp" | "mcp"; version: the negotiated one.
   */
  function render({ state, methods, protocol, version, clientLabel = "client (us)", peerLabel = "agent" }) {
    const rows = methods.filter(inVersion);
    // Unstable methods the connection did not opt into stay in the methods table, not the matrix.
    const shown = rows.filter((m) => m.enabled || m.availability !== "unstable");
    const sides = [
      { name: clientLabel, key: "client", caps: state.ownCapabilities, wire: state.ownCapabilitiesWire },
      { name: peerLabel, key: "peer", caps: state.peerCapabilities, wire: state.peerCapabilitiesWire },
    ];
    const body = [];
    for (const side of sides) {
      const caps = capabilityRows(protocol, side.key, side.caps).map((c) => ({ ...c, methods: [] }));
      const byName = new Map(caps.map((c) => [c.name, c]));
      // Methods without a capability, by who may send them: the peer's to us under our side.
      const baseline = [];
      for (const m of shown) {
        const g = methodGate(protocol, m);
        if (g.side === side.key) {
          for (const name of g.names) byName.get(name)?.methods.push(m);
        } else if (g.side === null && g.names.length === 0 && m.gate?.type !== "lifecycle" && m.method !== "initialize") {
          const receivedByThisSide = side.key === "client" ? !SENT_BY_US.has(m.direction) : SENT_BY_US.has(m.direction) || m.direction === "both";
          if (receivedByThisSide) baseline.push(m);
        }
      }
      body.push(h("tr", { class: "side" }, h("th", { colspan: "3", scope: "colgroup" }, side.name)));
      if (caps.length === 0) body.push(h("tr", {}, h("td", { colspan: "3", class: "muted" }, "no capabilities in this version")));
      for (const row of caps) {
        const w = row.open ? { text: row.name, defined: true } : wireName(protocol, side.key, row.name, version);
        body.push(h("tr", { "data-side": side.key, "data-capability": row.name, "data-advertised": String(row.advertised), class: row.advertised ? "" : "off" },
          h("th", { scope: "row" }, h("code", {}, row.name),
            h("span", { class: "wire-name", title: "on the wire" }, h("code", { class: w.defined ? "" : "muted", "data-testid": "wire-name" }, w.text))),
          h("td", {}, row.advertised ? h("span", { class: "yes", title: "advertised" }, "✓") : h("span", { class: "no", title: "not advertised" }, "✗")),
          h("td", {}, row.methods.map((m) => methodChip(m, protocol, version)),
            capabilityNote(protocol, row.name) ? h("span", { class: "muted small", "data-testid": "capability-note" }, capabilityNote(protocol, row.name))
              : row.methods.length ? null : h("span", { class: "muted" }, "—"))));
      }
      if (baseline.length) {
        body.push(h("tr", { "data-side": side.key, "data-capability": "(baseline)", "data-advertised": "true" },
          h("th", { scope: "row", title: "allowed without a capability" }, h("span", { class: "muted" }, "(no capability needed)")),
          h("td", {}, h("span", { class: "muted" }, "✓")),
          h("td", {}, baseline.map((m) => methodChip(m, protocol, version)))));
      }
    }
    replace(capTable,
      h("caption", {}, `Capabilities under ${protocol.toUpperCase()} ${version}: `, h("span", { class: "muted" }, "→ we may send it, ← the peer may send it")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "capability ", h("span", { class: "muted" }, "/ on the wire")),
        h("th", { scope: "col", title: "advertised" }, "adv."), h("th", { scope: "col" }, "enables"))),
      h("tbody", {}, body));

    replace(methodTable,
      h("thead", {}, h("tr", {}, ["method", "dir.", "kind", "allowed"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rows.map((m) => h("tr", {
        class: m.enabled ? "" : "off", title: m.enabled ? "" : (m.reason ?? "not allowed"),
        "data-method": m.method, "data-enabled": String(m.enabled),
      },
        h("td", {}, specLink(protocol, m.method, version), m.availability === "unstable" ? h("span", { class: "badge warn" }, "unstable") : null),
        h("td", {}, SENT_BY_US.has(m.direction) ? h("span", { title: "we send it" }, "→") : m.direction === "both" ? h("span", { title: "either side" }, "↔") : h("span", { title: "the peer sends it" }, "←")),
        h("td", {}, m.kind),
        h("td", {}, m.enabled ? h("span", { class: "yes" }, "yes") : h("span", { class: "no" }, `no — ${m.reason ?? ""}`))))));

    replace(wire, sides.map((s) => h("div", {}, h("span", { class: "field-label" }, s.name),
      h("pre", { class: "json small" }, JSON.stringify(s.wire ?? null, null, 2)))));
  }

  return { render, reset };
}

/** A method name linked to its section of the specification, its purpose as the hover text. */
export function specLink(protocol, method, version) {
  const spec = methodSpec(protocol, method, version);
  if (!spec) return h("code", {}, method);
  return h("a", { href: spec.url, target: "_blank", rel: "noopener noreferrer", title: spec.purpose, "data-testid": "spec-link" }, h("code", {}, method));
}
