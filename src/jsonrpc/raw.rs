//! `RawJson`: a payload as the JSON text it came in, not a tree of values. Events carry it
//! from the frame straight to JS, which parses it once; Rust code that wants to look inside
//! parses it on demand (`value`).

use crate::json::Value;
use serde::{Serialize, Serializer};
use std::fmt;

/// The text of one JSON value, valid JSON by construction: a slice of a frame that was
/// parsed, or a value written out.
#[derive(Clone)]
pub struct RawJson {
    text: String,
    /// The text is a slice of the received frame, unchanged: whoever holds the frame can
    /// read the value there (the binding lets JS parse it from the frame it already has).
    in_frame: bool,
}

impl RawJson {
    /// A slice of a frame the tape parser accepted (the caller vouches that it is JSON).
    pub(crate) fn from_frame(text: &str) -> Self {
        RawJson {
            text: text.to_owned(),
            in_frame: true,
        }
    }

    pub fn from_value(value: &Value) -> Self {
        RawJson {
            text: crate::json::text(value),
            in_frame: false,
        }
    }

    /// The JSON text, as it came.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the text is the received frame's own, unchanged (not read leniently).
    pub fn in_frame(&self) -> bool {
        self.in_frame
    }

    /// The value it holds (`Null` for text that is not JSON, which construction rules out).
    pub fn value(&self) -> Value {
        crate::json::value_of(&self.text).unwrap_or(Value::Null)
    }
}

/// Equal when the texts are.
impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
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
        f.write_str(&self.text)
    }
}

/// Written as the value it holds, for the Rust API (the module writes the text as it came:
/// its `Json`).
impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

/// The value's text as it came.
impl crate::json::Json for RawJson {
    fn write_json(&self, out: &mut String) {
        out.push_str(&self.text);
    }
}
