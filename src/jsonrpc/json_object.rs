//! `object!{ "key": value, … }`: a JSON object, members in the order written, built by
//! one shared function. `serde_json::json!` expands at every use to a map built inline
//! and a `to_value(..).unwrap()` per member; in WebAssembly that code, repeated at some
//! seventy places, weighed more than the protocol logic around it.

use super::{Id, ProtocolError};
use crate::json::{Map, Value};

/// A member value of [`object!`].
pub trait ToJson {
    fn to_json(self) -> Value;
}

impl ToJson for Value {
    fn to_json(self) -> Value {
        self
    }
}

impl ToJson for &Value {
    fn to_json(self) -> Value {
        self.clone()
    }
}

impl ToJson for &str {
    fn to_json(self) -> Value {
        Value::String(self.to_owned())
    }
}

impl ToJson for String {
    fn to_json(self) -> Value {
        Value::String(self)
    }
}

macro_rules! to_json_by_from {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(self) -> Value {
                Value::from(self)
            }
        }
    )*};
}
to_json_by_from!(u16, u64, f64, bool, Vec<Value>);

impl ToJson for &[u16] {
    fn to_json(self) -> Value {
        Value::Array(self.iter().map(|v| Value::from(*v)).collect())
    }
}

impl ToJson for &[Value] {
    fn to_json(self) -> Value {
        Value::Array(self.to_vec())
    }
}

impl ToJson for &Id {
    fn to_json(self) -> Value {
        self.to_value()
    }
}

impl ToJson for &[&str] {
    fn to_json(self) -> Value {
        Value::Array(self.iter().map(|s| s.to_json()).collect())
    }
}

impl ToJson for &ProtocolError {
    fn to_json(self) -> Value {
        self.to_value()
    }
}

/// Anything the module writes (`json::Json`: issues, phases, eras), through its text: the
/// module then has one writer, to text, instead of also carrying serde_json's serializer to
/// values (4 KB, and every shape compiled once more for it). Exact for
/// what it is used on: strings, integers and booleans. Shapes that hold arbitrary JSON (where
/// a float could come back rounded by the module's fast float parser) have a `to_value` of
/// their own.
pub fn serialized(value: &dyn crate::json::Json) -> Value {
    crate::json::value_of(&crate::json::text(value)).unwrap_or(Value::Null)
}

/// `None` is `null`, as `json!` writes it.
impl<T: ToJson> ToJson for Option<T> {
    fn to_json(self) -> Value {
        self.map_or(Value::Null, ToJson::to_json)
    }
}

/// The object of `members`, in order.
pub fn from_members(members: Vec<(&str, Value)>) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<Map<_, _>>(),
    )
}

/// Sets member `key` of `object` (a no-op on anything but an object). Not `object[key] = …`:
/// serde_json's `IndexMut` panics on a non-object with the key written by `Debug`, which keeps
/// core's string escaping and its Unicode tables in the module.
pub fn set_member(object: &mut Value, key: &str, value: impl ToJson) {
    if let Value::Object(members) = object {
        members.insert(key.to_owned(), value.to_json());
    }
}

/// `object!{ "key": value, … }`; a key is a string literal or a `&str` constant, a value
/// anything [`ToJson`] (nest `object!` for nested objects).
macro_rules! object {
    ($($key:tt : $value:expr),* $(,)?) => {
        $crate::jsonrpc::json_object::from_members(vec![$(($key, $crate::jsonrpc::json_object::ToJson::to_json($value))),*])
    };
}
pub(crate) use object;
