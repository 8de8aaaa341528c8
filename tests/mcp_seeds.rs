#![cfg(not(target_arch = "wasm32"))]
//! Seeds 003 and 004: every MCP vector of the seed documents.

mod common;
mod mcp_support;

use agentwire::mcp::capabilities::Capabilities;
use agentwire::mcp::{Era, McpClient, McpServer, Side, Version};
use mcp_support::*;
use serde_json::{json, Value};

fn seed(what: &str) -> Option<Value> {
    let all = common::seeds_of("mcp")?;
    Some(
        all.into_iter()
            .find(|v| v["what"] == what)
            .unwrap_or_else(|| panic!("seed vector {what:?}"))["message"]
            .clone(),
    )
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn every_mcp_seed_vector_is_covered_here() {
    let Some(all) = common::seeds_of("mcp") else {
        return;
    };
    let covered = [
        "client (host) capabilities",
        "server capabilities",
        "initialize request",
        "initialize response",
        "notifications/initialized",
        "initialize error: unsupported protocol version",
    ];
    for v in &all {
        assert!(
            covered.contains(&v["what"].as_str().unwrap()),
            "uncovered seed vector {}",
            v["what"]
        );
    }
    assert_eq!(all.len(), covered.len());
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn seed_003_capabilities_read_into_the_model() {
    let (Some(client), Some(server)) = (
        seed("client (host) capabilities"),
        seed("server capabilities"),
    ) else {
        return;
    };
    let v = Version::V2024_11_05;
    let c = Capabilities::new(Side::Client, client["capabilities"].as_object().unwrap())
        .model(&v, Era::Handshake);
    assert_eq!(
        serde_json::to_value(&c.features).unwrap(),
        json!({ "roots": true, "roots.listChanged": true, "sampling": true })
    );
    let s = Capabilities::new(Side::Server, server["capabilities"].as_object().unwrap())
        .model(&v, Era::Handshake);
    assert_eq!(
        serde_json::to_value(&s.features).unwrap(),
        json!({
            "logging": true, "prompts": true, "prompts.listChanged": false,
            "resources": true, "resources.subscribe": true, "resources.listChanged": true,
            "tools": true, "tools.listChanged": false
        })
    );
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn seed_003_server_capabilities_gate_a_2024_client() {
    let Some(server) = seed("server capabilities") else {
        return;
    };
    let mut pair = Pair::connect(
        json!({ "protocolVersions": ["2024-11-05"], "era": "handshake", "capabilities": { "roots": { "listChanged": true }, "sampling": {} } }),
        json!({ "protocolVersions": ["2024-11-05"], "capabilities": server["capabilities"] }),
    );
    assert_eq!(pair.client.protocol_version(), Some("2024-11-05"));
    let complete = json!({ "ref": { "type": "ref/prompt", "name": "p" }, "argument": { "name": "a", "value": "" } });
    for (ok, params) in [
        ("tools/list", json!({})),
        ("resources/list", json!({})),
        ("resources/subscribe", json!({ "uri": "file:///a" })),
        ("prompts/list", json!({})),
        ("logging/setLevel", json!({ "level": "info" })),
        ("completion/complete", complete),
    ] {
        assert!(
            pair.client
                .request(ok, Some(params), Default::default(), 0)
                .is_ok(),
            "{ok}"
        );
    }
    // Not advertised by the seed's server: no listChanged for tools, so the server may not say it.
    assert!(pair.server.notify_tools_list_changed().is_err());
    assert!(pair.server.notify_resources_list_changed().is_ok());
    let out = pair.server.list_roots(0).unwrap();
    pair.send(To::Client, out.text);
    assert_eq!(
        of_type(&pair.client_events, "request")[0]["method"],
        "roots/list"
    );
}

fn seed_client() -> Option<McpClient> {
    let request = seed("initialize request")?;
    let p = &request["params"];
    Some(McpClient::new(client_config(json!({
        "protocolVersions": ["2025-11-25"],
        "era": "handshake",
        "capabilities": p["capabilities"],
        "clientInfo": p["clientInfo"],
    }))))
}

fn seed_server() -> Option<McpServer> {
    let response = seed("initialize response")?;
    let r = &response["result"];
    Some(McpServer::new(server_config(json!({
        "capabilities": r["capabilities"],
        "serverInfo": r["serverInfo"],
        "instructions": r["instructions"],
    }))))
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn seed_004_the_client_sends_the_initialize_request() {
    let (Some(expected), Some(mut client)) = (seed("initialize request"), seed_client()) else {
        return;
    };
    let out = client.initialize(0).unwrap();
    let mut sent: Value = serde_json::from_str(&out.text).unwrap();
    assert_eq!(out.method.as_deref(), Some("initialize"));
    sent["id"] = expected["id"].clone(); // ids are ours to choose
    assert_eq!(sent, expected);
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn seed_004_the_server_answers_with_the_initialize_response() {
    let (Some(request), Some(expected), Some(mut server)) = (
        seed("initialize request"),
        seed("initialize response"),
        seed_server(),
    ) else {
        return;
    };
    let events = server.receive(&request.to_string(), 0);
    assert_eq!(sent(&events), vec![expected]);
    assert!(
        !server.is_ready(),
        "ready only after notifications/initialized"
    );
    let events = server.receive(&seed("notifications/initialized").unwrap().to_string(), 0);
    let init = of_type(&events, "initialized");
    assert_eq!(init[0]["protocolVersion"], "2025-11-25");
    assert_eq!(
        init[0]["peerCapabilities"],
        request["params"]["capabilities"]
    );
    assert_eq!(init[0]["peerInfo"], request["params"]["clientInfo"]);
    assert!(server.is_ready());
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn seed_004_the_client_accepts_the_response_and_sends_initialized() {
    let (Some(mut response), Some(initialized), Some(mut client)) = (
        seed("initialize response"),
        seed("notifications/initialized"),
        seed_client(),
    ) else {
        return;
    };
    let out = client.initialize(0).unwrap();
    response["id"] = out.id.unwrap().to_value();
    let events = client.receive(&response.to_string(), 5);
    assert_eq!(sent(&events), vec![initialized]);
    let init = of_type(&events, "initialized");
    assert_eq!(init.len(), 1);
    assert_eq!(init[0]["protocolVersion"], "2025-11-25");
    assert_eq!(init[0]["era"], "handshake");
    assert_eq!(
        init[0]["peerCapabilities"],
        response["result"]["capabilities"]
    );
    assert_eq!(init[0]["peerInfo"], response["result"]["serverInfo"]);
    assert_eq!(
        init[0]["instructions"],
        "Optional instructions for the client"
    );
    // The seed's server runs tools/call as tasks and lists and cancels them.
    assert!(client
        .call_tool("t", None, agentwire::mcp::RequestOptions::default(), 5)
        .is_ok());
    assert!(client.list_tasks(None, 5).is_ok());
    assert!(client
        .request(
            "tools/call",
            Some(json!({ "name": "t", "task": { "ttl": 1000 } })),
            Default::default(),
            5
        )
        .is_ok());
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn seed_004_unsupported_version_error_from_a_server_that_refuses() {
    let Some(expected) = seed("initialize error: unsupported protocol version") else {
        return;
    };
    let mut server = McpServer::new(server_config(
        json!({ "protocolVersions": ["2024-11-05"], "rejectUnsupportedVersions": true }),
    ));
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "1.0.0", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } } });
    assert_eq!(
        sent(&server.receive(&request.to_string(), 0)),
        vec![expected.clone()]
    );
    // A malformed version is refused that way even by a server that offers its latest.
    let mut lenient = McpServer::new(server_config(json!({ "protocolVersions": ["2024-11-05"] })));
    assert_eq!(
        sent(&lenient.receive(&request.to_string(), 0)),
        vec![expected]
    );
    assert!(!lenient.is_ready());
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn seed_004_the_client_retries_with_a_version_from_the_error_or_gives_up() {
    let Some(mut error) = seed("initialize error: unsupported protocol version") else {
        return;
    };
    // Speaks 2024-11-05 too: tries it next.
    let mut client = McpClient::new(client_config(
        json!({ "protocolVersions": ["2025-11-25", "2024-11-05"], "era": "handshake" }),
    ));
    let out = client.initialize(0).unwrap();
    error["id"] = out.id.unwrap().to_value();
    let events = client.receive(&error.to_string(), 0);
    let retry = sent(&events);
    assert_eq!(retry.len(), 1);
    assert_eq!(retry[0]["method"], "initialize");
    assert_eq!(retry[0]["params"]["protocolVersion"], "2024-11-05");
    // Speaks nothing the server does: the session ends with an error naming both.
    let mut client = McpClient::new(client_config(
        json!({ "protocolVersions": ["2025-11-25"], "era": "handshake" }),
    ));
    let out = client.initialize(0).unwrap();
    error["id"] = out.id.unwrap().to_value();
    let events = client.receive(&error.to_string(), 0);
    let failure = of_type(&events, "protocolError");
    assert_eq!(failure[0]["error"]["code"], -32602);
    assert_eq!(
        failure[0]["error"]["data"]["supported"],
        json!(["2024-11-05"])
    );
    assert_eq!(of_type(&events, "closed").len(), 1);
    assert!(sent(&events).is_empty());
}
