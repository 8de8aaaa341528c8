//! The JSON-RPC 2.0 core against every example of the JSON-RPC 2.0 specification
//! (§7), the invalid cases it names, ids, error codes and the pending-request table.
#![cfg(not(target_arch = "wasm32"))]

use agentwire::jsonrpc::*;
use serde_json::{json, Value};

#[derive(Debug, PartialEq)]
enum Kind {
    Request,
    Notification,
    Result,
    Error,
}

fn kind(m: &Message) -> Kind {
    match m {
        Message::Request(_) => Kind::Request,
        Message::Notification(_) => Kind::Notification,
        Message::Response(Response { outcome: Ok(_), .. }) => Kind::Result,
        Message::Response(Response {
            outcome: Err(_), ..
        }) => Kind::Error,
    }
}

#[allow(clippy::result_large_err)] // as the parser's own (src/jsonrpc/message.rs)
fn single(text: &str) -> Result<Message, ParseFailure> {
    match parse(text, &ParseOptions::default())? {
        Incoming::Single(m) => Ok(m),
        Incoming::Batch(_) => panic!("{text} parsed as a batch"),
    }
}

#[test]
fn specification_examples_that_are_valid() {
    let table: &[(&str, Kind, Option<&str>)] = &[
        (
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
            Kind::Request,
            Some("subtract"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
            Kind::Request,
            Some("subtract"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
            Kind::Request,
            Some("subtract"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
            Kind::Request,
            Some("subtract"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
            Kind::Notification,
            Some("update"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "foobar"}"#,
            Kind::Notification,
            Some("foobar"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
            Kind::Request,
            Some("foobar"),
        ),
        (
            r#"{"jsonrpc": "2.0", "result": 19, "id": 1}"#,
            Kind::Result,
            None,
        ),
        (
            r#"{"jsonrpc": "2.0", "result": -19, "id": 2}"#,
            Kind::Result,
            None,
        ),
        (
            r#"{"jsonrpc": "2.0", "result": null, "id": 3}"#,
            Kind::Result,
            None,
        ),
        (
            r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#,
            Kind::Error,
            None,
        ),
        (
            r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#,
            Kind::Error,
            None,
        ),
        (
            r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": {"x": 1}}, "id": null}"#,
            Kind::Error,
            None,
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "get_data", "id": "9"}"#,
            Kind::Request,
            Some("get_data"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "params": {}, "id": -7}"#,
            Kind::Request,
            Some("m"),
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "params": [], "id": ""}"#,
            Kind::Request,
            Some("m"),
        ),
    ];
    for (text, want, method) in table {
        let m = single(text).unwrap_or_else(|f| panic!("{text}: {f:?}"));
        assert_eq!(&kind(&m), want, "{text}");
        assert_eq!(m.method(), *method, "{text}");
    }
}

#[test]
fn fields_are_kept_raw() {
    let m = single(r#"{"jsonrpc":"2.0","id":3,"method":"subtract","params":{"subtrahend":23,"minuend":42,"_meta":{"x":[1]}}}"#).unwrap();
    let Message::Request(r) = m else { panic!() };
    assert_eq!(r.id, Id::Number(3));
    assert_eq!(
        r.params,
        Some(json!({"subtrahend":23,"minuend":42,"_meta":{"x":[1]}}))
    );
    let Message::Response(r) = single(r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad","data":{"supported":["1"]}}}"#).unwrap() else { panic!() };
    assert_eq!(r.id, Id::String("a".into()));
    assert_eq!(
        r.outcome,
        Err(ProtocolError {
            code: -32602,
            message: "bad".into(),
            data: Some(json!({"supported":["1"]}))
        })
    );
}

#[test]
fn integral_ids_are_integers_however_written() {
    for (text, want) in [
        ("1.0", 1),
        ("-0", 0),
        ("-0.0", 0),
        ("1e3", 1000),
        ("-2E0", -2),
        ("9007199254740992.0", 1 << 53),
    ] {
        let m = single(&format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#))
            .unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(m.id(), Some(&Id::Number(want)), "{text}");
    }
    for (text, why) in [
        ("1.5", "fractional"),
        ("1e-1", "fractional"),
        ("9.3e18", "range"),
        ("-1e19", "range"),
    ] {
        let e = single(&format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#)).unwrap_err();
        let reason = e
            .error
            .data
            .as_ref()
            .and_then(Value::as_str)
            .unwrap_or_default();
        assert!(
            e.error.code == -32600 && reason.contains(why),
            "{text}: {reason}"
        );
    }
}

#[test]
fn invalid_messages_are_classified() {
    // (text, code, id in the failure, words the reason must contain)
    let table: &[(&str, i64, Id, &str)] = &[
        (
            r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
            -32700,
            Id::Null,
            "",
        ),
        (
            r#"[ {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method" ]"#,
            -32700,
            Id::Null,
            "",
        ),
        ("", -32700, Id::Null, ""),
        ("not json", -32700, Id::Null, ""),
        (
            r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            -32600,
            Id::Null,
            "method",
        ),
        ("[]", -32600, Id::Null, "empty"),
        ("42", -32600, Id::Null, "object"),
        ("null", -32600, Id::Null, "object"),
        (r#""text""#, -32600, Id::Null, "object"),
        (
            r#"{"method": "m", "id": 1}"#,
            -32600,
            Id::Number(1),
            "jsonrpc",
        ),
        (
            r#"{"jsonrpc": "1.0", "method": "m", "id": 1}"#,
            -32600,
            Id::Number(1),
            "2.0",
        ),
        (
            r#"{"jsonrpc": 2.0, "method": "m", "id": 1}"#,
            -32600,
            Id::Number(1),
            "2.0",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": true}"#,
            -32600,
            Id::Null,
            "boolean",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": 1.5}"#,
            -32600,
            Id::Null,
            "fractional",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": {"a": 1}}"#,
            -32600,
            Id::Null,
            "object",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": [1]}"#,
            -32600,
            Id::Null,
            "array",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": 18446744073709551615}"#,
            -32600,
            Id::Null,
            "range",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": 1, "params": "x"}"#,
            -32600,
            Id::Number(1),
            "params",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": 1, "params": null}"#,
            -32600,
            Id::Number(1),
            "params",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": 1, "params": 3}"#,
            -32600,
            Id::Number(1),
            "params",
        ),
        (
            r#"{"jsonrpc": "2.0", "method": "m", "id": 1, "result": 3}"#,
            -32600,
            Id::Number(1),
            "result",
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 1, "result": 1, "error": {"code": 1, "message": "x"}}"#,
            -32600,
            Id::Number(1),
            "both",
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 1}"#,
            -32600,
            Id::Number(1),
            "result",
        ),
        (r#"{"jsonrpc": "2.0"}"#, -32600, Id::Null, "neither"),
        (
            r#"{"jsonrpc": "2.0", "id": 1, "error": "boom"}"#,
            -32600,
            Id::Number(1),
            "error",
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 1, "error": {"message": "x"}}"#,
            -32600,
            Id::Number(1),
            "code",
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": 1.5, "message": "x"}}"#,
            -32600,
            Id::Number(1),
            "integer",
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": "1", "message": "x"}}"#,
            -32600,
            Id::Number(1),
            "integer",
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": 1}}"#,
            -32600,
            Id::Number(1),
            "message",
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": 7}}"#,
            -32600,
            Id::Number(1),
            "message",
        ),
    ];
    for (text, code, id, words) in table {
        let f = parse(text, &ParseOptions::default()).expect_err(text);
        assert_eq!(f.error.code, *code, "{text}: {f:?}");
        assert_eq!(&f.id, id, "{text}");
        let reason = f
            .error
            .data
            .as_ref()
            .and_then(Value::as_str)
            .unwrap_or_default();
        assert!(
            reason.contains(words),
            "{text}: reason {reason:?} lacks {words:?}"
        );
        // The failure turns into a valid error response.
        let back = single(&Message::Response(f.to_response()).to_text()).unwrap();
        assert_eq!(kind(&back), Kind::Error);
    }
}

#[test]
fn batches_judge_each_element() {
    let opts = ParseOptions::default();
    let Incoming::Batch(items) = parse("[1]", &opts).unwrap() else {
        panic!()
    };
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap_err().error.code, -32600);

    let Incoming::Batch(items) = parse("[1,2,3]", &opts).unwrap() else {
        panic!()
    };
    assert_eq!(items.iter().filter(|r| r.is_err()).count(), 3);

    let text = r#"[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]"#;
    let Incoming::Batch(items) = parse(text, &opts).unwrap() else {
        panic!()
    };
    let kinds: Vec<Option<Kind>> = items.iter().map(|r| r.as_ref().ok().map(kind)).collect();
    assert_eq!(
        kinds,
        vec![
            Some(Kind::Request),
            Some(Kind::Notification),
            Some(Kind::Request),
            None,
            Some(Kind::Request),
            Some(Kind::Request)
        ]
    );
    let only_notifications = r#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"#;
    let Incoming::Batch(items) = parse(only_notifications, &opts).unwrap() else {
        panic!()
    };
    assert!(items
        .iter()
        .all(|r| matches!(r, Ok(Message::Notification(_)))));
}

#[test]
fn batch_policy_comes_from_the_protocol() {
    let no_batch = ParseOptions {
        allow_batch: false,
        allow_null_id: true,
    };
    let f = parse(r#"[{"jsonrpc":"2.0","method":"a"}]"#, &no_batch).unwrap_err();
    assert_eq!(f.error.code, -32600);
    assert!(f.error.data.unwrap().as_str().unwrap().contains("batch"));
}

#[test]
fn null_request_ids_follow_the_protocol_policy() {
    let text = r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#;
    let Message::Request(r) = single(text).unwrap() else {
        panic!()
    };
    assert_eq!(r.id, Id::Null);
    let mcp = ParseOptions {
        allow_batch: false,
        allow_null_id: false,
    };
    let f = parse(text, &mcp).unwrap_err();
    assert_eq!(f.error.code, -32600);
    assert!(f.error.data.unwrap().as_str().unwrap().contains("null"));
    // A null id on an error response stays legal: it answers an unidentifiable request.
    assert!(parse(
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        &mcp
    )
    .is_ok());
}

#[test]
fn serialization_is_exact_json_rpc() {
    let cases = [
        (
            Message::request(1, "initialize", Some(json!({"protocolVersion": 1}))),
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#,
        ),
        (
            Message::request("x", "ping", None),
            r#"{"jsonrpc":"2.0","id":"x","method":"ping"}"#,
        ),
        (
            Message::notification("notifications/initialized", None),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
        (
            Message::response(Id::Number(1), Value::Null),
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
        ),
        (
            Message::error(Id::Null, ProtocolError::new(-32700, "Parse error")),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        ),
    ];
    for (m, text) in cases {
        assert_eq!(m.to_text(), text);
        assert_eq!(single(text).unwrap(), m);
    }
    let b = batch_to_text(&[
        Message::notification("a", None),
        Message::request(2, "b", Some(json!([1]))),
    ]);
    assert_eq!(
        b,
        r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":2,"method":"b","params":[1]}]"#
    );
}

#[test]
fn standard_error_codes() {
    assert_eq!(ProtocolError::parse_error("x").code, -32700);
    assert_eq!(ProtocolError::invalid_request("x").code, -32600);
    let nf = ProtocolError::method_not_found("tools/list");
    assert_eq!(nf.code, -32601);
    assert_eq!(nf.data, Some(json!({"method": "tools/list"})));
    assert!(nf.message.contains("tools/list"));
    assert_eq!(ProtocolError::invalid_params("x").code, -32602);
    assert_eq!(ProtocolError::internal_error("x").code, -32603);
    assert_eq!(codes::UNSUPPORTED_PROTOCOL_VERSION, -32022);
    let t = ProtocolError::timeout("session/prompt", 500);
    assert_eq!(
        (t.code, t.data.unwrap()["timeoutMs"].as_u64()),
        (codes::TIMEOUT, Some(500))
    );
}

#[test]
fn pending_table_matches_responses() {
    let mut t = PendingTable::new();
    let a = t.next_id();
    let b = t.next_id();
    assert_ne!(a, b);
    t.register(a.clone(), "initialize", 0, Timeout::default())
        .unwrap();
    t.register(
        b.clone(),
        "session/new",
        0,
        Timeout {
            timeout_ms: Some(100),
            max_total_ms: None,
        },
    )
    .unwrap();
    assert_eq!(
        t.register(a.clone(), "again", 0, Timeout::default()),
        Err(a.clone())
    );
    match t.resolve(&a) {
        Matched::Answered(e) => assert_eq!(e.method, "initialize"),
        other => panic!("{other:?}"),
    }
    assert_eq!(t.resolve(&a), Matched::AlreadyAnswered);
    assert_eq!(t.resolve(&Id::String("stranger".into())), Matched::Unknown);
    assert_eq!(t.pending_count(), 1);
}

#[test]
fn pending_table_expires_and_progress_pushes_deadlines_up_to_a_cap() {
    let mut t = PendingTable::new();
    let slow = Id::Number(1);
    let capped = Id::Number(2);
    let forever = Id::Number(3);
    t.register(
        slow.clone(),
        "tools/call",
        1000,
        Timeout {
            timeout_ms: Some(100),
            max_total_ms: None,
        },
    )
    .unwrap();
    t.register(
        capped.clone(),
        "tools/call",
        1000,
        Timeout {
            timeout_ms: Some(100),
            max_total_ms: Some(250),
        },
    )
    .unwrap();
    t.register(forever.clone(), "initialize", 1000, Timeout::default())
        .unwrap();
    assert_eq!(t.next_deadline(), Some(1100));
    assert!(t.expire(1099).is_empty());
    assert!(t.touch(&slow, 1090));
    assert!(t.touch(&capped, 1090));
    let expired = t.expire(1100);
    assert!(expired.is_empty(), "{expired:?}");
    assert!(t.touch(&capped, 1180)); // would be 1280, capped at 1250
    assert_eq!(t.get(&capped).unwrap().deadline_ms, Some(1250));
    let expired: Vec<Id> = t.expire(1250).into_iter().map(|e| e.id).collect();
    assert_eq!(expired, vec![slow.clone(), capped.clone()]);
    assert_eq!(
        t.resolve(&slow),
        Matched::AlreadyAnswered,
        "a late answer is recognised"
    );
    assert!(!t.touch(&slow, 1300));
    assert_eq!(t.next_deadline(), None);
    assert_eq!(t.drain().len(), 1);
    assert_eq!(t.resolve(&forever), Matched::Unknown);
}

#[test]
fn pending_table_cancel_and_incoming_duplicates() {
    let mut t = PendingTable::new();
    t.register(Id::Number(7), "session/prompt", 0, Timeout::default())
        .unwrap();
    assert_eq!(t.cancel(&Id::Number(7)).unwrap().method, "session/prompt");
    assert!(t.cancel(&Id::Number(7)).is_none());
    assert_eq!(t.resolve(&Id::Number(7)), Matched::AlreadyAnswered);

    let id = Id::String("r1".into());
    assert!(t.begin_incoming(&id).is_ok());
    assert!(t.begin_incoming(&id).is_err(), "duplicate incoming id");
    assert!(t.finish_incoming(&id));
    assert!(
        t.begin_incoming(&id).is_ok(),
        "an id may be reused once answered"
    );
    assert_eq!(t.serving_count(), 1);
}

/// The memory of answered ids over a long session: an id is remembered once each time it is
/// answered, forgotten when it is sent again, and the oldest go first.
#[test]
fn pending_table_remembers_the_latest_answered_ids() {
    let mut t = PendingTable::new();
    let round = |t: &mut PendingTable, id: Id| {
        t.register(id.clone(), "m", 0, Timeout::default()).unwrap();
        t.resolve(&id)
    };
    // An id sent again (a lower number than the greatest answered, a string) is pending again.
    for id in [Id::Number(9), Id::Number(3), Id::String("s".into())] {
        assert!(matches!(round(&mut t, id.clone()), Matched::Answered(_)));
        assert!(
            matches!(round(&mut t, id.clone()), Matched::Answered(_)),
            "{id}"
        );
        assert_eq!(t.resolve(&id), Matched::AlreadyAnswered, "{id}");
    }
    assert_eq!(t.resolve(&Id::Number(4)), Matched::Unknown);
    // 1,024 answered ids are remembered: the oldest is forgotten first.
    for i in 0..1021 {
        let id = Id::Number(100 + i);
        assert!(matches!(round(&mut t, id), Matched::Answered(_)));
    }
    assert_eq!(t.resolve(&Id::Number(9)), Matched::AlreadyAnswered);
    round(&mut t, Id::Number(2000));
    assert_eq!(t.resolve(&Id::Number(9)), Matched::Unknown);
    assert_eq!(t.resolve(&Id::Number(3)), Matched::AlreadyAnswered);
}

#[test]
fn next_id_skips_ids_in_flight() {
    let mut t = PendingTable::new();
    t.register(Id::Number(0), "a", 0, Timeout::default())
        .unwrap();
    t.register(Id::Number(1), "b", 0, Timeout::default())
        .unwrap();
    assert_eq!(t.next_id(), Id::Number(2));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[a-z\\u{0}-\\u{7f}\\u{e9}\\u{1f600}]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn arb_id() -> impl Strategy<Value = Id> {
        prop_oneof![
            any::<i64>().prop_map(Id::Number),
            "[ -~]{0,10}".prop_map(Id::String)
        ]
    }

    fn arb_params() -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            Just(None),
            prop::collection::vec(arb_json(), 0..3).prop_map(|v| Some(Value::Array(v))),
            prop::collection::btree_map("[a-z]{1,5}", arb_json(), 0..3)
                .prop_map(|m| Some(Value::Object(m.into_iter().collect()))),
        ]
    }

    fn arb_message() -> impl Strategy<Value = Message> {
        prop_oneof![
            (arb_id(), "[a-z/_$]{1,12}", arb_params())
                .prop_map(|(id, m, p)| Message::request(id, m, p)),
            ("[a-z/_$]{1,12}", arb_params()).prop_map(|(m, p)| Message::notification(m, p)),
            (arb_id(), arb_json()).prop_map(|(id, r)| Message::response(id, r)),
            (
                arb_id(),
                any::<i64>(),
                ".{0,10}",
                prop::option::of(arb_json())
            )
                .prop_map(|(id, c, msg, d)| {
                    Message::error(
                        id,
                        ProtocolError {
                            code: c,
                            message: msg,
                            data: d,
                        },
                    )
                }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn parsing_any_string_never_panics(s in "\\PC{0,200}") {
            let _ = parse(&s, &ParseOptions::default());
        }

        #[test]
        fn parsing_any_json_never_panics(v in arb_json()) {
            let _ = parse(&v.to_string(), &ParseOptions::default());
        }

        #[test]
        fn serialize_then_parse_gives_the_message_back(m in arb_message()) {
            let back = parse(&m.to_text(), &ParseOptions::default()).unwrap();
            prop_assert_eq!(back, Incoming::Single(m));
        }

        #[test]
        fn batches_round_trip(ms in prop::collection::vec(arb_message(), 1..5)) {
            let Incoming::Batch(items) = parse(&batch_to_text(&ms), &ParseOptions::default()).unwrap() else {
                panic!("not a batch")
            };
            let back: Vec<Message> = items.into_iter().map(Result::unwrap).collect();
            prop_assert_eq!(back, ms);
        }
    }
}

mod endpoint {
    use super::*;

    #[test]
    fn requests_are_numbered_tracked_and_matched() {
        let mut e = Endpoint::new(ParseOptions::default());
        let (id, text) = e.request(
            "initialize",
            Some(json!({"protocolVersion": 1})),
            0,
            Timeout::default(),
        );
        assert_eq!(
            text,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":1}}}}"#
            )
        );
        let got = e.receive(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":1}}}}"#
        ));
        match &got[..] {
            [Received::Response {
                request,
                outcome: Ok(v),
            }] => {
                assert_eq!(request.method, "initialize");
                assert_eq!(v["protocolVersion"], 1);
            }
            other => panic!("{other:?}"),
        }
        let again = e.receive(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":null}}"#));
        assert!(matches!(
            &again[..],
            [Received::Stray {
                already_answered: true,
                ..
            }]
        ));
        let stranger = e.receive(r#"{"jsonrpc":"2.0","id":"zz","result":null}"#);
        assert!(matches!(
            &stranger[..],
            [Received::Stray {
                already_answered: false,
                ..
            }]
        ));
    }

    #[test]
    fn incoming_requests_are_answered_exactly_once() {
        let mut e = Endpoint::new(ParseOptions::default());
        let got = e.receive(
            r#"{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"path":"/a"}}"#,
        );
        let [Received::Request(r)] = &got[..] else {
            panic!("{got:?}")
        };
        let dup = e.receive(
            r#"{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"path":"/b"}}"#,
        );
        let [Received::DuplicateRequest { reply, .. }] = &dup[..] else {
            panic!("{dup:?}")
        };
        assert!(
            reply.contains("-32600") && reply.contains(r#""id":5"#),
            "{reply}"
        );
        let text = e.respond(&r.id, Ok(json!({"content": "x"}))).unwrap();
        assert_eq!(text, r#"{"jsonrpc":"2.0","id":5,"result":{"content":"x"}}"#);
        assert_eq!(
            e.respond(&r.id, Ok(Value::Null)).unwrap_err().code,
            codes::LOCAL_REFUSAL
        );
    }

    #[test]
    fn malformed_input_gets_the_named_error_back() {
        let mut e = Endpoint::new(ParseOptions {
            allow_batch: false,
            allow_null_id: false,
        });
        let got = e.receive("{not json");
        let [Received::Invalid {
            failure,
            reply: Some(reply),
        }] = &got[..]
        else {
            panic!("{got:?}")
        };
        assert_eq!(failure.error.code, -32700);
        assert!(
            reply.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700"#),
            "{reply}"
        );
        let got = e.receive(r#"{"jsonrpc":"2.0","id":3,"method":7}"#);
        let [Received::Invalid {
            reply: Some(reply), ..
        }] = &got[..]
        else {
            panic!("{got:?}")
        };
        assert!(
            reply.contains(r#""id":3"#) && reply.contains("-32600"),
            "{reply}"
        );
        let got = e.receive(r#"[{"jsonrpc":"2.0","method":"a"}]"#);
        assert!(matches!(&got[..], [Received::Invalid { .. }]));
    }

    #[test]
    fn a_malformed_response_is_reported_and_never_answered() {
        let mut e = Endpoint::new(ParseOptions::default());
        for text in [
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"no id"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1,"message":"both"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"1.0","id":4,"result":1}"#,
        ] {
            let got = e.receive(text);
            let [Received::Invalid {
                failure,
                reply: None,
            }] = &got[..]
            else {
                panic!("{text}: {got:?}")
            };
            assert_eq!(failure.error.code, codes::INVALID_REQUEST, "{text}");
        }
    }

    #[test]
    fn batches_are_taken_apart_in_order() {
        let mut e = Endpoint::new(ParseOptions::default());
        let got = e
            .receive(r#"[{"jsonrpc":"2.0","method":"a"},7,{"jsonrpc":"2.0","id":1,"method":"b"}]"#);
        assert!(matches!(
            &got[..],
            [
                Received::Notification(_),
                Received::Invalid { .. },
                Received::Request(_)
            ]
        ));
    }

    #[test]
    fn deadlines_and_close_report_what_is_left() {
        let mut e = Endpoint::new(ParseOptions::default());
        let (a, _) = e.request(
            "tools/call",
            None,
            0,
            Timeout {
                timeout_ms: Some(10),
                max_total_ms: None,
            },
        );
        let (b, _) = e.request("initialize", None, 0, Timeout::default());
        assert_eq!(
            e.expire(10).into_iter().map(|o| o.id).collect::<Vec<_>>(),
            vec![a.clone()]
        );
        let late = e.receive(&format!(r#"{{"jsonrpc":"2.0","id":{a},"result":{{}}}}"#));
        assert!(matches!(
            &late[..],
            [Received::Stray {
                already_answered: true,
                ..
            }]
        ));
        assert_eq!(
            e.close().into_iter().map(|o| o.id).collect::<Vec<_>>(),
            vec![b]
        );
        assert_eq!(e.pending().pending_count(), 0);
    }
}

mod common;

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn every_seed_message_is_a_valid_envelope() {
    let Some(seeds) = common::seeds() else { return };
    let mut checked = 0;
    for v in seeds.iter().filter(|v| v["direction"] != "fragment") {
        let text = v["message"].to_string();
        let m = single(&text).unwrap_or_else(|f| panic!("{}: {f:?}", v["what"]));
        let what = v["what"].as_str().unwrap();
        let expected = if what.contains("error") {
            Kind::Error
        } else if what.contains("response") {
            Kind::Result
        } else if v["message"].get("id").is_some() {
            Kind::Request
        } else {
            Kind::Notification
        };
        assert_eq!(kind(&m), expected, "{what}");
        assert_eq!(
            parse(&m.to_text(), &ParseOptions::default()).unwrap(),
            Incoming::Single(m)
        );
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} seed messages");
}
