//! The binding, run by wasm-bindgen-test in Node and in headless Chromium: values and
//! errors must arrive in JS as plain objects and real `Error`s with `code` and `data`.
#![cfg(target_arch = "wasm32")]

use agentwire::wasm::jsonrpc::{parse_message, serialize_message};
use js_sys::{Error, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

fn json(v: &JsValue) -> String {
    JSON::stringify(v).unwrap().into()
}

#[wasm_bindgen_test]
fn a_request_arrives_as_a_plain_object() {
    let v = parse_message(
        r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}"#,
        JsValue::UNDEFINED,
    )
    .unwrap();
    assert_eq!(
        json(&v),
        r#"{"kind":"request","id":7,"method":"initialize","params":{"protocolVersion":1}}"#
    );
}

#[wasm_bindgen_test]
fn kinds_of_messages() {
    let cases = [
        (
            r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
            "notification",
        ),
        (r#"{"jsonrpc":"2.0","id":"a","result":null}"#, "response"),
        (
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            "error",
        ),
        (r#"[{"jsonrpc":"2.0","method":"a"},1]"#, "batch"),
    ];
    for (text, kind) in cases {
        let v = parse_message(text, JsValue::UNDEFINED).unwrap();
        assert_eq!(get(&v, "kind").as_string().as_deref(), Some(kind), "{text}");
    }
}

#[wasm_bindgen_test]
fn failures_throw_errors_with_code_data_and_id() {
    let e = parse_message("{oops", JsValue::UNDEFINED).unwrap_err();
    assert!(e.is_instance_of::<Error>());
    assert_eq!(get(&e, "code").as_f64(), Some(-32700.0));
    assert!(get(&e, "data").as_string().is_some());
    assert!(get(&e, "id").is_null());

    let e = parse_message(
        r#"{"jsonrpc":"1.0","id":4,"method":"x"}"#,
        JsValue::UNDEFINED,
    )
    .unwrap_err();
    assert_eq!(get(&e, "code").as_f64(), Some(-32600.0));
    assert_eq!(get(&e, "id").as_f64(), Some(4.0));
    assert_eq!(e.unchecked_ref::<Error>().name(), "ProtocolError");
}

#[wasm_bindgen_test]
fn options_carry_the_protocol_policy() {
    let options = JSON::parse(r#"{"allowBatch":false,"allowNullId":false}"#).unwrap();
    let e = parse_message(r#"[{"jsonrpc":"2.0","method":"a"}]"#, options.clone()).unwrap_err();
    assert_eq!(get(&e, "code").as_f64(), Some(-32600.0));
    let e = parse_message(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, options).unwrap_err();
    assert_eq!(get(&e, "code").as_f64(), Some(-32600.0));
}

#[wasm_bindgen_test]
fn prototype_keys_stay_plain_data() {
    let v = parse_message(
        r#"{"jsonrpc":"2.0","method":"m","params":{"__proto__":{"polluted":true}}}"#,
        JsValue::UNDEFINED,
    )
    .unwrap();
    let params = get(&v, "params");
    assert!(Reflect::get(&js_sys::Object::new(), &"polluted".into())
        .unwrap()
        .is_undefined());
    let has_own = Reflect::get(&js_sys::Object::new(), &"hasOwnProperty".into()).unwrap();
    let has_own: js_sys::Function = has_own.unchecked_into();
    let own = has_own.call1(&params, &"__proto__".into()).unwrap();
    assert_eq!(own.as_bool(), Some(true), "__proto__ is an own data key");
}

#[wasm_bindgen_test]
fn serialize_round_trips() {
    let msg =
        JSON::parse(r#"{"id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#)
            .unwrap();
    assert_eq!(
        serialize_message(msg).unwrap(),
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#
    );
    let bad = JSON::parse(r#"{"id":1}"#).unwrap();
    let e = serialize_message(bad).unwrap_err();
    assert_eq!(get(&e, "code").as_f64(), Some(-32600.0));
}

/// The wasm build scans strings with SIMD: every special byte at every offset of a
/// 16-byte block must stop the scan, after filler bytes that could pass for one (high
/// bytes of multi-byte characters, and neighbours of the special bytes).
#[wasm_bindgen_test]
fn string_scans_stop_at_every_special_byte() {
    use agentwire::schema::{validate_text, Context, Direction, Limits, Protocol};
    let ctx = Context {
        protocol: Protocol::Mcp,
        version: "2025-11-25",
        direction: Direction::ClientToServer,
        in_reply_to: None,
    };
    let verdict = |text: &str| {
        validate_text(text, &ctx, &Limits::default())
            .issues
            .first()
            .map(|i| i.message.clone())
            .unwrap_or_default()
    };
    // What the parser says when the string's scan stops at byte `at` of the text.
    let stops = [
        ('"', "trailing characters after the JSON value", 1),
        ('\\', "invalid escape", 2),
        ('\u{0}', "control character in string", 0),
        ('\u{1f}', "control character in string", 0),
    ];
    for filler in [
        'a',
        '!',
        '#',
        '[',
        ']',
        '\u{7f}',
        '\u{80}',
        '\u{a0}',
        '\u{ff}',
        '\u{5c5c}',
        '\u{fffd}',
        '\u{10ffff}',
    ] {
        for len in 0..40 {
            // `len` bytes of text: ASCII up to a character boundary, then the filler.
            let mut inside = "!".repeat(len % filler.len_utf8());
            inside.extend(std::iter::repeat(filler).take(len / filler.len_utf8()));
            // Short and long tails after the stop: it falls in a full block or the last one.
            for (tail, (stop, what, past)) in ["", "!!!!!!!!!!!!!!!!", "!!!!!!!!!!!!!!!!!!!!!!!!!"]
                .iter()
                .flat_map(|t| stops.map(|s| (t, s)))
            {
                let text = format!("\"{inside}{stop}x\"x{tail}");
                let at = 1 + len + past;
                assert_eq!(
                    verdict(&text),
                    format!("not JSON: {what} at byte {at}"),
                    "{filler:?} {len} {stop:?} {tail}"
                );
            }
            let whole = verdict(&format!("\"{inside}\""));
            assert!(!whole.starts_with("not JSON"), "{filler:?} {len}: {whole}");
        }
    }
}

/// Floats read in the module are the nearest doubles, as natively and as JS reads them:
/// serde_json's fast reader, which the module had before, put about a third of these one
/// unit in the last place off (docs/RELIABILITY.md).
#[wasm_bindgen_test]
fn floats_are_read_exactly_in_the_module() {
    for text in [
        "1.0715660391465826e-75",
        "-1.81996730402717e-179",
        "-1.603964615428183e143",
        "0.30000000000000004",
        "5e-324",
        "1.7976931348623157e308",
        "123456789012345678901",
        "2.2250738585072014e-308",
    ] {
        let frame = format!(r#"{{"jsonrpc":"2.0","method":"_x","params":[{text}]}}"#);
        let v = parse_message(&frame, JsValue::UNDEFINED).unwrap();
        let got = Reflect::get(&get(&v, "params"), &0.into())
            .unwrap()
            .as_f64()
            .unwrap();
        let want = js_sys::parse_float(text);
        assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        assert_eq!(
            got.to_bits(),
            text.parse::<f64>().unwrap().to_bits(),
            "{text}"
        );
    }
}

/// Floats are written as serde_json writes them, though in the module their shortest digits
/// come from the engine (`json::text`): positional from 1e-5 to below 1e16, `.0` on integral
/// values, `e+`/`e-` beyond.
#[wasm_bindgen_test]
fn floats_are_written_as_serde_json_writes_them_in_the_module() {
    let mut floats = vec![
        0.0,
        -0.0,
        1.0,
        -2.5,
        0.1,
        0.30000000000000004,
        1e-5,
        1e-6,
        1.5e-7,
        1e15,
        1e16,
        1e21,
        123456789012345680.0,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        1.0715660391465826e-75,
        // Ties: halfway between two shortest renderings; the engine and serde_json round
        // the last digit to even (…745.812), core's renderings up.
        34210098530745.8125,
        797180656506.90625,
        -1427944628637.90625,
        3302653056918.28125,
    ];
    let mut x = 1.0e-300_f64;
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    while x < 1e300 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        floats.push(x * (1.0 + (seed % 100_000) as f64 / 99_991.0));
        floats.push(-((seed % 10_000_000) as f64) / 1024.0);
        x *= 3.7;
    }
    for x in floats {
        let value = serde_json::json!([x]);
        let want = serde_json::to_string(&value).unwrap();
        // The module's own tree (`json::Value`), holding the number serde_json read.
        let ours = agentwire::json::Value::from(value);
        assert_eq!(agentwire::json::text(&ours), want, "{x:e}");
        // Through JS an integral float is an integer (`JSON.stringify` writes `1`, not `1.0`).
        if x.fract() == 0.0 {
            continue;
        }
        let msg = JSON::parse(&format!(r#"{{"method":"_x","params":{want}}}"#)).unwrap();
        let written = serialize_message(msg).unwrap();
        assert_eq!(
            written,
            format!(r#"{{"jsonrpc":"2.0","method":"_x","params":{want}}}"#),
            "{x:e}"
        );
    }
}
