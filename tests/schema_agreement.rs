#![cfg(not(target_arch = "wasm32"))]
//! The proof: our validator and an independent JSON Schema validator (the `jsonschema`
//! crate, on the official schema files in ../shared) give the same verdict on a corpus of
//! every seed vector, valid messages generated for every method of every version (minimal
//! and full, each alternative of each union), and systematic mutations of those. Prints
//! per protocol and version the messages checked and the disagreements; the only accepted
//! disagreements are the tolerated deviations of docs/validation.md.

mod common;

use agentwire::schema::{validate_value, Context, Direction, Limits, Protocol};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// One official schema file and how our rules name its version.
struct Source {
    protocol: Protocol,
    version: &'static str,
    file: &'static str,
    /// Only these methods (the rest resolve to a newer file of the same version).
    only_missing_from: Option<&'static str>,
}

const SOURCES: &[Source] = &[
    Source {
        protocol: Protocol::Acp,
        version: "1",
        file: "spec/acp/npm-sdk-2.4.0/v1/schema.unstable.json",
        only_missing_from: None,
    },
    Source {
        protocol: Protocol::Acp,
        version: "1",
        file: "spec/acp/v1/schema.unstable.json",
        only_missing_from: Some("spec/acp/npm-sdk-2.4.0/v1/schema.unstable.json"),
    },
    Source {
        protocol: Protocol::Acp,
        version: "2",
        file: "spec/acp/npm-sdk-2.4.0/v2/schema.unstable.json",
        only_missing_from: None,
    },
    Source {
        protocol: Protocol::Acp,
        version: "2",
        file: "spec/acp/v2/schema.unstable.json",
        only_missing_from: Some("spec/acp/npm-sdk-2.4.0/v2/schema.unstable.json"),
    },
    Source {
        protocol: Protocol::Mcp,
        version: "2024-11-05",
        file: "spec/mcp/2024-11-05/schema.json",
        only_missing_from: None,
    },
    Source {
        protocol: Protocol::Mcp,
        version: "2025-03-26",
        file: "spec/mcp/2025-03-26/schema.json",
        only_missing_from: None,
    },
    Source {
        protocol: Protocol::Mcp,
        version: "2025-06-18",
        file: "spec/mcp/2025-06-18/schema.json",
        only_missing_from: None,
    },
    Source {
        protocol: Protocol::Mcp,
        version: "2025-11-25",
        file: "spec/mcp/2025-11-25/schema.json",
        only_missing_from: None,
    },
    Source {
        protocol: Protocol::Mcp,
        version: "2026-07-28",
        file: "spec/mcp/2026-07-28/schema.json",
        only_missing_from: None,
    },
    Source {
        protocol: Protocol::Apps,
        version: "2026-01-26",
        file: APPS_SCHEMA,
        only_missing_from: None,
    },
];

/// MCP Apps: the schema the ext-apps package publishes (pinned in package.json).
const APPS_SCHEMA: &str =
    "node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json";

/// The generated corpus has no message with a style variable left out or both container
/// dimensions (its full host context fails the schema on the latter, so is not generated):
/// tests/apps_frames.rs checks those deviations.
const APPS_TOLERATED: usize = 0;

/// MCP Apps messages the Host sends (the schema does not say who sends what; the rest go
/// View → Host, the client side).
const APPS_FROM_HOST: &[&str] = &[
    "ui/resource-teardown",
    "ui/notifications/tool-input",
    "ui/notifications/tool-input-partial",
    "ui/notifications/tool-result",
    "ui/notifications/tool-cancelled",
    "ui/notifications/host-context-changed",
    "ui/notifications/sandbox-resource-ready",
];

/// What one method's messages look like in a schema file.
struct MethodDefs {
    method: String,
    dir: Direction,
    /// ACP: the params definition; MCP: the whole request/notification definition.
    call: String,
    result: Option<String>,
}

struct Schema {
    doc: Value,
    defs_key: &'static str,
    draft7: bool,
}

impl Schema {
    fn load(file: &str) -> Option<Schema> {
        let doc = if file.starts_with("node_modules/") {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
            // Each definition was written as a document of its own, `#` being itself: its
            // nested `$defs` (the JSON value type) are lifted beside it, where `#/$defs/…`
            // then finds them.
            let defs = doc["$defs"].as_object_mut()?;
            let nested: Vec<(String, Value)> = defs
                .values()
                .filter_map(|d| d["$defs"].as_object())
                .flat_map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())))
                .collect();
            for (k, v) in nested {
                defs.entry(k).or_insert(v);
            }
            doc
        } else {
            common::oracle_json(file)?
        };
        let draft7 = doc["$schema"].as_str().unwrap_or("").contains("draft-07");
        let defs_key = if doc.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        Some(Schema {
            doc,
            defs_key,
            draft7,
        })
    }
    fn defs(&self) -> &Map<String, Value> {
        self.doc[self.defs_key].as_object().expect("definitions")
    }
    fn resolve<'a>(&'a self, s: &'a Value) -> &'a Value {
        let mut s = s;
        for _ in 0..32 {
            match s.get("$ref").and_then(Value::as_str) {
                Some(r) => s = &self.defs()[r.rsplit('/').next().unwrap_or("")],
                None => break,
            }
        }
        s
    }
    /// The independent judge for one definition.
    fn judge(&self, def: &str) -> jsonschema::Validator {
        let mut root = Map::new();
        root.insert("$schema".into(), self.doc["$schema"].clone());
        root.insert("$ref".into(), json!(format!("#/{}/{def}", self.defs_key)));
        root.insert(self.defs_key.into(), self.doc[self.defs_key].clone());
        let draft = if self.draft7 {
            jsonschema::Draft::Draft7
        } else {
            jsonschema::Draft::Draft202012
        };
        jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .unwrap_or_else(|e| panic!("{def}: {e}"))
    }

    fn methods(&self, protocol: Protocol) -> Vec<MethodDefs> {
        let defs = self.defs();
        let mut out = Vec::new();
        if protocol == Protocol::Acp {
            let mut by: std::collections::BTreeMap<(String, String), Vec<String>> =
                Default::default();
            for (name, d) in defs {
                if let (Some(m), Some(side)) = (d["x-method"].as_str(), d["x-side"].as_str()) {
                    by.entry((m.into(), side.into()))
                        .or_default()
                        .push(name.clone());
                }
            }
            for ((method, side), names) in by {
                let dir = if side == "client" {
                    Direction::ServerToClient
                } else {
                    Direction::ClientToServer
                };
                let result = names.iter().find(|n| n.ends_with("Response")).cloned();
                for call in names.iter().filter(|n| !n.ends_with("Response")) {
                    let result = if call.ends_with("Request") {
                        result.clone()
                    } else {
                        None
                    };
                    out.push(MethodDefs {
                        method: method.clone(),
                        dir,
                        call: call.clone(),
                        result,
                    });
                }
            }
            return out;
        }
        if protocol == Protocol::Apps {
            for (call, d) in defs {
                let Some(method) = d["properties"]["method"]["const"].as_str() else {
                    continue;
                };
                let dir = if APPS_FROM_HOST.contains(&method) {
                    Direction::ServerToClient
                } else {
                    Direction::ClientToServer
                };
                // A request without a result definition: its result is not checked (empty).
                let result = call.strip_suffix("Request").map(|base| {
                    let r = format!("{base}Result");
                    if defs.contains_key(&r) {
                        r
                    } else {
                        String::new()
                    }
                });
                out.push(MethodDefs {
                    method: method.to_string(),
                    dir,
                    call: call.clone(),
                    result,
                });
            }
            return out;
        }
        let list = |n: &str| -> Vec<String> {
            let d = &defs.get(n).cloned().unwrap_or(Value::Null);
            let refs = d["anyOf"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![d.clone()]);
            refs.iter()
                .filter_map(|r| {
                    r["$ref"]
                        .as_str()
                        .map(|s| s.rsplit('/').next().unwrap_or("").to_string())
                })
                .collect()
        };
        for (group, dir) in [
            ("ClientRequest", Direction::ClientToServer),
            ("ClientNotification", Direction::ClientToServer),
            ("ServerRequest", Direction::ServerToClient),
            ("ServerNotification", Direction::ServerToClient),
        ] {
            for call in list(group) {
                let method = defs[&call]["properties"]["method"]["const"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                let result = call.strip_suffix("Request").map(|base| {
                    if defs.contains_key(&format!("{base}ResultResponse")) {
                        format!("{base}ResultResponse#result")
                    } else if defs.contains_key(&format!("{base}Result")) {
                        format!("{base}Result")
                    } else if defs.contains_key("EmptyResult") {
                        "EmptyResult".into()
                    } else {
                        "Result".into()
                    }
                });
                out.push(MethodDefs {
                    method,
                    dir,
                    call,
                    result,
                });
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Instance generator: valid values from a schema; `full` fills optional members, `pick`
// chooses the alternative of every union (so each alternative is generated for some pick).

struct Gen<'a> {
    schema: &'a Schema,
    full: bool,
    pick: usize,
}

impl Gen<'_> {
    fn value(&self, s: &Value, depth: usize) -> Value {
        let s = self.schema.resolve(s);
        if let Some(c) = s.get("const") {
            return c.clone();
        }
        if let Some(e) = s["enum"].as_array() {
            return e[self.pick % e.len()].clone();
        }
        let mut parts: Vec<Value> = Vec::new();
        if let Some(all) = s["allOf"].as_array() {
            parts.extend(all.iter().map(|x| self.value(x, depth + 1)));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(alts) = s[key].as_array() {
                let usable: Vec<&Value> = alts
                    .iter()
                    .filter(|a| self.schema.resolve(a)["type"] != "null")
                    .collect();
                let alts: Vec<&Value> = if usable.is_empty() {
                    alts.iter().collect()
                } else {
                    usable
                };
                let deep = depth > 6;
                let choice = if deep {
                    alts[0]
                } else {
                    alts[(self.pick + depth) % alts.len()]
                };
                parts.push(self.value(choice, depth + 1));
            }
        }
        let own = self.own(s, depth);
        let mut out = own;
        for p in parts {
            out = merge(out, p);
        }
        out.unwrap_or(json!("x"))
    }

    /// The value the schema's own keywords (type, properties, items…) describe.
    fn own(&self, s: &Value, depth: usize) -> Option<Value> {
        let types: Vec<&str> = match &s["type"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ if s.get("properties").is_some() || s.get("required").is_some() => vec!["object"],
            _ if s.get("items").is_some() => vec!["array"],
            _ => return None,
        };
        let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        let t = if non_null.is_empty() || (self.pick % 5 == 4 && types.contains(&"null")) {
            "null"
        } else {
            non_null[self.pick % non_null.len()]
        };
        Some(match t {
            "null" => Value::Null,
            "boolean" => json!(true),
            "integer" | "number" => {
                let lo = s["minimum"].as_f64();
                let hi = s["maximum"].as_f64();
                let v = lo
                    .unwrap_or(0.0)
                    .max(hi.map_or(f64::MIN, |h| h.min(1.0)))
                    .max(lo.unwrap_or(f64::MIN));
                let v = if lo.is_none() && hi.is_none() { 1.0 } else { v };
                if t == "integer" || v.fract() == 0.0 {
                    json!(v as i64)
                } else {
                    json!(v)
                }
            }
            "string" => json!(self.string(s)),
            "array" => {
                let n = s["minItems"].as_u64().unwrap_or(0) as usize;
                let n = if self.full && depth < 6 { n.max(1) } else { n };
                let n = s["maxItems"].as_u64().map_or(n, |m| n.min(m as usize));
                let item = s.get("items").cloned().unwrap_or(json!({}));
                Value::Array(
                    (0..n)
                        .map(|i| {
                            Gen {
                                pick: self.pick + i,
                                ..*self
                            }
                            .value(&item, depth + 1)
                        })
                        .collect(),
                )
            }
            "object" => {
                let mut o = Map::new();
                let required: Vec<&str> = s["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(props) = s["properties"].as_object() {
                    for (k, v) in props {
                        if required.contains(&k.as_str()) || (self.full && depth < 5) {
                            o.insert(k.clone(), self.value(v, depth + 1));
                        }
                    }
                }
                for k in required {
                    o.entry(k.to_string()).or_insert(json!("x"));
                }
                if let Some(ap) = s
                    .get("additionalProperties")
                    .filter(|a| a.is_object() && self.full && depth < 5)
                {
                    o.insert("extraKey".into(), self.value(ap, depth + 1));
                }
                Value::Object(o)
            }
            _ => json!("x"),
        })
    }

    fn string(&self, s: &Value) -> String {
        if let Some(p) = s["pattern"].as_str() {
            return if p == "^[A-Z]{3}$" {
                "USD".into()
            } else {
                "x".into()
            };
        }
        let base = match s["format"].as_str() {
            Some("uri") => "https://example.com/a",
            Some("uri-template") => "file:///{path}",
            Some("date-time") => "2025-01-02T03:04:05Z",
            Some("date") => "2025-01-02",
            Some("email") => "a@example.com",
            Some("byte") => "aGk=",
            Some("regex") => "^a+$",
            _ => "/abs/path",
        };
        let min = s["minLength"].as_u64().unwrap_or(0) as usize;
        let mut out = base.to_string();
        while out.chars().count() < min {
            out.push('x');
        }
        out
    }
}

fn merge(a: Option<Value>, b: Value) -> Option<Value> {
    Some(match (a, b) {
        (None, b) => b,
        (Some(Value::Object(mut x)), Value::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(old) => merge(Some(old), v).unwrap_or(Value::Null),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Object(x)
        }
        // Constants win over generated placeholders.
        (Some(a), b) => {
            if a == json!("x") || a == json!("/abs/path") {
                b
            } else {
                a
            }
        }
    })
}

// ---------------------------------------------------------------------------------------
// Mutations, each at one place inside the part under test.

fn mutations(v: &Value, out: &mut Vec<Value>, tags: &[&str]) {
    fn walk(root: &Value, path: &mut Vec<String>, at: &Value, out: &mut Vec<Value>, tags: &[&str]) {
        let mut put = |f: &dyn Fn(&mut Value)| {
            let mut copy = root.clone();
            if let Some(t) = pointer_mut(&mut copy, path) {
                f(t);
                out.push(copy);
            }
        };
        match at {
            Value::Object(o) => {
                put(&|t| {
                    if let Value::Object(m) = t {
                        m.insert("zzExtra".into(), json!(1));
                    }
                });
                for k in o.keys() {
                    let k2 = k.clone();
                    put(&move |t| {
                        if let Value::Object(m) = t {
                            m.remove(&k2);
                        }
                    });
                }
                if let Some(Value::String(ty)) = o.get("type") {
                    for tag in tags.iter().filter(|t| **t != ty) {
                        put(&|t| t["type"] = json!(tag));
                    }
                }
            }
            Value::Array(a) if !a.is_empty() => {
                put(&|t| *t = json!([]));
                put(&|t| t[0] = json!(17));
            }
            _ => {}
        }
        put(&|t| {
            *t = match t {
                Value::String(_) => json!(12),
                Value::Null => json!("x"),
                _ => json!("zz_unknown_value"),
            }
        });
        if let Value::String(_) = at {
            put(&|t| *t = json!("zz_unknown_value"));
        }
        if let Value::Number(_) = at {
            put(&|t| *t = json!(-1));
            put(&|t| *t = json!(1.5));
        }
        match at {
            Value::Object(o) => {
                for (k, v) in o {
                    path.push(k.clone());
                    walk(root, path, v, out, tags);
                    path.pop();
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    path.push(i.to_string());
                    walk(root, path, v, out, tags);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    walk(v, &mut Vec::new(), v, out, tags);
}

fn pointer_mut<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match cur {
            Value::Object(o) => o.get_mut(seg)?,
            Value::Array(a) => a.get_mut(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// The instances (valid by the judge) and mutations of one definition.
fn corpus(
    schema: &Schema,
    def_schema: &Value,
    judge: &jsonschema::Validator,
) -> (Vec<Value>, usize) {
    let mut seen = BTreeSet::new();
    let mut base = Vec::new();
    let mut misses = 0;
    for full in [false, true] {
        for pick in 0..24 {
            let v = Gen { schema, full, pick }.value(def_schema, 0);
            if seen.insert(v.to_string()) {
                if judge.is_valid(&v) {
                    base.push(v);
                } else {
                    misses += 1;
                }
            }
        }
    }
    let tags = [
        "text",
        "image",
        "resource_link",
        "diff",
        "terminal",
        "zz_kind",
    ];
    let mut all = base.clone();
    for b in &base {
        let mut m = Vec::new();
        mutations(b, &mut m, &tags);
        for v in m {
            if seen.insert(v.to_string()) {
                all.push(v);
            }
        }
    }
    (all, misses)
}

#[derive(Default)]
struct Tally {
    checked: usize,
    disagreements: Vec<String>,
    /// Official "invalid", ours "valid with a `tolerated` warning": docs/validation.md.
    tolerated: Vec<String>,
    /// Official "valid", ours "invalid" only by ACP's rules the schema cannot say (an
    /// absolute `cwd`, the seeds' MCP server entries): docs/validation.md.
    beyond: Vec<String>,
    misses: usize,
}

impl Tally {
    fn compare(
        &mut self,
        label: &str,
        theirs: bool,
        ours: (bool, Vec<agentwire::schema::Issue>),
        msg: &Value,
    ) {
        self.checked += 1;
        if theirs == ours.0 {
            return;
        }
        let tolerated = ours.0 && ours.1.iter().any(|i| i.code == "tolerated");
        let errors = || {
            ours.1
                .iter()
                .filter(|i| i.severity == agentwire::schema::Severity::Error)
        };
        if theirs && errors().count() > 0 && errors().all(|i| i.code.starts_with("acp.")) {
            self.beyond.push(format!("{label}: {msg}"));
            return;
        }
        let issues: Vec<String> = ours
            .1
            .iter()
            .map(|i| format!("{} {} {}", i.path, i.code, i.message))
            .collect();
        let line = format!(
            "{label}: official {theirs}, ours {} {issues:?}\n    {msg}",
            ours.0
        );
        if tolerated {
            self.tolerated.push(line);
        } else {
            self.disagreements.push(line);
        }
    }
}

fn check_source(src: &Source, tally: &mut Tally) -> Option<()> {
    let schema = Schema::load(src.file)?;
    let skip: BTreeSet<String> = match src.only_missing_from {
        Some(newer) => Schema::load(newer)?
            .methods(src.protocol)
            .into_iter()
            .map(|m| m.method)
            .collect(),
        None => BTreeSet::new(),
    };
    let limits = Limits::default();
    let verdict = |msg: &Value, dir: Direction, in_reply_to: Option<&str>| {
        let ctx = Context {
            protocol: src.protocol,
            version: src.version,
            direction: dir,
            in_reply_to,
        };
        let r = validate_value(msg, &ctx, &limits);
        (r.ok, r.issues)
    };
    for m in schema.methods(src.protocol) {
        if skip.contains(&m.method) {
            continue;
        }
        let back = if m.dir == Direction::ClientToServer {
            Direction::ServerToClient
        } else {
            Direction::ClientToServer
        };
        let is_request = m.result.is_some();
        // The call: ACP judges params; MCP the whole request (only params is mutated).
        let judge = schema.judge(&m.call);
        let def = schema.defs()[&m.call].clone();
        if src.protocol == Protocol::Acp {
            let (values, misses) = corpus(&schema, &def, &judge);
            tally.misses += misses;
            for p in values {
                let mut msg = json!({"jsonrpc": "2.0", "method": m.method, "params": p});
                if is_request {
                    msg["id"] = json!(1);
                }
                tally.compare(
                    &format!("{} params", m.method),
                    judge.is_valid(&p),
                    verdict(&msg, m.dir, None),
                    &msg,
                );
            }
        } else {
            let params_schema = def["properties"].get("params").cloned();
            let params_required = def["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!("params")));
            let mut envelope = json!({"jsonrpc": "2.0", "method": m.method});
            if is_request {
                envelope["id"] = json!(1);
            }
            let params_values = match &params_schema {
                Some(ps) => {
                    let pj = schema.judge_inline(ps);
                    let (v, misses) = corpus(&schema, ps, &pj);
                    tally.misses += misses;
                    v.into_iter().map(Some).collect()
                }
                None => vec![None],
            };
            let mut variants: Vec<Option<Value>> = params_values;
            if !params_required {
                variants.push(None);
            }
            for p in variants {
                let mut msg = envelope.clone();
                if let Some(p) = p {
                    msg["params"] = p;
                }
                tally.compare(
                    &format!("{} call", m.method),
                    judge.is_valid(&bare(&msg, src.protocol)),
                    verdict(&msg, m.dir, None),
                    &msg,
                );
            }
            if params_required {
                let msg = envelope.clone();
                tally.compare(
                    &format!("{} without params", m.method),
                    judge.is_valid(&bare(&msg, src.protocol)),
                    verdict(&msg, m.dir, None),
                    &msg,
                );
            }
        }
        // The result.
        if let Some(result) = m.result.as_ref().filter(|r| !r.is_empty()) {
            let (judge, def) = match result.split_once('#') {
                Some((holder, member)) => {
                    let s = schema.defs()[holder]["properties"][member].clone();
                    (schema.judge_inline(&s), s)
                }
                None => (schema.judge(result), schema.defs()[result].clone()),
            };
            let (values, misses) = corpus(&schema, &def, &judge);
            tally.misses += misses;
            for r in values {
                let msg = json!({"jsonrpc": "2.0", "id": 1, "result": r});
                tally.compare(
                    &format!("{} result", m.method),
                    judge.is_valid(&r),
                    verdict(&msg, back, Some(&m.method)),
                    &msg,
                );
            }
        }
    }
    // Error objects (MCP Apps' schema leaves them to JSON-RPC).
    let error_def = if schema.defs().contains_key("Error") {
        schema.defs()["Error"].clone()
    } else if schema.defs().contains_key("JSONRPCError") {
        schema.defs()["JSONRPCError"]["properties"]["error"].clone()
    } else {
        return Some(());
    };
    let judge = schema.judge_inline(&error_def);
    let (values, _) = corpus(&schema, &error_def, &judge);
    for e in values {
        let msg = json!({"jsonrpc": "2.0", "id": 1, "error": e});
        tally.compare(
            "error",
            judge.is_valid(&e),
            verdict(&msg, Direction::ServerToClient, None),
            &msg,
        );
    }
    Some(())
}

/// The message as the official definition describes it: MCP Apps' definitions are the
/// method and params alone (closed objects), the JSON-RPC envelope left to JSON-RPC.
fn bare(msg: &Value, protocol: Protocol) -> Value {
    let mut m = msg.clone();
    if protocol == Protocol::Apps {
        if let Some(o) = m.as_object_mut() {
            o.remove("jsonrpc");
            o.remove("id");
        }
    }
    m
}

impl Schema {
    /// A judge for a schema fragment of this file (refs resolve into its definitions).
    fn judge_inline(&self, s: &Value) -> jsonschema::Validator {
        let mut root = s.as_object().cloned().unwrap_or_default();
        root.insert("$schema".into(), self.doc["$schema"].clone());
        root.insert(self.defs_key.into(), self.doc[self.defs_key].clone());
        let draft = if self.draft7 {
            jsonschema::Draft::Draft7
        } else {
            jsonschema::Draft::Draft202012
        };
        jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .expect("fragment compiles")
    }
}

/// The seed vectors of this source's version, each judged by the definition of its method.
fn check_seeds(src: &Source, tally: &mut Tally) -> Option<()> {
    if src.only_missing_from.is_some() {
        return Some(());
    }
    let schema = Schema::load(src.file)?;
    let methods = schema.methods(src.protocol);
    for v in common::seeds()? {
        let version = match &v["version"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let proto = if v["protocol"] == "acp" {
            Protocol::Acp
        } else {
            Protocol::Mcp
        };
        if proto != src.protocol || version != src.version || v["direction"] == "fragment" {
            continue;
        }
        let msg = &v["message"];
        let what = v["what"].as_str().unwrap_or("");
        let dir = if v["direction"].as_str().unwrap_or("").starts_with("client") {
            Direction::ClientToServer
        } else {
            Direction::ServerToClient
        };
        let method = msg["method"].as_str().map(String::from).or_else(|| {
            methods
                .iter()
                .map(|m| m.method.clone())
                .filter(|m| what.starts_with(m.as_str()))
                .max_by_key(String::len)
        })?;
        let ctx = Context {
            protocol: src.protocol,
            version: src.version,
            direction: dir,
            in_reply_to: Some(&method),
        };
        let ours = validate_value(msg, &ctx, &Limits::default());
        let m = methods.iter().find(|m| m.method == method)?;
        let theirs = if let Some(e) = msg.get("error") {
            let d =
                schema.defs().get("Error").cloned().unwrap_or_else(|| {
                    schema.defs()["JSONRPCError"]["properties"]["error"].clone()
                });
            schema.judge_inline(&d).is_valid(e)
        } else if let Some(r) = msg.get("result") {
            let result = m.result.as_deref()?;
            match result.split_once('#') {
                Some((holder, member)) => schema
                    .judge_inline(&schema.defs()[holder]["properties"][member])
                    .is_valid(r),
                None => schema.judge(result).is_valid(r),
            }
        } else if src.protocol == Protocol::Acp {
            schema.judge(&m.call).is_valid(&msg["params"])
        } else {
            schema.judge(&m.call).is_valid(msg)
        };
        tally.compare(
            &format!("seed {} {what}", v["seed"]),
            theirs,
            (ours.ok, ours.issues),
            msg,
        );
    }
    Some(())
}

#[test]
#[cfg_attr(
    not(acp_oracle),
    ignore = "needs the official ACP schemas: the acp-sdk-v2 package (npm ci) or ../shared"
)]
fn acp_agrees_with_the_official_schemas() {
    // Seeds 001 (v2 clientInfo/agentInfo for info) and 002 (session/load result null).
    let tolerated = if common::shared_dir().is_some() { 3 } else { 0 };
    agreement(Protocol::Acp, tolerated);
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official MCP schemas: ../shared or AGENTWIRE_SHARED"
)]
fn mcp_agrees_with_the_official_schemas() {
    // A fractional number as an elicitation answer (2025-06-18 and 2025-11-25 mutations): the
    // schema says integer, a form's number field (SEP-1034) gives any number.
    agreement(Protocol::Mcp, 2);
}

#[test]
fn mcp_apps_agrees_with_the_official_schemas() {
    agreement(Protocol::Apps, APPS_TOLERATED);
}

/// Every source of one protocol that is at hand (the package's or shared/), each message
/// of the generated corpus and the seeds judged by both validators.
fn agreement(protocol: Protocol, expected_tolerated: usize) {
    let mut total_disagreements = 0;
    let mut total_tolerated = 0;
    let mut total_beyond = 0;
    let mut total = 0;
    for src in SOURCES.iter().filter(|s| s.protocol == protocol) {
        let mut tally = Tally::default();
        if check_source(src, &mut tally).is_none() {
            println!(
                "{:?} {:<10} {:<48} not at hand (only in shared/)",
                src.protocol, src.version, src.file
            );
            continue;
        }
        if common::shared_dir().is_some() {
            check_seeds(src, &mut tally);
        }
        println!(
            "{:?} {:<10} {:<48} checked {:>6}  disagreements {:>3}  beyond the schema {:>3}  (generator misses {})",
            src.protocol,
            src.version,
            src.file,
            tally.checked,
            tally.disagreements.len(),
            tally.beyond.len(),
            tally.misses
        );
        for d in tally.disagreements.iter().take(8) {
            println!("  {d}");
        }
        for d in tally.tolerated.iter().take(8) {
            println!("  tolerated (docs/validation.md): {d}");
        }
        total += tally.checked;
        total_disagreements += tally.disagreements.len();
        total_tolerated += tally.tolerated.len();
        total_beyond += tally.beyond.len();
    }
    println!("total checked {total}, disagreements {total_disagreements}, tolerated deviations {total_tolerated}, refused by ACP's rules beyond the schema {total_beyond}");
    assert_eq!(
        total_tolerated, expected_tolerated,
        "the tolerated deviations are exactly the documented ones"
    );
    let least = if protocol == Protocol::Apps {
        500
    } else {
        10_000
    };
    assert!(total > least, "the corpus is too small: {total}");
    assert_eq!(total_disagreements, 0);
}
