//! The JavaScript binding: type conversion and error conversion only. Protocol logic
//! lives in the core; nothing here decides anything.

// The classes of the protocols this build carries (features `acp`, `mcp`). Built with
// `--cfg agentwire_validator_only`, the module keeps `Validator` alone: what validating
// every message costs by itself, the floor `node bench/size/compare.mjs --floor` measures.
#[cfg(all(feature = "acp", not(agentwire_validator_only)))]
pub mod acp;
#[cfg(all(feature = "apps", not(agentwire_validator_only)))]
pub mod apps;
pub mod convert;
#[cfg(all(feature = "mcp", not(agentwire_validator_only)))]
pub mod http;
#[cfg(not(agentwire_validator_only))]
pub mod jsonrpc;
#[cfg(all(feature = "mcp", not(agentwire_validator_only)))]
pub mod mcp;
#[cfg(not(agentwire_validator_only))]
pub mod session;
// ACP's HTTP transport reads events in JS with it (MCP's client has its own, McpHttp).
#[cfg(all(feature = "acp", not(agentwire_validator_only)))]
pub mod sse;
pub mod validator;

/// The debug build: panics print their message and place (`console.error`) before the trap.
#[cfg(feature = "debug-panics")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn readable_panics() {
    console_error_panic_hook::set_once();
}

/// The debug build only: panics on purpose, for the test that a panic is readable.
#[cfg(feature = "debug-panics")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = "__panicForTests")]
pub fn panic_for_tests(message: &str) {
    panic!("{message}");
}
