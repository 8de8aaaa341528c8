//! The JavaScript binding: type conversion and error conversion only. Protocol logic
//! lives in the core; nothing here decides anything.

// The classes of the protocols this build carries (features `acp`, `mcp`).
#[cfg(feature = "acp")]
pub mod acp;
#[cfg(feature = "apps")]
pub mod apps;
pub mod convert;
#[cfg(feature = "mcp")]
pub mod http;
pub mod jsonrpc;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod session;
// ACP's HTTP transport reads events in JS with it (MCP's client has its own, McpHttp).
#[cfg(feature = "acp")]
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
