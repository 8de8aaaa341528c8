//! A tree of values (`json::Value`) built from the tape: the module's one JSON reader. Parsing
//! with serde_json's own deserializer as well would carry a second parser (its reader, its
//! visitors and their error texts: about 4 KB of a gzipped module) for the same grammar; the
//! tape is as strict (`tape::tests::agrees_with_serde_json_on_validity`), and the values it
//! builds are the ones serde_json builds (`tests::values_are_serde_jsons`).

use super::tape::{Kind, Tape, TapeError};
use crate::json::{Map, Value};
use serde_json::Number;

/// serde_json's nesting bound: 127 nested arrays or objects, the 128th refused. Frames and
/// options are read with it, as they were when serde_json read them.
pub(crate) const MAX_DEPTH: usize = 127;

/// Parses `text` into a value, at most `MAX_DEPTH` deep.
pub fn parse_value(text: &str) -> Result<Value, TapeError> {
    tape_of(text).map(|t| value_at(&t, 0))
}

/// Parses `text` into the tape, at most `MAX_DEPTH` deep (a frame, read by the endpoint).
pub(crate) fn tape_of(text: &str) -> Result<Tape<'_>, TapeError> {
    Tape::parse(text, MAX_DEPTH)
}

/// The value of `text`, or `None` when it is not JSON (within `MAX_DEPTH`).
pub fn value_of(text: &str) -> Option<Value> {
    parse_value(text).ok()
}

/// The value of node `i` and its subtree.
pub(crate) fn value_at(t: &Tape, i: usize) -> Value {
    let n = t.node(i);
    match n.kind {
        Kind::Null => Value::Null,
        Kind::Bool => Value::Bool(n.flag),
        Kind::Num => Value::Number(number_of(t.raw(n), n.flag)),
        Kind::Str => Value::String(t.str(n).into_owned()),
        Kind::Arr => Value::Array(t.items(i).map(|j| value_at(t, j)).collect()),
        Kind::Obj => {
            let mut m = Map::new();
            for (k, v) in t.members(i) {
                // A repeated name keeps its first place and its last value, as serde_json does.
                m.insert(t.str(t.node(k)).into_owned(), value_at(t, v));
            }
            Value::Object(m)
        }
    }
}

/// A number as serde_json reads it: integer syntax as `u64`, or `i64` when negative, a
/// float past their range (and `-0`, which only a float holds); fractions and exponents as
/// floats. The tape has refused numbers out of `f64`'s range.
fn number_of(raw: &str, float_syntax: bool) -> Number {
    if !float_syntax {
        let (negative, digits) = match raw.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, raw),
        };
        let mut m = 0u64;
        let fits = digits.bytes().all(|c| {
            m.checked_mul(10)
                .and_then(|x| x.checked_add(u64::from(c - b'0')))
                .map(|x| m = x)
                .is_some()
        });
        if fits {
            if !negative {
                return Number::from(m);
            }
            let neg = (m as i64).wrapping_neg();
            if neg < 0 {
                return Number::from(neg);
            }
        }
    }
    Number::from_f64(super::tape::number(raw).unwrap_or(0.0)).unwrap_or_else(|| Number::from(0))
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn values_are_serde_jsons() {
        for text in [
            r#"{"a":[1,2.5,"x\n",null,true,false],"b":{"c":{}},"a":-3}"#,
            r#"["\u00e9\ud83d\ude00","\\\"\/\b\f\n\r\t",""]"#,
            "[0,-0,7,-65535,18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809]",
            "[0.1,-2.5e-3,1E2,1e308,4.9e-324,123456789012345678901234567890,0.30000000000000004,1e-400]",
            "[[[[[]]]],{\"\":{\"\":[]}}]",
            " 1 ",
        ] {
            let ours = parse_value(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
            // The same text out: members in the same order, numbers of the same kind.
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
    }

    #[test]
    fn nesting_is_bounded_as_serde_jsons() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_value(&nested(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH)).is_ok());
        assert!(parse_value(&nested(MAX_DEPTH + 1)).is_err());
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH + 1)).is_err());
    }
}
