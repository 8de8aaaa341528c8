//! The validation rules: `src/schema/rules/{acp,mcp}.rules` in the rules language (its
//! grammar is at the top of each file), from the official schemas and one hand-written
//! overlay per protocol (`src/schema/rules/{acp,mcp}.overlay.rules`).
//!
//! Each profile (schema version) gets its methods, as the schema names them, and every
//! definition they reach, translated from the schema. In the profiles of its `@` line, the
//! overlay's `Name = type` replaces the schema's definition, `Name += {members}` adds members
//! to the schema's object, and a method line replaces the schema's line of the same method
//! and kind. Definitions and method lines identical in several profiles are written once,
//! under an `@` line listing them.

use super::{defs, read_json, Sources, COMMAND};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One protocol: its profiles (name, schema file) in the order the `@` lines list them.
struct Protocol {
    name: &'static str,
    methods: Methods,
    profiles: Vec<(String, PathBuf)>,
    sources: String,
}

/// Where a protocol's schemas name its methods.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Methods {
    /// ACP marks them (`x-method`, `x-side`).
    Marks,
    /// MCP lists them in its `ClientRequest`, `ServerNotification`, … unions.
    Unions,
    /// MCP Apps: each message is a definition whose `method` is a constant (`XRequest`,
    /// answered by `XResult`; `XNotification`), with no side: the overlay says who sends it.
    Consts,
}

fn protocols(s: &Sources) -> Vec<Protocol> {
    let acp = Protocol {
        name: "acp",
        methods: Methods::Marks,
        profiles: vec![
            ("1".into(), s.acp_sdk.join("v1/schema.unstable.json")),
            ("1r".into(), s.spec("acp/v1/schema.unstable.json")),
            ("2".into(), s.acp_sdk.join("v2/schema.unstable.json")),
            ("2r".into(), s.spec("acp/v2/schema.unstable.json")),
        ],
        sources: "acp-sdk-v2 schema/v1, v2/schema.unstable.json (profiles 1, 2), ../shared/spec/acp/v1, v2/schema.unstable.json (1r, 2r)".into(),
    };
    let mcp = Protocol {
        name: "mcp",
        methods: Methods::Unions,
        profiles: s
            .mcp_versions()
            .into_iter()
            .map(|v| (v.clone(), s.spec(&format!("mcp/{v}/schema.json"))))
            .collect(),
        sources: "../shared/spec/mcp/<version>/schema.json".into(),
    };
    // The package's version names the source: a new release shows in the header's diff.
    let version = read_json(&s.apps.join("package.json"))
        .ok()
        .and_then(|p| p.get("version").and_then(Value::as_str).map(String::from))
        .unwrap_or_else(|| "?".into());
    let apps = Protocol {
        name: "apps",
        methods: Methods::Consts,
        profiles: vec![(APPS_VERSION.into(), s.apps_schema())],
        sources: format!(
            "@modelcontextprotocol/ext-apps {version} dist/src/generated/schema.json (profile {APPS_VERSION})"
        ),
    };
    vec![acp, mcp, apps]
}

/// The MCP Apps specification the package's schema describes.
const APPS_VERSION: &str = "2026-01-26";

#[derive(Clone)]
struct Def {
    body: String,
    extend: bool,
}

/// The overlay: its leading comment (the grammar, copied to the output), its method lines
/// per `@` block, and its definitions per profile.
#[derive(Default)]
struct Overlay {
    header: Vec<String>,
    methods: Vec<(Vec<String>, Vec<String>)>,
    /// (profile, name) → the definition, or with `+=` (`extend`) members added to the schema's.
    defs: BTreeMap<(String, String), Def>,
}

fn parse_overlay(text: &str, file: &str) -> Result<Overlay, String> {
    let mut o = Overlay::default();
    let mut current: Option<Vec<String>> = None;
    let mut in_header = true;
    for (no, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if in_header && line.starts_with('#') {
            o.header.push(raw.to_string());
            continue;
        }
        in_header = false;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: &str| format!("{file} line {}: {e}", no + 1);
        if let Some(names) = line.strip_prefix('@') {
            let ps: Vec<String> = names.split_whitespace().map(String::from).collect();
            o.methods.push((ps.clone(), Vec::new()));
            current = Some(ps);
            continue;
        }
        let ps = current
            .as_ref()
            .ok_or_else(|| at("a line before the first `@` line"))?;
        if matches!(line.as_bytes()[0], b'>' | b'<' | b'=') {
            o.methods
                .last_mut()
                .expect("a block")
                .1
                .push(line.to_string());
        } else {
            let (name, def) = match line.split_once(" += ") {
                Some((name, members)) => {
                    let members = members.trim();
                    if !(members.starts_with('{') && members.ends_with('}')) {
                        return Err(at("`Name += {members}` adds members to an object"));
                    }
                    (
                        name,
                        Def {
                            body: members[1..members.len() - 1].trim().to_string(),
                            extend: true,
                        },
                    )
                }
                None => {
                    let (name, body) = line.split_once(" = ").ok_or_else(|| {
                        at("expected `Name = type`, `Name += {members}` or a method line")
                    })?;
                    (
                        name,
                        Def {
                            body: body.trim().to_string(),
                            extend: false,
                        },
                    )
                }
            };
            for p in ps {
                o.defs
                    .insert((p.clone(), name.trim().to_string()), def.clone());
            }
        }
    }
    Ok(o)
}

/// The names a rules expression refers to (definitions), in order.
fn refs(body: &str) -> Vec<String> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // Strings: literals, patterns, and a verdict's code and message (in `'`).
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += 1;
            }
            i += 1;
            continue;
        }
        let word =
            |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-' | b'/');
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let st = i;
            while i < b.len() && word(b[i]) && !(b[i] == b'.' && b.get(i + 1) == Some(&b'.')) {
                i += 1;
            }
            // `str/uri`: a type and its format.
            let w = body[st..i].split('/').next().unwrap_or("");
            let after = b.get(i).copied();
            let before = if st > 0 { b[st - 1] } else { b' ' };
            let keyword = matches!(
                w,
                "any"
                    | "null"
                    | "bool"
                    | "int"
                    | "num"
                    | "str"
                    | "obj"
                    | "arr"
                    | "true"
                    | "false"
                    | "tag"
            );
            let member = matches!(after, Some(b':' | b'?' | b'@'));
            let tag_key = body[..st].ends_with("tag(");
            // `tag(k=v)`: `v` is a variant, not a name.
            let tag_default = before == b'=';
            if !keyword && !member && !tag_key && !tag_default && before != b'/' && before != b'@' {
                out.push(w.to_string());
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Schema → rules expression. `Err` names what is not translated (write it in the overlay).
struct Tr<'a> {
    defs: &'a Map<String, Value>,
    /// A schema written out where a definition would do (MCP Apps' schema inlines every
    /// reference) → that definition's name: its annotations left out, the JSON text of each
    /// definition of more than one member or alternative.
    named: BTreeMap<String, String>,
    /// A schema written by zod (MCP Apps'): `anyOf` with `{}` (an optional value) is any value.
    zod: bool,
}

/// The definitions of a schema and those nested in them (MCP Apps' `__schema0`, the JSON
/// value type, is defined inside each definition that uses it).
fn all_defs(schema: &Value) -> Map<String, Value> {
    let mut all = defs(schema).clone();
    let mut nested = Vec::new();
    for d in all.values() {
        if let Some(inner) = d.get("$defs").and_then(Value::as_object) {
            nested.extend(inner.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    for (k, v) in nested {
        all.entry(k).or_insert(v);
    }
    all
}

/// A closed object (`additionalProperties: false`), or a union of closed objects.
fn closes(s: &Value) -> bool {
    s.get("additionalProperties") == Some(&Value::Bool(false))
        || ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| s.get(*k).and_then(Value::as_array))
            .any(|alts| alts.iter().any(closes))
}

/// `s` with its objects (and its union's) opened; their member names added to `names`.
fn opened(s: &Value, names: &mut Vec<String>) -> Value {
    let mut s = s.clone();
    if let Some(o) = s.as_object_mut() {
        if o.get("additionalProperties") == Some(&Value::Bool(false)) {
            o.shift_remove("additionalProperties");
        }
        for n in o
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|p| p.keys())
        {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        for k in ["anyOf", "oneOf"] {
            if let Some(alts) = o.get(k).and_then(Value::as_array) {
                let alts: Vec<Value> = alts.iter().map(|a| opened(a, names)).collect();
                o.insert(k.to_string(), Value::Array(alts));
            }
        }
    }
    s
}

/// A schema without its annotations (descriptions, titles, defaults, nested `$defs`), as
/// JSON text: two schemas that say the same have the same text.
fn canonical(s: &Value) -> String {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(k, _)| !IGNORED.contains(&k.as_str()))
                    .map(|(k, v)| match (k.as_str(), v.as_object()) {
                        // Member names are kept, whatever they are called.
                        ("properties", Some(p)) => (
                            k.clone(),
                            Value::Object(p.iter().map(|(n, x)| (n.clone(), strip(x))).collect()),
                        ),
                        _ => (k.clone(), strip(v)),
                    })
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            v => v.clone(),
        }
    }
    strip(s).to_string()
}

impl<'a> Tr<'a> {
    fn new(defs: &'a Map<String, Value>, hoist: bool) -> Tr<'a> {
        let mut named = BTreeMap::new();
        if hoist {
            for (name, d) in defs {
                let big = d
                    .get("propertyNames")
                    .is_some_and(|p| p.get("anyOf").is_some())
                    || ["properties", "anyOf", "oneOf"].iter().any(|k| {
                        d.get(*k).is_some_and(|v| {
                            v.as_object()
                                .map_or(v.as_array().map_or(0, Vec::len), Map::len)
                                > 1
                        })
                    });
                if big {
                    named.entry(canonical(d)).or_insert_with(|| name.clone());
                }
            }
        }
        Tr {
            defs,
            named,
            zod: hoist,
        }
    }
}

const IGNORED: [&str; 11] = [
    "$schema",
    "$defs",
    "description",
    "title",
    "default",
    "examples",
    "discriminator",
    "x-side",
    "x-method",
    "$comment",
    "contentEncoding",
];

fn num(x: &Value) -> String {
    match x.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => x.to_string(),
    }
}

fn lit(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(format!("\"{s}\"")),
        Value::Number(_) => Ok(num(v)),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok("null".into()),
        _ => Err(format!("literal {v}")),
    }
}

pub fn ref_name(r: &str) -> Result<String, String> {
    r.rsplit('/')
        .next()
        .map(String::from)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("$ref {r}"))
}

impl Tr<'_> {
    fn def(&self, name: &str) -> Result<String, String> {
        let (base, member) = match name.split_once('.') {
            Some((b, m)) => (b, Some(m)),
            None => (name, None),
        };
        let mut s = self
            .defs
            .get(base)
            .ok_or_else(|| format!("no definition {base}"))?;
        if let Some(m) = member {
            s = s
                .get("properties")
                .and_then(|p| p.get(m))
                .ok_or_else(|| format!("no {name}"))?;
            return self.ty(s);
        }
        // A definition is its own body, not a reference to itself.
        self.body(s)
    }

    fn keys(s: &Map<String, Value>) -> Vec<&str> {
        s.keys()
            .map(|k| k.as_str())
            .filter(|k| !IGNORED.contains(k) && !k.starts_with("x-"))
            .collect()
    }

    fn ty(&self, s: &Value) -> Result<String, String> {
        if !self.named.is_empty() {
            if let Some(name) = self.named.get(&canonical(s)) {
                return Ok(name.clone());
            }
        }
        self.body(s)
    }

    fn body(&self, s: &Value) -> Result<String, String> {
        let m = match s {
            Value::Bool(true) => return Ok("any".into()),
            Value::Object(m) => m,
            _ => return Err(format!("schema {s}")),
        };
        let keys = Self::keys(m);
        if keys.is_empty() {
            return Ok("any".into());
        }
        if let Some(r) = m.get("$ref").and_then(Value::as_str) {
            if keys.len() == 1 {
                return ref_name(r);
            }
            return Err("$ref with siblings".into());
        }
        if keys == ["allOf"] {
            let parts = m["allOf"].as_array().ok_or("allOf")?;
            if parts.len() == 1 {
                return self.ty(&parts[0]);
            }
            let literal = parts
                .iter()
                .map(|p| self.atom(p))
                .collect::<Result<Vec<_>, _>>()?
                .join(" & ");
            if self.zod && parts.iter().any(closes) {
                return self.intersection(parts, &literal);
            }
            return Ok(literal);
        }
        // `{…, not: X}`: the rest, and not X (an open union's other values: `!tag(k){…}`).
        if let Some(not) = m.get("not") {
            let mut rest = m.clone();
            rest.shift_remove("not");
            if rest.get("additionalProperties") == Some(&Value::Bool(true)) {
                rest.shift_remove("additionalProperties");
            }
            let base = self.ty(&Value::Object(rest))?;
            // `{not: X}` alone (`{not: {}}`: the member must be absent).
            if base == "any" {
                return Ok(format!("!{}", Self::paren(&self.ty(not)?)));
            }
            return Ok(format!(
                "{} & !{}",
                Self::paren(&base),
                Self::paren(&self.ty(not)?)
            ));
        }
        if let Some(c) = m.get("const") {
            return lit(c);
        }
        if let Some(e) = m.get("enum").and_then(Value::as_array) {
            let ls = e.iter().map(lit).collect::<Result<Vec<_>, _>>()?;
            return Ok(format!("({})", ls.join("|")));
        }
        for k in &keys {
            if !matches!(
                *k,
                "type"
                    | "properties"
                    | "required"
                    | "additionalProperties"
                    | "items"
                    | "format"
                    | "minimum"
                    | "maximum"
                    | "minLength"
                    | "maxLength"
                    | "minItems"
                    | "maxItems"
                    | "pattern"
                    | "propertyNames"
                    | "anyOf"
                    | "oneOf"
                    | "allOf"
            ) {
                return Err(format!("keyword {k}"));
            }
        }
        let union = ["anyOf", "oneOf"]
            .iter()
            .find_map(|u| m.get(*u).map(|v| (*u, v)));
        let has_props = m.contains_key("properties") || m.contains_key("required");
        if let Some((kind, alts)) = union {
            let alts = alts.as_array().ok_or("union")?;
            let u = self.union(kind, alts)?;
            if !has_props && !m.contains_key("type") {
                return Ok(u);
            }
            if has_props {
                let obj = self.basic(m)?;
                return Ok(format!("{obj} & {}", Self::paren(&u)));
            }
            return Err("union with type".into());
        }
        if let Some(parts) = m.get("allOf").and_then(Value::as_array) {
            let obj = self.basic(m)?;
            let mut v = vec![obj];
            for p in parts {
                v.push(self.atom(p)?);
            }
            return Ok(v.join(" & "));
        }
        self.basic(m)
    }

    /// zod writes an intersection of objects (`.and()`) as `allOf` of closed objects, each
    /// refusing the others' members: nothing with members of two parts holds (MCP Apps'
    /// `containerDimensions`: "either width or maxWidth, and either height or maxHeight" has
    /// no valid value with both). zod reads each part without closing it and keeps the
    /// members of all; so does this: the schema's reading, and where only zod's holds, that
    /// one, with a `tolerated` warning (docs/validation.md).
    fn intersection(&self, parts: &[Value], literal: &str) -> Result<String, String> {
        let mut names: Vec<String> = Vec::new();
        let opened = parts
            .iter()
            .map(|p| self.atom(&opened(p, &mut names)))
            .collect::<Result<Vec<_>, _>>()?;
        let all: Vec<String> = names
            .iter()
            .map(|n| format!("{}?:any", Self::member_name(n)))
            .collect();
        Ok(format!(
            "({literal}) ~ ({} & {{{} ..!any}})",
            opened.join(" & "),
            all.join(" ")
        ))
    }

    /// Parenthesized when a `|`, `^` or `&` stands at its top level.
    fn paren(u: &str) -> String {
        let mut depth = 0i32;
        let mut top = false;
        let b = u.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            match c {
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => depth -= 1,
                b'|' | b'^' | b'&' if depth == 0 && i > 0 && b[i - 1] == b' ' => top = true,
                _ => {}
            }
        }
        if top {
            format!("({u})")
        } else {
            u.to_string()
        }
    }

    /// A part of `&`: parenthesized when it is a union.
    fn atom(&self, s: &Value) -> Result<String, String> {
        Ok(Self::paren(&self.ty(s)?))
    }

    fn union(&self, kind: &str, alts: &[Value]) -> Result<String, String> {
        // `X | null`
        let null = |a: &Value| {
            a.get("type").and_then(Value::as_str) == Some("null")
                && a.as_object().is_some_and(|o| Self::keys(o).len() == 1)
        };
        if alts.len() == 2 && null(&alts[1]) {
            return Ok(format!("{} | null", self.ty(&alts[0])?));
        }
        // A tagged union: every variant `{properties: {k: {const}}, required: [k], allOf: [Ref]}`,
        // the last possibly `{k: str}` not the others (the open union's other values).
        if let Some(t) = self.tagged(alts)? {
            return Ok(t);
        }
        // An alternative that is any value (`{}`) makes the union any value.
        if self.zod
            && alts
                .iter()
                .any(|a| a.as_object().is_some_and(|o| Self::keys(o).is_empty()))
        {
            return Ok("any".into());
        }
        let sep = if kind == "oneOf" { " ^ " } else { " | " };
        let all_consts = alts.iter().all(|a| {
            a.get("const").is_some()
                || a.get("type").and_then(Value::as_str) == Some("string")
                    && a.as_object().is_some_and(|o| Self::keys(o) == ["type"])
        });
        let sep = if all_consts { " | " } else { sep };
        Ok(alts
            .iter()
            .map(|a| {
                self.ty(a).map(|t| {
                    if t.contains(" & ") {
                        Self::paren(&t)
                    } else {
                        t
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?
            .join(sep))
    }

    /// A union dispatched on one string member `k`: each variant names its value
    /// (`{properties: {k: {const}}, required: [k], …}`), the last perhaps any other string
    /// (`{k: str}` and `not` the others: an open union's `*`); or every variant a reference to
    /// an object whose required `k` is a distinct constant.
    fn tagged(&self, alts: &[Value]) -> Result<Option<String>, String> {
        if let Some(t) = self.tagged_refs(alts)? {
            return Ok(Some(t));
        }
        let first = alts
            .first()
            .and_then(|a| a.get("properties"))
            .and_then(Value::as_object);
        let Some(key) = first.and_then(|p| {
            p.iter()
                .find(|(_, v)| v.get("const").is_some_and(Value::is_string))
                .map(|(k, _)| k.clone())
        }) else {
            return Ok(None);
        };
        let mut variants = Vec::new();
        let mut other = None;
        for a in alts {
            let Some(o) = a.as_object() else {
                return Ok(None);
            };
            let Some(props) = o.get("properties").and_then(Value::as_object) else {
                return Ok(None);
            };
            let Some(k) = props.get(&key) else {
                return Ok(None);
            };
            let required: Vec<&str> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if !required.contains(&key.as_str()) {
                return Ok(None);
            }
            // The variant's own constraints beside the tag.
            let mut rest = o.clone();
            for k in [
                "type",
                "not",
                "additionalProperties",
                "unevaluatedProperties",
            ] {
                rest.shift_remove(k);
            }
            // A closed variant declares its tag too (it is one of its members).
            let closed = o.get("additionalProperties") == Some(&Value::Bool(false));
            let mut props = props.clone();
            if !closed {
                props.shift_remove(&key);
            }
            let required: Vec<Value> = required
                .iter()
                .filter(|r| **r != key || closed)
                .map(|r| Value::String(r.to_string()))
                .collect();
            let mut parts = Vec::new();
            if !props.is_empty() || !required.is_empty() {
                let mut m = Map::new();
                m.insert("properties".into(), Value::Object(props));
                if !required.is_empty() {
                    m.insert("required".into(), Value::Array(required));
                }
                if closed {
                    m.insert("additionalProperties".into(), Value::Bool(false));
                }
                parts.push(self.object(&m)?);
            }
            if let Some(all) = rest.get("allOf").and_then(Value::as_array) {
                for p in all {
                    parts.push(self.atom(p)?);
                }
            }
            for u in ["anyOf", "oneOf"] {
                if let Some(alts) = rest.get(u).and_then(Value::as_array) {
                    parts.push(self.union(u, alts)?);
                }
            }
            for k in Self::keys(&rest) {
                if !matches!(k, "properties" | "required" | "allOf" | "anyOf" | "oneOf") {
                    return Err(format!("keyword {k} in a tagged variant"));
                }
            }
            let body = if parts.len() == 1 {
                parts.pop().expect("one")
            } else {
                parts
                    .iter()
                    .map(|p| Self::paren(p))
                    .collect::<Vec<_>>()
                    .join(" & ")
            };
            match k.get("const").and_then(Value::as_str) {
                Some(c) => variants.push(format!(
                    "{c}:{}",
                    if body.is_empty() { "any" } else { &body }
                )),
                None if o.contains_key("not") && other.is_none() => {
                    other = Some(if body.is_empty() {
                        "obj".to_string()
                    } else {
                        body
                    })
                }
                None => return Ok(None),
            }
        }
        if let Some(o) = other {
            variants.push(format!("*:{o}"));
        }
        Ok(Some(format!("tag({key}){{{}}}", variants.join(" "))))
    }

    /// `A | B | …` of references to objects that each require the string member `k` to be a
    /// distinct constant: dispatched on `k`.
    fn tagged_refs(&self, alts: &[Value]) -> Result<Option<String>, String> {
        let mut key: Option<&str> = None;
        let mut variants = Vec::new();
        for a in alts {
            let Some(r) = a.get("$ref").and_then(Value::as_str) else {
                return Ok(None);
            };
            let name = ref_name(r)?;
            let Some(def) = self.defs.get(&name) else {
                return Ok(None);
            };
            let required: Vec<&str> = def
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let Some(props) = def.get("properties").and_then(Value::as_object) else {
                return Ok(None);
            };
            let k = match key {
                Some(k) => k,
                None => match props.iter().find(|(k, v)| {
                    v.get("const").is_some_and(Value::is_string) && required.contains(&k.as_str())
                }) {
                    Some((k, _)) => k.as_str(),
                    None => return Ok(None),
                },
            };
            let Some(c) = props
                .get(k)
                .and_then(|v| v.get("const"))
                .and_then(Value::as_str)
            else {
                return Ok(None);
            };
            if !required.contains(&k) || variants.iter().any(|(v, _): &(String, String)| v == c) {
                return Ok(None);
            }
            key = Some(k);
            variants.push((c.to_string(), name));
        }
        let Some(key) = key.filter(|_| variants.len() > 1) else {
            return Ok(None);
        };
        Ok(Some(format!(
            "tag({key}){{{}}}",
            variants
                .iter()
                .map(|(v, n)| format!("{v}:{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        )))
    }

    fn basic(&self, m: &Map<String, Value>) -> Result<String, String> {
        let types: Vec<&str> = match m.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(v)) => v.iter().filter_map(Value::as_str).collect(),
            None if m.contains_key("properties") => vec!["object"],
            None => return Err("no type".into()),
            Some(t) => return Err(format!("type {t}")),
        };
        let nullable = types.contains(&"null") && types.len() > 1;
        let mut parts = Vec::new();
        for t in types.iter().filter(|t| !nullable || **t != "null") {
            parts.push(match *t {
                "object" => self.object(m)?,
                "array" => {
                    let items = m
                        .get("items")
                        .map(|i| self.ty(i))
                        .transpose()?
                        .unwrap_or_else(|| "any".into());
                    let b = if items == "any" && !m.contains_key("items") {
                        "arr".to_string()
                    } else {
                        format!("[{items}]")
                    };
                    b + &Self::range(m, "minItems", "maxItems")
                }
                "string" => {
                    let mut b = "str".to_string() + &Self::range(m, "minLength", "maxLength");
                    if let Some(f) = m.get("format").and_then(Value::as_str) {
                        b += &format!("/{f}");
                    }
                    // Beside `format: date-time`, zod writes its ISO date-time regex, which says
                    // what the format check does (but for leap seconds and a lower-case `t`,
                    // `z`): the format is checked, the regex (outside the engine's subset) not.
                    let date_time = m.get("format").and_then(Value::as_str) == Some("date-time");
                    if let Some(p) = m
                        .get("pattern")
                        .and_then(Value::as_str)
                        .filter(|_| !date_time)
                    {
                        b += &format!("%\"{p}\"");
                    }
                    b
                }
                "integer" => "int".to_string() + &Self::range(m, "minimum", "maximum"),
                "number" => "num".to_string() + &Self::range(m, "minimum", "maximum"),
                "boolean" => "bool".into(),
                "null" => "null".into(),
                t => return Err(format!("type {t}")),
            });
        }
        let mut out = parts.join("|");
        if nullable {
            out += "|null";
        }
        Ok(out)
    }

    fn range(m: &Map<String, Value>, lo: &str, hi: &str) -> String {
        match (m.get(lo), m.get(hi)) {
            (None, None) => String::new(),
            (l, h) => format!(
                "({}..{})",
                l.map(num).unwrap_or_default(),
                h.map(num).unwrap_or_default()
            ),
        }
    }

    /// A member name as the rules write it: quoted unless a plain word.
    fn member_name(name: &str) -> String {
        if name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-'))
        {
            name.to_string()
        } else {
            format!("\"{name}\"")
        }
    }

    fn object(&self, m: &Map<String, Value>) -> Result<String, String> {
        let props = m.get("properties").and_then(Value::as_object);
        let required: BTreeSet<&str> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut rest = match m.get("additionalProperties") {
            None | Some(Value::Bool(true)) => None,
            Some(Value::Object(o)) if Self::keys(o).is_empty() => None,
            // A closed object: no member but those declared.
            Some(Value::Bool(false)) => Some("!any".to_string()),
            Some(a) => Some(self.ty(a)?),
        };
        let mut members = Vec::new();
        // `propertyNames` limited to constants (a record keyed by an enum): each name a
        // member typed as the undeclared ones, and no other name.
        if let Some(names) = m.get("propertyNames") {
            let consts: Option<Vec<&str>> = match names.get("anyOf").and_then(Value::as_array) {
                Some(alts) => alts
                    .iter()
                    .map(|a| a.get("const").and_then(Value::as_str))
                    .collect(),
                None => names
                    .get("enum")
                    .and_then(Value::as_array)
                    .map(|e| e.iter().filter_map(Value::as_str).collect()),
            };
            match consts {
                Some(names) => {
                    let ty = rest.take().unwrap_or_else(|| "any".into());
                    for n in names {
                        let opt = if required.contains(n) { "" } else { "?" };
                        members.push(format!("{}{opt}:{ty}", Self::member_name(n)));
                    }
                    rest = Some("!any".into());
                }
                // Any string is a member name in JSON.
                None if names.get("type").and_then(Value::as_str) == Some("string")
                    && names.as_object().is_some_and(|o| Self::keys(o) == ["type"]) => {}
                None => return Err(format!("propertyNames {names}")),
            }
        }
        for (name, s) in props.into_iter().flatten() {
            let opt = if required.contains(name.as_str()) {
                ""
            } else {
                "?"
            };
            members.push(format!("{}{opt}:{}", Self::member_name(name), self.ty(s)?));
        }
        for r in &required {
            let listed = m.get("propertyNames").is_some()
                && members.iter().any(|x| x.starts_with(&format!("{r}:")));
            if !props.is_some_and(|p| p.contains_key(*r)) && !listed {
                members.push(format!("{r}:any"));
            }
        }
        if let Some(r) = rest {
            members.push(format!("..{r}"));
        }
        if members.is_empty() {
            return Ok("obj".into());
        }
        Ok(format!("{{{}}}", members.join(" ")))
    }
}

/// The profiles' definitions: every name its methods, `RequestId` and `Error` reach, from the
/// overlay or else the schema.
/// Per profile: its method lines and its definitions.
type Resolved = BTreeMap<String, (Vec<String>, BTreeMap<String, String>)>;

fn resolve(p: &Protocol, o: &Overlay) -> Result<Resolved, String> {
    let mut per_profile = BTreeMap::new();
    for (profile, path) in &p.profiles {
        let schema = read_json(path)?;
        let all = all_defs(&schema);
        let tr = Tr::new(&all, p.methods == Methods::Consts);
        let methods = method_lines(p, profile, &all, o);
        let mut todo: Vec<String> = vec!["RequestId".into(), "Error".into()];
        for l in &methods {
            let head = l.split('"').next().unwrap_or("");
            for f in head.split_whitespace().skip(2) {
                todo.extend(refs(f.trim_start_matches(['?', '~'])));
            }
        }
        let mut defs: BTreeMap<String, String> = BTreeMap::new();
        while let Some(name) = todo.pop() {
            if defs.contains_key(&name) {
                continue;
            }
            let overlay = o.defs.get(&(profile.clone(), name.clone()));
            let body = match overlay {
                Some(d) if !d.extend => d.body.clone(),
                _ => {
                    let fail = |e: String| {
                        format!(
                            "{} profile {profile}: {name}: {e}; write it in the overlay",
                            p.name
                        )
                    };
                    let generated = tr.def(&name).map_err(fail)?;
                    match overlay {
                        // The added members first, then the schema's.
                        Some(d)
                            if generated.starts_with('{')
                                && generated.ends_with('}')
                                && Tr::paren(&generated) == generated =>
                        {
                            format!("{{{} {}", d.body, &generated[1..])
                        }
                        Some(_) => {
                            return Err(fail(format!(
                                "`+=` needs an object, the schema gives `{generated}`"
                            )))
                        }
                        None => generated,
                    }
                }
            };
            todo.extend(refs(&body));
            defs.insert(name, body);
        }
        per_profile.insert(profile.clone(), (methods, defs));
    }
    Ok(per_profile)
}

/// A method line's method and whether it is a notification (result `-`).
fn method_key(line: &str) -> (String, bool) {
    let f: Vec<&str> = line
        .split('"')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    (f.get(1).unwrap_or(&"").to_string(), f.get(3) == Some(&"-"))
}

/// ACP: `x-method` / `x-side` on `XRequest` (answered by `XResponse`) and `XNotification`.
pub fn marked_methods(defs: &Map<String, Value>) -> BTreeMap<(String, bool), String> {
    let mut lines = BTreeMap::new();
    for (name, d) in defs {
        let (Some(method), Some(side)) = (
            d.get("x-method").and_then(Value::as_str),
            d.get("x-side").and_then(Value::as_str),
        ) else {
            continue;
        };
        let dir = match side {
            "agent" => '>',
            "client" => '<',
            _ => '=',
        };
        if name.ends_with("Notification") {
            lines.insert(
                (method.to_string(), true),
                format!("{dir} {method} ~{name} -"),
            );
        } else if let Some(stem) = name.strip_suffix("Request") {
            let response = format!("{stem}Response");
            if defs
                .get(&response)
                .and_then(|r| r.get("x-method"))
                .and_then(Value::as_str)
                == Some(method)
            {
                lines.insert(
                    (method.to_string(), false),
                    format!("{dir} {method} ~{name} {response}"),
                );
            }
        }
    }
    lines
}

/// MCP: the requests and notifications each side sends (`ClientRequest`, `ServerRequest`,
/// `ClientNotification`, `ServerNotification`; in both: `=`), their `params` (a reference,
/// else the inline `XRequest.params`; `?` where not required) and a request's result: what
/// `XResultResponse.result` names, else `XResult`, else `EmptyResult`.
pub fn listed_methods(defs: &Map<String, Value>) -> BTreeMap<(String, bool), String> {
    let mut sides: BTreeMap<(String, bool), (String, char)> = BTreeMap::new();
    for (union, dir, notification) in [
        ("ClientRequest", '>', false),
        ("ServerRequest", '<', false),
        ("ClientNotification", '>', true),
        ("ServerNotification", '<', true),
    ] {
        let Some(alts) = defs
            .get(union)
            .and_then(|u| u.get("anyOf"))
            .and_then(Value::as_array)
        else {
            continue;
        };
        for a in alts {
            let Some(name) = a
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| ref_name(r).ok())
            else {
                continue;
            };
            let Some(method) = defs
                .get(&name)
                .and_then(|d| d.pointer("/properties/method/const"))
                .and_then(Value::as_str)
            else {
                continue;
            };
            sides
                .entry((method.to_string(), notification))
                .and_modify(|(_, d)| {
                    if *d != dir {
                        *d = '=';
                    }
                })
                .or_insert((name, dir));
        }
    }
    let mut lines = BTreeMap::new();
    for ((method, notification), (name, dir)) in sides {
        let d = &defs[&name];
        let params = match d.pointer("/properties/params") {
            Some(p) => match p.get("$ref").and_then(Value::as_str) {
                Some(r) => ref_name(r).unwrap_or_default(),
                None => format!("{name}.params"),
            },
            None => "-".into(),
        };
        let required = d
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x == "params"));
        let params = if required || params == "-" {
            params
        } else {
            format!("?{params}")
        };
        let result = if notification {
            "-".to_string()
        } else {
            let stem = name.strip_suffix("Request").unwrap_or(&name);
            let response = defs
                .get(&format!("{stem}ResultResponse"))
                .and_then(|r| r.pointer("/properties/result/$ref"))
                .and_then(Value::as_str);
            match response.and_then(|r| ref_name(r).ok()) {
                Some(r) => r,
                None if defs.contains_key(&format!("{stem}Result")) => format!("{stem}Result"),
                None => "EmptyResult".into(),
            }
        };
        lines.insert(
            (method.clone(), notification),
            format!("{dir} {method} {params} {result}"),
        );
    }
    lines
}

/// MCP Apps: every definition whose `method` is a constant, `XRequest` answered by `XResult`
/// (else `EmptyResult`, which the overlay defines), `XNotification`; `params` as the schema
/// writes it inline (`?` where not required). The side is `=` until the overlay says who
/// sends it.
fn const_methods(defs: &Map<String, Value>) -> BTreeMap<(String, bool), String> {
    let mut lines = BTreeMap::new();
    for (name, d) in defs {
        let Some(method) = d
            .pointer("/properties/method/const")
            .and_then(Value::as_str)
        else {
            continue;
        };
        let notification = name.ends_with("Notification");
        let params = if d.pointer("/properties/params").is_none() {
            "-".to_string()
        } else if d
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x == "params"))
        {
            format!("{name}.params")
        } else {
            format!("?{name}.params")
        };
        let result = match name.strip_suffix("Request") {
            _ if notification => "-".to_string(),
            Some(stem) if defs.contains_key(&format!("{stem}Result")) => format!("{stem}Result"),
            _ => "EmptyResult".into(),
        };
        lines.insert(
            (method.to_string(), notification),
            format!("= {method} {params} {result}"),
        );
    }
    lines
}

/// A profile's method lines, ordered by method (a notification before a request of the same
/// name): from the schema's `x-method`/`x-side` marks (`XRequest` with its `XResponse`,
/// `XNotification`; params may be omitted where `{}` is valid), where the protocol's schemas
/// carry them, each replaced by the overlay's line of the same method and kind; and the
/// overlay's others.
fn method_lines(
    p: &Protocol,
    profile: &str,
    defs: &Map<String, Value>,
    o: &Overlay,
) -> Vec<String> {
    let mut lines = match p.methods {
        Methods::Marks => marked_methods(defs),
        Methods::Unions => listed_methods(defs),
        Methods::Consts => const_methods(defs),
    };
    let mut checks = Vec::new();
    for (ps, ls) in &o.methods {
        if ps.iter().any(|x| x == profile) {
            for l in ls {
                match l.split_whitespace().collect::<Vec<_>>()[..] {
                    // `DIR method` alone: who sends the schema's method (of either kind).
                    [dir, method] => {
                        for kind in [false, true] {
                            if let Some(line) = lines.get_mut(&(method.to_string(), kind)) {
                                line.replace_range(..1, dir);
                            }
                        }
                    }
                    // `DIR method +Check`: a check added to the method's line, once every
                    // line the overlay replaces is in.
                    [_, method, check] if check.starts_with('+') => checks.push((method, check)),
                    _ => {
                        lines.insert(method_key(l), l.clone());
                    }
                }
            }
        }
    }
    for (method, check) in checks {
        if let Some(line) = lines.get_mut(&(method.to_string(), false)) {
            // Before a quoted warning, which ends the line.
            match line.find('"') {
                Some(q) => line.insert_str(q, &format!("{check} ")),
                None => *line = format!("{line} {check}"),
            }
        }
    }
    // A notification sorts before a request of the same method.
    let mut v: Vec<((String, bool), String)> = lines.into_iter().collect();
    v.sort_by(|((a, an), _), ((b, bn), _)| a.cmp(b).then(bn.cmp(an)));
    v.into_iter().map(|(_, l)| l).collect()
}

fn emit(p: &Protocol, o: &Overlay, per_profile: &Resolved, overlay_file: &str) -> String {
    let order: Vec<&String> = p.profiles.iter().map(|(n, _)| n).collect();
    // Each method line and each definition, with the profiles that have it.
    let mut lines: Vec<(String, Vec<&String>)> = Vec::new();
    let mut by_name: BTreeMap<&str, Vec<(&str, Vec<&String>)>> = BTreeMap::new();
    for name in order.iter() {
        let (methods, defs) = &per_profile[*name];
        for l in methods {
            match lines.iter_mut().find(|(x, _)| x == l) {
                Some((_, ps)) => ps.push(name),
                None => lines.push((l.clone(), vec![name])),
            }
        }
        for (def, body) in defs {
            let e = by_name.entry(def).or_default();
            match e.iter_mut().find(|(b, _)| *b == body) {
                Some((_, ps)) => ps.push(name),
                None => e.push((body, vec![name])),
            }
        }
    }
    let mut blocks: BTreeMap<Vec<usize>, (Vec<String>, Vec<String>)> = BTreeMap::new();
    let key = |ps: &[&String]| -> Vec<usize> {
        ps.iter()
            .filter_map(|p| order.iter().position(|o| o == p))
            .collect()
    };
    for (l, ps) in lines {
        blocks.entry(key(&ps)).or_default().0.push(l);
    }
    for b in blocks.values_mut() {
        b.0.sort_by(|a, b| {
            let ((am, an), (bm, bn)) = (method_key(a), method_key(b));
            am.cmp(&bm).then(bn.cmp(&an))
        });
    }
    for (name, bodies) in by_name {
        for (body, ps) in bodies {
            blocks
                .entry(key(&ps))
                .or_default()
                .1
                .push(format!("{name} = {body}"));
        }
    }
    let mut keys: Vec<&Vec<usize>> = blocks.keys().collect();
    keys.sort_by_key(|k| (std::cmp::Reverse(k.len()), (*k).clone()));
    let mut out = format!("# @generated by `{COMMAND}` from {} and {overlay_file}. Do not edit: change the overlay.\n", p.sources);
    for h in &o.header {
        out += h;
        out.push('\n');
    }
    for k in keys {
        let (methods, defs) = &blocks[k];
        if methods.is_empty() && defs.is_empty() {
            continue;
        }
        out += "\n@";
        for i in k {
            out += " ";
            out += order[*i];
        }
        out.push('\n');
        for l in methods.iter().chain(defs) {
            out += l;
            out.push('\n');
        }
    }
    out
}

pub fn generate(s: &Sources) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for p in protocols(s) {
        let overlay_file = format!("src/schema/rules/{}.overlay.rules", p.name);
        let text = std::fs::read_to_string(s.root.join(&overlay_file))
            .map_err(|e| format!("{overlay_file}: {e}"))?;
        let o = parse_overlay(&text, &overlay_file)?;
        for (ps, _) in &o.methods {
            if let Some(unknown) = ps.iter().find(|x| !p.profiles.iter().any(|(n, _)| n == *x)) {
                return Err(format!("{overlay_file}: no profile `{unknown}`"));
            }
        }
        let per_profile = resolve(&p, &o)?;
        // A definition no method reaches any more is stale: say so rather than keep it.
        for (profile, name) in o.defs.keys() {
            if !per_profile[profile].1.contains_key(name) {
                return Err(format!(
                    "{overlay_file}: {name} in profile {profile} is reached by no method"
                ));
            }
        }
        out.push((
            format!("src/schema/rules/{}.rules", p.name),
            emit(&p, &o, &per_profile, &overlay_file),
        ));
    }
    Ok(out)
}

/// The raw translation of every definition of every profile (`--raw`), to review against the
/// overlay: `protocol<TAB>profile<TAB>name<TAB>rules or !error`.
pub fn raw(s: &Sources) -> Result<String, String> {
    let mut out = String::new();
    for p in protocols(s) {
        for (profile, path) in &p.profiles {
            let schema = read_json(path)?;
            let d = &all_defs(&schema);
            let tr = Tr::new(d, p.methods == Methods::Consts);
            for name in d.keys() {
                let body = tr.def(name).unwrap_or_else(|e| format!("!{e}"));
                out += &format!("{}\t{profile}\t{name}\t{body}\n", p.name);
                if let Some(params) = d[name].get("properties").and_then(|p| p.get("params")) {
                    let body = tr.ty(params).unwrap_or_else(|e| format!("!{e}"));
                    out += &format!("{}\t{profile}\t{name}.params\t{body}\n", p.name);
                }
            }
        }
    }
    Ok(out)
}
