//! TypeScript types of every definition and method of the schemas, per protocol version
//! (`js/schema.d.ts`): what a message of that version may carry, exactly as the schema says.
//! `js/protocol.d.ts` keeps the hand-shaped types agentwire's events use (versions merged,
//! open enums); these are the schema's own, one namespace per version.

use super::rules::{listed_methods, marked_methods, ref_name};
use super::{defs, read_json, Sources, COMMAND};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write;

pub const OUT: &str = "js/schema.d.ts";

/// A property name as TypeScript writes it: bare where it is an identifier, else quoted.
fn key(k: &str) -> String {
    let ident = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        k.to_string()
    } else {
        serde_json::to_string(k).unwrap_or_default()
    }
}

/// A description as a JSDoc comment, at `indent`.
fn doc(out: &mut String, d: Option<&Value>, indent: &str) {
    let Some(text) = d.and_then(Value::as_str) else {
        return;
    };
    let text = text.trim().replace("*/", "*\\/");
    if text.is_empty() {
        return;
    }
    let _ = writeln!(out, "{indent}/**");
    for line in text.lines() {
        let _ = writeln!(out, "{indent} * {}", line.trim_end());
    }
    let _ = writeln!(out, "{indent} */");
}

fn literal(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "unknown".into())
}

fn union(parts: Vec<String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for p in parts {
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    match seen.len() {
        0 => "never".into(),
        1 => seen.pop().unwrap_or_default(),
        _ => seen
            .iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// The type of a schema node. `indent` is where its object members start.
fn ty(node: &Value, indent: &str) -> String {
    let Some(o) = node.as_object() else {
        // `true` / `{}`: anything.
        return "unknown".into();
    };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        return ref_name(r).unwrap_or_else(|_| "unknown".into());
    }
    if let Some(c) = o.get("const") {
        return literal(c);
    }
    if let Some(Value::Array(e)) = o.get("enum") {
        return union(e.iter().map(literal).collect());
    }
    let mut parts: Vec<String> = Vec::new();
    // The node's own shape (a type, properties).
    let own = own_type(o, indent);
    let alts = o
        .get("anyOf")
        .or_else(|| o.get("oneOf"))
        .and_then(Value::as_array);
    let all = o.get("allOf").and_then(Value::as_array);
    if let Some(own) = own {
        parts.push(own);
    }
    if let Some(all) = all {
        parts.extend(all.iter().map(|a| ty(a, indent)).map(|t| paren(&t)));
    }
    if let Some(alts) = alts {
        parts.push(paren(&union(alts.iter().map(|a| ty(a, indent)).collect())));
    }
    match parts.len() {
        0 => "unknown".into(),
        1 => parts.pop().unwrap_or_default(),
        _ => parts.join(" & "),
    }
}

fn paren(t: &str) -> String {
    if t.contains(" | ") && !(t.starts_with('(') && t.ends_with(')')) {
        format!("({t})")
    } else {
        t.to_string()
    }
}

/// What `type` (and `properties`, `items`, `additionalProperties`) say, if anything.
fn own_type(o: &Map<String, Value>, indent: &str) -> Option<String> {
    let types: Vec<&str> = match o.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if o.contains_key("properties") => vec!["object"],
        _ => return None,
    };
    Some(union(
        types
            .into_iter()
            .map(|t| match t {
                "string" => "string".into(),
                "integer" | "number" => "number".into(),
                "boolean" => "boolean".into(),
                "null" => "null".into(),
                "array" => match o.get("items") {
                    Some(items) => {
                        let t = ty(items, indent);
                        if t.contains(' ') || t.contains('\n') {
                            format!("({t})[]")
                        } else {
                            format!("{t}[]")
                        }
                    }
                    None => "unknown[]".into(),
                },
                "object" => object(o, indent),
                _ => "unknown".into(),
            })
            .collect(),
    ))
}

fn object(o: &Map<String, Value>, indent: &str) -> String {
    let inner = format!("{indent}  ");
    let required: Vec<&str> = o
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut members = String::new();
    if let Some(props) = o.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            doc(&mut members, p.get("description"), &inner);
            let opt = if required.contains(&k.as_str()) {
                ""
            } else {
                "?"
            };
            let _ = writeln!(members, "{inner}{}{opt}: {};", key(k), ty(p, &inner));
        }
    }
    // Undeclared members: open unless `additionalProperties: false`; typed where a schema is
    // given (as an intersection, so that declared members need not match it).
    let extra = match o.get("additionalProperties") {
        Some(Value::Bool(false)) => None,
        None | Some(Value::Bool(true)) => Some("unknown".to_string()),
        Some(schema) => Some(ty(schema, &inner)),
    };
    let body = if members.is_empty() {
        None
    } else {
        Some(format!("{{\n{members}{indent}}}"))
    };
    let index = extra.map(|t| format!("{{ [key: string]: {t} }}"));
    match (body, index) {
        (Some(b), Some(i)) if i == "{ [key: string]: unknown }" => {
            format!(
                "{}{inner}[key: string]: unknown;\n{indent}}}",
                &b[..b.len() - indent.len() - 1]
            )
        }
        (Some(b), Some(i)) => format!("{b} & {i}"),
        (Some(b), None) => b,
        (None, Some(i)) => i,
        (None, None) => "{}".into(),
    }
}

/// A method table line's params or result (`~X`, `?X`, `X.params`, `-`) as a type.
fn slot(s: &str) -> String {
    let s = s.trim_start_matches('~');
    if s == "-" {
        return "undefined".into();
    }
    let (opt, s) = match s.strip_prefix('?') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let t = match s.strip_suffix(".params") {
        Some(def) => format!("{def}[\"params\"]"),
        None => s.to_string(),
    };
    if opt {
        format!("{t} | undefined")
    } else {
        t
    }
}

/// A type's text without its members' descriptions.
fn strip_docs(text: &str) -> String {
    let mut out = String::new();
    let mut in_doc = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("/**") {
            in_doc = true;
        }
        if !in_doc {
            out.push_str(line);
            out.push('\n');
        }
        if in_doc && t.ends_with("*/") {
            in_doc = false;
        }
    }
    out
}

/// Per protocol, the definitions of the last version written: name → (text without
/// descriptions, the namespace that holds it).
type Shared = std::collections::HashMap<String, BTreeMap<String, (String, String)>>;

/// The identifiers in a type's text (member names too: a false match only shares less).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
}

/// One version's namespace: every definition, then its requests and notifications.
#[allow(clippy::too_many_arguments)]
fn namespace(
    out: &mut String,
    protocol: &str,
    name: &str,
    title: &str,
    defs: &Map<String, Value>,
    methods: &[String],
    sides: (&str, &str),
    shared: &mut Shared,
) {
    let _ = writeln!(out, "  /** {title} */");
    let _ = writeln!(out, "  export namespace {name} {{");
    let texts: Vec<(&String, &Value, String)> = defs
        .iter()
        .map(|(def, body)| {
            let text = format!("    export type {def} = {};\n", ty(body, "    "));
            (def, body, text)
        })
        .collect();
    // A definition the next newer version types the same is written once, there (with the
    // newer version's descriptions), but only where every definition it names is shared
    // too: the same text can mean another type when a name it uses differs.
    let newer = shared.get(protocol);
    let mut same: BTreeMap<&str, String> = texts
        .iter()
        .filter_map(|(def, _, text)| {
            let (t, home) = newer?.get(def.as_str())?;
            (*t == strip_docs(text)).then(|| (def.as_str(), home.clone()))
        })
        .collect();
    loop {
        let before = same.len();
        let names: Vec<&str> = same.keys().copied().collect();
        for def in names {
            let text = &texts
                .iter()
                .find(|(d, _, _)| d.as_str() == def)
                .map(|t| &t.2);
            let uses_other = text.is_some_and(|t| {
                identifiers(t).any(|w| w != def && defs.contains_key(w) && !same.contains_key(w))
            });
            if uses_other {
                same.remove(def);
            }
        }
        if same.len() == before {
            break;
        }
    }
    let mut mine = BTreeMap::new();
    for (def, body, text) in &texts {
        match same.get(def.as_str()) {
            Some(home) => {
                let _ = writeln!(out, "    export type {def} = {home}.{def};");
                mine.insert(def.to_string(), (strip_docs(text), home.clone()));
            }
            None => {
                doc(out, body.get("description"), "    ");
                out.push_str(text);
                mine.insert(
                    def.to_string(),
                    (strip_docs(text), format!("{protocol}.{name}")),
                );
            }
        }
    }
    shared.insert(protocol.to_string(), mine);
    let from = |dir: &str| match dir {
        ">" => sides.0,
        "<" => sides.1,
        _ => "both",
    };
    for (iface, notification) in [("Requests", false), ("Notifications", true)] {
        let _ = writeln!(
            out,
            "    /** Every {} of this version: who sends it, its params{}. */",
            if notification {
                "notification"
            } else {
                "request"
            },
            if notification { "" } else { " and its result" }
        );
        let _ = writeln!(out, "    export interface {iface} {{");
        for line in methods {
            let f: Vec<&str> = line.split(' ').collect();
            let [dir, method, params, result] = f[..] else {
                continue;
            };
            if (result == "-") != notification {
                continue;
            }
            let result = if notification {
                String::new()
            } else {
                format!(" result: {};", slot(result))
            };
            let _ = writeln!(
                out,
                "      {}: {{ from: \"{}\"; params: {};{result} }};",
                key(method),
                from(dir),
                slot(params)
            );
        }
        let _ = writeln!(out, "    }}");
    }
    let _ = writeln!(out, "  }}");
}

pub fn generate(s: &Sources) -> Result<String, String> {
    let mut out = format!(
        "// @generated by `{COMMAND}` from acp-sdk-v2 schema/v1, v2 (schema.unstable.json) and \
         ../shared/spec/mcp/*/schema.json. Do not edit.\n\
         // The schemas' own types, one namespace per protocol version: every definition, and the\n\
         // `Requests` / `Notifications` maps (method → who sends it, params, result).\n\n"
    );
    let mut shared = Shared::new();
    out.push_str("export namespace acp {\n");
    for v in ["v2", "v1"] {
        let schema = read_json(&s.acp_sdk.join(v).join("schema.unstable.json"))?;
        let d = defs(&schema);
        // `proxy/*` belongs to proxy chains, not to a client–agent connection (as the method
        // table).
        let methods: Vec<String> = marked_methods(d)
            .into_values()
            .filter(|l| !l.contains(" proxy/"))
            .collect();
        let title = format!("ACP {v}, as the ACP SDK 2.4.0 schema says (stable and unstable).");
        namespace(
            &mut out,
            "acp",
            v,
            &title,
            d,
            &methods,
            ("client", "agent"),
            &mut shared,
        );
    }
    out.push_str("}\n\nexport namespace mcp {\n");
    // Newest first, so that older versions refer to what they share with a newer one.
    for v in s.mcp_versions().into_iter().rev() {
        let schema = read_json(&s.spec(&format!("mcp/{v}/schema.json")))?;
        let d = defs(&schema);
        let methods: Vec<String> = listed_methods(d).into_values().collect();
        let name = format!("v{}", v.replace('-', "_"));
        namespace(
            &mut out,
            "mcp",
            &name,
            &format!("MCP {v}."),
            d,
            &methods,
            ("client", "server"),
            &mut shared,
        );
    }
    out.push_str("}\n");
    Ok(out)
}
