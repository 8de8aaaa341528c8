//! Options objects (camelCase JSON, every member optional unless said) read into the
//! config structs by hand. serde's derived readers for these shapes (`flatten`, aliases,
//! `deny_unknown_fields`) cost more WebAssembly than the protocol logic they configure;
//! these few readers do the same job: a missing member keeps its default, a member of
//! the wrong type is an error that names it.

use crate::json::{Map, Value};
use crate::jsonrpc::type_name;
use std::cell::Cell;

/// A config type readable from an options object.
pub trait FromOptions: Sized {
    fn from_options(value: &Value) -> Result<Self, String>;
}

/// `impl Deserialize` through `FromOptions`, so `serde_json::from_value` keeps working.
macro_rules! deserialize_from_options {
    ($($t:ty),*) => {$(
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let value = <$crate::json::Value as serde::Deserialize>::deserialize(d)?;
                <$t as $crate::options::FromOptions>::from_options(&value).map_err(serde::de::Error::custom)
            }
        }
    )*};
}
pub(crate) use deserialize_from_options;

fn wrong(key: &str, what: &str, found: &Value) -> String {
    format!("`{key}` must be {what}, not {}", type_name(found))
}

/// The members of an options object, and the first error its readers found. A reader that
/// fails keeps its error and returns nothing, so that a config reads its fields one after the
/// other and asks `done` at the end: one exit instead of one per field, each of which dropped
/// the half-read config (a tenth of the readers' code in the module, by twiggy).
pub struct Fields<'a> {
    pub members: &'a Map<String, Value>,
    first_error: Cell<Option<String>>,
}

impl<'a> Fields<'a> {
    /// `value` as an object.
    pub fn of(value: &'a Value) -> Result<Self, String> {
        match value {
            Value::Object(members) => Ok(Fields {
                members,
                first_error: Cell::new(None),
            }),
            other => Err(format!("expected an object, not {}", type_name(other))),
        }
    }

    /// Keeps `error` unless an earlier one is kept.
    pub fn fail(&self, error: String) {
        let first = self.first_error.take().unwrap_or(error);
        self.first_error.set(Some(first));
    }

    /// The first error the readers found, taken.
    pub fn done(&self) -> Result<(), String> {
        self.first_error.take().map_or(Ok(()), Err)
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.members.get(key)
    }

    /// Fails on a member not in `known` (a misspelt option must not be silently ignored).
    pub fn only(&self, known: &[&str]) {
        if let Some(k) = self.members.keys().find(|k| !known.contains(&k.as_str())) {
            self.fail(format!(
                "unknown option `{k}`; the options are {}",
                crate::text::join(known, ", ")
            ));
        }
    }

    /// Fails unless every one of `keys` is present.
    pub fn required(&self, keys: &[&str]) {
        if let Some(k) = keys.iter().find(|k| !self.members.contains_key(**k)) {
            self.fail(format!("`{k}` is missing"));
        }
    }

    /// Reads member `key`, when present, with `read` (which says what it expects).
    pub fn read<T>(
        &self,
        key: &str,
        out: &mut T,
        what: &str,
        read: impl Fn(&'a Value) -> Option<T>,
    ) {
        if let Some(v) = self.members.get(key) {
            match read(v) {
                Some(value) => *out = value,
                None => self.fail(wrong(key, what, v)),
            }
        }
    }

    pub fn bool(&self, key: &str, out: &mut bool) {
        self.read(key, out, "a boolean", Value::as_bool)
    }

    /// An optional non-negative integer; `null` means none.
    pub fn opt_u64(&self, key: &str, out: &mut Option<u64>) {
        self.read(key, out, "a non-negative integer or null", |v| {
            if v.is_null() {
                Some(None)
            } else {
                v.as_u64().map(Some)
            }
        })
    }

    pub fn string(&self, key: &str, out: &mut String) {
        self.read(key, out, "a string", |v| v.as_str().map(str::to_owned))
    }

    /// An optional string; `null` means none.
    pub fn opt_string(&self, key: &str, out: &mut Option<String>) {
        self.read(key, out, "a string or null", |v| {
            if v.is_null() {
                Some(None)
            } else {
                v.as_str().map(|s| Some(s.to_owned()))
            }
        })
    }

    pub fn array(&self, key: &str, out: &mut Vec<Value>) {
        self.read(key, out, "an array", |v| v.as_array().cloned())
    }

    pub fn object(&self, key: &str, out: &mut Map<String, Value>) {
        self.read(key, out, "an object", |v| v.as_object().cloned())
    }

    /// An array whose every element `item` reads.
    pub fn list<T>(
        &self,
        key: &str,
        out: &mut Vec<T>,
        what: &str,
        item: impl Fn(&'a Value) -> Option<T>,
    ) {
        self.read(key, out, what, |v| {
            v.as_array()?.iter().map(&item).collect()
        })
    }

    /// One of a few names (a unit enum).
    pub fn choice<T: Copy>(&self, key: &str, out: &mut T, names: &[(&str, T)]) {
        let Some(v) = self.members.get(key) else {
            return;
        };
        match names.iter().find(|(n, _)| v.as_str() == Some(n)) {
            Some((_, t)) => *out = *t,
            None => {
                let all: Vec<String> = names.iter().map(|(n, _)| format!("\"{n}\"")).collect();
                self.fail(format!(
                    "`{key}` must be one of {}, not {}",
                    crate::text::join(&all, ", "),
                    crate::json::text(v)
                ))
            }
        }
    }

    /// Reads member `key` with a nested reader, naming it in the nested error.
    pub fn nested<T: FromOptions>(&self, key: &str, out: &mut T) {
        if let Some(v) = self.members.get(key) {
            match T::from_options(v) {
                Ok(value) => *out = value,
                Err(e) => self.fail(format!("{key}: {e}")),
            }
        }
    }
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use crate::acp::{AgentConfig, CapabilityModel};
    use crate::mcp::ServerConfig;
    use serde_json::json;

    #[test]
    fn defaults_values_and_errors() {
        let a: AgentConfig = serde_json::from_value(json!({
            "agentInfo": {"name": "a", "version": "1", "_meta": {"k": 1}},
            "capabilities": {"session": {"load": true}, "extensions": {"x": 1}},
            "negotiation": "draft", "requestTimeoutMs": null,
        }))
        .unwrap();
        assert_eq!(a.common.info.extra.get("_meta"), Some(&json!({"k": 1})));
        assert!(
            a.capabilities.session.load && a.capabilities.session.new,
            "the rest keeps its default"
        );
        assert_eq!(a.common.request_timeout_ms, None);
        assert_eq!(a.negotiation, crate::acp::NegotiationRule::Draft);
        assert_eq!(
            serde_json::to_value(&a.capabilities).unwrap()["session"]["load"],
            json!(true)
        );
        assert_eq!(
            crate::acp::AgentCapabilities::from_model(&a.capabilities.to_model()),
            Ok(a.capabilities.clone())
        );

        for (bad, says) in [
            (
                json!({"capabilities": {"session": {"lod": true}}}),
                "session.lod",
            ),
            (
                json!({"capabilities": {"session.load": true}}),
                "session.load",
            ),
            (
                json!({"capabilities": {"prompt": {"image": 1}}}),
                "`image` must be a boolean",
            ),
            (json!({"protocolVersions": [1, 70000]}), "protocolVersions"),
            (json!({"info": {"name": "a"}}), "`version` is missing"),
            (
                json!({"info": {"name": "a", "version": "1"}, "agentInfo": {"name": "a", "version": "1"}}),
                "same option",
            ),
            (json!({"negotiation": "newest"}), "\"seed\", \"draft\""),
            (json!({"validateOutgoing": null}), "validateOutgoing"),
            (json!([]), "expected an object"),
            (
                json!({"somethingElse": 1}),
                "unknown option `somethingElse`",
            ),
            (json!({"rejectUnsupportedVersion": true}), "unknown option"),
        ] {
            let e = serde_json::from_value::<AgentConfig>(bad.clone())
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let s: ServerConfig = serde_json::from_value(
            json!({"serverInfo": {"name": "s", "version": "1", "icons": null}}),
        )
        .unwrap();
        assert_eq!(
            (s.server_info.name.as_str(), s.server_info.icons),
            ("s", None)
        );
        assert!(serde_json::from_value::<ServerConfig>(json!({"requestTimeoutMs": -1})).is_err());
    }

    /// Readers go on after a failure (one exit per config); the error told is still the first
    /// in reading order, alone.
    #[test]
    fn the_first_error_is_told() {
        let first = |options| {
            serde_json::from_value::<AgentConfig>(options)
                .unwrap_err()
                .to_string()
        };
        let e = first(json!({"strict": 1, "requestTimeoutMs": "x", "negotiation": "z", "x": 1}));
        assert!(e.starts_with("`requestTimeoutMs` must be"), "{e}");
        assert!(!e.contains("strict") && !e.contains("negotiation"), "{e}");
        let e = first(json!({"x": 1, "authMethods": 2, "negotiation": "z"}));
        assert!(e.starts_with("unknown option `x`"), "{e}");
        let e = first(json!({"info": {"name": 1, "title": 2}}));
        assert!(e.starts_with("info: `version` is missing"), "{e}");
        let e = first(json!({"capabilities": {"session": {"load": 1}, "x": 2}}));
        assert!(e.contains("session: `load` must be a boolean"), "{e}");
        assert!(!e.contains("`x`"), "{e}");
    }
}
