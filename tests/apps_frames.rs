//! MCP Apps: the bridge's frames judged by the rules generated from the ext-apps schema
//! (`src/schema/rules/apps.rules`) and, for the MCP messages that cross it, by MCP's.
#![cfg(all(feature = "apps", not(target_arch = "wasm32")))]

use agentwire::schema::apps::{Bridge, Refusal, Side};
use agentwire::schema::Limits;
use serde_json::{json, Value};

fn bridge() -> Bridge {
    Bridge::new("2025-11-25", Limits::default()).expect("rules")
}

fn check(b: &mut Bridge, from: Side, frame: Value) -> Option<Refusal> {
    b.check(&frame.to_string(), from)
}

fn ok(b: &mut Bridge, from: Side, frame: Value) {
    if let Some(r) = check(b, from, frame.clone()) {
        panic!("{frame} refused: {r:?}");
    }
}

/// Refused with `code`, the first error at `path`.
fn refused(b: &mut Bridge, from: Side, frame: Value, code: i64, path: &str) -> Refusal {
    let r = check(b, from, frame.clone()).unwrap_or_else(|| panic!("{frame} passed"));
    assert_eq!(r.code, code, "{frame}: {r:?}");
    assert!(
        r.issues.iter().any(|i| i.path == path),
        "{frame}: expected an issue at {path}: {r:?}"
    );
    r
}

#[test]
fn a_handshake_passes() {
    let mut b = bridge();
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 0, "method": "ui/initialize", "params": {
            "appInfo": {"name": "v", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}}),
    );
    ok(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2026-01-26",
            "hostInfo": {"name": "h", "version": "1"}, "hostCapabilities": {"openLinks": {}},
            "hostContext": {"theme": "dark", "displayMode": "inline"}}}),
    );
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
}

#[test]
fn invalid_params_are_refused_with_their_path() {
    let mut b = bridge();
    let r = refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 7, "method": "ui/open-link", "params": {"url": 42}}),
        -32602,
        "/params/url",
    );
    assert_eq!(r.id, Some(json!(7)));
}
