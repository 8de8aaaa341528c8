//! An error response with `id: null` (JSON-RPC's answer when a peer could not read a
//! request's id) settles no request in either protocol, and is reported as each schema says.
#![cfg(not(target_arch = "wasm32"))]

use agentwire::acp::{AcpAgent, AcpClient, Event};
use agentwire::jsonrpc::Id;
use agentwire::schema::{validate_text, Context, Direction, Limits, Protocol, Severity};
use serde_json::{json, Value};

const NULL_ERROR: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;

fn acp_pair(version: u16) -> (AcpClient, AcpAgent) {
    let mut c = AcpClient::new(
        serde_json::from_value(json!({ "protocolVersions": [version] })).expect("client"),
    );
    let mut a = AcpAgent::new(
        serde_json::from_value(json!({ "protocolVersions": [version] })).expect("agent"),
    );
    let init = c.initialize(0).expect("initialize");
    for e in a.receive(&init.text, 0) {
        if let Event::Send { text } = e {
            c.receive(&text, 0);
        }
    }
    (c, a)
}

fn request_id(events: &[Event]) -> Id {
    events
        .iter()
        .find_map(|e| {
            if let Event::Request { id, .. } = e {
                Some(id.clone())
            } else {
                None
            }
        })
        .expect("a request")
}

#[test]
fn acp_an_open_permission_request_is_not_answered_by_a_null_id_error() {
    let (mut c, mut a) = acp_pair(1);
    let out = c
        .new_session(json!({"cwd": "/w", "mcpServers": []}), 0)
        .expect("new");
    let id = request_id(&a.receive(&out.text, 0));
    c.receive(
        &a.respond(&id, Ok(json!({"sessionId": "s"})))
            .expect("answer")
            .text,
        0,
    );
    let perm = a
        .request_permission(
            json!({"sessionId": "s", "toolCall": {"toolCallId": "t"}, "options": []}),
            0,
        )
        .expect("perm");
    // One request in flight: the case where a guess would pick it.
    let events = a.receive(NULL_ERROR, 1);
    match &events[..] {
        [Event::Stray {
            id: Id::Null,
            already_answered: false,
            error: Some(e),
        }] => assert_eq!(e.code, -32700),
        other => panic!("expected one stray carrying the error: {other:?}"),
    }
    // The permission request is still open: its own answer settles it.
    let pid = request_id(&c.receive(&perm.text, 2));
    let answer = c
        .respond(
            &pid,
            Ok(json!({"outcome": {"outcome": "selected", "optionId": "x"}})),
        )
        .expect("answer");
    let events = a.receive(&answer.text, 3);
    assert!(events.iter().any(|e| matches!(e, Event::Response { method, .. } if method == "session/request_permission")), "{events:?}");
}

#[test]
fn acp_v2_refuses_a_request_with_a_null_id() {
    let (_, mut a) = acp_pair(2);
    let events = a.receive(
        r#"{"jsonrpc":"2.0","id":null,"method":"session/new","params":{"cwd":"/w"}}"#,
        0,
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::Request { .. })),
        "{events:?}"
    );
    let reply = events
        .iter()
        .find_map(|e| {
            if let Event::Send { text } = e {
                Some(text.clone())
            } else {
                None
            }
        })
        .expect("an error reply");
    let reply: Value = serde_json::from_str(&reply).expect("json");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
}

#[test]
fn the_validator_follows_each_schema_on_a_null_id() {
    let issues = |protocol: Protocol, version: &str| {
        let ctx = Context {
            protocol,
            version,
            direction: Direction::ServerToClient,
            in_reply_to: None,
        };
        validate_text(NULL_ERROR, &ctx, &Limits::default()).issues
    };
    for version in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let found = issues(Protocol::Mcp, version);
        assert!(
            found
                .iter()
                .any(|i| i.path == "/id" && i.severity == Severity::Error),
            "MCP {version}: {found:?}"
        );
    }
    assert!(
        issues(Protocol::Acp, "1").is_empty(),
        "ACP v1's RequestId allows null"
    );
    assert!(
        issues(Protocol::Acp, "2").iter().any(|i| i.path == "/id"),
        "ACP v2's does not"
    );
}
