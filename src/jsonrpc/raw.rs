//! `RawJson`: a payload as the JSON text it came in, not a tree of values. Events carry it
//! from the frame straight to JS, which parses it once; Rust code that wants to look inside
//! parses it on demand (`value`).

use serde::{Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// The text of one JSON value, valid JSON by construction: a slice of a frame that was
/// parsed, or a value written out.
#[derive(Clone, PartialEq, Eq)]
pub struct RawJson(String);

impl RawJson {
    /// A slice of a frame the tape parser accepted (the caller vouches that it is JSON).
    pub(crate) fn from_parsed(text: &str) -> Self {
        RawJson(text.to_owned())
    }

    pub fn from_value(value: &Value) -> Self {
        RawJson(value.to_string())
    }

    /// The JSON text, as it came.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value it holds (`Null` for text that is not JSON, which construction rules out).
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        RawJson::from_value(&value)
    }
}

impl PartialEq<Value> for RawJson {
    fn eq(&self, other: &Value) -> bool {
        self.value() == *other
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Written as the value it holds. The WebAssembly binding writes session updates itself,
/// splicing the text in unparsed (`wasm/events.rs`); this path serves everything else.
impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}
