//! The 2026-07-28 era on `/mcp/<agent>`: a request that names its version in `_meta` is
//! served without a session, each by a server of its own that ends with its stream, after the
//! request metadata headers were checked against the body (HeaderMismatch, -32020); the
//! handshake era goes on beside it on the same endpoint.

mod common;

use std::time::{Duration, Instant};

use common::http::*;
use common::*;
use serde_json::{json, Value};

const V: (&str, &str) = ("mcp-protocol-version", "2026-07-28");

fn relay() -> Relay {
    Relay::start(&["--agent", &mini("")])
}

fn stateless(id: u64, method: &str, params: Value) -> String {
    let mut params = params;
    params["_meta"] = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" }, "io.modelcontextprotocol/clientCapabilities": {} });
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
}

/// The answers of an event stream (events with data), parsed.
fn answers(a: &Answer) -> Vec<Value> {
    a.events()
        .iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| serde_json::from_str(&e.data).unwrap())
        .collect()
}

fn no_agent_within(relay: &Relay, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if children_of(relay.pid()).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_stateless_request_is_served_without_a_session_by_a_server_that_ends_with_it() {
    let relay = relay();
    let body = stateless(7, "tools/call", json!({ "name": "echo", "arguments": {} }));
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &[
            ACCEPT,
            JSON,
            V,
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
        ],
        &body,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.header("mcp-session-id"),
        None,
        "no session in the stateless era"
    );
    assert_eq!(
        answers(&a),
        vec![json!({ "jsonrpc": "2.0", "id": 7, "result": { "method": "tools/call" } })]
    );
    assert!(
        no_agent_within(&relay, Duration::from_secs(5)),
        "the request's server ended with its stream"
    );
    // A name outside the plain header set is matched after decoding.
    let body = stateless(8, "resources/read", json!({ "uri": "file:///ü" }));
    let name = format!("=?base64?{}?=", "ZmlsZTovLy/DvA==");
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &[
            ACCEPT,
            JSON,
            V,
            ("mcp-method", "resources/read"),
            ("mcp-name", &name),
        ],
        &body,
    );
    assert_eq!(answers(&a)[0]["id"], 8, "{}", a.body);
}

#[test]
fn headers_that_disagree_with_the_body_are_refused_with_header_mismatch() {
    let relay = relay();
    let body = stateless(1, "tools/call", json!({ "name": "echo" }));
    let cases: [(&str, Vec<(&str, &str)>); 6] = [
        (
            "no version header",
            vec![("mcp-method", "tools/call"), ("mcp-name", "echo")],
        ),
        (
            "another version",
            vec![
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "echo"),
            ],
        ),
        ("no method header", vec![V, ("mcp-name", "echo")]),
        (
            "another method",
            vec![V, ("mcp-method", "tools/list"), ("mcp-name", "echo")],
        ),
        ("no name header", vec![V, ("mcp-method", "tools/call")]),
        (
            "another name",
            vec![V, ("mcp-method", "tools/call"), ("mcp-name", "rm")],
        ),
    ];
    for (what, extra) in cases {
        let mut headers = vec![ACCEPT, JSON];
        headers.extend(extra);
        let a = request(relay.port, "POST", &mini_path(), &headers, &body);
        assert_eq!(a.status, 400, "{what}: {}", a.body);
        assert_eq!(a.json()["error"]["code"], -32020, "{what}: {}", a.body);
        assert!(a.json().get("id").is_none(), "{what}: no null id");
    }
    assert!(
        children_of(relay.pid()).is_empty(),
        "nothing was spawned for a refused request"
    );
}

#[test]
fn concurrent_stateless_requests_with_the_same_id_each_get_their_own_answer() {
    let relay = relay();
    let port = relay.port;
    let threads: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let method = format!("m{i}");
                let body = stateless(1, &method, json!({}));
                let a = request(
                    port,
                    "POST",
                    &mini_path(),
                    &[ACCEPT, JSON, V, ("mcp-method", &method)],
                    &body,
                );
                (method, answers(&a))
            })
        })
        .collect();
    for t in threads {
        let (method, got) = t.join().unwrap();
        assert_eq!(
            got,
            vec![json!({ "jsonrpc": "2.0", "id": 1, "result": { "method": method } })]
        );
    }
    assert!(no_agent_within(&relay, Duration::from_secs(5)));
}

#[test]
fn both_eras_on_one_endpoint() {
    let relay = relay();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let a = request(relay.port, "POST", &mini_path(), &[ACCEPT, JSON], init);
    let session = a.header("mcp-session-id").expect("a session").to_string();
    let body = stateless(2, "ping", json!({}));
    let s = request(
        relay.port,
        "POST",
        &mini_path(),
        &[ACCEPT, JSON, V, ("mcp-method", "ping")],
        &body,
    );
    assert_eq!(answers(&s)[0]["id"], 2);
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &[
            ACCEPT,
            JSON,
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        r#"{"jsonrpc":"2.0","id":3,"method":"x"}"#,
    );
    assert_eq!(
        answers(&a)[0]["result"]["method"],
        "x",
        "the handshake session goes on"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while children_of(relay.pid()).len() > 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        children_of(relay.pid()).len(),
        1,
        "only the session's server is left"
    );
}
