// Forms from JSON Schemas (a tool's inputSchema, an elicitation's requestedSchema) and a small
// checker for a tool's outputSchema. Our own rather than Ajv: the page loads only from www/
// and /pkg (no bundler, no node_modules), and these schemas use a small, flat subset (MCP
// restricts elicitation schemas to flat primitives; tool schemas here get a JSON box for
// anything nested).
import { h } from "./dom.js";
import { skeleton } from "./schema-skeleton.js";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const MAX_FIELDS = 200;
const MAX_DEPTH = 32;

const typeOf = (schema) => {
  const t = Array.isArray(schema?.type) ? schema.type.find((x) => x !== "null") : schema?.type;
  if (t) return t;
  if (Array.isArray(schema?.enum) || (Array.isArray(schema?.oneOf) && schema.oneOf.every((o) => isObject(o) && "const" in o))) return "string";
  if (schema?.properties) return "object";
  return undefined;
};

const label = (v) => (typeof v === "string" ? v : JSON.stringify(v));

/** [value, label] pairs of an enum: `enum` (+ legacy `enumNames`), or `oneOf` / `anyOf` of consts with titles. */
function choices(schema) {
  if (Array.isArray(schema?.enum)) return schema.enum.map((v, i) => [v, String((Array.isArray(schema.enumNames) ? schema.enumNames[i] : undefined) ?? label(v))]);
  const list = schema?.oneOf ?? schema?.anyOf;
  if (Array.isArray(list) && list.length && list.every((o) => isObject(o) && "const" in o)) return list.map((o) => [o.const, String(o.title ?? label(o.const))]);
  return null;
}

/**
 * A form for an object schema: one field per property (text, number, checkbox, select, a
 * multi-select for an array of enum values, a JSON box for anything else). `testid` names
 * the fields (`data-testid=TESTID data-name=PROPERTY`). Returns { el, value(), errors(), set(obj) }.
 */
export function schemaForm(schema, { testid = "schema-field", onInput = () => {} } = {}) {
  // A peer's schema is untrusted: anything that is not the expected shape counts as absent.
  const props = isObject(schema?.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required.filter((r) => typeof r === "string") : []);
  const fields = [];
  for (const [name, raw] of Object.entries(props).slice(0, MAX_FIELDS)) {
    const prop = isObject(raw) ? raw : {};
    const type = typeOf(prop);
    const options = choices(prop);
    const itemOptions = type === "array" ? choices(prop.items) : null;
    const attrs = { "data-testid": testid, "data-name": name, "data-type": type ?? "json", oninput: onInput, onchange: onInput, "aria-required": String(required.has(name)) };
    let control;
    let kind;
    if (options) {
      kind = "enum";
      control = h("select", attrs, required.has(name) ? null : h("option", { value: "" }, "—"),
        options.map(([v, label]) => h("option", { value: JSON.stringify(v) }, label)));
    } else if (itemOptions) {
      kind = "multi";
      control = h("select", { ...attrs, multiple: true, size: String(Math.min(5, itemOptions.length)) }, itemOptions.map(([v, label]) => h("option", { value: JSON.stringify(v) }, label)));
    } else if (type === "boolean") {
      kind = "boolean";
      control = h("input", { ...attrs, type: "checkbox" });
    } else if (type === "number" || type === "integer") {
      kind = "number";
      control = h("input", { ...attrs, type: "number", step: type === "integer" ? "1" : "any", min: prop.minimum, max: prop.maximum });
    } else if (type === "string") {
      kind = "string";
      const inputType = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" }[prop.format] ?? "text";
      control = h("input", { ...attrs, type: inputType, minlength: prop.minLength, maxlength: prop.maxLength, placeholder: prop.description ?? "" });
    } else {
      kind = "json";
      control = h("textarea", { ...attrs, rows: "2", spellcheck: "false", placeholder: "JSON" });
    }
    const label = `${prop.title ?? name}${required.has(name) ? " *" : ""}`;
    const el = kind === "boolean"
      ? h("label", { class: "check" }, control, label, prop.description ? h("span", { class: "field-hint" }, ` ${prop.description}`) : null)
      : h("label", { class: "field" }, h("span", { class: "field-label" }, label, prop.title && prop.title !== name ? h("code", { class: "small" }, ` ${name}`) : null), control,
        prop.description && kind !== "string" ? h("span", { class: "field-hint" }, prop.description) : null);
    fields.push({ name, prop, kind, type, control, el, required: required.has(name) });
  }

  /** The field's value, `undefined` when left empty, or { error }. */
  function read(f) {
    const c = f.control;
    switch (f.kind) {
      case "boolean": return c.checked;
      case "enum": return c.value === "" ? undefined : JSON.parse(c.value);
      case "multi": { const v = [...c.selectedOptions].map((o) => JSON.parse(o.value)); return v.length ? v : undefined; }
      case "number": {
        if (c.value.trim() === "") return undefined;
        const n = Number(c.value);
        if (!Number.isFinite(n) || (f.type === "integer" && !Number.isInteger(n))) return { error: `${f.name}: ${f.type === "integer" ? "a whole number" : "a number"}` };
        return n;
      }
      case "string": return c.value === "" ? undefined : c.value;
      default: {
        if (c.value.trim() === "") return undefined;
        try { return JSON.parse(c.value); } catch { return { error: `${f.name}: not JSON` }; }
      }
    }
  }

  const isError = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && typeof v.error === "string" && Object.keys(v).length === 1;

  function value() {
    const out = {};
    for (const f of fields) {
      const v = read(f);
      if (v !== undefined && !isError(v)) out[f.name] = v;
    }
    return out;
  }

  function errors() {
    const out = [];
    for (const f of fields) {
      const v = read(f);
      if (isError(v)) out.push(v.error);
      else if (f.required && (v === undefined || v === "") && f.kind !== "boolean") out.push(`${f.name} is required`);
      else if (v !== undefined) out.push(...check(f.prop, v, `/${f.name}`).map((i) => `${f.name}: ${i.message}`));
    }
    return out;
  }

  function set(obj) {
    for (const f of fields) {
      const v = obj?.[f.name];
      const c = f.control;
      if (f.kind === "boolean") c.checked = v === true;
      else if (f.kind === "enum") c.value = v === undefined ? "" : JSON.stringify(v);
      else if (f.kind === "multi") for (const o of c.options) o.selected = Array.isArray(v) && v.some((x) => JSON.stringify(x) === o.value);
      else if (f.kind === "json") c.value = v === undefined ? "" : JSON.stringify(v);
      else c.value = v === undefined || v === null ? "" : String(v);
    }
  }

  // Defaults first: what the schema suggests.
  set(Object.fromEntries(fields.filter((f) => "default" in f.prop || f.required).map((f) => [f.name, "default" in f.prop ? f.prop.default : f.kind === "json" ? skeleton(f.prop) : undefined])));
  const el = h("div", { class: "schema-form stack" }, fields.length ? fields.map((f) => f.el) : h("p", { class: "muted small" }, "no arguments"));
  return { el, value, errors, set, fields };
}

/**
 * The issues of `value` against `schema` ([{ path, message }]): type, required, properties,
 * additionalProperties: false, items, enum, const, min/max, length, pattern, anyOf/oneOf.
 */
export function check(schema, value, path = "", depth = 0) {
  if (!isObject(schema) || depth > MAX_DEPTH) return [];
  const out = [];
  const t = schema.type;
  if (t !== undefined) {
    const types = [t].flat();
    const actual = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
    const ok = types.some((x) => x === actual || (x === "integer" && Number.isInteger(value)) || (x === "number" && actual === "number"));
    if (!ok) return [{ path, message: `expected ${types.join(" or ")}, got ${actual}` }];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) out.push({ path, message: `not one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}` });
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) out.push({ path, message: `must be ${JSON.stringify(schema.const)}` });
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) out.push({ path, message: `below the minimum ${schema.minimum}` });
    if (typeof schema.maximum === "number" && value > schema.maximum) out.push({ path, message: `above the maximum ${schema.maximum}` });
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) out.push({ path, message: `shorter than ${schema.minLength}` });
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) out.push({ path, message: `longer than ${schema.maxLength}` });
    if (typeof schema.pattern === "string") { try { if (!new RegExp(schema.pattern, "u").test(value)) out.push({ path, message: `does not match ${schema.pattern}` }); } catch { /* a pattern JS cannot read is not checked */ } }
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const r of Array.isArray(schema.required) ? schema.required : []) if (!Object.hasOwn(value, r)) out.push({ path: `${path}/${r}`, message: "required, missing" });
    for (const [k, v] of Object.entries(value)) {
      if (isObject(schema.properties) && Object.hasOwn(schema.properties, k)) out.push(...check(schema.properties[k], v, `${path}/${k}`, depth + 1));
      else if (schema.additionalProperties === false) out.push({ path: `${path}/${k}`, message: "not allowed (additionalProperties: false)" });
      else if (typeof schema.additionalProperties === "object") out.push(...check(schema.additionalProperties, v, `${path}/${k}`, depth + 1));
    }
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === "object") value.forEach((v, i) => out.push(...check(schema.items, v, `${path}/${i}`, depth + 1)));
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[key])) {
      const passing = schema[key].filter((s) => check(s, value, path, depth + 1).length === 0).length;
      if (passing === 0 || (key === "oneOf" && passing > 1)) out.push({ path, message: `matches ${passing} of the ${key} schemas` });
    }
  }
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) out.push(...check(s, value, path, depth + 1));
  return out;
}
