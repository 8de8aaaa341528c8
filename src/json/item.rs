//! A view of a parsed text (`Tape`) by value: what a reader takes from a frame without the
//! frame becoming a tree of values.

use super::tape::{plain_end, Kind, Tape};
use std::borrow::Cow;

/// One value of a parsed text, read where it stands: members found by name, strings decoded,
/// any value as its raw JSON text.
#[derive(Clone, Copy)]
pub struct Item<'t, 'a> {
    tape: &'t Tape<'a>,
    at: usize,
    /// The key node this value was reached through (its raw text starts after it).
    key: Option<usize>,
}

impl<'t, 'a> Item<'t, 'a> {
    /// The text's top value.
    pub fn root(tape: &'t Tape<'a>) -> Self {
        Item {
            tape,
            at: 0,
            key: None,
        }
    }

    /// The value of member `key` of an object.
    pub fn get(&self, key: &str) -> Option<Item<'t, 'a>> {
        if self.tape.node(self.at).kind != Kind::Obj {
            return None;
        }
        let (k, v) = self
            .tape
            .members(self.at)
            .filter(|&(k, _)| self.tape.key_is(k, key.as_bytes()))
            .last()?;
        Some(Item {
            tape: self.tape,
            at: v,
            key: Some(k),
        })
    }

    /// The text of a string value, unescaped.
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        let n = self.tape.node(self.at);
        (n.kind == Kind::Str).then(|| self.tape.str(n))
    }

    /// The value as a tree (for what is small: an id).
    pub fn value(&self) -> super::Value {
        super::value_at(self.tape, self.at)
    }

    /// Its node in the tape (for the readers that work on nodes).
    pub(crate) fn node(&self) -> usize {
        self.at
    }

    pub fn is_object(&self) -> bool {
        self.kind() == Kind::Obj
    }

    pub(crate) fn kind(&self) -> Kind {
        self.tape.node(self.at).kind
    }

    /// The elements of an array (none for anything else).
    pub fn elements(&self) -> Vec<Item<'t, 'a>> {
        if self.kind() != Kind::Arr {
            return Vec::new();
        }
        let tape = self.tape;
        tape.items(self.at)
            .map(|at| Item {
                tape,
                at,
                key: None,
            })
            .collect()
    }

    /// An object without members, an array without elements, or a scalar.
    pub fn is_empty(&self) -> bool {
        !matches!(self.kind(), Kind::Arr | Kind::Obj) || self.tape.node(self.at).start == 0
    }

    /// The value's JSON text exactly as it stands in the frame.
    pub fn raw(&self) -> &'a str {
        let src = self.tape.src;
        let start = match self.key {
            // After the key's closing quote, the colon and any whitespace.
            Some(k) => {
                let after = self.tape.node(k).end as usize + 1;
                after
                    + src.as_bytes()[after..]
                        .iter()
                        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b':'))
                        .unwrap_or(0)
            }
            None => src.len() - src.trim_start().len(),
        };
        crate::text::part(src, start..value_end(src.as_bytes(), start))
    }
}

/// Where the JSON value starting at `at` ends. The text was accepted by the tape parser, so
/// brackets balance outside strings and every string is closed.
fn value_end(b: &[u8], at: usize) -> usize {
    let (mut depth, mut i) = (0usize, at);
    while i < b.len() {
        let c = b[i];
        i += 1;
        match c {
            // A string: to its closing quote, skipping plain runs many bytes at a time.
            b'"' => loop {
                i = plain_end(b, i);
                match b.get(i) {
                    Some(b'\\') => i += 2,
                    Some(b'"') => {
                        i += 1;
                        if depth == 0 {
                            return i;
                        }
                        break;
                    }
                    Some(_) => i += 1,
                    None => return b.len(),
                }
            },
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    return i - 1; // a scalar's parent closing
                }
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            // A scalar at the top ends at the first delimiter.
            b',' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return i - 1,
            _ => {}
        }
    }
    b.len()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn scalars_end_at_their_delimiter() {
        for (text, want) in [
            (r#"{"a":12,"b":1}"#, "12"),
            (r#"{"a" : true }"#, "true"),
            (r#"{"a":"x,y"}"#, r#""x,y""#),
            (r#"{"a":[1,[2]],"b":0}"#, "[1,[2]]"),
        ] {
            let tape = Tape::parse(text, 8).expect("json");
            let root = Item::root(&tape);
            assert_eq!(root.get("a").expect("a").raw(), want, "{text}");
            assert_eq!(root.raw(), text);
        }
    }

    /// Natively only: proptest is not built for wasm32 (`wasm-pack test` compiles these too).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) mod properties {
        use super::*;

        /// Any JSON value: strings with quotes, backslashes, control characters and beyond
        /// ASCII; numbers of every kind; nested arrays and objects.
        pub(crate) fn arb_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
            use proptest::prelude::*;
            use serde_json::Value;
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                any::<f64>()
                    .prop_filter("finite", |f| f.is_finite())
                    .prop_map(Value::from),
                "[a-z\"\\\\{}\\[\\],:\u{0}-\u{7f}\u{e9}\u{1f600}]{0,40}".prop_map(Value::from),
            ];
            leaf.prop_recursive(4, 32, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    prop::collection::btree_map("[a-z_\"]{1,6}", inner, 0..4)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        proptest::proptest! {
            /// Whatever the value and however it is spaced, its raw text is exactly what was written.
            #[test]
            fn raw_is_the_written_value(value in arb_json(), pretty: bool, last: bool) {
                let written = if pretty {
                    serde_json::to_string_pretty(&value).expect("json")
                } else {
                    value.to_string()
                };
                let text = if last {
                    format!("{{\"b\": 1, \"a\" :\n {written} }}")
                } else {
                    format!("{{\"a\":{written},\"b\":[1]}}")
                };
                let tape = Tape::parse(&text, 64).expect("json");
                let root = Item::root(&tape);
                proptest::prop_assert_eq!(root.get("a").expect("a").raw(), written.as_str());
            }
        }
    }
}
