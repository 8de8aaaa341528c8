//! Session settings, read from a plain options object (camelCase) with defaults.

use super::version::{Version, KNOWN};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `clientInfo` / `serverInfo`. Fields a negotiated version does not define are left out
/// when sent (title from 2025-06-18; description, icons, websiteUrl from 2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
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

/// What both roles share.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Common {
    /// Supported versions, most preferred first. Unknown strings are kept as given.
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

impl Common {
    pub fn versions(&self) -> Vec<Version> {
        self.protocol_versions.iter().map(|v| Version::parse(v)).collect()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClientConfig {
    #[serde(flatten)]
    pub common: Common,
    pub client_info: Implementation,
    pub era: EraPreference,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ServerConfig {
    #[serde(flatten)]
    pub common: Common,
    pub server_info: Implementation,
    pub instructions: Option<String>,
    /// Answer an unsupported requested version with the -32602 error carrying
    /// `data {supported, requested}` instead of offering our latest version.
    pub reject_unsupported_versions: bool,
}

/// Per-request settings; absent fields take the session's defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RequestOptions {
    pub timeout_ms: Option<u64>,
    /// Ask for progress (a `progressToken` is added) and let each progress
    /// notification push the deadline out again, never past `maxTotalMs`.
    pub reset_on_progress: bool,
    pub max_total_ms: Option<u64>,
}
