//! Session options, as a JS options object (camelCase, every field optional).

use super::capabilities::{AgentCapabilities, ClientCapabilities};
use super::version::{NegotiationRule, SUPPORTED};
use crate::json::{Map, Value};
use crate::options::{deserialize_from_options, Fields, FromOptions};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// `clientInfo` / `agentInfo` / v2 `info`.
#[derive(Clone, Debug, PartialEq)]
pub struct Implementation {
    pub name: String,
    pub title: Option<String>,
    pub version: String,
    /// `_meta` and any other member, sent as given.
    pub extra: Map<String, Value>,
}

impl Serialize for Implementation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        if let Some(title) = &self.title {
            m.serialize_entry("title", title)?;
        }
        m.serialize_entry("version", &self.version)?;
        for (k, v) in &self.extra {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Implementation {
    /// As it is serialized (above).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), self.name.as_str().into());
        if let Some(title) = &self.title {
            m.insert("title".into(), title.as_str().into());
        }
        m.insert("version".into(), self.version.as_str().into());
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

impl FromOptions for Implementation {
    fn from_options(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value)?;
        f.required(&["name", "version"]);
        let mut info = Implementation {
            name: String::new(),
            title: None,
            version: String::new(),
            extra: Map::new(),
        };
        f.string("name", &mut info.name);
        f.opt_string("title", &mut info.title);
        f.string("version", &mut info.version);
        f.done()?;
        let named = |k: &str| matches!(k, "name" | "title" | "version");
        info.extra = f
            .members
            .iter()
            .filter(|(k, _)| !named(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(info)
    }
}

impl Default for Implementation {
    fn default() -> Self {
        Implementation {
            name: "agentwire".into(),
            title: None,
            version: env!("CARGO_PKG_VERSION").into(),
            extra: Map::new(),
        }
    }
}

/// What both roles share.
#[derive(Clone, Debug, PartialEq)]
pub struct Common {
    /// Supported protocol versions, in preference order (the first is requested).
    pub protocol_versions: Vec<u16>,
    /// `info`; `clientInfo` and `agentInfo` are accepted as the same option.
    pub info: Implementation,
    /// Deadline of ordinary requests; `None` waits forever. Human-paced requests
    /// (`session/prompt`, `session/request_permission`, `elicitation/create`) never time out.
    pub request_timeout_ms: Option<u64>,
    /// Refuse to send messages with validation errors.
    pub validate_outgoing: bool,
    /// Send and serve the methods of the unstable schemas.
    pub allow_unstable: bool,
    /// Deliver incoming messages as they came, without the schema's lenient repairs
    /// (defaulted members, skipped list items); see `lenient.rs`.
    pub strict: bool,
}

impl Default for Common {
    fn default() -> Self {
        Common {
            protocol_versions: SUPPORTED.to_vec(),
            info: Implementation::default(),
            request_timeout_ms: Some(60_000),
            validate_outgoing: true,
            allow_unstable: false,
            strict: false,
        }
    }
}

impl FromOptions for Common {
    fn from_options(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value)?;
        let mut c = Common::default();
        let u16 = |v: &Value| v.as_u64().and_then(|n| u16::try_from(n).ok());
        f.list(
            "protocolVersions",
            &mut c.protocol_versions,
            "an array of integers from 0 to 65535",
            u16,
        );
        let mut given = ["info", "clientInfo", "agentInfo"]
            .into_iter()
            .filter(|k| f.get(k).is_some());
        if let Some(key) = given.next() {
            match given.next() {
                Some(other) => f.fail(format!(
                    "`{key}` and `{other}` are the same option; give one"
                )),
                None => f.nested(key, &mut c.info),
            }
        }
        f.opt_u64("requestTimeoutMs", &mut c.request_timeout_ms);
        f.bool("validateOutgoing", &mut c.validate_outgoing);
        f.bool("allowUnstable", &mut c.allow_unstable);
        f.bool("strict", &mut c.strict);
        f.done()?;
        Ok(c)
    }
}

/// Options of `AcpClient`: the shared ones plus `capabilities`; any other member is an error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientConfig {
    pub common: Common,
    pub capabilities: ClientCapabilities,
}

/// Options of `AcpAgent`: the shared ones plus `capabilities`, `authMethods`, `negotiation`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentConfig {
    pub common: Common,
    pub capabilities: AgentCapabilities,
    /// `authMethods` of the initialize response, as sent.
    pub auth_methods: Vec<Value>,
    pub negotiation: NegotiationRule,
}

/// The options both roles share (`Common`) and their capabilities.
const COMMON: [&str; 9] = [
    "protocolVersions",
    "info",
    "clientInfo",
    "agentInfo",
    "requestTimeoutMs",
    "validateOutgoing",
    "allowUnstable",
    "strict",
    "capabilities",
];

impl FromOptions for ClientConfig {
    fn from_options(value: &Value) -> Result<Self, String> {
        let mut c = ClientConfig {
            common: Common::from_options(value)?,
            ..Default::default()
        };
        let f = Fields::of(value)?;
        f.only(&COMMON);
        f.nested("capabilities", &mut c.capabilities);
        f.done()?;
        Ok(c)
    }
}

impl FromOptions for AgentConfig {
    fn from_options(value: &Value) -> Result<Self, String> {
        let mut c = AgentConfig {
            common: Common::from_options(value)?,
            ..Default::default()
        };
        let f = Fields::of(value)?;
        let mut known = COMMON.to_vec();
        known.extend(["authMethods", "negotiation"]);
        f.only(&known);
        f.nested("capabilities", &mut c.capabilities);
        f.array("authMethods", &mut c.auth_methods);
        f.choice(
            "negotiation",
            &mut c.negotiation,
            &[
                ("seed", NegotiationRule::Seed),
                ("draft", NegotiationRule::Draft),
            ],
        );
        f.done()?;
        Ok(c)
    }
}

deserialize_from_options!(Implementation, Common, ClientConfig, AgentConfig);

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn implementation_to_value_is_what_serde_writes() {
        let mut extra = Map::new();
        extra.insert("_meta".into(), serde_json::json!({"x": 0.1}));
        let full = Implementation {
            name: "n".into(),
            title: Some("T".into()),
            version: "1".into(),
            extra,
        };
        let bare = Implementation {
            title: None,
            extra: Map::new(),
            ..full.clone()
        };
        for info in [full, bare] {
            let serde = serde_json::to_string(&info).unwrap();
            assert_eq!(info.to_value().to_string(), serde);
        }
    }
}
