//! JSON text read once, for everything that reads it: a flat parse into a tape (`tape`), the
//! module's one JSON reader (serde_json values are built from the tape, `value`), the UTF-8
//! check of bytes as they arrive, and comparing names without a `memcmp` call. A leaf: it
//! knows no JSON-RPC and no protocol; `jsonrpc` and `schema` both build on it.

mod item;
pub(crate) mod names;
pub(crate) mod tape;
mod text;
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
