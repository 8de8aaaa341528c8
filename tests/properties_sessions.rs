//! Properties of the four session roles, with the invariant checks the fuzz targets use
//! (`fuzz/src/lib.rs`): any sequence of incoming messages leaves a session usable and
//! answers each request once; a client and a server over a lossy, reordering link with a
//! fake clock see every request end exactly once; nothing stays pending; hostile input
//! (deep nesting, huge values, numbers out of range, lone surrogates, duplicate and
//! `__proto__` keys) gets a clear error or event, never a panic.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../fuzz/src/lib.rs"]
mod harness;

use agentwire::acp::{AcpAgent, AcpClient};
use agentwire::jsonrpc::{codes, Id, Message, ProtocolError};
use agentwire::mcp::{McpClient, McpServer, RequestOptions};
use harness::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::VecDeque;

// ---------------------------------------------------------------------------------------
// Any sequence of incoming messages.

const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "session/new",
    "session/load",
    "session/prompt",
    "session/update",
    "session/cancel",
    "session/request_permission",
    "fs/read_text_file",
    "terminal/create",
    "$/cancel_request",
    "authenticate",
    "server/discover",
    "tools/list",
    "tools/call",
    "roots/list",
    "sampling/createMessage",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "_ext/call",
    "no/such",
];

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![6 => (0i64..6).prop_map(Value::from), 1 => Just(json!("a")), 1 => Just(Value::Null)]
}

fn params() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        Just(json!([])),
        Just(
            json!({ "protocolVersion": 1, "clientCapabilities": {}, "clientInfo": { "name": "c", "version": "1" } })
        ),
        Just(json!({ "protocolVersion": 2, "capabilities": {} })),
        Just(
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } })
        ),
        Just(
            json!({ "protocolVersion": "2025-03-26", "capabilities": { "tools": {} }, "serverInfo": { "name": "s", "version": "1" } })
        ),
        Just(
            json!({ "supportedVersions": ["2026-07-28"], "capabilities": {}, "resultType": "complete" })
        ),
        Just(json!({ "cwd": "/w", "mcpServers": [] })),
        Just(json!({ "sessionId": "s1", "prompt": [{ "type": "text", "text": "hi" }] })),
        Just(
            json!({ "sessionId": "s1", "update": { "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": "x" } } })
        ),
        Just(json!({ "requestId": 1 })),
        Just(json!({ "progressToken": 1, "progress": 1 })),
        Just(json!({ "sessionId": "s1", "stopReason": "end_turn" })),
        Just(
            json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } })
        ),
    ]
}

/// One JSON-RPC message, valid or not quite.
fn message() -> impl Strategy<Value = String> {
    let method = prop::sample::select(METHODS);
    let valid = prop_oneof![
        (id(), method.clone(), params()).prop_map(|(id, m, p)| json!({ "jsonrpc": "2.0", "id": id, "method": m, "params": p })),
        (method, params()).prop_map(|(m, p)| json!({ "jsonrpc": "2.0", "method": m, "params": p })),
        (id(), params()).prop_map(|(id, r)| json!({ "jsonrpc": "2.0", "id": id, "result": r })),
        (id(), -32800i64..-31999).prop_map(|(id, code)| json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": "no", "data": { "supported": ["2025-11-25", "2024-11-05"] } } })),
    ];
    prop_oneof![
        8 => valid.clone().prop_map(|v| v.to_string()),
        // Cut short, or with a broken envelope.
        1 => (valid.clone(), any::<prop::sample::Index>()).prop_map(|(v, at)| {
            let text = v.to_string();
            let cut = at.index(text.len());
            text[..cut].to_owned()
        }),
        1 => valid.clone().prop_map(|mut v| {
            v["jsonrpc"] = json!("1.0");
            v.to_string()
        }),
        // A batch (legal only in MCP 2025-03-26).
        1 => prop::collection::vec(valid, 1..4).prop_map(|vs| Value::Array(vs).to_string()),
    ]
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        12 => message().prop_map(Step::Frame),
        1 => prop_oneof![Just(10u64), Just(61_000), Just(700_000)].prop_map(Step::Wait),
    ];
    prop::collection::vec(step, 0..24)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Each role, from each stage, stays consistent under any input: every request is
    /// answered or delivered once, the getters work, and closing fails what is pending.
    #[test]
    fn any_input_leaves_every_role_valid(scenario in any::<u8>(), steps in steps()) {
        drive(acp_client(scenario), steps.clone());
        drive(acp_agent(scenario), steps.clone());
        drive(mcp_client(scenario), steps.clone());
        drive(mcp_server(scenario), steps);
    }

    /// Replaying a frame (duplicated ids, answers that came twice) changes nothing of the above.
    #[test]
    fn duplicated_frames_are_answered_once_each(scenario in any::<u8>(), steps in steps()) {
        let doubled: Vec<Step> = steps.into_iter().flat_map(|s| [s.clone(), s]).collect();
        drive(acp_agent(scenario), doubled.clone());
        drive(mcp_server(scenario), doubled);
    }
}

// ---------------------------------------------------------------------------------------
// A client and a server over a link that may lose, delay and reorder, with a fake clock.

#[derive(Clone, Debug)]
enum Action {
    /// The client's application calls something (which one: the number).
    ClientCall(u8),
    ServerCall(u8),
    /// One frame in flight arrives (which one: the index, so frames may overtake), or is lost.
    Deliver {
        to_client: bool,
        pick: prop::sample::Index,
        lose: bool,
    },
    Wait(u64),
}

fn actions() -> impl Strategy<Value = Vec<Action>> {
    let action = prop_oneof![
        2 => any::<u8>().prop_map(Action::ClientCall),
        2 => any::<u8>().prop_map(Action::ServerCall),
        6 => (any::<bool>(), any::<prop::sample::Index>(), prop::bool::weighted(0.15))
            .prop_map(|(to_client, pick, lose)| Action::Deliver { to_client, pick, lose }),
        1 => prop_oneof![Just(5u64), Just(30_000), Just(61_000)].prop_map(Action::Wait),
    ];
    prop::collection::vec(action, 0..40)
}

/// The link: frames in flight each way.
#[derive(Default)]
struct Link {
    to_client: VecDeque<String>,
    to_server: VecDeque<String>,
}

/// Runs the actions over a pair; ends by letting every deadline pass and closing both.
fn simulate<C: Driven, S: Driven>(
    client: &mut Harness<C>,
    server: &mut Harness<S>,
    actions: &[Action],
    client_call: fn(&mut Harness<C>, u8),
    server_call: fn(&mut Harness<S>, u8),
) {
    let mut link = Link::default();
    for action in actions {
        match action {
            Action::ClientCall(n) => client_call(client, *n),
            Action::ServerCall(n) => server_call(server, *n),
            Action::Deliver {
                to_client,
                pick,
                lose,
            } => {
                let queue = if *to_client {
                    &mut link.to_client
                } else {
                    &mut link.to_server
                };
                if queue.is_empty() {
                    continue;
                }
                // Mostly in order; sometimes a later frame overtakes.
                let at = if pick.index(4) == 0 {
                    pick.index(queue.len())
                } else {
                    0
                };
                let Some(text) = queue.remove(at) else {
                    continue;
                };
                if !lose {
                    if *to_client {
                        client.frame(&text);
                    } else {
                        server.frame(&text);
                    }
                }
            }
            Action::Wait(ms) => {
                client.tick(*ms);
                server.tick(*ms);
            }
        }
        link.to_server.extend(client.outbox.drain(..));
        link.to_client.extend(server.outbox.drain(..));
    }
    client.tick(1_000_000);
    server.tick(1_000_000);
    client.finish();
    server.finish();
}

/// Runs the same actions over a lossless, in-order link without waiting: then every
/// request must have its answer (none times out, none is left pending).
fn lossless<C: Driven, S: Driven>(
    client: &mut Harness<C>,
    server: &mut Harness<S>,
    actions: &[Action],
    client_call: fn(&mut Harness<C>, u8),
    server_call: fn(&mut Harness<S>, u8),
) {
    for action in actions {
        match action {
            Action::ClientCall(n) => client_call(client, *n),
            Action::ServerCall(n) => server_call(server, *n),
            _ => {}
        }
        exchange(client, server, 16);
    }
    assert_eq!(
        client.unanswered() + server.unanswered(),
        0,
        "a request without an answer over a lossless link"
    );
    assert_eq!(
        client.session.next_deadline(),
        None,
        "the client still waits for something"
    );
    assert_eq!(
        server.session.next_deadline(),
        None,
        "the server still waits for something"
    );
    client.finish();
    server.finish();
}

fn acp_client_call(h: &mut Harness<AcpClient>, n: u8) {
    match n % 5 {
        0 => h.call(|s, now| s.new_session(json!({ "cwd": "/w", "mcpServers": [] }), now)),
        1 => h.call(|s, now| s.prompt("s1", json!([{ "type": "text", "text": "hi" }]), now)),
        2 => h.call(|s, now| s.request("_ext/call", Some(json!({})), now)),
        3 => h.call(|s, now| s.list_sessions(json!({}), now)),
        _ => h.call(|s, now| {
            s.load_session(
                json!({ "sessionId": "s1", "cwd": "/w", "mcpServers": [] }),
                now,
            )
        }),
    };
}

fn acp_agent_call(h: &mut Harness<AcpAgent>, n: u8) {
    let permission = json!({ "sessionId": "s1", "toolCall": { "toolCallId": "t" }, "options": [{ "optionId": "ok", "name": "OK", "kind": "allow_once" }] });
    match n % 4 {
        0 => h.call(|s, now| s.request_permission(permission, now)),
        1 => h.call(|s, now| s.read_text_file(json!({ "sessionId": "s1", "path": "/w/a" }), now)),
        2 => h.call(|s, _| s.send_update("s1", json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": "x" } }))),
        _ => h.call(|s, now| s.request("_ext/ask", Some(json!({})), now)),
    };
}

fn mcp_client_call(h: &mut Harness<McpClient>, n: u8) {
    let progress = RequestOptions {
        timeout_ms: Some(20_000),
        reset_on_progress: true,
        max_total_ms: Some(90_000),
    };
    match n % 4 {
        0 => h.call(|s, now| s.ping(now)),
        1 => h.call(|s, now| s.list_tools(None, now)),
        2 => h.call(|s, now| s.call_tool("echo", Some(json!({})), progress, now)),
        _ => h.call(|s, now| s.list_prompts(None, now)),
    };
}

fn mcp_server_call(h: &mut Harness<McpServer>, n: u8) {
    match n % 4 {
        0 => h.call(|s, now| s.ping(now)),
        1 => h.call(|s, now| s.list_roots(now)),
        2 => h.call(|s, now| {
            s.create_message(
                json!({ "messages": [], "maxTokens": 5 }),
                RequestOptions::default(),
                now,
            )
        }),
        _ => h.call(|s, _| s.log("info", None, json!("x"))),
    };
}

/// A connected pair with both applications answering what they are asked.
fn serving<A: Driven, B: Driven>(
    (mut a, mut b): (Harness<A>, Harness<B>),
) -> (Harness<A>, Harness<B>) {
    a.outbox.clear();
    b.outbox.clear();
    a.responder = serve;
    b.responder = serve;
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn acp_every_request_ends_once_over_a_faulty_link(variant in 0u8..4, actions in actions()) {
        let (mut c, mut a) = serving(acp_pair(2 | (variant << 2)));
        simulate(&mut c, &mut a, &actions, acp_client_call, acp_agent_call);
    }

    #[test]
    fn mcp_every_request_ends_once_over_a_faulty_link(variant in 0u8..5, actions in actions()) {
        let (mut c, mut s) = serving(mcp_pair(2 | (variant << 2)));
        simulate(&mut c, &mut s, &actions, mcp_client_call, mcp_server_call);
    }

    #[test]
    fn acp_every_request_is_answered_over_a_lossless_link(variant in 0u8..4, actions in actions()) {
        let (mut c, mut a) = serving(acp_pair(2 | (variant << 2)));
        lossless(&mut c, &mut a, &actions, acp_client_call, acp_agent_call);
    }

    #[test]
    fn mcp_every_request_is_answered_over_a_lossless_link(variant in 0u8..5, actions in actions()) {
        let (mut c, mut s) = serving(mcp_pair(2 | (variant << 2)));
        lossless(&mut c, &mut s, &actions, mcp_client_call, mcp_server_call);
    }
}

// ---------------------------------------------------------------------------------------
// Hostile input through `receive`.

/// The error replies a frame produced.
fn error_replies<S: Driven>(events: &[S::Event]) -> Vec<(Id, ProtocolError)> {
    events
        .iter()
        .filter_map(|e| match S::seen(e) {
            Seen::Send(text) => match sent_message(&text) {
                Message::Response(r) => r.outcome.err().map(|e| (r.id, e)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The requests a frame delivered to the application.
fn delivered<S: Driven>(events: &[S::Event]) -> Vec<(Id, String, Option<Value>)> {
    events
        .iter()
        .filter_map(|e| match S::seen(e) {
            Seen::Request { id, method, params } => Some((id, method, params)),
            _ => None,
        })
        .collect()
}

/// Feeds `text`, checks that it gets exactly one error reply (id, code, a word of the
/// reason in `data`), then that the session still answers a ping (MCP) or delivers an
/// extension request (ACP).
fn refused<S: Driven>(
    h: &mut Harness<S>,
    text: &str,
    (id, code, why): (&Id, i64, &str),
    probe: &str,
) {
    let events = h.frame(text);
    let errors = error_replies::<S>(&events);
    assert_eq!(
        errors.len(),
        1,
        "one error reply to {}…: {events:?}",
        &text[..text.len().min(60)]
    );
    let (got_id, error) = &errors[0];
    assert_eq!((got_id, error.code), (id, code), "{events:?}");
    let reason = error
        .data
        .as_ref()
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(
        reason.contains(why),
        "the reason {reason:?} does not say {why:?}"
    );
    let after = h.frame(probe);
    let answered = after
        .iter()
        .any(|e| matches!(S::seen(e), Seen::Send(t) if t.contains("\"result\"")));
    assert!(
        answered || !delivered::<S>(&after).is_empty(),
        "the session does not go on after hostile input: {after:?}"
    );
}

fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
    let mut s = String::with_capacity(depth * (open.len() + close.len()) + inner.len());
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(inner);
    for _ in 0..depth {
        s.push_str(close);
    }
    s
}

/// Every hostile frame with the id its error reply carries, the code, and a word of the reason.
fn hostile_frames() -> Vec<(String, Id, i64, &'static str)> {
    let deep_array = nested(100_000, "[", "]", "1");
    let deep_object = nested(100_000, "{\"a\":", "}", "1");
    let deep_params = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"_ext/call\",\"params\":{}}}",
        nested(100_000, "[", "]", "")
    );
    let parse = codes::PARSE_ERROR;
    let range = "out of the signed 64-bit range";
    vec![
        (deep_array, Id::Null, parse, "recursion limit"),
        (deep_object, Id::Null, parse, "recursion limit"),
        // The id cannot be read from text that does not parse.
        (deep_params, Id::Null, parse, "recursion limit"),
        (
            r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#.into(),
            Id::Null,
            parse,
            "out of range",
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#.into(),
            Id::Null,
            codes::INVALID_REQUEST,
            range,
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#.into(),
            Id::Null,
            codes::INVALID_REQUEST,
            range,
        ),
        (
            r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}"#.into(),
            Id::Null,
            codes::INVALID_REQUEST,
            range,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"n":1e400}}"#.into(),
            Id::Null,
            parse,
            "out of range",
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"s":"\ud800"}}"#.into(),
            Id::Null,
            parse,
            "escape",
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"s":"\udc00x"}}"#.into(),
            Id::Null,
            parse,
            "escape",
        ),
        (
            r#"{"jsonrpc":"2.0","id":"\ud83d","method":"ping"}"#.into(),
            Id::Null,
            parse,
            "escape",
        ),
        (
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}".into(),
            Id::Null,
            parse,
            "expected value",
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"ping"} {"#.into(),
            Id::Null,
            parse,
            "trailing characters",
        ),
    ]
}

#[test]
fn hostile_frames_get_a_clear_error_and_the_session_goes_on() {
    let mcp_ping = r#"{"jsonrpc":"2.0","id":90,"method":"ping"}"#;
    let acp_probe = r#"{"jsonrpc":"2.0","id":90,"method":"_ext/call","params":{}}"#;
    for (text, id, code, why) in hostile_frames() {
        let expected = (&id, code, why);
        let mut s = mcp_server(2);
        refused(&mut s, &text, expected, mcp_ping);
        s.finish();
        let mut c = mcp_client(3);
        refused(&mut c, &text, expected, mcp_ping);
        c.finish();
        let mut a = acp_agent(2);
        a.answer = false;
        refused(&mut a, &text, expected, acp_probe);
        a.finish();
        let mut c = acp_client(3);
        c.answer = false;
        refused(&mut c, &text, expected, acp_probe);
        c.finish();
    }
}

#[test]
fn huge_strings_and_arrays_are_delivered_whole() {
    let big = "x".repeat(4 << 20);
    let many: Vec<u32> = (0..200_000).collect();
    let text = json!({ "jsonrpc": "2.0", "id": 1, "method": "_ext/call", "params": { "s": big, "a": many } }).to_string();
    let mut a = acp_agent(2);
    a.answer = false;
    let events = a.frame(&text);
    let got = delivered::<AcpAgent>(&events);
    assert_eq!(got.len(), 1, "{:?}", &events.len());
    let params = got[0].2.as_ref().expect("params");
    assert_eq!(params["s"].as_str().map(str::len), Some(4 << 20));
    assert_eq!(params["a"].as_array().map(Vec::len), Some(200_000));
    a.finish();

    // A huge batch in MCP 2025-03-26: every element answered on its own.
    let mut s = mcp_server(2 | (2 << 2));
    assert_eq!(s.session.protocol_version(), Some("2025-03-26"));
    let batch: Vec<Value> = (0..5_000)
        .map(|i| json!({ "jsonrpc": "2.0", "id": i, "method": "ping" }))
        .collect();
    let events = s.frame(&Value::Array(batch).to_string());
    let answers = events
        .iter()
        .filter(|e| matches!(McpServer::seen(e), Seen::Send(_)))
        .count();
    assert_eq!(answers, 5_000);
    s.finish();
}

#[test]
fn numbers_out_of_range_inside_params_stay_numbers() {
    // Integers past 64 bits read as floats; they are data, not an error.
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"_ext/call","params":{"big":123456789012345678901234567890,"neg":-1e308,"tiny":5e-324}}"#;
    let mut a = acp_agent(2);
    a.answer = false;
    let events = a.frame(text);
    let got = delivered::<AcpAgent>(&events);
    let params = got[0].2.clone().expect("params");
    assert_eq!(params["big"].as_f64(), Some(1.2345678901234568e29));
    assert_eq!(params["neg"].as_f64(), Some(-1e308));
    assert_eq!(params["tiny"].as_f64(), Some(5e-324));
    a.finish();
}

#[test]
fn duplicate_keys_take_the_last_value_as_javascript_does() {
    // `JSON.parse` keeps the last of duplicate keys; so does the core, for the envelope
    // (the request is answered once, under its last id) and for params.
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","id":2,"method":"ping","params":{"a":1,"a":2}}"#;
    let mut s = mcp_server(2);
    let events = s.frame(text);
    let sent: Vec<Value> = events
        .iter()
        .filter_map(|e| match McpServer::seen(e) {
            Seen::Send(t) => serde_json::from_str(&t).ok(),
            _ => None,
        })
        .collect();
    assert_eq!(
        sent,
        vec![json!({ "jsonrpc": "2.0", "id": 2, "result": {} })]
    );
    s.finish();

    let mut a = acp_agent(2);
    a.answer = false;
    let events = a.frame(r#"{"jsonrpc":"2.0","id":1,"method":"_ext/call","params":{"a":1,"a":2}}"#);
    assert_eq!(delivered::<AcpAgent>(&events)[0].2, Some(json!({ "a": 2 })));
    a.finish();
}

#[test]
fn proto_and_constructor_keys_are_plain_data() {
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"_ext/call","params":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}}"#;
    let mut a = acp_agent(2);
    a.answer = false;
    let events = a.frame(text);
    let got = delivered::<AcpAgent>(&events);
    assert_eq!(
        got[0].2,
        Some(
            json!({ "__proto__": { "polluted": true }, "constructor": { "prototype": { "x": 1 } } })
        )
    );
    a.finish();

    // As a method name it is an `_`-prefixed extension method like any other.
    let mut s = mcp_server(2);
    s.answer = false;
    let events =
        s.frame(r#"{"jsonrpc":"2.0","id":3,"method":"__proto__","params":{"__proto__":null}}"#);
    let got = delivered::<McpServer>(&events);
    assert_eq!(
        got,
        vec![(
            Id::Number(3),
            "__proto__".to_owned(),
            Some(json!({ "__proto__": null }))
        )]
    );
    s.finish();
}
