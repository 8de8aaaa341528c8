//! The validator: the first byte picks protocol, version, direction and the method a
//! response answers; the rest is the message.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((selector, rest)) = data.split_first() {
        if let Ok(text) = std::str::from_utf8(rest) {
            agentwire_fuzz::validate_all(*selector, text);
        }
    }
});
