// Reading what the peer advertised and what the library allows, for enabling controls.

function at(obj, path) {
  let v = obj;
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = v[key];
  }
  return v;
}

const truthy = (v) => v === true || (v !== null && typeof v === "object");

/** Whether the peer advertised any of `paths` (unified model or wire shape, v1 or v2 names). */
export function peerHas(state, ...paths) {
  return paths.some((p) => truthy(at(state?.peerCapabilities, p)) || truthy(at(state?.peerCapabilitiesWire, p)));
}

/** { enabled, reason } for the first of `names` that the library's method table knows. */
export function gate(methods, ...names) {
  for (const name of names) {
    const m = methods?.find((x) => x.method === name);
    if (m) return { enabled: !!m.enabled, reason: m.enabled ? "" : `${m.method}: ${m.reason ?? "not allowed"}`, method: m.method };
  }
  return { enabled: false, reason: `${names.join(" / ")}: not a method of this protocol version`, method: names[0] };
}
