//! The method tables of both protocols: who serves each method, request or notification, and
//! the versions that define it, read from the schemas; the capability that gates it and the
//! tables' order from `gen/methods.overlay`, the one thing the schemas do not say.

use super::{defs, read_json, Sources};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const OVERLAY: &str = "gen/methods.overlay";

/// One line of the overlay: protocol, method, the rest.
struct Line<'a> {
    no: usize,
    protocol: &'a str,
    method: &'a str,
    rest: Vec<&'a str>,
}

fn overlay(text: &str) -> Result<Vec<Line<'_>>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(protocol), Some(method)) = (words.next(), words.next()) else {
            return Err(format!("{OVERLAY}:{}: expected PROTOCOL METHOD ...", i + 1));
        };
        out.push(Line {
            no: i + 1,
            protocol,
            method,
            rest: words.collect(),
        });
    }
    Ok(out)
}

pub fn generate(s: &Sources) -> Result<Vec<(String, String)>, String> {
    let path = s.root.join(OVERLAY);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{OVERLAY}: {e}"))?;
    let lines = overlay(&text)?;
    Ok(vec![
        ("src/acp/methods/table.rs".to_string(), acp(s, &lines)?),
        ("src/mcp/methods/table.rs".to_string(), mcp(s, &lines)?),
    ])
}

fn err(l: &Line, what: &str) -> String {
    format!("{OVERLAY}:{}: {} {}: {what}", l.no, l.protocol, l.method)
}

/// Fails on a schema method the overlay leaves out or an overlay method the schemas lack.
fn same_sets(
    protocol: &str,
    schemas: BTreeSet<String>,
    listed: BTreeSet<String>,
) -> Result<(), String> {
    let missing: Vec<_> = schemas.difference(&listed).cloned().collect();
    let extra: Vec<_> = listed.difference(&schemas).cloned().collect();
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{OVERLAY}: {protocol} methods the schemas define and the overlay leaves out: {missing:?}; \
         named by the overlay and defined by no schema: {extra:?}"
    ))
}

// ---- ACP -----------------------------------------------------------------------------------

/// What the SDK schemas say about one ACP method.
#[derive(Default)]
struct AcpMethod {
    sides: BTreeSet<String>,
    request: bool,
    notification: bool,
    /// Per version (index 0 = v1): 0 none, 1 unstable, 2 stable.
    availability: [u8; 2],
}

fn acp(s: &Sources, lines: &[Line]) -> Result<String, String> {
    let mut found: BTreeMap<String, AcpMethod> = BTreeMap::new();
    // The SDK package's schemas and the specification's own (which has the newer unstable
    // methods the SDK does not ship yet), when present.
    let mut dirs = vec![s.acp_sdk.clone()];
    if s.spec("acp/v1/schema.unstable.json").is_file() {
        dirs.push(s.spec("acp"));
    }
    for (v, version) in ["v1", "v2"].into_iter().enumerate() {
        for (dir, (file, level)) in dirs
            .iter()
            .flat_map(|d| [("schema.unstable.json", 1u8), ("schema.json", 2)].map(|f| (d, f)))
        {
            let schema = read_json(&dir.join(version).join(file))?;
            for (name, def) in defs(&schema) {
                let (Some(Value::String(method)), Some(Value::String(side))) =
                    (def.get("x-method"), def.get("x-side"))
                else {
                    continue;
                };
                // `proxy/*` belongs to proxy chains, not to a client–agent connection.
                if side == "proxy" {
                    continue;
                }
                let m = found.entry(method.clone()).or_default();
                m.sides.insert(side.clone());
                m.request |= name.ends_with("Request");
                m.notification |= name.ends_with("Notification");
                m.availability[v] = m.availability[v].max(level);
            }
        }
    }
    let acp_lines: Vec<&Line> = lines.iter().filter(|l| l.protocol == "acp").collect();
    same_sets(
        "ACP",
        found.keys().cloned().collect(),
        acp_lines.iter().map(|l| l.method.to_string()).collect(),
    )?;
    let mut rows = String::new();
    for l in acp_lines {
        let m = &found[l.method];
        let server = match (m.sides.len(), m.sides.first().map(String::as_str)) {
            (1, Some("agent")) => "Server::Agent",
            (1, Some("client")) => "Server::Client",
            _ => "Server::Both",
        };
        let kind = match (m.request, m.notification) {
            (true, false) => "Kind::Request",
            (false, true) => "Kind::Notification",
            _ => "Kind::Either",
        };
        let mut rest = l.rest.clone();
        let seed = rest.last() == Some(&"v2=seed");
        if seed {
            rest.pop();
        }
        let level = |a: u8| match a {
            2 => "Availability::Stable",
            1 => "Availability::Unstable",
            _ => "Availability::No",
        };
        let v2 = if seed {
            if m.availability[1] != 0 {
                return Err(err(l, "v2=seed, but the v2 schema defines it"));
            }
            "Availability::Seed"
        } else {
            level(m.availability[1])
        };
        let gate = match rest.as_slice() {
            ["lifecycle"] => "Gate::Lifecycle".to_string(),
            ["baseline"] => "Gate::Baseline".to_string(),
            ["authMethods"] => "Gate::AuthMethods".to_string(),
            ["flag", f] => format!("Gate::Flag({f:?})"),
            ["anyFlag", a, b] => format!("Gate::AnyFlag({a:?}, {b:?})"),
            ["flagOrAuthMethods", f] => format!("Gate::FlagOrAuthMethods({f:?})"),
            _ => return Err(err(l, "unknown gate")),
        };
        rows.push_str(&format!(
            "    MethodSpec {{ name: {:?}, server: {server}, kind: {kind}, v1: {}, v2: {v2}, gate: {gate} }},\n",
            l.method,
            level(m.availability[0]),
        ));
    }
    Ok(format!(
        "// @generated by `{}` from the `x-method`/`x-side` keys of the ACP schemas (acp-sdk-v2 schema/v1, \
         v2 and ../shared/spec/acp/v1, v2: schema.json = stable, schema.unstable.json = unstable) and {OVERLAY} (gates, \
         order). Do not edit.\n\
         //! Every ACP method of v1 and v2 (`proxy/*` left out: it belongs to proxy chains).\n\n\
         use super::{{Availability, Gate, Kind, MethodSpec, Server}};\n\n\
         pub const METHODS: &[MethodSpec] = &[\n{rows}];\n",
        super::COMMAND
    ))
}

// ---- MCP -----------------------------------------------------------------------------------

/// The method constants of a union such as `ClientRequest`.
fn union_methods(defs: &serde_json::Map<String, Value>, name: &str) -> BTreeSet<String> {
    let Some(union) = defs.get(name) else {
        return BTreeSet::new();
    };
    let members: Vec<&Value> = match union.get("anyOf").and_then(Value::as_array) {
        Some(refs) => refs
            .iter()
            .filter_map(|r| r.get("$ref").and_then(Value::as_str))
            .filter_map(|r| defs.get(r.rsplit('/').next().unwrap_or(r)))
            .collect(),
        None => vec![union],
    };
    members
        .iter()
        .filter_map(|d| {
            d.pointer("/properties/method/const")
                .and_then(Value::as_str)
        })
        .map(str::to_owned)
        .collect()
}

/// `2025-06-18` → `V2025_06_18`.
fn variant(version: &str) -> String {
    format!("V{}", version.replace('-', "_"))
}

fn mcp(s: &Sources, lines: &[Line]) -> Result<String, String> {
    let versions = s.mcp_versions();
    // (method, "cs"|"sc") → (kind, the versions defining it).
    let mut found: BTreeMap<(String, &str), (&str, Vec<usize>)> = BTreeMap::new();
    for (i, v) in versions.iter().enumerate() {
        let schema = read_json(&s.spec(&format!("mcp/{v}/schema.json")))?;
        let d = defs(&schema);
        for (union, dir, kind) in [
            ("ClientRequest", "cs", "Kind::Request"),
            ("ClientNotification", "cs", "Kind::Notification"),
            ("ServerRequest", "sc", "Kind::Request"),
            ("ServerNotification", "sc", "Kind::Notification"),
        ] {
            for m in union_methods(d, union) {
                let e = found.entry((m, dir)).or_insert((kind, Vec::new()));
                if e.0 != kind {
                    return Err(format!(
                        "MCP {v}: {} is both a request and a notification",
                        e.0
                    ));
                }
                e.1.push(i);
            }
        }
    }
    let mcp_lines: Vec<&Line> = lines.iter().filter(|l| l.protocol == "mcp").collect();
    let key = |m: &str, d: &str| format!("{m} {d}");
    same_sets(
        "MCP",
        found.keys().map(|(m, d)| key(m, d)).collect(),
        mcp_lines
            .iter()
            .map(|l| key(l.method, l.rest.first().copied().unwrap_or("")))
            .collect(),
    )?;
    let mut rows = String::new();
    for l in mcp_lines {
        let (dir, gate) = l.rest.split_first().ok_or_else(|| err(l, "no direction"))?;
        let (kind, present) = &found[&(l.method.to_string(), *dir)];
        let (first, last) = (present[0], present[present.len() - 1]);
        if present.len() != last - first + 1 {
            return Err(err(
                l,
                "defined, dropped and defined again: the table cannot say so",
            ));
        }
        let until = if last + 1 == versions.len() {
            "None".to_string()
        } else {
            format!("Some(Version::{})", variant(&versions[last]))
        };
        let direction = if *dir == "cs" {
            "Direction::ClientToServer"
        } else {
            "Direction::ServerToClient"
        };
        let side = |w: &str| match w {
            "client" => Ok("Side::Client"),
            "server" => Ok("Side::Server"),
            _ => Err(err(l, "side is client or server")),
        };
        let gate = match gate {
            ["open"] => "Gate::Open".to_string(),
            ["elicitationMode"] => "Gate::ElicitationMode".to_string(),
            ["cap", who, path] => format!("Gate::Cap({}, {path:?})", side(who)?),
            _ => return Err(err(l, "unknown gate")),
        };
        rows.push_str(&format!(
            "    MethodSpec {{ method: {:?}, direction: {direction}, kind: {kind}, since: Version::{}, until: {until}, gate: {gate} }},\n",
            l.method,
            variant(&versions[first]),
        ));
    }
    Ok(format!(
        "// @generated by `{}` from the ClientRequest, ClientNotification, ServerRequest and \
         ServerNotification unions of ../shared/spec/mcp/*/schema.json and {OVERLAY} (gates, order). \
         Do not edit.\n\
         //! Every MCP method, which way it goes, since (and until) which version, and its gate.\n\n\
         use super::{{Gate, Kind, MethodSpec}};\n\
         use crate::mcp::capabilities::Side;\n\
         use crate::mcp::version::Version;\n\
         use crate::schema::Direction;\n\n\
         pub const METHODS: &[MethodSpec] = &[\n{rows}];\n",
        super::COMMAND
    ))
}
