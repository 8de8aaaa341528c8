//! Request ids: a string or an integer (JSON-RPC 2.0 §4), or `null` where a protocol
//! allows it. Fractional numbers are refused: they cannot be matched reliably. A number with
//! no fractional part is an integer however it is written (`1.0`, `-0`, `1e3`), as in JSON
//! Schema and the validator.

use crate::json::Value;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    Number(i64),
    String(String),
    /// `null`: legal in error responses to unidentifiable requests; in requests only
    /// where the protocol allows it (`ParseOptions::allow_null_id`).
    Null,
}

impl Id {
    /// Reads an id from JSON, refusing the types JSON-RPC forbids.
    pub fn from_value(v: &Value) -> Result<Id, &'static str> {
        match v {
            Value::Null => Ok(Id::Null),
            Value::String(s) => Ok(Id::String(s.clone())),
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Ok(Id::Number(i)),
                // Integers past 64 bits reach here as floats, or as u64.
                (None, Some(f)) if n.is_u64() || (f.fract() == 0.0 && f.abs() >= 2f64.powi(63)) => {
                    Err("id is an integer out of the signed 64-bit range")
                }
                // In range, so the conversion is exact (and -0 is 0).
                (None, Some(f)) if f.fract() == 0.0 => Ok(Id::Number(f as i64)),
                (None, _) => Err("id must not be a fractional number"),
            },
            Value::Bool(_) => Err("id must be a string or an integer, not a boolean"),
            Value::Array(_) => Err("id must be a string or an integer, not an array"),
            Value::Object(_) => Err("id must be a string or an integer, not an object"),
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::from(*n),
            Id::String(s) => Value::String(s.clone()),
            Id::Null => Value::Null,
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => f.write_str(&crate::json::text(s)),
            Id::Null => f.write_str("null"),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}

/// As serde writes it (untagged): the number, the string or `null`.
impl crate::json::Json for Id {
    fn write_json(&self, out: &mut String) {
        match self {
            Id::Number(n) => n.write_json(out),
            Id::String(s) => s.write_json(out),
            Id::Null => out.push_str("null"),
        }
    }
}
