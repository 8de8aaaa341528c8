//! JSON text read once, for everything that reads it: a flat parse into a tape (`tape`), the
//! module's one JSON reader (trees of values are built from the tape, `value`; the module's own
//! tree, `tree`), the UTF-8 check of bytes as they arrive, and comparing names without a
//! `memcmp` call. A leaf: it knows no JSON-RPC and no protocol; `jsonrpc` and `schema` both
//! build on it.

mod item;
pub(crate) mod names;
pub(crate) mod tape;
mod text;
mod tree;
mod value;
mod view;

pub use item::Item;
pub use tape::{utf8, TapeError};
pub(crate) use text::json_names;
pub(crate) use text::Shortest;
pub use text::{append, text, Json, Members};
pub use value::{parse_value, value_of};
pub(crate) use value::{tape_of, value_at, MAX_DEPTH};
pub use view::View;

// The tree the library's values are: its own in the WebAssembly module (`tree`), serde_json's
// natively, where the relay, the demo agent and the tests build and read them with serde_json.
#[cfg(not(target_arch = "wasm32"))]
pub use serde_json::{Map, Value};
#[cfg(target_arch = "wasm32")]
pub use tree::{Map, Value};
