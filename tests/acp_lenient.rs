//! Lenient reading: the committed table is what the generator writes from the SDK's schemas,
//! and sessions repair what the schema marks (and, with `strict`, deliver what came).
#![cfg(not(target_arch = "wasm32"))]

#[allow(dead_code)]
#[path = "../src/acp/lenient_gen.rs"]
mod lenient_gen;

use agentwire::acp::*;
use serde_json::{json, Value};

/// Fails on any difference between `src/acp/lenient_table.rs` and a fresh generation.
#[test]
#[cfg_attr(
    not(acp_oracle),
    ignore = "the SDK's schemas are not here (npm ci, or ../shared)"
)]
fn the_committed_table_is_what_the_schema_gives() {
    let schemas = lenient_gen::read_sources().expect("the SDK's schemas");
    let fresh = lenient_gen::generate(&schemas).expect("generate");
    let committed =
        std::fs::read_to_string("src/acp/lenient_table.rs").expect("src/acp/lenient_table.rs");
    assert!(
        committed == fresh,
        "src/acp/lenient_table.rs is stale: run `{}`",
        lenient_gen::COMMAND
    );
    // Every annotation kind was read, in both versions.
    for v in [1, 2] {
        for key in ["default-on-error", "default-on-null", "skip-invalid-items"] {
            let line = fresh
                .lines()
                .find(|l| l.starts_with(&format!("//   v{v} x-deserialize-{key}:")))
                .expect("count line");
            let n: usize = line
                .rsplit(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("count");
            assert!(n > 5, "{line}");
        }
    }
}

fn pair(strict: bool) -> (AcpClient, AcpAgent) {
    let mut c = AcpClient::new(
        serde_json::from_value(json!({ "protocolVersions": [1], "strict": strict }))
            .expect("client"),
    );
    let mut a =
        AcpAgent::new(serde_json::from_value(json!({ "protocolVersions": [1] })).expect("agent"));
    let init = c.initialize(0).expect("init");
    for e in a.receive(&init.text, 0) {
        if let Event::Send { text } = e {
            c.receive(&text, 0);
        }
    }
    (c, a)
}

fn update(c: &mut AcpClient, u: Value) -> (Value, Vec<agentwire::schema::Issue>) {
    let n = json!({ "jsonrpc": "2.0", "method": "session/update", "params": { "sessionId": "s", "update": u } });
    let events = c.receive(&n.to_string(), 0);
    let mut issues = Vec::new();
    let mut got = Value::Null;
    for e in events {
        match e {
            Event::Violation { issues: i, .. } => issues.extend(i),
            Event::SessionUpdate { update, .. } => got = update,
            _ => {}
        }
    }
    (got, issues)
}

#[test]
fn an_update_is_repaired_before_the_app_and_the_transcript_see_it_unless_strict() {
    let sent = json!({ "sessionUpdate": "tool_call", "toolCallId": "t", "title": "x", "status": "paused", "locations": [{ "path": "/a", "line": -5 }, { "line": 1 }] });
    let (mut c, _) = pair(false);
    let (got, issues) = update(&mut c, sent.clone());
    assert_eq!(
        got,
        json!({ "sessionUpdate": "tool_call", "toolCallId": "t", "title": "x", "locations": [{ "path": "/a" }] })
    );
    let told: Vec<_> = issues
        .iter()
        .map(|i| (i.path.as_str(), i.code, i.severity))
        .collect();
    use agentwire::schema::Severity::Warning;
    assert_eq!(
        told,
        [
            ("/params/update/locations/0/line", "defaulted", Warning),
            (
                "/params/update/locations/1",
                "skipped_invalid_item",
                Warning
            ),
            ("/params/update/status", "defaulted", Warning)
        ]
    );
    let Entry::ToolCall { call, .. } = &c.transcript("s").expect("transcript").entries[0] else {
        panic!("a tool call")
    };
    assert_eq!(call.get("status"), None);

    let (mut strict, _) = pair(true);
    let (got, issues) = update(&mut strict, sent.clone());
    assert_eq!(got, sent);
    assert!(
        issues
            .iter()
            .all(|i| i.severity == agentwire::schema::Severity::Error)
            && issues.len() == 3,
        "{issues:?}"
    );
}

#[test]
fn what_no_mark_covers_stays_an_error_and_the_rest_is_still_repaired() {
    let (mut c, _) = pair(false);
    let (got, issues) = update(
        &mut c,
        json!({ "sessionUpdate": "session_info_update", "title": 42, "updatedAt": 7 }),
    );
    assert_eq!(got, json!({ "sessionUpdate": "session_info_update" }));
    assert_eq!(issues.len(), 2, "{issues:?}");
    // A chunk's text is not marked: an error, delivered as it came.
    let (got, issues) = update(
        &mut c,
        json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": 5 } }),
    );
    assert_eq!(got["content"]["text"], json!(5));
    assert!(
        issues
            .iter()
            .any(|i| i.severity == agentwire::schema::Severity::Error),
        "{issues:?}"
    );
}

#[test]
fn a_repair_keeps_the_order_of_the_other_members() {
    let (mut c, _) = pair(false);
    let (got, _) = update(
        &mut c,
        json!({ "sessionUpdate": "tool_call", "status": "paused", "toolCallId": "t", "title": "x", "kind": "read" }),
    );
    let keys: Vec<&String> = got.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["sessionUpdate", "toolCallId", "title", "kind"]);
}
