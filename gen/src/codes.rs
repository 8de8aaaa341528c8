//! One error-code table for Rust and JS: the codes the schemas name (JSON-RPC's standard
//! ones and ACP's in ACP's `ErrorCode`, MCP's error definitions with a constant `code`) and
//! the overlay's (`gen/codes.overlay`: agentwire's own codes, older names).

use super::{defs, read_json, Sources, COMMAND};
use serde_json::Value;
use std::fmt::Write;

pub const OVERLAY: &str = "gen/codes.overlay";
const SOURCES: &str = "ACP ErrorCode (acp-sdk-v2 schema/v1, v2; ../shared/spec/acp/v1, v2), MCP *Error definitions (../shared/spec/mcp/*/schema.json), gen/codes.overlay";

struct Code {
    name: String,
    code: i64,
    /// Where it comes from (schema titles, definition names) or the overlay's text.
    doc: Vec<String>,
}

/// `Method not found` → `METHOD_NOT_FOUND`; `URLElicitationRequired` → `URL_ELICITATION_REQUIRED`.
fn constant_name(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        let boundary = i > 0
            && c.is_ascii_uppercase()
            && (chars[i - 1].is_ascii_lowercase()
                || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())
                    && chars[i - 1].is_ascii_uppercase());
        if boundary && !out.ends_with('_') {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out.trim_matches('_').to_string()
}

fn add(table: &mut Vec<Code>, name: String, code: i64, doc: String) -> Result<(), String> {
    if let Some(c) = table.iter_mut().find(|c| c.name == name) {
        if c.code != code {
            return Err(format!("{name} is {} and {code}", c.code));
        }
        if !c.doc.contains(&doc) {
            c.doc.push(doc);
        }
        return Ok(());
    }
    // A code the schemas name twice keeps its first name (JSON-RPC's, as ACP spells it).
    if let Some(c) = table.iter_mut().find(|c| c.code == code) {
        if !c.doc.contains(&doc) {
            c.doc.push(doc);
        }
        return Ok(());
    }
    table.push(Code {
        name,
        code,
        doc: vec![doc],
    });
    Ok(())
}

/// A definition's constant error code: `{code: {const}}` or `{error: {allOf: [.., {code: {const}}]}}`.
fn const_code(def: &Value) -> Option<i64> {
    let code = |v: &Value| v.pointer("/properties/code/const").and_then(Value::as_i64);
    code(def).or_else(|| {
        let e = def.pointer("/properties/error")?;
        code(e).or_else(|| e.get("allOf")?.as_array()?.iter().find_map(code))
    })
}

fn table(s: &Sources) -> Result<Vec<Code>, String> {
    let mut t = Vec::new();
    let acp = [
        ("ACP v1", s.acp_sdk.join("v1/schema.unstable.json")),
        ("ACP v2", s.acp_sdk.join("v2/schema.unstable.json")),
        ("ACP v1", s.spec("acp/v1/schema.unstable.json")),
        ("ACP v2", s.spec("acp/v2/schema.unstable.json")),
    ];
    for (label, path) in acp {
        if !path.is_file() {
            continue;
        }
        let schema = read_json(&path)?;
        let variants = defs(&schema)
            .get("ErrorCode")
            .and_then(|e| e.get("anyOf"))
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{}: no ErrorCode", path.display()))?;
        for v in variants {
            let (Some(code), Some(title)) = (
                v.get("const").and_then(Value::as_i64),
                v.get("title").and_then(Value::as_str),
            ) else {
                continue;
            };
            add(
                &mut t,
                constant_name(title),
                code,
                format!("{title} ({label} `ErrorCode`)"),
            )?;
        }
    }
    for version in s.mcp_versions() {
        let schema = read_json(&s.spec(&format!("mcp/{version}/schema.json")))?;
        for (name, def) in defs(&schema) {
            let Some(code) = const_code(def) else {
                continue;
            };
            let Some(stem) = name.strip_suffix("Error") else {
                continue;
            };
            add(
                &mut t,
                constant_name(stem),
                code,
                format!("MCP {version} `{name}`"),
            )?;
        }
    }
    let overlay =
        std::fs::read_to_string(s.root.join(OVERLAY)).map_err(|e| format!("{OVERLAY}: {e}"))?;
    for (no, line) in overlay.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.splitn(3, ' ');
        let (Some(name), Some(code), doc) =
            (f.next(), f.next().and_then(|c| c.parse().ok()), f.next())
        else {
            return Err(format!(
                "{OVERLAY} line {}: expected `NAME CODE description`",
                no + 1
            ));
        };
        if t.iter().any(|c| c.name == name) {
            return Err(format!(
                "{OVERLAY} line {}: {name} is named by the schemas",
                no + 1
            ));
        }
        t.push(Code {
            name: name.into(),
            code,
            doc: vec![doc.unwrap_or("").trim().into()],
        });
    }
    Ok(t)
}

/// The doc of a code: its sources merged ("Parse error (ACP v1 `ErrorCode`, ACP v2 …, MCP 2026-07-28 `ParseError`)").
fn doc(c: &Code) -> String {
    let mut title = None;
    let mut from = Vec::new();
    for d in &c.doc {
        match d.split_once(" (") {
            Some((t, rest)) if rest.ends_with(')') => {
                title.get_or_insert(t);
                from.push(rest.trim_end_matches(')').to_string());
            }
            _ if d.starts_with("MCP ") => from.push(d.clone()),
            _ => return d.clone(),
        }
    }
    from.dedup();
    match title {
        Some(t) => format!("{t}: {}.", from.join(", ")),
        None => format!("{}.", from.join(", ")),
    }
}

pub fn generate(s: &Sources) -> Result<Vec<(String, String)>, String> {
    let t = table(s)?;
    let mut rs = format!("// @generated by `{COMMAND}` from {SOURCES}. Do not edit.\n");
    rs += "//! Error codes named by JSON-RPC 2.0 and by the protocols built on it, as their schemas\n";
    rs += "//! name them, and agentwire's own (`gen/codes.overlay`). The same table is `codes` in JS\n";
    rs += "//! (`js/codes.js`).\n";
    let mut js = format!("// @generated by `{COMMAND}` from {SOURCES}. Do not edit.\n");
    js += "// Error codes named by JSON-RPC 2.0 and by the protocols built on it, and agentwire's own:\n";
    js += "// the table of `codes` in Rust (src/jsonrpc/codes.rs), re-exported by errors.js.\n\nexport const codes = Object.freeze({\n";
    for c in &t {
        let _ = write!(
            rs,
            "\n/// {}\npub const {}: i64 = {};\n",
            doc(c),
            c.name,
            c.code
        );
        let _ = writeln!(js, "  {}: {},", c.name, c.code);
    }
    js += "});\n";
    let mut ts = format!("// @generated by `{COMMAND}` from {SOURCES}. Do not edit.\n");
    ts += "/** Error codes named by JSON-RPC 2.0 and by the protocols built on it, and agentwire's own. */\n";
    ts += "export declare const codes: {\n";
    for c in &t {
        let _ = writeln!(ts, "  readonly {}: {};", c.name, c.code);
    }
    ts += "};\n";
    Ok(vec![
        ("src/jsonrpc/codes.rs".into(), rs),
        ("js/codes.js".into(), js),
        ("js/codes.d.ts".into(), ts),
    ])
}
