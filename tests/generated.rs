//! The committed `@generated` files (error codes, validation rules) are what
//! `cargo run -p agentwire-gen` writes from the official schemas and the overlays.
#![cfg(not(target_arch = "wasm32"))]

#[allow(dead_code)]
#[path = "../gen/src/lib.rs"]
mod gen;

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "the official schemas are not here (../shared or $AGENTWIRE_SHARED)"
)]
fn the_generated_files_are_what_the_schemas_and_overlays_give() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let stale = gen::run(root, true).expect("generate");
    assert!(
        stale.is_empty(),
        "stale generated files: {} (run `{}`)",
        stale.join(", "),
        gen::COMMAND
    );
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "the official schemas are not here (../shared or $AGENTWIRE_SHARED)"
)]
fn one_code_table_for_rust_and_js() {
    use agentwire::jsonrpc::codes;
    let js = std::fs::read_to_string("js/codes.js").expect("js/codes.js");
    let rs = std::fs::read_to_string("src/jsonrpc/codes.rs").expect("src/jsonrpc/codes.rs");
    let from_js: Vec<(String, i64)> = js
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_suffix(',')?
                .split_once(": ")
                .map(|(n, c)| (n.to_string(), c.parse().expect("code")))
        })
        .collect();
    let from_rs: Vec<(String, i64)> = rs
        .lines()
        .filter_map(|l| {
            l.strip_prefix("pub const ")?
                .strip_suffix(';')?
                .split_once(": i64 = ")
                .map(|(n, c)| (n.to_string(), c.parse().expect("code")))
        })
        .collect();
    let ts = std::fs::read_to_string("js/codes.d.ts").expect("js/codes.d.ts");
    let from_ts: Vec<(String, i64)> = ts
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("readonly ")?
                .strip_suffix(';')?
                .split_once(": ")
                .map(|(n, c)| (n.to_string(), c.parse().expect("code")))
        })
        .collect();
    assert_eq!(from_js, from_rs);
    assert_eq!(from_ts, from_rs);
    // The schemas' codes and agentwire's own, under the names callers use.
    for (name, code) in [
        ("PARSE_ERROR", codes::PARSE_ERROR),
        ("AUTH_REQUIRED", codes::AUTH_REQUIRED),
        ("HEADER_MISMATCH", codes::HEADER_MISMATCH),
        (
            "MISSING_REQUIRED_CLIENT_CAPABILITY",
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
        ),
        (
            "UNSUPPORTED_PROTOCOL_VERSION",
            codes::UNSUPPORTED_PROTOCOL_VERSION,
        ),
        ("URL_ELICITATION_REQUIRED", codes::URL_ELICITATION_REQUIRED),
        ("TIMEOUT", codes::TIMEOUT),
        ("LOCAL_REFUSAL", codes::LOCAL_REFUSAL),
        ("CONNECTION_CLOSED", codes::CONNECTION_CLOSED),
        ("HTTP_ERROR", codes::HTTP_ERROR),
        ("AUTH_FAILED", codes::AUTH_FAILED),
    ] {
        assert!(from_js.contains(&(name.to_string(), code)), "{name} {code}");
    }
    assert_eq!(
        (
            codes::URL_ELICITATION_REQUIRED,
            codes::HEADER_MISMATCH,
            codes::HTTP_ERROR
        ),
        (-32042, -32020, -32097)
    );
}
