#![cfg(not(target_arch = "wasm32"))]
//! The version × method and version × capability tables, checked against the official
//! MCP schemas so they cannot drift.

mod common;

use agentwire::mcp::capabilities::{self, Side};
use agentwire::mcp::methods::{Kind, METHODS};
use agentwire::mcp::version::{Version, KNOWN};
use agentwire::schema::Direction;
use serde_json::Value;
use std::collections::BTreeSet;

fn schema(version: &Version) -> Option<Value> {
    common::shared_json(&format!("spec/mcp/{}/schema.json", version.as_str()))
}

fn defs(schema: &Value) -> &Value {
    schema
        .get("definitions")
        .or_else(|| schema.get("$defs"))
        .expect("schema has definitions")
}

/// The method constants of a union such as `ClientRequest` (or a lone definition).
fn union_methods(defs: &Value, name: &str) -> BTreeSet<String> {
    let Some(union) = defs.get(name) else {
        return BTreeSet::new();
    };
    let members: Vec<&Value> = match union.get("anyOf").and_then(Value::as_array) {
        Some(refs) => refs
            .iter()
            .map(|r| {
                let target = r["$ref"]
                    .as_str()
                    .expect("$ref")
                    .rsplit('/')
                    .next()
                    .unwrap();
                &defs[target]
            })
            .collect(),
        None => vec![union],
    };
    members
        .iter()
        .filter_map(|d| {
            d.pointer("/properties/method/const")
                .and_then(Value::as_str)
        })
        .map(str::to_owned)
        .collect()
}

fn table_methods(version: &Version, direction: Direction, kind: Kind) -> BTreeSet<String> {
    METHODS
        .iter()
        .filter(|s| {
            s.direction == direction && s.kind == kind && s.defined_in(version, version.era())
        })
        .map(|s| s.method.to_owned())
        .collect()
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn method_table_matches_every_schema() {
    for version in KNOWN.iter() {
        let Some(schema) = schema(version) else {
            return;
        };
        let defs = defs(&schema);
        for (union, direction, kind) in [
            ("ClientRequest", Direction::ClientToServer, Kind::Request),
            ("ServerRequest", Direction::ServerToClient, Kind::Request),
            (
                "ClientNotification",
                Direction::ClientToServer,
                Kind::Notification,
            ),
            (
                "ServerNotification",
                Direction::ServerToClient,
                Kind::Notification,
            ),
        ] {
            assert_eq!(
                table_methods(version, direction, kind),
                union_methods(defs, union),
                "{union} in MCP {version}"
            );
        }
    }
}

/// Every property path of a capabilities object, following inline objects.
fn capability_paths(node: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    let Some(props) = node.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (k, v) in props {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        out.insert(path.clone());
        capability_paths(v, &path, out);
    }
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn capability_table_matches_every_schema() {
    for version in KNOWN.iter() {
        let Some(schema) = schema(version) else {
            return;
        };
        let defs = defs(&schema);
        for (name, side) in [
            ("ClientCapabilities", Side::Client),
            ("ServerCapabilities", Side::Server),
        ] {
            let mut expected = BTreeSet::new();
            capability_paths(&defs[name], "", &mut expected);
            let ours: BTreeSet<String> = capabilities::defined(side, version, version.era())
                .map(|c| c.path.to_owned())
                .collect();
            assert_eq!(ours, expected, "{name} in MCP {version}");
        }
    }
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn implementation_fields_match_every_schema() {
    use agentwire::mcp::{ClientConfig, EraPreference, Implementation, McpClient};
    let full = Implementation {
        name: "n".into(),
        version: "1".into(),
        title: Some("t".into()),
        description: Some("d".into()),
        icons: Some(vec![
            serde_json::json!({ "src": "https://example.com/i.png" }),
        ]),
        website_url: Some("https://example.com".into()),
    };
    for version in KNOWN
        .iter()
        .filter(|v| v.era() == agentwire::mcp::Era::Handshake)
    {
        let Some(schema) = schema(version) else {
            return;
        };
        let allowed: BTreeSet<String> = defs(&schema)["Implementation"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let mut config = ClientConfig {
            client_info: full.clone(),
            era: EraPreference::Handshake,
            ..Default::default()
        };
        config.common.protocol_versions = vec![version.as_str().into()];
        let out = McpClient::new(config).initialize(0).unwrap();
        let sent: Value = serde_json::from_str(&out.text).unwrap();
        let keys: BTreeSet<String> = sent["params"]["clientInfo"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, allowed, "clientInfo in MCP {version}");
    }
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn the_stateless_meta_keys_are_the_schemas() {
    let Some(schema) = schema(&Version::V2026_07_28) else {
        return;
    };
    let meta = &defs(&schema)["RequestMetaObject"]["properties"];
    for key in [
        agentwire::mcp::META_VERSION,
        agentwire::mcp::META_CLIENT_CAPABILITIES,
        agentwire::mcp::META_CLIENT_INFO,
    ] {
        assert!(meta.get(key).is_some(), "{key} is a request _meta key");
    }
    assert!(defs(&schema)["ResultMetaObject"]["properties"]
        .get(agentwire::mcp::META_SERVER_INFO)
        .is_some());
    for (name, code) in [
        (
            "HeaderMismatchError",
            agentwire::jsonrpc::codes::HEADER_MISMATCH,
        ),
        (
            "MissingRequiredClientCapabilityError",
            agentwire::jsonrpc::codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
        ),
        (
            "UnsupportedProtocolVersionError",
            agentwire::jsonrpc::codes::UNSUPPORTED_PROTOCOL_VERSION,
        ),
    ] {
        let c = defs(&schema)[name]
            .pointer("/properties/error/allOf/1/properties/code/const")
            .and_then(Value::as_i64);
        assert_eq!(c, Some(code), "{name}");
    }
}
