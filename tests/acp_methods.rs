//! The method table against the official sources it was derived from: `schema/v1`,
//! `schema/v2` meta files and the `x-method`/`x-side` keys of the npm SDK 2.4.0 schemas.
//! A method added upstream, or one the table invents, fails here.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::acp::methods::{Availability, Kind, Server};
use agentwire::acp::METHODS;
use serde_json::Value;
use std::collections::BTreeSet;

/// (name, server) of every method a source lists.
type Listed = BTreeSet<(String, &'static str)>;

fn side(s: &str) -> &'static str {
    match s {
        "agent" | "agentMethods" => "agent",
        "client" | "clientMethods" => "client",
        _ => "both",
    }
}

fn from_meta(path: &str) -> Option<Listed> {
    let meta = common::shared_json(path)?;
    let mut out = Listed::new();
    for group in ["agentMethods", "clientMethods", "protocolMethods"] {
        for name in meta[group].as_object().expect(group).values() {
            out.insert((name.as_str().expect("name").to_owned(), side(group)));
        }
    }
    Some(out)
}

fn from_schema(path: &str) -> Option<(Listed, BTreeSet<(String, &'static str)>)> {
    let schema = common::shared_json(path)?;
    let mut methods = Listed::new();
    let mut kinds = BTreeSet::new();
    for (def, body) in schema["$defs"].as_object().expect("$defs") {
        let (Some(Value::String(m)), Some(Value::String(s))) =
            (body.get("x-method"), body.get("x-side"))
        else {
            continue;
        };
        if s == "proxy" {
            continue;
        }
        methods.insert((m.clone(), side(s)));
        if def.ends_with("Notification") {
            kinds.insert((m.clone(), "notification"));
        } else if def.ends_with("Request") {
            kinds.insert((m.clone(), "request"));
        }
    }
    Some((methods, kinds))
}

fn server_name(s: Server) -> &'static str {
    match s {
        Server::Agent => "agent",
        Server::Client => "client",
        Server::Both => "both",
    }
}

/// What our table says a version has at `level` ("stable": Stable; "all": anything).
fn ours(version: u16, stable_only: bool) -> Listed {
    METHODS
        .iter()
        .filter(|m| match m.availability(version) {
            Availability::Stable => true,
            Availability::Unstable => !stable_only,
            Availability::No | Availability::Seed => false,
        })
        .map(|m| (m.name.to_owned(), server_name(m.server)))
        .collect()
}

/// The schemas mark `mcp/message` with side "both" only in the snapshot; the npm schemas
/// list it once per side. Normalize both to our single "both" row.
fn normalize(mut l: Listed) -> Listed {
    if l.iter().any(|(n, _)| n == "mcp/message") {
        l.retain(|(n, _)| n != "mcp/message");
        l.insert(("mcp/message".into(), "both"));
    }
    l
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn table_matches_the_official_sources() {
    for version in [1u16, 2] {
        let v = version.to_string();
        let Some(meta) = from_meta(&format!("spec/acp/v{v}/meta.json")) else {
            return;
        };
        let Some(meta_unstable) = from_meta(&format!("spec/acp/v{v}/meta.unstable.json")) else {
            return;
        };
        let Some((npm, _)) = from_schema(&format!("spec/acp/npm-sdk-2.4.0/v{v}/schema.json"))
        else {
            return;
        };
        let Some((npm_unstable, _)) =
            from_schema(&format!("spec/acp/npm-sdk-2.4.0/v{v}/schema.unstable.json"))
        else {
            return;
        };
        let Some((snap_unstable, _)) = from_schema(&format!("spec/acp/v{v}/schema.unstable.json"))
        else {
            return;
        };

        // Stable: exactly what the stable meta file and the newest stable schema list.
        let stable: Listed = normalize(meta.union(&npm).cloned().collect());
        assert_eq!(ours(version, true), stable, "v{v} stable methods");
        // Everything: stable plus every unstable source.
        let all: Listed = normalize(
            stable
                .iter()
                .chain(&meta_unstable)
                .chain(&npm_unstable)
                .chain(&snap_unstable)
                .cloned()
                .collect(),
        );
        assert_eq!(ours(version, false), all, "v{v} stable + unstable methods");
    }
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn kinds_match_the_schemas() {
    for path in [
        "spec/acp/npm-sdk-2.4.0/v1/schema.unstable.json",
        "spec/acp/npm-sdk-2.4.0/v2/schema.unstable.json",
        "spec/acp/v1/schema.unstable.json",
        "spec/acp/v2/schema.unstable.json",
    ] {
        let Some((_, kinds)) = from_schema(path) else {
            return;
        };
        for (name, kind) in &kinds {
            let spec = agentwire::acp::methods::lookup(name)
                .unwrap_or_else(|| panic!("{name} ({path}) is not in the table"));
            let ok = match spec.kind {
                Kind::Request => *kind == "request",
                Kind::Notification => *kind == "notification",
                Kind::Either => true,
            };
            assert!(ok, "{name}: table says {:?}, {path} says {kind}", spec.kind);
        }
    }
}

#[test]
fn seed_only_rows_are_the_documented_ones() {
    let seed: Vec<&str> = METHODS
        .iter()
        .filter(|m| m.v2 == Availability::Seed)
        .map(|m| m.name)
        .collect();
    assert_eq!(seed, ["session/load"]);
    let names: BTreeSet<&str> = METHODS.iter().map(|m| m.name).collect();
    assert_eq!(names.len(), METHODS.len(), "a method appears twice");
}
