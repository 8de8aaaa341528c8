//! MCP Apps: the frames of one bridge, a line each (`v…` from the View, `h…` from the Host,
//! else the View); the first byte picks the MCP version its proxied messages are judged by.
//! Whatever comes, every refusal is one of JSON-RPC's four codes with at least one issue and
//! serializes, and neither side holds more requests in flight than the bound.
#![no_main]

use agentwire::schema::apps::{Bridge, Side, MAX_PENDING};
use agentwire::schema::{versions, Limits, Protocol};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let known = versions(Protocol::Mcp);
    let version = known[selector as usize % known.len()];
    let limits = Limits {
        max_bytes: 4096,
        max_depth: 64,
    };
    let mut bridge = Bridge::new(version, limits).expect("rules for every known version");
    for line in text.split('\n') {
        let (side, frame) = match line.as_bytes().first() {
            Some(b'h') => (Side::Host, &line[1..]),
            Some(b'v') => (Side::View, &line[1..]),
            _ => (Side::View, line),
        };
        if let Some(r) = bridge.check(frame, side) {
            assert!(
                matches!(r.code, -32700 | -32600 | -32601 | -32602),
                "a refusal with code {}",
                r.code
            );
            assert!(!r.issues.is_empty(), "a refusal says why");
            serde_json::to_string(&r).expect("a refusal serializes");
        }
        for s in [Side::View, Side::Host] {
            assert!(bridge.in_flight(s) <= MAX_PENDING, "requests in flight past the bound");
        }
    }
});
