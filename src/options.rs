//! Options objects (camelCase JSON, every member optional unless said) read into the
//! config structs by hand. serde's derived readers for these shapes (`flatten`, aliases,
//! `deny_unknown_fields`) cost more WebAssembly than the protocol logic they configure;
//! these few readers do the same job: a missing member keeps its default, a member of
//! the wrong type is an error that names it.

use crate::json::{Map, Value};
use crate::jsonrpc::type_name;

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

/// The members of an options object.
pub struct Fields<'a>(pub &'a Map<String, Value>);

impl<'a> Fields<'a> {
    /// `value` as an object.
    pub fn of(value: &'a Value) -> Result<Self, String> {
        match value {
            Value::Object(m) => Ok(Fields(m)),
            other => Err(format!("expected an object, not {}", type_name(other))),
        }
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key)
    }

    /// Fails on a member not in `known` (a misspelt option must not be silently ignored).
    pub fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(format!(
                "unknown option `{k}`; the options are {}",
                crate::text::join(known, ", ")
            )),
            None => Ok(()),
        }
    }

    /// Fails unless every one of `keys` is present.
    pub fn required(&self, keys: &[&str]) -> Result<(), String> {
        match keys.iter().find(|k| !self.0.contains_key(**k)) {
            Some(k) => Err(format!("`{k}` is missing")),
            None => Ok(()),
        }
    }

    /// Reads member `key`, when present, with `read` (which says what it expects).
    pub fn read<T>(
        &self,
        key: &str,
        out: &mut T,
        what: &str,
        read: impl Fn(&'a Value) -> Option<T>,
    ) -> Result<(), String> {
        if let Some(v) = self.0.get(key) {
            *out = read(v).ok_or_else(|| wrong(key, what, v))?;
        }
        Ok(())
    }

    pub fn bool(&self, key: &str, out: &mut bool) -> Result<(), String> {
        self.read(key, out, "a boolean", Value::as_bool)
    }

    /// An optional non-negative integer; `null` means none.
    pub fn opt_u64(&self, key: &str, out: &mut Option<u64>) -> Result<(), String> {
        self.read(key, out, "a non-negative integer or null", |v| {
            if v.is_null() {
                Some(None)
            } else {
                v.as_u64().map(Some)
            }
        })
    }

    pub fn string(&self, key: &str, out: &mut String) -> Result<(), String> {
        self.read(key, out, "a string", |v| v.as_str().map(str::to_owned))
    }

    /// An optional string; `null` means none.
    pub fn opt_string(&self, key: &str, out: &mut Option<String>) -> Result<(), String> {
        self.read(key, out, "a string or null", |v| {
            if v.is_null() {
                Some(None)
            } else {
                v.as_str().map(|s| Some(s.to_owned()))
            }
        })
    }

    pub fn array(&self, key: &str, out: &mut Vec<Value>) -> Result<(), String> {
        self.read(key, out, "an array", |v| v.as_array().cloned())
    }

    pub fn object(&self, key: &str, out: &mut Map<String, Value>) -> Result<(), String> {
        self.read(key, out, "an object", |v| v.as_object().cloned())
    }

    /// An array whose every element `item` reads.
    pub fn list<T>(
        &self,
        key: &str,
        out: &mut Vec<T>,
        what: &str,
        item: impl Fn(&'a Value) -> Option<T>,
    ) -> Result<(), String> {
        self.read(key, out, what, |v| {
            v.as_array()?.iter().map(&item).collect()
        })
    }

    /// One of a few names (a unit enum).
    pub fn choice<T: Copy>(
        &self,
        key: &str,
        out: &mut T,
        names: &[(&str, T)],
    ) -> Result<(), String> {
        let Some(v) = self.0.get(key) else {
            return Ok(());
        };
        let hit = names.iter().find(|(n, _)| v.as_str() == Some(n));
        let (_, t) = hit.ok_or_else(|| {
            let all: Vec<String> = names.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            format!(
                "`{key}` must be one of {}, not {}",
                crate::text::join(&all, ", "),
                crate::json::text(v)
            )
        })?;
        *out = *t;
        Ok(())
    }

    /// Reads member `key` with a nested reader, naming it in the nested error.
    pub fn nested<T: FromOptions>(&self, key: &str, out: &mut T) -> Result<(), String> {
        if let Some(v) = self.0.get(key) {
            *out = T::from_options(v).map_err(|e| format!("{key}: {e}"))?;
        }
        Ok(())
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
}
