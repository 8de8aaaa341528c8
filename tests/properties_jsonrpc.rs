//! Properties of the JSON-RPC envelope: whatever parses serializes and parses back to
//! the same message, floats to the bit; whatever does not parse fails with -32700 or
//! -32600 and a valid error reply.
//!
//! Regression (found by the `jsonrpc_parse` fuzz target): serde_json parsed floats with
//! best-effort precision, so about a third of all floats moved by one unit in the last
//! place on their way through agentwire; `float_roundtrip` is now on in Cargo.toml.
//! Native test builds get that feature from `jsonschema` as well, so here these tests
//! guard the round trip itself; the fuzz crate, built without test dependencies, is
//! what fails if the feature goes missing from the shipped build.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../fuzz/src/lib.rs"]
mod harness;

use agentwire::jsonrpc::{parse, Incoming, Message, ParseOptions};
use proptest::prelude::*;
use serde_json::{json, Value};

fn reparse(text: &str) -> Message {
    match parse(text, &ParseOptions::default()) {
        Ok(Incoming::Single(m)) => m,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn floats_survive_a_round_trip_to_the_bit() {
    for f in [
        1.0715660391465826e-75,
        -1.81996730402717e-179,
        -1.603964615428183e143,
        0.1,
        5e-324,
        f64::MAX,
        -0.0,
    ] {
        let text = Message::notification("_x", Some(json!({ "f": f }))).to_text();
        let back = reparse(&text);
        let Message::Notification(n) = &back else {
            panic!("{back:?}")
        };
        let got = n
            .params
            .as_ref()
            .and_then(|p| p["f"].as_f64())
            .expect("a float");
        assert_eq!(got.to_bits(), f.to_bits(), "{text}");
        assert_eq!(back.to_text(), text);
    }
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((".{0,6}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_float_survives_a_round_trip(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let m = Message::notification("_x", Some(json!([f])));
        prop_assert_eq!(reparse(&m.to_text()), m);
    }

    /// Any value as params, result or error data parses back unchanged, under every
    /// parser configuration.
    #[test]
    fn any_message_round_trips(params in json_value(), id in any::<i64>(), method in "[a-z/_$]{1,12}") {
        let wrapped = match params {
            p @ (Value::Object(_) | Value::Array(_)) => p,
            other => json!({ "v": other }),
        };
        for m in [
            Message::request(id, method.as_str(), Some(wrapped.clone())),
            Message::notification(method.as_str(), Some(wrapped.clone())),
            Message::response(id.into(), wrapped.clone()),
            Message::error(id.into(), agentwire::jsonrpc::ProtocolError::new(id, method.as_str()).with_data(wrapped.clone())),
        ] {
            harness::parse_round_trip(&m.to_text());
        }
    }

    /// Any text: a message or a precise failure, never a panic.
    #[test]
    fn any_text_parses_or_fails_precisely(text in "\\PC{0,64}") {
        harness::parse_round_trip(&text);
    }

    /// Any value in any validation context: well-formed issues, never a panic.
    #[test]
    fn any_value_validates_without_panic(selector in any::<u8>(), params in json_value()) {
        let text = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "v": params.clone() } }).to_string();
        harness::validate_all(selector, &text);
        harness::validate_all(selector, &json!({ "jsonrpc": "2.0", "id": 1, "result": params }).to_string());
    }
}
