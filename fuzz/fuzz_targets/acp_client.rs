//! The receive path of an ACP client: the first byte picks the starting state, each
//! further line is one frame from the peer (an empty line lets time pass).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((scenario, frames)) = data.split_first() {
        agentwire_fuzz::run(agentwire_fuzz::acp_client(*scenario), frames);
    }
});
