#![cfg(not(target_arch = "wasm32"))]
//! Every seed vector through the validator: the verdict and the tolerated deviations the
//! seeds show (docs/validation.md lists them).

mod common;

use agentwire::schema::{
    validate_definition, validate_value, Context, Direction, Limits, Protocol, Severity,
};
use serde_json::Value;

fn ctx_of(v: &Value) -> Option<(Protocol, String, Direction)> {
    let protocol = if v["protocol"] == "acp" {
        Protocol::Acp
    } else {
        Protocol::Mcp
    };
    let version = match &v["version"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let dir = v["direction"].as_str().filter(|d| *d != "fragment")?;
    let direction = if dir.starts_with("client") {
        Direction::ClientToServer
    } else {
        Direction::ServerToClient
    };
    Some((protocol, version, direction))
}

/// The method a response answers, read from the seed's annotation.
fn in_reply_to(v: &Value) -> Option<&'static str> {
    let what = v["what"].as_str().unwrap_or("");
    ["initialize", "session/new", "session/load"]
        .into_iter()
        .find(|m| what.starts_with(m))
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn every_seed_vector() {
    let Some(seeds) = common::seeds() else { return };
    let mut checked = 0;
    for v in &seeds {
        let Some((protocol, version, direction)) = ctx_of(v) else {
            continue;
        }; // fragments
        let ctx = Context {
            protocol,
            version: &version,
            direction,
            in_reply_to: in_reply_to(v),
        };
        let report = validate_value(&v["message"], &ctx, &Limits::default());
        let warnings: Vec<_> = report
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Warning)
            .collect();
        println!("{} {}: {:?}", v["seed"], v["what"], report.issues);
        assert!(
            report.ok,
            "seed {} {}: {:?}",
            v["seed"], v["what"], report.issues
        );
        let expected_warnings: &[&str] = match (
            v["seed"].as_str().unwrap_or("")[..3].as_ref(),
            v["what"].as_str().unwrap_or(""),
        ) {
            ("000", "initialize response") => &["/result/agentCapabilities/mcp"],
            ("001", "initialize request") => &["/params/clientInfo"],
            ("001", "initialize response") => &["/result/agentInfo"],
            ("002", "session/load response after replay") => &["/result"],
            _ => &[],
        };
        let paths: Vec<&str> = warnings.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, expected_warnings, "seed {} {}", v["seed"], v["what"]);
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} seed messages");
}

/// The fragments: parts of messages, checked against their definition.
#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn every_seed_fragment() {
    let Some(seeds) = common::seeds() else { return };
    let mut checked = 0;
    for v in seeds.iter().filter(|v| v["direction"] == "fragment") {
        let what = v["what"].as_str().unwrap_or("");
        let (protocol, version, def, value) = if what.starts_with("McpServer") {
            (Protocol::Acp, "1", "McpServer", &v["message"])
        } else if what.starts_with("client") {
            (
                Protocol::Mcp,
                "2024-11-05",
                "ClientCapabilities",
                &v["message"]["capabilities"],
            )
        } else {
            (
                Protocol::Mcp,
                "2024-11-05",
                "ServerCapabilities",
                &v["message"]["capabilities"],
            )
        };
        let report = validate_definition(value, protocol, version, def, &Limits::default());
        assert!(
            report.ok && report.issues.is_empty(),
            "{what}: {:?}",
            report.issues
        );
        checked += 1;
    }
    assert_eq!(checked, 5);
}
