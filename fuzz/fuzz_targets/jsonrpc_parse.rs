//! The JSON-RPC envelope: any text parses or fails with the right code, and what
//! parses serializes and parses back to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        agentwire_fuzz::parse_round_trip(text);
    }
});
