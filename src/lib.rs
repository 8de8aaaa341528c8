//! agentwire: the Agent Client Protocol and the Model Context Protocol for the web.
//!
//! The core (`jsonrpc`, and the protocol layers built on it) is sans-IO: it turns
//! incoming text plus the current time into outgoing text and events, and never reads,
//! writes, sleeps or looks at a clock. `wasm` is the thin binding to JavaScript.

// A build of one protocol leaves helpers only the other uses.
#![cfg_attr(not(all(feature = "acp", feature = "mcp")), allow(dead_code))]

// Each protocol is a feature (both by default): `agentwire/acp` and `agentwire/mcp` ship
// modules built with one each.
#[cfg(feature = "acp")]
pub mod acp;
/// What the JSON-RPC endpoint settles by itself, reported alike by both protocols.
mod inbound;
/// JSON text read once: the tape every incoming frame is parsed into, the UTF-8 check.
pub mod json;
pub mod jsonrpc;
#[cfg(feature = "mcp")]
pub mod mcp;
mod options;
pub mod schema;
/// Server-Sent Events: MCP's Streamable HTTP and ACP's HTTP transport read them.
pub mod sse;
mod text;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
