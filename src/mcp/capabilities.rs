//! Capabilities: which ones each version defines (the table), how a wire object reads
//! into the unified model, and how our own object is trimmed to what a version defines.
//! A capability the negotiated version does not define counts as absent.

use super::version::{Era, Version};
use crate::json::{Map, Value};
use crate::jsonrpc::VecMap;
use serde::Serialize;

/// Which party advertises a capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Side {
    Client,
    Server,
}

/// One capability: a dotted path into the capabilities object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapabilitySpec {
    pub side: Side,
    pub path: &'static str,
    pub since: Version,
    pub until: Option<Version>,
}

use Side::{Client as C, Server as S};
use Version::{
    V2024_11_05 as V1, V2025_03_26 as V2, V2025_06_18 as V3, V2025_11_25 as V4, V2026_07_28 as V5,
};

const fn cap(
    side: Side,
    path: &'static str,
    since: Version,
    until: Option<Version>,
) -> CapabilitySpec {
    CapabilitySpec {
        side,
        path,
        since,
        until,
    }
}

/// Every capability of every known version (checked against the official schemas by
/// `tests/mcp_tables.rs`).
pub const CAPABILITIES: &[CapabilitySpec] = &[
    cap(C, "experimental", V1, None),
    cap(C, "roots", V1, None),
    cap(C, "roots.listChanged", V1, Some(V4)),
    cap(C, "sampling", V1, None),
    cap(C, "sampling.context", V4, None),
    cap(C, "sampling.tools", V4, None),
    cap(C, "elicitation", V3, None),
    cap(C, "elicitation.form", V4, None),
    cap(C, "elicitation.url", V4, None),
    cap(C, "tasks", V4, Some(V4)),
    cap(C, "tasks.list", V4, Some(V4)),
    cap(C, "tasks.cancel", V4, Some(V4)),
    cap(C, "tasks.requests", V4, Some(V4)),
    cap(C, "tasks.requests.sampling", V4, Some(V4)),
    cap(C, "tasks.requests.sampling.createMessage", V4, Some(V4)),
    cap(C, "tasks.requests.elicitation", V4, Some(V4)),
    cap(C, "tasks.requests.elicitation.create", V4, Some(V4)),
    cap(C, "extensions", V5, None),
    cap(S, "experimental", V1, None),
    cap(S, "logging", V1, None),
    cap(S, "completions", V2, None),
    cap(S, "prompts", V1, None),
    cap(S, "prompts.listChanged", V1, None),
    cap(S, "resources", V1, None),
    cap(S, "resources.subscribe", V1, None),
    cap(S, "resources.listChanged", V1, None),
    cap(S, "tools", V1, None),
    cap(S, "tools.listChanged", V1, None),
    cap(S, "tasks", V4, Some(V4)),
    cap(S, "tasks.list", V4, Some(V4)),
    cap(S, "tasks.cancel", V4, Some(V4)),
    cap(S, "tasks.requests", V4, Some(V4)),
    cap(S, "tasks.requests.tools", V4, Some(V4)),
    cap(S, "tasks.requests.tools.call", V4, Some(V4)),
    cap(S, "extensions", V5, None),
];

/// The capabilities `side` may advertise in `version`.
pub fn defined(
    side: Side,
    version: &Version,
    era: Era,
) -> impl Iterator<Item = &'static CapabilitySpec> + '_ {
    CAPABILITIES
        .iter()
        .filter(move |c| c.side == side && version.within(era, &c.since, c.until.as_ref()))
}

/// Whether `path` is a capability `side` can advertise in `version`.
pub fn is_defined(side: Side, path: &str, version: &Version, era: Era) -> bool {
    // The path first: one version check, not one a capability.
    CAPABILITIES.iter().any(|c| {
        c.side == side && c.path == path && version.within(era, &c.since, c.until.as_ref())
    })
}

/// One party's capabilities as advertised on the wire, read for one version. Borrowed: a
/// session reads them for every message it checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capabilities<'a> {
    pub side: Side,
    /// Exactly what was advertised (`None`: nothing).
    pub wire: Option<&'a Map<String, Value>>,
}

/// The unified model: every capability the version defines, present or not, plus the
/// open-ended maps, so a display can list them without knowing MCP.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityModel {
    pub side: Side,
    /// Sorted by path.
    pub features: VecMap<&'static str, bool>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub experimental: Map<String, Value>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

impl CapabilityModel {
    /// As it is serialized (the derive above), by hand: `experimental` and `extensions` hold
    /// the peer's JSON, which a trip through text could round.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        let side = match self.side {
            Side::Client => "client",
            Side::Server => "server",
        };
        m.insert("side".into(), side.into());
        let features = self
            .features
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()));
        m.insert("features".into(), Value::Object(features.collect()));
        for (key, value) in [
            ("experimental", &self.experimental),
            ("extensions", &self.extensions),
        ] {
            if !value.is_empty() {
                m.insert(key.into(), Value::Object(value.clone()));
            }
        }
        Value::Object(m)
    }
}

impl<'a> Capabilities<'a> {
    pub fn new(side: Side, wire: &'a Map<String, Value>) -> Self {
        Capabilities {
            side,
            wire: Some(wire),
        }
    }

    pub fn none(side: Side) -> Self {
        Capabilities { side, wire: None }
    }

    /// Whether the capability at `path` is advertised and defined in `version`.
    /// Presence means any value but `null` and `false` (objects mark support; the
    /// `listChanged`/`subscribe` flags are booleans). Elicitation with neither mode
    /// named means form mode (2025-11-25 backwards compatibility; 2025-06-18 has only
    /// form).
    pub fn has(&self, path: &str, version: &Version, era: Era) -> bool {
        if !is_defined(self.side, path, version, era) {
            return path == "elicitation.form"
                && self.side == Side::Client
                && is_defined(Side::Client, "elicitation", version, era)
                && present(lookup(self.wire, "elicitation"));
        }
        if path == "elicitation.form" && present(lookup(self.wire, "elicitation")) {
            let url = present(lookup(self.wire, "elicitation.url"));
            return present(lookup(self.wire, path)) || !url;
        }
        present(lookup(self.wire, path))
    }

    pub fn model(&self, version: &Version, era: Era) -> CapabilityModel {
        let map = |key| match lookup(self.wire, key) {
            Some(Value::Object(m)) if is_defined(self.side, key, version, era) => m.clone(),
            _ => Map::new(),
        };
        // Inserted in order one by one: a sort or a B-tree map would add their code.
        let mut features = VecMap::new();
        for c in defined(self.side, version, era)
            .filter(|c| c.path != "experimental" && c.path != "extensions")
        {
            features.get_or_insert_sorted(c.path, |p| self.has(p, version, era));
        }
        CapabilityModel {
            side: self.side,
            features,
            experimental: map("experimental"),
            extensions: map("extensions"),
        }
    }
}

/// Our own capabilities object as `version` defines it: known capabilities the version
/// lacks are removed (exact on output); keys MCP does not know are kept, since the
/// capability objects are open by the schema's word. `extensions` is kept in every version:
/// named by the schema only from 2026-07-28, it is what extensions negotiate with before that
/// too (MCP Apps 2026-01-26 over 2025-11-25), and the official SDKs send it in every version.
pub fn trim(side: Side, wire: &Value, version: &Version, era: Era) -> Value {
    fn walk(side: Side, value: &Value, prefix: &str, version: &Version, era: Era) -> Value {
        let Value::Object(m) = value else {
            return value.clone();
        };
        let mut out = Map::new();
        for (k, v) in m {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            let known = CAPABILITIES
                .iter()
                .any(|c| c.side == side && c.path == path);
            if !known {
                out.insert(k.clone(), v.clone());
            } else if is_defined(side, &path, version, era) || path == "extensions" {
                // experimental/extensions hold free-form entries: keep them whole.
                let leaf = path == "experimental" || path == "extensions";
                out.insert(
                    k.clone(),
                    if leaf {
                        v.clone()
                    } else {
                        walk(side, v, &path, version, era)
                    },
                );
            }
        }
        Value::Object(out)
    }
    walk(side, wire, "", version, era)
}

fn lookup<'a>(wire: Option<&'a Map<String, Value>>, path: &str) -> Option<&'a Value> {
    let mut keys = path.split('.');
    let first = wire?.get(keys.next()?)?;
    keys.try_fold(first, |v, key| v.get(key))
}

fn present(v: Option<&Value>) -> bool {
    !matches!(v, None | Some(Value::Null) | Some(Value::Bool(false)))
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn model_to_value_is_what_serde_writes() {
        let wire = serde_json::json!({
            "tools": {"listChanged": true},
            "experimental": {"x": {"ratio": 0.1}},
            "extensions": {"io.example/y": {}},
        });
        for (side, wire) in [(Side::Server, wire), (Side::Client, serde_json::json!({}))] {
            let era = Era::Stateless;
            let model = Capabilities::new(side, wire.as_object().unwrap())
                .model(&Version::V2026_07_28, era);
            let serde = serde_json::to_string(&model).unwrap();
            assert_eq!(model.to_value().to_string(), serde);
        }
    }
}
