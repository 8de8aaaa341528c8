//! The relay's Streamable HTTP endpoint, `/mcp/<agent>`, over raw HTTP/1.1 against a small
//! stdio MCP server (fixtures/mini-mcp.mjs): sessions, streams and their resumption, the
//! guards, and that bad input gets a clear answer and spawns or leaks nothing.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::http::*;
use common::*;
use serde_json::{json, Value};

fn relay() -> Relay {
    Relay::start(&["--agent", &mini("")])
}

/// A new session: its id.
fn initialize(port: u16) -> String {
    let a = request(port, "POST", &mini_path(), &[ACCEPT, JSON], INIT);
    assert_eq!(a.status, 200, "{}", a.body);
    a.header("mcp-session-id")
        .expect("a session id")
        .to_string()
}

fn post(port: u16, session: &str, body: &str) -> Answer {
    request(
        port,
        "POST",
        &mini_path(),
        &[
            ACCEPT,
            JSON,
            ("mcp-session-id", session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        body,
    )
}

fn agents(relay: &Relay) -> usize {
    children_of(relay.pid()).len()
}

#[test]
fn initialize_opens_a_session_whose_streams_carry_the_answers() {
    let relay = relay();
    let a = request(relay.port, "POST", &mini_path(), &[ACCEPT, JSON], INIT);
    assert_eq!(
        (a.status, a.header("content-type")),
        (200, Some("text/event-stream"))
    );
    let id = a.header("mcp-session-id").unwrap();
    assert!(
        id.len() >= 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "an unguessable id: {id}"
    );
    let events = a.events();
    // A priming event (an id, no data) comes first, then the answer.
    assert_eq!(
        (events[0].data.as_str(), events[0].id.is_some()),
        ("", true)
    );
    assert!(
        a.body.starts_with("id: ") && a.body.contains("retry: "),
        "{}",
        a.body
    );
    let answer: Value = serde_json::from_str(&events[1].data).unwrap();
    assert_eq!(answer["result"]["serverInfo"]["name"], "mini");

    // A notification is taken with 202; a request gets its stream; a notification the
    // server sends while answering rides on the same stream, before the answer.
    assert_eq!(
        post(
            relay.port,
            id,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        )
        .status,
        202
    );
    let a = post(
        relay.port,
        id,
        r#"{"jsonrpc":"2.0","id":2,"method":"chatty"}"#,
    );
    let data: Vec<Value> = a
        .events()
        .iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| serde_json::from_str(&e.data).unwrap())
        .collect();
    assert_eq!(data[0]["method"], "notifications/message");
    assert_eq!(
        data[1],
        json!({ "jsonrpc": "2.0", "id": 2, "result": { "method": "chatty" } })
    );
    // A batch (2025-03-26) is one stream that ends after both answers.
    let batch = r#"[{"jsonrpc":"2.0","id":3,"method":"a"},{"jsonrpc":"2.0","id":4,"method":"b"}]"#;
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &[
            ACCEPT,
            JSON,
            ("mcp-session-id", id),
            ("mcp-protocol-version", "2025-03-26"),
        ],
        batch,
    );
    assert_eq!(a.events().iter().filter(|e| !e.data.is_empty()).count(), 2);
}

#[test]
fn sessions_are_checked_and_delete_ends_the_process() {
    let relay = relay();
    let none = request(
        relay.port,
        "POST",
        &mini_path(),
        &[ACCEPT, JSON],
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    );
    assert_eq!(none.status, 400);
    assert_eq!(
        none.json()["id"],
        Value::Null,
        "an error answer with id null"
    );
    assert_eq!(
        post(
            relay.port,
            "no-such-session",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        )
        .status,
        404
    );

    let id = initialize(relay.port);
    assert_eq!(agents(&relay), 1);
    let again = request(
        relay.port,
        "POST",
        &mini_path(),
        &[ACCEPT, JSON, ("mcp-session-id", &id)],
        INIT,
    );
    assert_eq!(again.status, 400, "initialize inside a session");
    let pid = children_of(relay.pid())[0];
    let gone = request(
        relay.port,
        "DELETE",
        &mini_path(),
        &[("mcp-session-id", &id)],
        "",
    );
    assert_eq!(gone.status, 204);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    assert!(
        rt.block_on(gone_within(pid, Duration::from_secs(10))),
        "the process ended"
    );
    assert_eq!(
        post(
            relay.port,
            &id,
            r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#
        )
        .status,
        404
    );
}

#[test]
fn bad_requests_get_clear_answers_and_spawn_nothing() {
    let relay = relay();
    let p = relay.port;
    let cases: Vec<(u16, Answer)> = vec![
        (401, request(p, "POST", "/mcp/mini", &[ACCEPT, JSON], INIT)),
        (
            401,
            request(p, "POST", "/mcp/mini?token=wrong", &[ACCEPT, JSON], INIT),
        ),
        (
            403,
            request(
                p,
                "POST",
                &mini_path(),
                &[ACCEPT, JSON, ("origin", "http://evil.example")],
                INIT,
            ),
        ),
        (
            404,
            request(
                p,
                "POST",
                &format!("/mcp/nobody?token={TOKEN}"),
                &[ACCEPT, JSON],
                INIT,
            ),
        ),
        (
            406,
            request(
                p,
                "POST",
                &mini_path(),
                &[("accept", "application/json"), JSON],
                INIT,
            ),
        ),
        (
            415,
            request(
                p,
                "POST",
                &mini_path(),
                &[ACCEPT, ("content-type", "text/plain")],
                INIT,
            ),
        ),
        (
            400,
            request(p, "POST", &mini_path(), &[ACCEPT, JSON], "{not json"),
        ),
        (
            400,
            request(
                p,
                "POST",
                &mini_path(),
                &[ACCEPT, JSON, ("mcp-protocol-version", "1999-01-01")],
                INIT,
            ),
        ),
        (
            413,
            request(
                p,
                "POST",
                &mini_path(),
                &[ACCEPT, JSON],
                &format!(r#"{{"pad":"{}"}}"#, "x".repeat(5 << 20)),
            ),
        ),
    ];
    for (want, a) in &cases {
        assert_eq!(a.status, *want, "{}", a.body);
    }
    assert_eq!(cases[6].1.json()["error"]["code"], -32700);
    // The token also comes as a bearer header; with it the same request goes through.
    let bearer = format!("Bearer {TOKEN}");
    assert_eq!(
        request(
            p,
            "POST",
            "/mcp/mini",
            &[ACCEPT, JSON, ("authorization", &bearer)],
            INIT
        )
        .status,
        200
    );
    assert_eq!(agents(&relay), 1, "only the accepted initialize spawned");
    let host = request(
        p,
        "POST",
        &mini_path(),
        &[ACCEPT, JSON, ("host", "evil.example:80")],
        INIT,
    );
    assert_eq!(host.status, 403, "DNS rebinding: another Host");
}

#[test]
fn a_stream_the_client_left_is_resumed_with_last_event_id_and_a_stale_id_is_refused() {
    let relay = relay();
    let id = initialize(relay.port);
    // Read the priming event of a slow request, then leave before the answer.
    let mut s = TcpStream::connect(("127.0.0.1", relay.port)).unwrap();
    s.set_read_timeout(Some(FRAME_TIMEOUT)).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":9,"method":"slow"}"#;
    write!(s, "POST {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: {}\r\nContent-Type: application/json\r\nMcp-Session-Id: {id}\r\nContent-Length: {}\r\n\r\n{body}", mini_path(), relay.port, ACCEPT.1, body.len()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("retry:") {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "the stream ended before its priming event");
        got.extend_from_slice(&buf[..n]);
    }
    drop(s);
    let text = String::from_utf8_lossy(&got).to_string();
    let primed = text
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("an event id")
        .trim()
        .to_string();

    let back = request(
        relay.port,
        "GET",
        &mini_path(),
        &[
            ("accept", "text/event-stream"),
            ("mcp-session-id", &id),
            ("last-event-id", &primed),
        ],
        "",
    );
    assert_eq!(back.status, 200);
    let answer = back
        .events()
        .into_iter()
        .find(|e| !e.data.is_empty())
        .expect("the answer, replayed or live");
    assert_eq!(
        serde_json::from_str::<Value>(&answer.data).unwrap(),
        json!({ "jsonrpc": "2.0", "id": 9, "result": { "method": "slow" } })
    );
    // Resuming again from the same id replays the same answer; an id of no stream is refused.
    let twice = request(
        relay.port,
        "GET",
        &mini_path(),
        &[
            ("accept", "text/event-stream"),
            ("mcp-session-id", &id),
            ("last-event-id", &primed),
        ],
        "",
    );
    assert_eq!(
        twice
            .events()
            .into_iter()
            .filter(|e| !e.data.is_empty())
            .count(),
        1
    );
    for stale in ["999-1", "garbage", "0-999"] {
        let a = request(
            relay.port,
            "GET",
            &mini_path(),
            &[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &id),
                ("last-event-id", stale),
            ],
            "",
        );
        assert_eq!(a.status, 400, "{stale}: {}", a.body);
    }
}

#[test]
fn a_server_that_exits_answers_what_it_owed_and_its_session_ends() {
    let relay = relay();
    let id = initialize(relay.port);
    let owed = post(
        relay.port,
        &id,
        r#"{"jsonrpc":"2.0","id":2,"method":"exit"}"#,
    );
    let answer = owed
        .events()
        .into_iter()
        .find(|e| !e.data.is_empty())
        .expect("an answer");
    let v: Value = serde_json::from_str(&answer.data).unwrap();
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(2), json!(-32603)),
        "{v}"
    );
    assert_eq!(
        post(
            relay.port,
            &id,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#
        )
        .status,
        404
    );
}

#[test]
fn an_authorized_stream_outlives_the_request_deadline() {
    // Connections that never upgrade get --request-timeout-ms; an MCP stream answering a call
    // that takes longer must not be cut.
    let server = format!(
        "mini=node {}",
        repo().join("relay/tests/fixtures/mini-mcp.mjs").display()
    );
    let relay = Relay::start(&["--agent", &server, "--request-timeout-ms", "150"]);
    let id = initialize(relay.port);
    let a = post(
        relay.port,
        &id,
        r#"{"jsonrpc":"2.0","id":2,"method":"slow"}"#,
    );
    let answer = a
        .events()
        .into_iter()
        .find(|e| !e.data.is_empty())
        .expect("the answer on the same stream");
    assert_eq!(
        serde_json::from_str::<Value>(&answer.data).unwrap()["result"]["method"],
        "slow"
    );
    // A connection with no token still gets the deadline: a request left half-sent is closed.
    let mut s = TcpStream::connect(("127.0.0.1", relay.port)).unwrap();
    s.set_read_timeout(Some(FRAME_TIMEOUT)).unwrap();
    write!(
        s,
        "POST /mcp/mini HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n",
        relay.port
    )
    .unwrap();
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    assert!(!String::from_utf8_lossy(&rest).contains("200 OK"));
}
