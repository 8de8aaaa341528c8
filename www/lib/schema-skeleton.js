// A starting value for a JSON Schema (tool inputSchema): defaults, examples, enums, else an
// empty value of the right type; required properties first.

export function skeleton(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 8) return null;
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") ?? "null" : schema.type;
  switch (type ?? (schema.properties ? "object" : undefined)) {
    case "object": {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      let keys = Object.keys(props).filter((k) => required.has(k) || "default" in (props[k] ?? {}));
      if (keys.length === 0) keys = Object.keys(props);
      keys.sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
      return Object.fromEntries(keys.map((k) => [k, skeleton(props[k], depth + 1)]));
    }
    case "array": return [];
    case "string": return "";
    case "integer": case "number": return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean": return false;
    case "null": return null;
    default: return variant ? skeleton(variant, depth + 1) : null;
  }
}
