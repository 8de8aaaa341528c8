//! agentwire: the Agent Client Protocol and the Model Context Protocol for the web.
//!
//! The core (`jsonrpc`, and the protocol layers built on it) is sans-IO: it turns
//! incoming text plus the current time into outgoing text and events, and never reads,
//! writes, sleeps or looks at a clock. `wasm` is the thin binding to JavaScript.

pub mod acp;
pub mod jsonrpc;
pub mod mcp;
pub mod schema;
mod options;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
