//! Session settings, read from a plain options object (camelCase) with defaults.

use super::version::{Version, KNOWN};
use crate::json::{Map, Value};
use crate::options::{deserialize_from_options, Fields, FromOptions};
use serde::{Deserialize, Serialize};

/// `clientInfo` / `serverInfo`. Fields a negotiated version does not define are left out
/// when sent (title from 2025-06-18; description, icons, websiteUrl from 2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    pub name: String,
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// As it is serialized (the derive above), by hand: the module then needs no serializer
    /// to values.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), self.name.as_str().into());
        m.insert("version".into(), self.version.as_str().into());
        let text = [("title", &self.title), ("description", &self.description)];
        for (key, value) in text {
            if let Some(v) = value {
                m.insert(key.into(), v.as_str().into());
            }
        }
        if let Some(icons) = &self.icons {
            m.insert("icons".into(), Value::Array(icons.clone()));
        }
        if let Some(url) = &self.website_url {
            m.insert("websiteUrl".into(), url.as_str().into());
        }
        Value::Object(m)
    }
}

impl FromOptions for Implementation {
    fn from_options(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value)?;
        f.required(&["name", "version"]);
        let mut info = Implementation::default();
        f.string("name", &mut info.name);
        f.string("version", &mut info.version);
        f.opt_string("title", &mut info.title);
        f.opt_string("description", &mut info.description);
        let icons = |v: &Value| {
            if v.is_null() {
                Some(None)
            } else {
                v.as_array().map(|a| Some(a.clone()))
            }
        };
        f.read("icons", &mut info.icons, "an array or null", icons);
        f.opt_string("websiteUrl", &mut info.website_url);
        f.done()?;
        Ok(info)
    }
}

impl Default for Implementation {
    fn default() -> Self {
        Implementation {
            name: "agentwire".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            title: None,
            description: None,
            icons: None,
            website_url: None,
        }
    }
}

/// Which era a client speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EraPreference {
    /// `initialize` only.
    Handshake,
    /// `server/discover` and per-request `_meta` only.
    Stateless,
    /// `server/discover` first; `initialize` when the server does not know it.
    #[default]
    Auto,
}

impl EraPreference {
    /// Each era's name, as the `era` option spells it.
    pub const NAMES: [(&'static str, EraPreference); 3] = [
        ("handshake", EraPreference::Handshake),
        ("stateless", EraPreference::Stateless),
        ("auto", EraPreference::Auto),
    ];

    /// The name the `era` option gives this era.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, e)| *e == self)
            .map_or("auto", |(n, _)| n)
    }
}

/// What both roles share.
#[derive(Clone, Debug, PartialEq)]
pub struct Common {
    /// Supported versions, newest first whatever order they were given in. Unknown strings
    /// are kept as given.
    pub protocol_versions: Vec<String>,
    /// Our capabilities, in wire shape.
    pub capabilities: Map<String, Value>,
    /// Default timeout of our requests; `None` waits forever.
    pub request_timeout_ms: Option<u64>,
    /// Cap on a request's total time when progress resets its deadline.
    pub max_total_timeout_ms: Option<u64>,
    /// Refuse to send messages the validator finds errors in.
    pub validate_outgoing: bool,
}

impl Default for Common {
    fn default() -> Self {
        Common {
            protocol_versions: KNOWN.iter().rev().map(|v| v.as_str().to_owned()).collect(),
            capabilities: Map::new(),
            request_timeout_ms: Some(60_000),
            max_total_timeout_ms: Some(600_000),
            validate_outgoing: true,
        }
    }
}

impl FromOptions for Common {
    fn from_options(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value)?;
        let mut c = Common::default();
        let string = |v: &Value| v.as_str().map(str::to_owned);
        f.list(
            "protocolVersions",
            &mut c.protocol_versions,
            "an array of strings",
            string,
        );
        // The list is a set: a client requests the latest version it supports, a server
        // offers its latest (the seeds' rule, as in ACP). Dates sort as text.
        // An insertion sort: a few items, and no sort routine pulled into the module.
        let mut newest_first: Vec<String> = Vec::with_capacity(c.protocol_versions.len());
        for v in c.protocol_versions.drain(..) {
            let at = newest_first
                .iter()
                .position(|s| *s < v)
                .unwrap_or(newest_first.len());
            newest_first.insert(at, v);
        }
        c.protocol_versions = newest_first;
        f.object("capabilities", &mut c.capabilities);
        f.opt_u64("requestTimeoutMs", &mut c.request_timeout_ms);
        f.opt_u64("maxTotalTimeoutMs", &mut c.max_total_timeout_ms);
        f.bool("validateOutgoing", &mut c.validate_outgoing);
        f.done()?;
        Ok(c)
    }
}

impl Common {
    pub fn versions(&self) -> Vec<Version> {
        self.protocol_versions
            .iter()
            .map(|v| Version::parse(v))
            .collect()
    }
}

/// Options of `McpClient`: the shared ones plus `clientInfo` and `era`; any other member
/// is an error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientConfig {
    pub common: Common,
    pub client_info: Implementation,
    pub era: EraPreference,
}

/// Options of `McpServer`: the shared ones plus `serverInfo`, `instructions` and
/// `rejectUnsupportedVersions`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerConfig {
    pub common: Common,
    pub server_info: Implementation,
    pub instructions: Option<String>,
    /// Answer an unsupported requested version with the -32602 error carrying
    /// `data {supported, requested}` instead of offering our latest version.
    pub reject_unsupported_versions: bool,
}

/// Per-request settings; absent fields take the session's defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestOptions {
    pub timeout_ms: Option<u64>,
    /// Ask for progress (a `progressToken` is added) and let each progress
    /// notification push the deadline out again, never past `maxTotalMs`.
    pub reset_on_progress: bool,
    pub max_total_ms: Option<u64>,
}

/// The options both roles share (`Common`).
const COMMON: [&str; 5] = [
    "protocolVersions",
    "capabilities",
    "requestTimeoutMs",
    "maxTotalTimeoutMs",
    "validateOutgoing",
];

/// `COMMON` and a role's own options: any other member is an error.
fn only(f: &Fields, own: &[&str]) {
    let mut known = COMMON.to_vec();
    known.extend_from_slice(own);
    f.only(&known)
}

impl FromOptions for ClientConfig {
    fn from_options(value: &Value) -> Result<Self, String> {
        let mut c = ClientConfig {
            common: Common::from_options(value)?,
            ..Default::default()
        };
        let f = Fields::of(value)?;
        only(&f, &["clientInfo", "era"]);
        f.nested("clientInfo", &mut c.client_info);
        f.choice("era", &mut c.era, &EraPreference::NAMES);
        f.done()?;
        Ok(c)
    }
}

impl FromOptions for ServerConfig {
    fn from_options(value: &Value) -> Result<Self, String> {
        let mut c = ServerConfig {
            common: Common::from_options(value)?,
            ..Default::default()
        };
        let f = Fields::of(value)?;
        only(
            &f,
            &["serverInfo", "instructions", "rejectUnsupportedVersions"],
        );
        f.nested("serverInfo", &mut c.server_info);
        f.opt_string("instructions", &mut c.instructions);
        f.bool(
            "rejectUnsupportedVersions",
            &mut c.reject_unsupported_versions,
        );
        f.done()?;
        Ok(c)
    }
}

impl FromOptions for RequestOptions {
    fn from_options(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value)?;
        let mut o = RequestOptions::default();
        f.opt_u64("timeoutMs", &mut o.timeout_ms);
        f.bool("resetOnProgress", &mut o.reset_on_progress);
        f.opt_u64("maxTotalMs", &mut o.max_total_ms);
        f.done()?;
        Ok(o)
    }
}

deserialize_from_options!(
    Implementation,
    Common,
    ClientConfig,
    ServerConfig,
    RequestOptions
);

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn implementation_to_value_is_what_serde_writes() {
        let full = Implementation {
            name: "n".into(),
            version: "1".into(),
            title: Some("T".into()),
            description: Some("d".into()),
            icons: Some(vec![serde_json::json!({"src": "a.png", "w": 1.5})]),
            website_url: Some("https://example.com".into()),
        };
        let bare = Implementation {
            title: None,
            description: None,
            icons: None,
            website_url: None,
            ..full.clone()
        };
        for info in [full, bare] {
            let serde = serde_json::to_string(&info).unwrap();
            assert_eq!(info.to_value().to_string(), serde);
        }
    }
}
