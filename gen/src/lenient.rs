//! Writes `src/acp/lenient_table.rs` from the ACP schemas the official SDK ships: where a
//! field is marked `x-deserialize-default-on-error` / `-default-on-null` and where a list is
//! marked `x-deserialize-skip-invalid-items`, with just enough of the schema's shape (members,
//! list items, unions and their tags) to find those places in a message. Part of
//! `cargo run -p agentwire-gen`; `tests/generated.rs` checks that the committed table is what
//! it writes.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use super::COMMAND;
/// The schemas, per ACP version, inside the SDK's `schema` folder.
pub const SOURCES: [(u16, &str); 2] = [
    (1, "v1/schema.unstable.json"),
    (2, "v2/schema.unstable.json"),
];

/// The schemas' text, from the SDK's `schema` folder.
pub fn read_sources(dir: &std::path::Path) -> Result<Vec<(u16, String)>, String> {
    SOURCES
        .iter()
        .map(|(v, p)| {
            std::fs::read_to_string(dir.join(p))
                .map(|t| (*v, t))
                .map_err(|e| format!("{}: {e}", dir.join(p).display()))
        })
        .collect()
}

const DEFAULT_ON_ERROR: u8 = 1;
const DEFAULT_ON_NULL: u8 = 2;
const SKIP_INVALID_ITEMS: u8 = 4;
const NONE: usize = usize::MAX;

#[derive(Default, Clone)]
struct Node {
    /// name → (flags, child node, default as JSON text).
    props: BTreeMap<String, (u8, usize, Option<String>)>,
    items: usize,
    /// (tag key, tag value, node); an empty key: tried in order (allOf parts, untagged unions).
    variants: Vec<(String, String, usize)>,
}

struct Builder<'a> {
    defs: &'a Map<String, Value>,
    nodes: Vec<Node>,
    by_def: HashMap<String, usize>,
}

impl Builder<'_> {
    fn def(&mut self, name: &str) -> usize {
        if let Some(&i) = self.by_def.get(name) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(Node {
            items: NONE,
            ..Node::default()
        });
        self.by_def.insert(name.to_owned(), i);
        let schema = self.defs.get(name).cloned().unwrap_or(Value::Null);
        let node = self.build(&schema);
        self.nodes[i] = node;
        i
    }

    fn node(&mut self, schema: &Value) -> usize {
        if let Some(name) = ref_name(schema) {
            return self.def(name);
        }
        let node = self.build(schema);
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn build(&mut self, schema: &Value) -> Node {
        let mut node = Node {
            items: NONE,
            ..Node::default()
        };
        let Some(obj) = schema.as_object() else {
            return node;
        };
        if let Some(name) = ref_name(schema) {
            node.variants
                .push((String::new(), String::new(), self.def(name)));
        }
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (name, p) in props {
                let flag = |k: &str| p.get(k) == Some(&Value::Bool(true));
                let flags = if flag("x-deserialize-default-on-error") {
                    DEFAULT_ON_ERROR
                } else {
                    0
                } | if flag("x-deserialize-default-on-null") {
                    DEFAULT_ON_NULL
                } else {
                    0
                } | if flag("x-deserialize-skip-invalid-items") {
                    SKIP_INVALID_ITEMS
                } else {
                    0
                };
                // As the SDK falls back: the schema's default; a required list, or one read item
                // by item that may not be null, is empty; `null` becomes the type's empty value
                // where only default-on-null is marked; else left out.
                let is = |t: &str| {
                    p.get("type").is_some_and(|ty| {
                        ty == t || ty.as_array().is_some_and(|a| a.iter().any(|x| x == t))
                    })
                };
                let default = p
                    .get("default")
                    .map(Value::to_string)
                    .or_else(|| match flags {
                        0 => None,
                        // A list that may be null is left out (`Option<Vec>` becomes `None`).
                        _ if required.contains(&name.as_str()) => Some("[]".to_owned()),
                        f if f & SKIP_INVALID_ITEMS != 0 && !is("null") => Some("[]".to_owned()),
                        f if f & DEFAULT_ON_NULL != 0 && is("array") => Some("[]".to_owned()),
                        f if f & DEFAULT_ON_NULL != 0 && is("object") => Some("{}".to_owned()),
                        _ => None,
                    });
                let child = self.node(p);
                node.props.insert(name.clone(), (flags, child, default));
            }
        }
        if let Some(items) = obj.get("items") {
            node.items = self.node(items);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            for v in obj.get(key).and_then(Value::as_array).into_iter().flatten() {
                let (tag, value) = self.discriminator(v).unwrap_or_default();
                let child = self.node(v);
                node.variants.push((tag, value, child));
            }
        }
        node
    }

    /// The member whose constant string value tells this alternative apart, if it has one.
    fn discriminator(&self, v: &Value) -> Option<(String, String)> {
        let v = match ref_name(v) {
            Some(name) => self.defs.get(name)?,
            None => v,
        };
        let props = v.get("properties")?.as_object()?;
        props
            .iter()
            .find_map(|(k, p)| Some((k.clone(), p.get("const")?.as_str()?.to_owned())))
    }

    /// Whether a node leads to an annotation; prunes what does not.
    fn useful(&self) -> Vec<bool> {
        let mut useful = vec![false; self.nodes.len()];
        loop {
            let mut changed = false;
            for (i, n) in self.nodes.iter().enumerate() {
                if useful[i] {
                    continue;
                }
                let on = |c: usize| c != NONE && useful[c];
                let u = n.props.values().any(|(f, c, _)| *f != 0 || on(*c))
                    || on(n.items)
                    || n.variants.iter().any(|(_, _, c)| on(*c));
                if u {
                    useful[i] = true;
                    changed = true;
                }
            }
            if !changed {
                return useful;
            }
        }
    }
}

fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// The table's Rust text from the schemas' text, per version.
pub fn generate(schemas: &[(u16, String)]) -> Result<String, String> {
    let mut out = String::new();
    let mut roots = Vec::new();
    let mut all: Vec<Node> = Vec::new();
    let mut counts = BTreeMap::new();
    for (version, text) in schemas {
        let schema: Value = serde_json::from_str(text).map_err(|e| format!("v{version}: {e}"))?;
        let defs = schema
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or(format!("v{version}: no $defs"))?;
        for key in [
            "x-deserialize-default-on-error",
            "x-deserialize-default-on-null",
            "x-deserialize-skip-invalid-items",
        ] {
            *counts.entry((*version, key)).or_insert(0) +=
                text.matches(&format!("\"{key}\"")).count();
        }
        let mut b = Builder {
            defs,
            nodes: Vec::new(),
            by_def: HashMap::new(),
        };
        let mut methods = Vec::new();
        for (name, def) in defs {
            let (Some(method), Some(side)) = (
                def.get("x-method").and_then(Value::as_str),
                def.get("x-side").and_then(Value::as_str),
            ) else {
                continue;
            };
            if side == "proxy" {
                continue;
            }
            let part = if name.ends_with("Response") {
                "Result"
            } else {
                "Params"
            };
            methods.push((method.to_owned(), part, b.def(name)));
        }
        let useful = b.useful();
        // No member or item that leads anywhere.
        let bare = |n: &Node| {
            n.props
                .values()
                .all(|(f, c, _)| *f == 0 && (*c == NONE || !useful[*c]))
                && (n.items == NONE || !useful[n.items])
        };
        // Renumber the useful nodes after those of the earlier versions.
        let base = all.len();
        let mut index = vec![NONE; b.nodes.len()];
        let mut n = 0;
        let mut kept = vec![false; b.nodes.len()];
        for (i, u) in useful.iter().enumerate() {
            let n_ = &b.nodes[i];
            let forwards = bare(n_)
                && n_.variants.iter().filter(|v| useful[v.2]).count() == 1
                && n_.variants.iter().any(|v| useful[v.2] && v.0.is_empty());
            if *u && !forwards {
                index[i] = base + n;
                kept[i] = true;
                n += 1;
            }
        }
        // A node that only forwards to another (`allOf: [$ref]`, `anyOf: [$ref, null]`) is that one.
        let forward = |mut c: usize| {
            for _ in 0..64 {
                match &b.nodes[c] {
                    n if bare(n) && n.variants.iter().filter(|v| useful[v.2]).count() == 1 => {
                        let (tag, _, next) = n.variants.iter().find(|v| useful[v.2]).expect("one");
                        if !tag.is_empty() {
                            break;
                        }
                        c = *next;
                    }
                    _ => break,
                }
            }
            c
        };
        let map = |c: usize| {
            if c == NONE || !useful[c] {
                NONE
            } else {
                index[forward(c)]
            }
        };
        for (i, node) in b.nodes.iter().enumerate() {
            if !kept[i] {
                continue;
            }
            let props = node
                .props
                .iter()
                .filter(|(_, (f, c, _))| *f != 0 || map(*c) != NONE)
                .map(|(k, (f, c, d))| (k.clone(), (*f, map(*c), d.clone())))
                .collect();
            let variants = node
                .variants
                .iter()
                .filter(|(_, _, c)| map(*c) != NONE)
                .map(|(k, v, c)| (k.clone(), v.clone(), map(*c)))
                .collect();
            all.push(Node {
                props,
                items: map(node.items),
                variants,
            });
        }
        methods.sort();
        for (method, part, i) in methods {
            if map(i) != NONE {
                roots.push((*version, method, part, map(i)));
            }
        }
    }
    // Identical nodes (`{_meta}` alone, say) are one: merged until nothing changes.
    let mut rep: Vec<usize> = (0..all.len()).collect();
    loop {
        let r = |c: usize| if c == NONE { NONE } else { rep[c] };
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut next = rep.clone();
        for (i, n) in all.iter().enumerate() {
            if rep[i] != i {
                continue;
            }
            let key = format!(
                "{:?}",
                (
                    n.props
                        .iter()
                        .map(|(k, (f, c, d))| (k, f, r(*c), d))
                        .collect::<Vec<_>>(),
                    r(n.items),
                    n.variants
                        .iter()
                        .map(|(k, v, c)| (k, v, r(*c)))
                        .collect::<Vec<_>>()
                )
            );
            let first = *seen.entry(key).or_insert(i);
            next[i] = first;
        }
        for i in 0..next.len() {
            next[i] = next[next[i]];
        }
        if next == rep {
            break;
        }
        rep = next;
    }
    let mut number = vec![NONE; all.len()];
    let mut kept = Vec::new();
    for i in 0..all.len() {
        if rep[i] == i {
            number[i] = kept.len();
            kept.push(i);
        }
    }
    let at = |c: usize| {
        if c == NONE {
            "-".to_owned()
        } else {
            number[rep[c]].to_string()
        }
    };
    let mut defaults: Vec<String> = Vec::new();
    let _ = writeln!(
        out,
        "// @generated by `{COMMAND}` from the ACP schemas of the official SDK 2.4.0"
    );
    let _ = writeln!(
        out,
        "// (package.json's `acp-sdk-v2`, schema/{}).",
        SOURCES
            .iter()
            .map(|(_, p)| *p)
            .collect::<Vec<_>>()
            .join(", schema/")
    );
    let _ = writeln!(out, "// Do not edit: run the command again. `tests/generated.rs` fails when this differs from what it writes.");
    let _ = writeln!(out, "// Annotations read:");
    for ((v, key), n) in &counts {
        let _ = writeln!(out, "//   v{v} {key}: {n}");
    }
    let _ = writeln!(out, "\n/// Where a message of each method starts, one a line: `version method params|result node`.");
    let _ = writeln!(out, "pub(super) const ROOTS: &str = \"\\");
    for (v, m, part, i) in &roots {
        let _ = writeln!(
            out,
            "{v} {m} {} {}\\n\\",
            if *part == "Result" {
                "result"
            } else {
                "params"
            },
            at(*i)
        );
    }
    let _ = writeln!(out, "\";\n");
    let _ = writeln!(
        out,
        "/// One node a line: `members|items|alternatives`. A member is `name:flags:node:default`"
    );
    let _ = writeln!(out, "/// (flags: 1 default-on-error, 2 default-on-null, 4 skip-invalid-items; `-` none; the default");
    let _ = writeln!(out, "/// an index into DEFAULTS); an alternative `tag=value:node` (an empty tag: tried in order).");
    let _ = writeln!(out, "/// Text, read where it stands each time a repair is looked for: a third of the size of Rust tables in the .wasm.");
    let _ = writeln!(out, "pub(super) const NODES: &str = \"\\");
    for &i in &kept {
        let n = &all[i];
        let props: Vec<String> = n
            .props
            .iter()
            .map(|(k, (f, c, d))| {
                let d = match d {
                    None => "-".to_owned(),
                    Some(d) => match defaults.iter().position(|x| x == d) {
                        Some(p) => p.to_string(),
                        None => {
                            defaults.push(d.clone());
                            (defaults.len() - 1).to_string()
                        }
                    },
                };
                format!("{k}:{f}:{}:{d}", at(*c))
            })
            .collect();
        let variants: Vec<String> = n
            .variants
            .iter()
            .map(|(k, v, c)| format!("{k}={v}:{}", at(*c)))
            .collect();
        let _ = writeln!(
            out,
            "{}|{}|{}\\n\\",
            props.join(" "),
            at(n.items),
            variants.join(" ")
        );
    }
    let _ = writeln!(out, "\";\n");
    let _ = writeln!(out, "/// The values defaulted members take (JSON).");
    let _ = writeln!(out, "pub(super) const DEFAULTS: &[&str] = &[");
    for d in &defaults {
        let _ = writeln!(out, "    {d:?},");
    }
    let _ = writeln!(out, "];");
    Ok(out)
}
