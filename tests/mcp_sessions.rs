#![cfg(not(target_arch = "wasm32"))]
//! Client and server sessions in-process: every version pair, both eras, lifecycle,
//! gating both ways, batches, malformed input, events as they cross to JS.

mod mcp_support;

use agentwire::jsonrpc::codes;
use agentwire::mcp::{Event, McpClient, McpServer, RequestOptions};
use mcp_support::*;
use serde_json::{json, Value};

const ALL: [&str; 5] = [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];
const HANDSHAKE: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Client versions, client era, server versions, and the agreed (version, era) or
/// `None` when the client gives up.
type Case = (
    Vec<&'static str>,
    &'static str,
    Vec<&'static str>,
    Option<(&'static str, &'static str)>,
);

fn pairs() -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, v) in HANDSHAKE.iter().enumerate() {
        // Equal.
        cases.push((vec![*v], "handshake", vec![*v], Some((*v, "handshake"))));
        // Client newer: it offers its latest, the server answers its own, the client
        // takes it when it speaks it too, otherwise gives up.
        cases.push((
            HANDSHAKE.to_vec(),
            "handshake",
            vec![*v],
            Some((*v, "handshake")),
        ));
        if i > 0 {
            cases.push((vec![HANDSHAKE[0]], "handshake", vec![*v], None));
            // Client older: the server echoes it.
            cases.push((
                vec![*v],
                "handshake",
                HANDSHAKE.to_vec(),
                Some((*v, "handshake")),
            ));
        }
    }
    // Unknown versions: kept as strings, echoed when both know them, never a crash.
    cases.push((vec!["2099-01-01"], "handshake", HANDSHAKE.to_vec(), None));
    cases.push((
        vec!["2099-01-01", "2025-06-18"],
        "handshake",
        vec!["2025-06-18"],
        Some(("2025-06-18", "handshake")),
    ));
    cases.push((
        vec!["2099-01-01"],
        "handshake",
        vec!["2099-01-01", "2025-11-25"],
        Some(("2099-01-01", "handshake")),
    ));
    cases.push((
        vec!["2025-11-25"],
        "handshake",
        vec!["2099-01-01", "2025-06-18"],
        None,
    ));
    // Stateless era and the auto fallback.
    cases.push((
        ALL.to_vec(),
        "auto",
        ALL.to_vec(),
        Some(("2026-07-28", "stateless")),
    ));
    cases.push((
        ALL.to_vec(),
        "stateless",
        ALL.to_vec(),
        Some(("2026-07-28", "stateless")),
    ));
    cases.push((
        ALL.to_vec(),
        "auto",
        HANDSHAKE.to_vec(),
        Some(("2025-11-25", "handshake")),
    ));
    cases.push((
        ALL.to_vec(),
        "handshake",
        ALL.to_vec(),
        Some(("2025-11-25", "handshake")),
    ));
    cases.push((ALL.to_vec(), "stateless", HANDSHAKE.to_vec(), None));
    cases.push((
        vec!["2026-07-28", "2025-03-26"],
        "auto",
        vec!["2026-07-28"],
        Some(("2026-07-28", "stateless")),
    ));
    cases.push((
        vec!["2026-07-28", "2025-03-26"],
        "auto",
        vec!["2025-03-26"],
        Some(("2025-03-26", "handshake")),
    ));
    cases
}

#[test]
fn every_version_pair() {
    for (client_versions, era, server_versions, expected) in pairs() {
        let label = format!("client {client_versions:?} ({era}) / server {server_versions:?}");
        let mut pair = Pair::connect(
            json!({ "protocolVersions": client_versions, "era": era, "capabilities": all_caps_client() }),
            json!({ "protocolVersions": server_versions, "capabilities": all_caps_server() }),
        );
        let init = of_type(&pair.client_events, "initialized");
        match expected {
            Some((version, era)) => {
                assert_eq!(init.len(), 1, "{label}: {:?}", values(&pair.client_events));
                assert_eq!(init[0]["protocolVersion"], version, "{label}");
                assert_eq!(init[0]["era"], era, "{label}");
                assert_eq!(pair.client.protocol_version(), Some(version), "{label}");
                assert!(pair.client.is_ready(), "{label}");
                if era == "handshake" {
                    assert!(pair.server.is_ready(), "{label}");
                    assert_eq!(pair.server.protocol_version(), Some(version), "{label}");
                    assert_eq!(
                        of_type(&pair.server_events, "initialized").len(),
                        1,
                        "{label}"
                    );
                }
                // The connection works: a call goes and its answer comes back.
                let out = pair
                    .client
                    .list_tools(None, 0)
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                pair.send(To::Server, out.text);
                let request = of_type(&pair.server_events, "request").pop().unwrap();
                assert_eq!(request["method"], "tools/list", "{label}");
                let id = serde_json::from_value(request["id"].clone()).unwrap();
                let reply = pair
                    .server
                    .respond(&id, Ok(json!({ "tools": [] })))
                    .unwrap();
                pair.send(To::Client, reply.text);
                let response = of_type(&pair.client_events, "response").pop().unwrap();
                assert_eq!(response["result"]["tools"], json!([]), "{label}");
                if era == "stateless" {
                    assert_eq!(response["result"]["resultType"], "complete", "{label}");
                    assert_eq!(
                        (
                            &response["result"]["cacheScope"],
                            &response["result"]["ttlMs"]
                        ),
                        (&json!("private"), &json!(0)),
                        "{label}"
                    );
                    assert_eq!(
                        request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
                        version,
                        "{label}"
                    );
                }
            }
            None => {
                assert!(init.is_empty(), "{label}");
                let failure = of_type(&pair.client_events, "protocolError");
                assert_eq!(
                    failure.len(),
                    1,
                    "{label}: {:?}",
                    values(&pair.client_events)
                );
                assert_eq!(of_type(&pair.client_events, "closed").len(), 1, "{label}");
                assert!(pair.client.list_tools(None, 0).is_err(), "{label}");
            }
        }
    }
}

#[test]
fn handshake_messages_are_judged_by_the_version_they_name() {
    // The default server prefers 2026-07-28, which has neither `initialize` nor `ping`.
    // A `ping` before the handshake names no version, so it is of the handshake era:
    // judged by the newest handshake version. `initialize` by the version it requests.
    let mut server = McpServer::new(server_config(json!({})));
    let events = server.receive(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, 0);
    assert_eq!(of_type(&events, "violation"), Vec::<Value>::new());
    assert_eq!(sent(&events)[0]["result"], json!({}));
    let init = json!({ "jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": { "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } } });
    let events = server.receive(&init.to_string(), 0);
    assert_eq!(of_type(&events, "violation"), Vec::<Value>::new());
    assert_eq!(sent(&events)[0]["result"]["protocolVersion"], "2024-11-05");
    // A version without rules is judged by its feature level: the client may offer it.
    let mut client = McpClient::new(client_config(
        json!({ "protocolVersions": ["2099-01-01"], "era": "handshake" }),
    ));
    let out = client.initialize(0).expect("an unknown version is offered");
    let mut server = McpServer::new(server_config(json!({})));
    let events = server.receive(&out.text, 0);
    assert_eq!(of_type(&events, "violation"), Vec::<Value>::new());
    assert_eq!(sent(&events)[0]["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn a_refused_version_names_both_sides() {
    let pair = Pair::connect(
        json!({ "protocolVersions": ["2025-11-25"], "era": "handshake" }),
        json!({ "protocolVersions": ["2025-03-26"] }),
    );
    let failure = &of_type(&pair.client_events, "protocolError")[0]["error"];
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("2025-11-25") && message.contains("2025-03-26"),
        "{message}"
    );
    // The client never confirmed the handshake.
    assert!(!pair.server.is_ready());
}

#[test]
fn a_server_that_refuses_unsupported_versions_lets_the_client_retry() {
    let pair = Pair::connect(
        json!({ "protocolVersions": ["2025-11-25", "2025-03-26"], "era": "handshake" }),
        json!({ "protocolVersions": ["2025-03-26"], "rejectUnsupportedVersions": true }),
    );
    assert_eq!(pair.client.protocol_version(), Some("2025-03-26"));
    assert!(pair.server.is_ready());
}

fn ready(version: &str, client_caps: Value, server_caps: Value) -> Pair {
    let pair = Pair::connect(
        json!({ "protocolVersions": [version], "era": "handshake", "capabilities": client_caps }),
        json!({ "protocolVersions": [version], "capabilities": server_caps }),
    );
    assert!(
        pair.client.is_ready() && pair.server.is_ready(),
        "{version}"
    );
    pair
}

fn refusal_capability(
    result: Result<agentwire::jsonrpc::Outbound, agentwire::jsonrpc::ProtocolError>,
) -> Value {
    let e = result.expect_err("refused");
    assert_eq!(e.code, codes::LOCAL_REFUSAL, "{e}");
    e.data.unwrap()["capability"].clone()
}

/// Valid `completion/complete` params.
fn completion() -> Value {
    json!({ "ref": { "type": "ref/prompt", "name": "p" }, "argument": { "name": "a", "value": "" } })
}

#[test]
fn the_client_refuses_calls_the_server_did_not_advertise() {
    let cases: Vec<(&str, Value, Value)> = vec![
        ("tools/list", json!({}), json!("tools")),
        ("tools/call", json!({ "name": "x" }), json!("tools")),
        ("resources/list", json!({}), json!("resources")),
        (
            "resources/read",
            json!({ "uri": "a:b" }),
            json!("resources"),
        ),
        (
            "resources/subscribe",
            json!({ "uri": "a:b" }),
            json!("resources.subscribe"),
        ),
        ("prompts/list", json!({}), json!("prompts")),
        ("prompts/get", json!({ "name": "p" }), json!("prompts")),
        (
            "logging/setLevel",
            json!({ "level": "info" }),
            json!("logging"),
        ),
        ("completion/complete", completion(), json!("completions")),
        ("tasks/list", json!({}), json!("tasks.list")),
        ("tasks/get", json!({ "taskId": "t" }), json!("tasks")),
        (
            "tasks/cancel",
            json!({ "taskId": "t" }),
            json!("tasks.cancel"),
        ),
    ];
    let mut bare = ready("2025-11-25", json!({}), json!({ "resources": {} }));
    let mut full = ready("2025-11-25", json!({}), all_caps_server());
    for (method, params, capability) in cases {
        if method.starts_with("resources/") && capability == "resources" {
            assert!(
                bare.client
                    .request(method, Some(params.clone()), RequestOptions::default(), 0)
                    .is_ok(),
                "{method}"
            );
        } else {
            let got = refusal_capability(bare.client.request(
                method,
                Some(params.clone()),
                RequestOptions::default(),
                0,
            ));
            assert_eq!(got, capability, "{method}");
        }
        assert!(
            full.client
                .request(method, Some(params), RequestOptions::default(), 0)
                .is_ok(),
            "{method}"
        );
    }
    // Task-augmented tools/call needs tasks.requests.tools.call.
    let mut tools_only = ready(
        "2025-11-25",
        json!({}),
        json!({ "tools": {}, "tasks": { "list": {} } }),
    );
    let task_call = json!({ "name": "x", "task": { "ttl": 5 } });
    assert_eq!(
        refusal_capability(tools_only.client.request(
            "tools/call",
            Some(task_call.clone()),
            RequestOptions::default(),
            0
        )),
        "tasks.requests.tools.call"
    );
    assert!(full
        .client
        .request("tools/call", Some(task_call), RequestOptions::default(), 0)
        .is_ok());
}

#[test]
fn a_capability_the_version_does_not_define_counts_as_absent() {
    // The server advertises tasks and completions, but 2025-06-18 has no tasks and
    // 2024-11-05 no completions capability (its completion/complete is ungated).
    let mut p = ready("2025-06-18", json!({}), all_caps_server());
    let e = p.client.list_tasks(None, 0).unwrap_err();
    assert!(e.message.contains("not defined in MCP 2025-06-18"), "{e}");
    assert!(p.client.complete(completion(), 0).is_ok());
    let mut old = ready("2024-11-05", json!({}), json!({}));
    assert!(old.client.complete(completion(), 0).is_ok());
    // Our own capabilities are trimmed to the version when sent.
    assert_eq!(p.server.own_capabilities().get("tasks"), None);
    assert_eq!(old.server.own_capabilities(), json!({}));
    let model = p.client.peer_capability_model();
    assert_eq!(model.features.get("tasks"), None);
    assert_eq!(model.features.get("completions"), Some(&true));
}

#[test]
fn extensions_are_declared_in_every_version() {
    // MCP Apps (2026-01-26) negotiates through `extensions` over 2025-11-25, whose schema does
    // not name it (its capability objects are open); the official SDKs send it in every version.
    let ui =
        json!({ "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html;profile=mcp-app"] } });
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let p = ready(version, json!({ "extensions": ui, "tasks": {} }), json!({}));
        let sent = p.client.own_capabilities();
        assert_eq!(sent["extensions"], ui, "{version}");
        if version != "2025-11-25" {
            assert_eq!(
                sent.get("tasks"),
                None,
                "{version}: still trimmed otherwise"
            );
        }
        assert_eq!(
            p.server.peer_capabilities().unwrap()["extensions"],
            ui,
            "{version}"
        );
    }
}

#[test]
fn the_client_answers_unadvertised_server_requests_with_method_not_found() {
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "sampling/createMessage",
            json!({ "messages": [], "maxTokens": 5 }),
            json!({ "sampling": {} }),
        ),
        ("roots/list", json!({}), json!({ "roots": {} })),
        (
            "elicitation/create",
            json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {} } }),
            json!({ "elicitation": {} }),
        ),
        (
            "elicitation/create",
            json!({ "mode": "url", "message": "m", "url": "https://x", "elicitationId": "e" }),
            json!({ "elicitation": { "url": {} } }),
        ),
        ("tasks/list", json!({}), json!({ "tasks": { "list": {} } })),
        (
            "tasks/cancel",
            json!({ "taskId": "t" }),
            json!({ "tasks": { "cancel": {} } }),
        ),
        (
            "tasks/get",
            json!({ "taskId": "t" }),
            json!({ "tasks": {} }),
        ),
    ];
    for (method, params, caps) in cases {
        // Not advertised: the server may not send it, and a peer that does gets -32601.
        let mut p = ready("2025-11-25", json!({}), json!({}));
        assert_eq!(
            p.server
                .request(method, Some(params.clone()), RequestOptions::default(), 0)
                .unwrap_err()
                .code,
            codes::LOCAL_REFUSAL,
            "{method}"
        );
        let raw = json!({ "jsonrpc": "2.0", "id": 77, "method": method, "params": params });
        let events = p.client.receive(&raw.to_string(), 0);
        let replies = sent(&events);
        assert_eq!(replies.len(), 1, "{method}");
        assert_eq!(replies[0]["id"], 77);
        assert_eq!(
            replies[0]["error"]["code"],
            codes::METHOD_NOT_FOUND,
            "{method}"
        );
        assert!(of_type(&events, "request").is_empty(), "{method}");
        // Advertised: delivered to the application.
        let mut p = ready("2025-11-25", caps, json!({}));
        let out = p
            .server
            .request(method, Some(params), RequestOptions::default(), 0)
            .unwrap();
        p.send(To::Client, out.text);
        assert_eq!(of_type(&p.client_events, "request").len(), 1, "{method}");
    }
    // Form-only elicitation refuses URL mode; empty `elicitation` means form.
    let mut p = ready("2025-11-25", json!({ "elicitation": {} }), json!({}));
    let url = json!({ "mode": "url", "message": "m", "url": "https://x", "elicitationId": "e" });
    assert_eq!(
        refusal_capability(p.server.elicit(url.clone(), RequestOptions::default(), 0)),
        "elicitation.url"
    );
    assert!(p
        .server
        .elicit(
            json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {} } }),
            RequestOptions::default(),
            0
        )
        .is_ok());
    // 2025-06-18 has elicitation (form only), 2025-03-26 none at all.
    let mut p = ready("2025-06-18", json!({ "elicitation": {} }), json!({}));
    assert!(p
        .server
        .elicit(
            json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {} } }),
            RequestOptions::default(),
            0
        )
        .is_ok());
    let mut p = ready("2025-03-26", json!({ "elicitation": {} }), json!({}));
    assert!(p
        .server
        .elicit(
            json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {} } }),
            RequestOptions::default(),
            0
        )
        .is_err());
}

#[test]
fn the_server_answers_unadvertised_client_requests_with_method_not_found() {
    for method in [
        "tools/list",
        "prompts/get",
        "resources/subscribe",
        "logging/setLevel",
        "completion/complete",
        "tasks/list",
        "sampling/createMessage",
    ] {
        let mut p = ready("2025-11-25", json!({}), json!({ "resources": {} }));
        let raw = json!({ "jsonrpc": "2.0", "id": 5, "method": method, "params": {} });
        let events = p.server.receive(&raw.to_string(), 0);
        assert_eq!(
            sent(&events)[0]["error"]["code"],
            codes::METHOD_NOT_FOUND,
            "{method}"
        );
        assert!(of_type(&events, "request").is_empty(), "{method}");
    }
    // Extension methods MCP does not define pass through to the application.
    let mut p = ready("2025-11-25", json!({}), json!({}));
    let events = p.server.receive(
        r#"{"jsonrpc":"2.0","id":6,"method":"x/custom","params":{}}"#,
        0,
    );
    assert_eq!(of_type(&events, "request")[0]["method"], "x/custom");
}

#[test]
fn notifications_only_where_advertised() {
    let mut p = ready(
        "2025-11-25",
        json!({ "roots": {} }),
        json!({ "tools": {}, "resources": {} }),
    );
    for result in [
        p.server.notify_tools_list_changed(),
        p.server.notify_resources_list_changed(),
        p.server.notify_resource_updated("a:b"),
        p.server.notify_prompts_list_changed(),
        p.server.log("info", None, json!("x")),
        p.client.notify_roots_list_changed(),
    ] {
        assert_eq!(result.unwrap_err().code, codes::LOCAL_REFUSAL);
    }
    // A peer that sends one anyway: reported, still delivered, not answered.
    let events = p.client.receive(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        0,
    );
    assert_eq!(
        of_type(&events, "violation")[0]["issues"][0]["code"],
        "capability_not_negotiated"
    );
    assert_eq!(of_type(&events, "notification").len(), 1);
    assert!(sent(&events).is_empty());
    let mut p = ready(
        "2025-11-25",
        json!({ "roots": { "listChanged": true } }),
        all_caps_server(),
    );
    assert!(p.server.notify_tools_list_changed().is_ok());
    assert!(p.server.log("info", Some("core"), json!("x")).is_ok());
    assert!(p.client.notify_roots_list_changed().is_ok());
    let events = p.client.receive(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        0,
    );
    assert!(of_type(&events, "violation").is_empty());
}

#[test]
fn lifecycle_before_the_handshake() {
    // Client: nothing but ping before the answer.
    let mut c = McpClient::new(client_config(
        json!({ "era": "handshake", "protocolVersions": ["2025-11-25"] }),
    ));
    assert!(c.list_tools(None, 0).is_err(), "not opened yet");
    c.initialize(0).unwrap();
    assert!(c.initialize(0).is_err(), "once");
    assert!(c.ping(0).is_ok());
    let e = c.list_tools(None, 0).unwrap_err();
    assert!(e.message.contains("before the handshake"), "{e}");
    assert!(c
        .request("initialize", None, RequestOptions::default(), 0)
        .is_err());
    // Server: requests other than ping before initialize get an error; ping is answered.
    let mut s = agentwire::mcp::McpServer::new(server_config(
        json!({ "protocolVersions": ["2025-11-25"], "capabilities": all_caps_server() }),
    ));
    let events = s.receive(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, 0);
    assert_eq!(sent(&events)[0]["error"]["code"], codes::INVALID_REQUEST);
    let events = s.receive(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, 0);
    assert_eq!(
        sent(&events),
        vec![json!({ "jsonrpc": "2.0", "id": 2, "result": {} })]
    );
    // Before notifications/initialized the server sends only ping and logging.
    let init = json!({ "jsonrpc": "2.0", "id": 3, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": all_caps_client(), "clientInfo": { "name": "c", "version": "1" } } });
    s.receive(&init.to_string(), 0);
    assert!(s.ping(0).is_ok());
    assert!(s.log("info", None, json!("starting")).is_ok());
    assert!(s.list_roots(0).is_err());
    assert!(s.notify_tools_list_changed().is_err());
    let again = s.receive(&init.to_string().replace("\"id\":3", "\"id\":4"), 0);
    assert_eq!(sent(&again)[0]["error"]["code"], codes::INVALID_REQUEST);
    s.receive(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        0,
    );
    assert!(s.list_roots(0).is_ok());
}

#[test]
fn ping_is_answered_automatically_both_ways() {
    let mut p = ready("2025-03-26", json!({}), json!({}));
    let out = p.client.ping(0).unwrap();
    p.send(To::Server, out.text);
    assert!(of_type(&p.server_events, "request").is_empty());
    assert_eq!(
        of_type(&p.client_events, "response").last().unwrap()["method"],
        "ping"
    );
    let out = p.server.ping(0).unwrap();
    p.send(To::Client, out.text);
    assert_eq!(
        of_type(&p.server_events, "response").last().unwrap()["method"],
        "ping"
    );
}

#[test]
fn batches_only_in_2025_03_26_and_never_null_ids() {
    let batch =
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
    let mut p = ready("2025-03-26", json!({}), json!({}));
    let replies = sent(&p.server.receive(batch, 0));
    assert_eq!(
        replies.iter().map(|r| r["id"].clone()).collect::<Vec<_>>(),
        vec![json!(1), json!(2)]
    );
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut p = ready(version, json!({}), json!({}));
        let replies = sent(&p.server.receive(batch, 0));
        assert_eq!(replies.len(), 1, "{version}");
        assert_eq!(
            replies[0]["error"]["code"],
            codes::INVALID_REQUEST,
            "{version}"
        );
    }
    let mut p = ready("2025-03-26", json!({}), json!({}));
    let events = p
        .server
        .receive(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, 0);
    assert_eq!(sent(&events)[0]["error"]["code"], codes::INVALID_REQUEST);
}

#[test]
fn malformed_input_is_answered_never_a_panic() {
    let mut p = ready("2025-11-25", json!({}), json!({ "tools": {} }));
    for (text, code) in [
        ("{", Some(codes::PARSE_ERROR)),
        ("[]", Some(codes::INVALID_REQUEST)),
        ("42", Some(codes::INVALID_REQUEST)),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            Some(codes::INVALID_REQUEST),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            Some(codes::INVALID_REQUEST),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"initialize","params":"x"}"#,
            Some(codes::INVALID_REQUEST),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}"#,
            Some(codes::INVALID_REQUEST),
        ),
        (r#"{"jsonrpc":"2.0","id":99,"result":{}}"#, None),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{"x":1}}}"#,
            None,
        ),
    ] {
        for side in [0, 1] {
            let events = if side == 0 {
                p.server.receive(text, 0)
            } else {
                p.client.receive(text, 0)
            };
            let replies = sent(&events);
            match code {
                Some(code) if side == 0 || !text.contains("initialize") => {
                    assert_eq!(replies.len(), 1, "{text}");
                    assert!(
                        replies[0]["error"]["code"] == code
                            || replies[0]["error"]["code"] == codes::METHOD_NOT_FOUND,
                        "{text}: {replies:?}"
                    );
                }
                _ => assert!(replies.len() <= 1, "{text}"),
            }
        }
    }
    // initialize from the peer at the client: not a server-to-client method.
    let events = p.client.receive(
        r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}"#,
        0,
    );
    assert_eq!(sent(&events)[0]["error"]["code"], codes::METHOD_NOT_FOUND);
}

#[test]
fn stateless_requests_carry_meta_and_the_server_checks_it() {
    let mut p = Pair::connect(
        json!({ "protocolVersions": ["2026-07-28"], "era": "stateless", "capabilities": { "sampling": {}, "roots": { "listChanged": true } } }),
        json!({ "protocolVersions": ["2026-07-28"], "capabilities": all_caps_server(), "serverInfo": { "name": "s", "version": "2" } }),
    );
    let init = &of_type(&p.client_events, "initialized")[0];
    assert_eq!(init["peerInfo"]["name"], "s");
    // The stateless era has no tasks, ping, logging/setLevel or resources/subscribe.
    for method in [
        "ping",
        "tasks/list",
        "logging/setLevel",
        "resources/subscribe",
    ] {
        assert!(
            p.client
                .request(method, None, RequestOptions::default(), 0)
                .is_err(),
            "{method}"
        );
    }
    let out = p
        .client
        .call_tool(
            "echo",
            Some(json!({ "m": 1 })),
            RequestOptions::default(),
            0,
        )
        .unwrap();
    let sent_req: Value = serde_json::from_str(&out.text).unwrap();
    let meta = &sent_req["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    // Trimmed to the version: roots has no listChanged in 2026-07-28.
    assert_eq!(
        meta["io.modelcontextprotocol/clientCapabilities"],
        json!({ "sampling": {}, "roots": {} })
    );
    // Server side: wrong version, missing capabilities, no _meta.
    let mut s = agentwire::mcp::McpServer::new(server_config(
        json!({ "protocolVersions": ["2026-07-28"], "capabilities": { "tools": {} } }),
    ));
    let cases = [
        (
            json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2030-01-01", "io.modelcontextprotocol/clientCapabilities": {} } }),
            codes::UNSUPPORTED_PROTOCOL_VERSION,
        ),
        (
            json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }),
            codes::INVALID_PARAMS,
        ),
        (json!({}), codes::INVALID_PARAMS),
    ];
    for (params, code) in cases {
        let raw = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params });
        let reply = &sent(&s.receive(&raw.to_string(), 0))[0];
        assert_eq!(reply["error"]["code"], code, "{params}");
        if code == codes::UNSUPPORTED_PROTOCOL_VERSION {
            assert_eq!(
                reply["error"]["data"],
                json!({ "supported": ["2026-07-28"], "requested": "2030-01-01" })
            );
        }
    }
    // A handshake-only server does not know server/discover.
    let mut old = agentwire::mcp::McpServer::new(server_config(
        json!({ "protocolVersions": ["2025-11-25"] }),
    ));
    let reply = &sent(&old.receive(
        r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#,
        0,
    ))[0];
    assert_eq!(reply["error"]["code"], codes::METHOD_NOT_FOUND);
}

#[test]
fn the_method_table_query_says_what_is_enabled_and_why() {
    let p = ready("2025-11-25", json!({}), json!({ "tools": {} }));
    let table = serde_json::to_value(p.client.methods()).unwrap();
    let row = |method: &str, direction: &str| {
        table
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["method"] == method && r["direction"] == direction)
            .cloned()
            .unwrap()
    };
    assert_eq!(row("tools/list", "clientToServer")["enabled"], true);
    assert_eq!(row("prompts/list", "clientToServer")["enabled"], false);
    assert!(row("prompts/list", "clientToServer")["reason"]
        .as_str()
        .unwrap()
        .contains("prompts"));
    assert_eq!(
        row("sampling/createMessage", "serverToClient")["enabled"],
        false
    );
    assert_eq!(row("ping", "serverToClient")["enabled"], true);
    let discover = row("server/discover", "clientToServer");
    assert_eq!(discover["enabled"], false);
    assert!(
        discover["reason"]
            .as_str()
            .unwrap()
            .contains("session itself"),
        "{discover}"
    );
    assert_eq!(
        row("notifications/tools/list_changed", "serverToClient")["enabled"],
        false
    );
    let server_view = serde_json::to_value(p.server.methods()).unwrap();
    let tools = server_view
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["method"] == "tools/call")
        .unwrap();
    assert_eq!(tools["enabled"], true);
}

#[test]
fn events_cross_to_js_as_tagged_camel_case_objects() {
    let pair = ready("2025-11-25", json!({}), json!({ "tools": {} }));
    let init = values(&pair.client_events)
        .into_iter()
        .find(|e| e["type"] == "initialized")
        .unwrap();
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["peerCapabilities"], json!({ "tools": {} }));
    let e = Event::Cancelled {
        request_id: json!(3),
        reason: None,
    };
    assert_eq!(
        serde_json::to_value(e).unwrap(),
        json!({ "type": "cancelled", "requestId": 3 })
    );
    assert_eq!(
        serde_json::to_value(Event::ProtocolError {
            error: agentwire::jsonrpc::ProtocolError::new(1, "x")
        })
        .unwrap()["type"],
        "protocolError"
    );
}

#[test]
fn getters_show_both_models_and_the_wire() {
    let p = ready(
        "2025-11-25",
        json!({ "elicitation": {}, "x-custom": { "a": 1 } }),
        all_caps_server(),
    );
    assert_eq!(p.client.era(), Some(agentwire::mcp::Era::Handshake));
    assert_eq!(
        p.server.peer_capabilities().unwrap(),
        &json!({ "elicitation": {}, "x-custom": { "a": 1 } })
    );
    let model = p.server.peer_capability_model();
    assert_eq!(model.features.get("elicitation.form"), Some(&true));
    assert_eq!(model.features.get("elicitation.url"), Some(&false));
    assert_eq!(
        p.client.own_capabilities(),
        json!({ "elicitation": {}, "x-custom": { "a": 1 } })
    );
    assert_eq!(p.client.peer_info().unwrap()["name"], "agentwire");
}

#[test]
fn the_latest_version_is_requested_and_offered_whatever_the_order_given() {
    // The client requests its latest, as in ACP: the list is a set, not a preference order.
    let mut c = McpClient::new(client_config(
        json!({ "protocolVersions": ["2025-06-18", "2025-11-25"], "era": "handshake" }),
    ));
    let init: Value =
        serde_json::from_str(&c.initialize(0).expect("initialize").text).expect("json");
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    // A server answers an unsupported request with its latest.
    let mut s = McpServer::new(server_config(
        json!({ "protocolVersions": ["2024-11-05", "2025-06-18"] }),
    ));
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } } });
    let answer = sent(&s.receive(&request.to_string(), 0));
    assert_eq!(
        answer[0]["result"]["protocolVersion"], "2025-06-18",
        "{answer:?}"
    );
}

#[test]
fn a_task_augmented_tools_call_answered_with_create_task_result_is_valid() {
    let mut p = Pair::connect(
        json!({ "protocolVersions": ["2025-11-25"], "era": "handshake" }),
        json!({ "protocolVersions": ["2025-11-25"], "capabilities": { "tools": {}, "tasks": { "requests": { "tools": { "call": {} } } } } }),
    );
    p.take_client_events();
    let out = p
        .client
        .request(
            "tools/call",
            Some(json!({ "name": "slow", "arguments": {}, "task": { "ttl": 60000 } })),
            RequestOptions::default(),
            1,
        )
        .expect("tools/call");
    p.send(To::Server, out.text);
    let request = of_type(&p.take_server_events(), "request")[0].clone();
    let id: agentwire::jsonrpc::Id = serde_json::from_value(request["id"].clone()).expect("id");
    let task = json!({ "task": { "taskId": "t1", "status": "working", "ttl": 60000, "createdAt": "2025-11-25T10:00:00Z", "lastUpdatedAt": "2025-11-25T10:00:00Z" } });
    let answer = p
        .server
        .respond(&id, Ok(task.clone()))
        .expect("a CreateTaskResult may be sent");
    p.send(To::Client, answer.text);
    let events = p.take_client_events();
    assert!(of_type(&events, "violation").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "response")[0]["result"], task);
}

#[test]
fn an_error_with_a_null_id_settles_no_request_and_is_reported() {
    let refusal = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;
    // One request in flight: the null id is not taken as its answer.
    let mut c = McpClient::new(client_config(json!({ "era": "auto" })));
    let discover: Value =
        serde_json::from_str(&c.initialize(0).expect("discover").text).expect("json");
    assert_eq!(discover["method"], "server/discover");
    let events = c.receive(refusal, 5);
    assert!(
        sent(&events).is_empty(),
        "nothing is settled, so no fallback is sent: {events:?}"
    );
    assert!(
        of_type(&events, "error").is_empty() && of_type(&events, "response").is_empty(),
        "{events:?}"
    );
    let issues: Vec<Value> = of_type(&events, "violation")
        .iter()
        .flat_map(|v| v["issues"].as_array().cloned().unwrap_or_default())
        .collect();
    assert!(
        issues
            .iter()
            .any(|i| i["path"] == "/id" && i["severity"] == "error"),
        "the schema's RequestId is a string or an integer: {issues:?}"
    );
    // A stray, as in ACP: it settles nothing, and says what the server answered.
    let stray = of_type(&events, "stray");
    assert_eq!(stray.len(), 1, "{events:?}");
    assert_eq!(
        (
            &stray[0]["id"],
            &stray[0]["alreadyAnswered"],
            &stray[0]["error"]["code"]
        ),
        (&Value::Null, &json!(false), &json!(-32000)),
        "{events:?}"
    );
    // The request it may have meant is still answered by its own answer.
    let answer = json!({ "jsonrpc": "2.0", "id": discover["id"], "result": { "supportedVersions": ["2026-07-28"], "capabilities": {}, "resultType": "complete" } });
    let events = c.receive(&answer.to_string(), 6);
    assert_eq!(of_type(&events, "initialized").len(), 1, "{events:?}");
    // Two in flight: the same.
    let mut c = McpClient::new(client_config(
        json!({ "era": "handshake", "protocolVersions": ["2025-06-18"] }),
    ));
    c.initialize(0).expect("initialize");
    c.request("ping", None, RequestOptions::default(), 1)
        .expect("ping");
    let events = c.receive(refusal, 5);
    assert_eq!(of_type(&events, "stray").len(), 1, "{events:?}");
    assert!(
        sent(&events).is_empty() && of_type(&events, "error").is_empty(),
        "{events:?}"
    );
}

#[test]
fn a_failed_sign_in_ends_discovery_without_the_era_fallback() {
    let mut c = McpClient::new(client_config(json!({ "era": "auto" })));
    let discover: Value =
        serde_json::from_str(&c.initialize(0).expect("discover").text).expect("json");
    // What the HTTP transport answers for a request whose OAuth sign-in failed: asking again
    // with initialize would only send the user to sign in a second time.
    let failed = json!({ "jsonrpc": "2.0", "id": discover["id"], "error": { "code": codes::AUTH_FAILED, "message": "authorization failed at authorization: access_denied", "data": { "step": "authorization" } } });
    let events = c.receive(&failed.to_string(), 5);
    assert!(sent(&events).is_empty(), "{events:?}");
    let error = &of_type(&events, "protocolError")[0];
    assert_eq!(
        (
            error["error"]["code"].as_i64(),
            error["error"]["data"]["step"].as_str()
        ),
        (Some(codes::AUTH_FAILED), Some("authorization")),
        "{error}"
    );
}

#[test]
fn violations_say_which_message_and_which_way() {
    let mut p = Pair::connect(
        json!({ "protocolVersions": ["2025-06-18"], "era": "handshake" }),
        json!({ "protocolVersions": ["2025-06-18"], "capabilities": { "tools": {} } }),
    );
    p.take_client_events();
    let out = p
        .client
        .request("tools/list", None, RequestOptions::default(), 1)
        .expect("tools/list");
    let id = out.id.clone().expect("id");
    // An answer that breaks the schema: a tool without inputSchema.
    let bad = json!({ "jsonrpc": "2.0", "id": id, "result": { "tools": [{ "name": "x" }] } });
    let events = p.client.receive(&bad.to_string(), 2);
    let v = &of_type(&events, "violation")[0];
    assert_eq!(
        (
            v["id"].clone(),
            v["method"].as_str(),
            v["direction"].as_str()
        ),
        (
            serde_json::to_value(&id).unwrap(),
            Some("tools/list"),
            Some("in")
        ),
        "{v}"
    );
    // A stray is no violation of the message: a `stray` event names its id, as in ACP.
    let stray = p
        .client
        .receive(r#"{"jsonrpc":"2.0","id":999,"result":{}}"#, 3);
    assert_eq!(of_type(&stray, "stray")[0]["id"], 999);
    assert!(of_type(&stray, "violation").is_empty(), "{stray:?}");
}

#[test]
fn an_elicitation_answered_with_a_number_field_default_is_sent() {
    let mut p = Pair::connect(
        json!({ "protocolVersions": ["2025-11-25"], "era": "handshake", "capabilities": { "elicitation": { "form": {} } } }),
        json!({ "protocolVersions": ["2025-11-25"], "capabilities": { "tools": {} } }),
    );
    p.take_client_events();
    let ask = p
        .server
        .request(
            "elicitation/create",
            Some(json!({ "message": "Rate it", "requestedSchema": {
        "type": "object", "properties": { "score": { "type": "number", "default": 95.5 } } } })),
            RequestOptions::default(),
            1,
        )
        .expect("elicitation/create");
    p.send(To::Client, ask.text);
    let request = of_type(&p.take_client_events(), "request")[0].clone();
    let id: agentwire::jsonrpc::Id = serde_json::from_value(request["id"].clone()).expect("id");
    // The form's default (SEP-1034), with default options: sent, not refused.
    let answer = p
        .client
        .respond(
            &id,
            Ok(json!({ "action": "accept", "content": { "score": 95.5 } })),
        )
        .expect("sent");
    assert!(answer.text.contains("95.5"));
}

#[test]
fn the_auto_era_says_why_it_falls_back() {
    // Refused: the error is the reason.
    let mut c = McpClient::new(client_config(json!({ "era": "auto" })));
    let discover: Value =
        serde_json::from_str(&c.initialize(0).expect("discover").text).expect("json");
    let refused = json!({ "jsonrpc": "2.0", "id": discover["id"], "error": { "code": -32601, "message": "Method not found" } });
    let events = c.receive(&refused.to_string(), 1);
    let fallback = &of_type(&events, "eraFallback")[0];
    assert_eq!(
        (fallback["from"].as_str(), fallback["to"].as_str()),
        (Some("2026-07-28"), Some("2025-11-25")),
        "{fallback}"
    );
    assert_eq!(fallback["reason"]["code"], -32601);
    assert!(
        fallback["reason"]["message"]
            .as_str()
            .unwrap()
            .contains("Method not found"),
        "{fallback}"
    );
    assert_eq!(sent(&events)[0]["method"], "initialize");
    // Answered with no common version: the versions it offered are the reason.
    let mut c = McpClient::new(client_config(json!({ "era": "auto" })));
    let discover: Value =
        serde_json::from_str(&c.initialize(0).expect("discover").text).expect("json");
    let other = json!({ "jsonrpc": "2.0", "id": discover["id"], "result": { "supportedVersions": ["2099-01-01"], "capabilities": {}, "resultType": "complete" } });
    let events = c.receive(&other.to_string(), 1);
    let fallback = &of_type(&events, "eraFallback")[0];
    assert_eq!(
        fallback["reason"]["data"]["supported"],
        json!(["2099-01-01"]),
        "{fallback}"
    );
    // Agreed: no fallback event.
    let pair = Pair::connect(json!({ "era": "auto" }), json!({}));
    assert!(of_type(&pair.client_events, "eraFallback").is_empty());
}

#[test]
fn a_modern_servers_refusal_of_discovery_is_not_a_reason_to_leave_its_era() {
    // A header mismatch says the era is right and the request wrong: no fallback (the spec's
    // backward-compatibility rule), the session ends naming it.
    let mut c = McpClient::new(client_config(json!({ "era": "auto" })));
    let discover: Value =
        serde_json::from_str(&c.initialize(0).expect("discover").text).expect("json");
    let mismatch = json!({ "jsonrpc": "2.0", "id": discover["id"], "error": { "code": -32020, "message": "Mcp-Method header is absent" } });
    let events = c.receive(&mismatch.to_string(), 1);
    assert!(
        sent(&events).is_empty() && of_type(&events, "eraFallback").is_empty(),
        "{events:?}"
    );
    assert_eq!(
        of_type(&events, "protocolError")[0]["error"]["code"],
        -32020
    );
    // An unsupported version with a stateless one in common: discover again with it.
    let mut c = McpClient::new(client_config(
        json!({ "era": "auto", "protocolVersions": ["2099-01-01", "2026-07-28", "2025-11-25"] }),
    ));
    let first: Value =
        serde_json::from_str(&c.initialize(0).expect("discover").text).expect("json");
    assert_eq!(
        first["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2099-01-01"
    );
    let unsupported = json!({ "jsonrpc": "2.0", "id": first["id"], "error": { "code": -32022, "message": "Unsupported protocol version", "data": { "supported": ["2026-07-28"], "requested": "2099-01-01" } } });
    let events = c.receive(&unsupported.to_string(), 1);
    let again = &sent(&events)[0];
    assert_eq!(
        (
            again["method"].as_str(),
            again["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str()
        ),
        (Some("server/discover"), Some("2026-07-28")),
        "{events:?}"
    );
    // None in common: the handshake era, with the reason.
    let unsupported = json!({ "jsonrpc": "2.0", "id": again["id"], "error": { "code": -32022, "message": "Unsupported protocol version", "data": { "supported": ["2031-01-01"], "requested": "2026-07-28" } } });
    let events = c.receive(&unsupported.to_string(), 2);
    assert_eq!(
        of_type(&events, "eraFallback")[0]["reason"]["code"],
        -32022,
        "{events:?}"
    );
    assert_eq!(sent(&events)[0]["method"], "initialize");
}

/// What the JSON-RPC endpoint settles by itself (input that is not a message, a malformed
/// response, a stray response, a duplicate request id) is reported by MCP's sessions with the
/// same events, in the same order, as by ACP's: one vocabulary.
#[test]
fn what_the_endpoint_settles_is_reported_as_acp_reports_it() {
    let mut p = ready("2025-11-25", json!({}), json!({ "tools": {} }));
    let mut acp = agentwire::acp::AcpClient::new(Default::default());
    for frame in [
        "{nope",
        "42",
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":7}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"no id"}}"#,
        r#"{"jsonrpc":"2.0","id":999,"result":{}}"#,
    ] {
        let mcp = json_of(p.client.receive(frame, 0));
        assert!(!mcp.is_empty(), "{frame}: reported");
        assert_eq!(mcp, json_of(acp.receive(frame, 0)), "{frame}");
    }
    // A duplicate request id: answered -32600, then a `protocolError`, in both.
    let mut agent = agentwire::acp::AcpAgent::new(Default::default());
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
    agent.receive(init, 0);
    let acp_new = r#"{"jsonrpc":"2.0","id":"dup","method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#;
    let mcp_list = r#"{"jsonrpc":"2.0","id":"dup","method":"tools/list"}"#;
    let first = [
        json_of(agent.receive(acp_new, 0)),
        json_of(p.server.receive(mcp_list, 0)),
    ];
    for events in first {
        assert!(events.iter().any(|e| e["type"] == "request"), "{events:?}");
    }
    let again = [
        json_of(agent.receive(acp_new, 0)),
        json_of(p.server.receive(mcp_list, 0)),
    ];
    for events in again {
        let kinds: Vec<&Value> = events.iter().map(|e| &e["type"]).collect();
        assert_eq!(kinds, ["send", "protocolError"], "{events:?}");
        let reply: Value = serde_json::from_str(events[0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(reply["error"]["code"], codes::INVALID_REQUEST);
        assert_eq!(events[1]["error"]["code"], codes::INVALID_REQUEST);
        let why = events[1]["error"]["data"].as_str().unwrap_or_default();
        assert!(
            why.starts_with("duplicate request id \"dup\""),
            "{events:?}"
        );
    }
}

/// Every message the peer sent is validated, the ones the endpoint settles by itself too (a
/// duplicate request, a stray response), before they are settled: in both protocols alike.
#[test]
fn what_the_endpoint_settles_is_validated_first_in_both_protocols() {
    let kinds = |events: &[Value]| -> Vec<String> {
        events
            .iter()
            .map(|e| e["type"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let paths = |event: &Value| -> Vec<String> {
        event["issues"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| i["path"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    // A duplicate request id whose params are invalid: the issues, then the refusal.
    let mut p = ready("2025-11-25", json!({}), json!({ "tools": {} }));
    let mut agent = agentwire::acp::AcpAgent::new(Default::default());
    agent.receive(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
        0,
    );
    let acp_new = r#"{"jsonrpc":"2.0","id":"dup","method":"session/new","params":{"cwd":"/","mcpServers":7}}"#;
    let mcp_list = r#"{"jsonrpc":"2.0","id":"dup","method":"tools/list","params":{"cursor":7}}"#;
    json_of(agent.receive(acp_new, 0));
    json_of(p.server.receive(mcp_list, 0));
    for (events, path) in [
        (json_of(agent.receive(acp_new, 0)), "/params/mcpServers"),
        (json_of(p.server.receive(mcp_list, 0)), "/params/cursor"),
    ] {
        assert_eq!(
            kinds(&events),
            ["violation", "send", "protocolError"],
            "{events:?}"
        );
        assert_eq!(events[0]["id"], "dup", "{events:?}");
        assert!(paths(&events[0]).iter().any(|p| p == path), "{events:?}");
    }
    // A stray error response with `id: null`, which the schemas of ACP v2 and MCP refuse.
    let null = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
    let mut acp = agentwire::acp::AcpClient::new(
        serde_json::from_value(json!({ "protocolVersions": [2] })).expect("config"),
    );
    for events in [
        json_of(acp.receive(null, 0)),
        json_of(p.client.receive(null, 0)),
    ] {
        assert_eq!(kinds(&events), ["violation", "stray"], "{events:?}");
        assert!(paths(&events[0]).iter().any(|p| p == "/id"), "{events:?}");
    }
}

#[test]
fn a_result_is_handed_on_as_the_text_it_came_in() {
    let mut p = ready("2025-03-26", json!({}), json!({ "tools": {} }));
    p.take_client_events();
    let list = |p: &mut Pair, at| {
        let out = p
            .client
            .request("tools/list", None, RequestOptions::default(), at);
        out.expect("tools/list").id.expect("id")
    };
    let answer = |id: &agentwire::jsonrpc::Id, result: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#,
            json!(id)
        )
    };
    // Spacing, escapes, key order and a number's digits as they came.
    let result =
        r#"{ "tools" : [ {"name":"\u0078","inputSchema":{"type":"object"},"_meta":{"n":1.50}} ] }"#;
    let id = list(&mut p, 1);
    let events = p.client.receive(&answer(&id, result), 2);
    let [Event::Response {
        id: answered,
        method,
        result: read,
    }] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert_eq!((answered, method.as_str()), (&id, "tools/list"));
    assert_eq!(read.as_str(), result);
    assert!(read.in_frame());
    // The same result in a batch, or breaking the schema, is read by the general path: the
    // same value (a broken one delivered after its violation).
    let id = list(&mut p, 3);
    let events = p.client.receive(&format!("[{}]", answer(&id, result)), 4);
    let [Event::Response {
        result: batched, ..
    }] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert!(!batched.in_frame());
    assert_eq!(batched.value(), read.value());
    let id = list(&mut p, 5);
    let broken = r#"{"tools":[{"name":"x"}]}"#;
    let events = p.client.receive(&answer(&id, broken), 6);
    assert_eq!(
        values(&events)
            .iter()
            .map(|e| e["type"].as_str().unwrap_or_default())
            .collect::<Vec<_>>(),
        ["violation", "response"]
    );
    assert_eq!(
        of_type(&events, "response")[0]["result"],
        json!({ "tools": [{ "name": "x" }] })
    );
}

#[test]
fn a_frame_deeper_than_the_endpoint_reads_is_refused_on_every_path() {
    let deep = |inner: &str| format!("{}{inner}{}", "[".repeat(130), "]".repeat(130));
    // An MCP result: -32700 answered, the call still waiting for its answer.
    let mut p = ready("2025-11-25", json!({}), json!({ "tools": {} }));
    p.take_client_events();
    let id = p
        .client
        .request("tools/list", None, RequestOptions::default(), 1)
        .expect("tools/list")
        .id
        .expect("id");
    let result = format!(r#"{{"tools":[],"_meta":{{"deep":{}}}}}"#, deep("1"));
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#,
        json!(id)
    );
    let events = values(&p.client.receive(&frame, 2));
    assert_eq!(of_type_in(&events, "protocolError").len(), 1, "{events:?}");
    assert!(of_type_in(&events, "response").is_empty(), "{events:?}");
    let events = p.client.receive(
        &format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"tools":[]}}}}"#,
            json!(id)
        ),
        3,
    );
    assert_eq!(of_type(&events, "response").len(), 1, "{events:?}");
}

fn of_type_in<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn json_of<E: serde::Serialize>(events: Vec<E>) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

/// Params given as text go out as they are: what the session adds (`_meta` of a stateless
/// request, a progress token) goes in before the closing brace, where the tree put it, or is
/// merged with a `_meta` of their own; the gates read the same parse.
#[test]
fn params_given_as_text_go_out_as_they_are() {
    let mut p = Pair::connect(
        json!({ "protocolVersions": ["2026-07-28"], "era": "stateless" }),
        json!({ "protocolVersions": ["2026-07-28"], "capabilities": all_caps_server() }),
    );
    let params = r#"{ "name" : "echo", "arguments": {"m": 1.50, "s": "\u0041"} }"#;
    let out = p
        .client
        .request_text(
            "tools/call",
            Some(params.into()),
            RequestOptions::default(),
            0,
        )
        .expect("sent");
    let (kept, meta) = out.text.split_once(r#","_meta":"#).expect("meta added");
    assert!(kept.ends_with(r#"{ "name" : "echo", "arguments": {"m": 1.50, "s": "\u0041"}"#));
    let sent_req: Value = serde_json::from_str(&out.text).unwrap();
    assert!(meta.starts_with('{') && meta.ends_with("}}}"), "{meta}");
    assert_eq!(
        sent_req["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    // A `_meta` of their own keeps its members; ours are added (a progress token too).
    let options = RequestOptions {
        reset_on_progress: true,
        ..RequestOptions::default()
    };
    let params = r#"{"name":"echo","_meta":{"progressToken":"mine","x":1}}"#;
    let out = p
        .client
        .request_text("tools/call", Some(params.into()), options, 0)
        .expect("sent");
    let sent_req: Value = serde_json::from_str(&out.text).unwrap();
    let meta = &sent_req["params"]["_meta"];
    assert_eq!(
        (&meta["progressToken"], &meta["x"]),
        (&json!("mine"), &json!(1))
    );
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    // The tree and the text give the same message.
    let value: Value = serde_json::from_str(params).unwrap();
    let mut q = Pair::connect(
        json!({ "protocolVersions": ["2026-07-28"], "era": "stateless" }),
        json!({ "protocolVersions": ["2026-07-28"], "capabilities": all_caps_server() }),
    );
    let options = RequestOptions {
        reset_on_progress: true,
        ..RequestOptions::default()
    };
    let by_tree = q
        .client
        .request("tools/call", Some(value), options, 0)
        .expect("sent");
    let tree: Value = serde_json::from_str(&by_tree.text).unwrap();
    assert_eq!(tree["params"], sent_req["params"]);
    // Not JSON: -32602, whatever is added to it.
    let e = p
        .client
        .request_text(
            "tools/call",
            Some("{\"name\":".into()),
            RequestOptions::default(),
            0,
        )
        .expect_err("not JSON");
    assert_eq!(e.code, codes::INVALID_PARAMS, "{e:?}");
    // Gated from the text: a task-augmented call needs the server's tasks capability.
    let mut r = ready("2025-11-25", json!({}), json!({ "tools": {} }));
    let task = r#"{"name":"echo","task":{"ttl":1000}}"#;
    assert_eq!(
        refusal_capability(r.client.request_text(
            "tools/call",
            Some(task.into()),
            RequestOptions::default(),
            0
        )),
        "tasks.requests.tools.call"
    );
}

/// A request is read from the parse that validates it: its params reach the application as the
/// text they came in, screened on that parse; an id already being served, or a request with a
/// schema error, takes the general path and is answered or delivered as before.
#[test]
fn a_request_is_handed_on_as_the_text_it_came_in() {
    let mut p = ready(
        "2025-11-25",
        json!({ "sampling": {} }),
        json!({ "tools": {} }),
    );
    let params = r#"{ "name" : "echo" , "arguments" : { "s" : "\u0041" , "n" : 1.50 } }"#;
    let frame = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#);
    let events = p.server.receive(&frame, 0);
    assert!(
        matches!(&events[..], [Event::Request { id, method, params: Some(got) }]
            if id.to_value() == json!(7) && method == "tools/call" && got.as_str() == params && got.in_frame()),
        "{events:?}"
    );
    // The same id while it is served: -32600 from the general path.
    let reply = &sent(&p.server.receive(&frame, 0))[0];
    assert_eq!(reply["error"]["code"], codes::INVALID_REQUEST);
    // Screened on the parse: a capability the server did not advertise.
    let prompts = r#"{"jsonrpc":"2.0","id":8,"method":"prompts/list","params":{}}"#;
    let reply = &sent(&p.server.receive(prompts, 0))[0];
    assert_eq!(reply["error"]["code"], codes::METHOD_NOT_FOUND);
    assert_eq!(reply["error"]["data"]["capability"], "prompts");
    // A schema error: reported, then delivered, read as values.
    let nameless = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{}}}"#;
    let events = p.server.receive(nameless, 0);
    assert!(
        matches!(&events[..], [Event::Violation { .. }, Event::Request { params: Some(p), .. }] if !p.in_frame() && p.value() == json!({"arguments": {}})),
        "{events:?}"
    );
    // The client side: a request of the server's.
    let sampling = r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}"#;
    let events = p.client.receive(sampling, 0);
    assert!(
        matches!(&events[..], [Event::Request { params: Some(p), .. }] if p.in_frame()),
        "{events:?}"
    );
}

/// A notification the session only screens is read from the parse that validates it, its
/// params handed on as the text they came in, after what is wrong with it arriving now; one
/// with a schema error takes the general path.
#[test]
fn a_notification_is_handed_on_as_the_text_it_came_in() {
    let mut p = ready("2025-11-25", json!({}), json!({ "logging": {} }));
    let params = r#"{ "level" : "info" , "data" : "x\u0041" }"#;
    let frame =
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{params}}}"#);
    let events = p.client.receive(&frame, 0);
    assert!(
        matches!(&events[..], [Event::Notification { method, params: Some(got) }] if method == "notifications/message" && got.as_str() == params && got.in_frame()),
        "{events:?}"
    );
    // Not advertised: reported, then delivered all the same.
    let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    let events = p.client.receive(changed, 0);
    assert!(
        matches!(
            &events[..],
            [
                Event::Violation { .. },
                Event::Notification { params: None, .. }
            ]
        ),
        "{events:?}"
    );
    // A schema error: reported, then delivered, read as values.
    let loud =
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}"#;
    let events = p.client.receive(loud, 0);
    assert!(
        matches!(&events[..], [Event::Violation { .. }, Event::Notification { params: Some(got), .. }] if !got.in_frame() && got.value()["level"] == "loud"),
        "{events:?}"
    );
}

/// A stateless-era request is read from the parse that validates it once the server speaks that
/// era: its `_meta` taken by the lifecycle for this request alone, its params handed on as the
/// text they came in, its answer written the stateless way; a request the lifecycle answers
/// (a version the server does not speak, no capabilities) takes the general path as before.
#[test]
fn a_stateless_request_is_handed_on_as_the_text_it_came_in() {
    let mut s = agentwire::mcp::McpServer::new(server_config(
        json!({ "protocolVersions": ["2026-07-28"], "capabilities": { "tools": {} } }),
    ));
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#;
    let first = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{meta}}}}}"#);
    let events = s.receive(&first, 0);
    assert!(
        matches!(&events[..], [Event::Request { method, .. }] if method == "tools/list"),
        "{events:?}"
    );
    let params = format!(r#"{{ "name" : "echo", "arguments" : {{ "m" : 1 }}, {meta} }}"#);
    let call = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{params}}}"#);
    let events = s.receive(&call, 1);
    let [Event::Request {
        id,
        method,
        params: Some(got),
    }] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        (id, method.as_str()),
        (&agentwire::jsonrpc::Id::Number(2), "tools/call")
    );
    assert_eq!(got.as_str(), params);
    assert!(got.in_frame());
    let answer = s
        .respond(
            &agentwire::jsonrpc::Id::Number(2),
            Ok(json!({ "content": [] })),
        )
        .expect("answered");
    let answer: Value = serde_json::from_str(&answer.text).unwrap();
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    // What the lifecycle answers is answered as before.
    let cases = [
        (
            r#"{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}"#,
            codes::UNSUPPORTED_PROTOCOL_VERSION,
        ),
        (
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
            codes::INVALID_PARAMS,
        ),
    ];
    for (id, (meta, code)) in (3..).zip(cases) {
        let raw = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{meta}}}}}"#
        );
        let reply = &sent(&s.receive(&raw, 2))[0];
        assert_eq!(reply["error"]["code"], code, "{meta}");
    }
}
