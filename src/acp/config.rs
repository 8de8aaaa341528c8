//! Session options, as a JS options object (camelCase, every field optional).

use super::capabilities::{AgentCapabilities, ClientCapabilities};
use super::version::{NegotiationRule, SUPPORTED};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `clientInfo` / `agentInfo` / v2 `info`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub version: String,
    /// `_meta` and any other member, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for Implementation {
    fn default() -> Self {
        Implementation { name: "agentwire".into(), title: None, version: env!("CARGO_PKG_VERSION").into(), extra: Map::new() }
    }
}

/// What both roles share.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Common {
    /// Supported protocol versions, in preference order (the first is requested).
    pub protocol_versions: Vec<u16>,
    /// `info`; `clientInfo` and `agentInfo` are accepted as the same option.
    #[serde(alias = "clientInfo", alias = "agentInfo")]
    pub info: Implementation,
    /// Deadline of ordinary requests; `None` waits forever. Human-paced requests
    /// (`session/prompt`, `session/request_permission`, `elicitation/create`) never time out.
    pub request_timeout_ms: Option<u64>,
    /// Refuse to send messages with validation errors.
    pub validate_outgoing: bool,
    /// Send and serve the methods of the unstable schemas.
    pub allow_unstable: bool,
}

impl Default for Common {
    fn default() -> Self {
        Common {
            protocol_versions: SUPPORTED.to_vec(),
            info: Implementation::default(),
            request_timeout_ms: Some(60_000),
            validate_outgoing: true,
            allow_unstable: false,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClientConfig {
    #[serde(flatten)]
    pub common: Common,
    pub capabilities: ClientCapabilities,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentConfig {
    #[serde(flatten)]
    pub common: Common,
    pub capabilities: AgentCapabilities,
    /// `authMethods` of the initialize response, as sent.
    pub auth_methods: Vec<Value>,
    pub negotiation: NegotiationRule,
}
