#![cfg(not(target_arch = "wasm32"))]
//! Real peers from the npm registry behind the relay: the official ACP SDK's example agent and
//! the MCP reference server `server-everything`. Skipped (with a message) without node_modules.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use tokio::time::timeout;

const ACP_AGENT: &str = "node_modules/@agentclientprotocol/sdk/dist/examples/agent.js";
const EVERYTHING: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// `node <repo>/<script> <args>` as an agent spec, or None (with a message) when not installed.
fn node_agent(name: &str, script: &str, args: &str) -> Option<String> {
    let path = repo().join(script);
    if !path.is_file() {
        eprintln!(
            "SKIP: {} is absent; run `npm install` at the repository root",
            path.display()
        );
        return None;
    }
    let path = path.canonicalize().unwrap();
    Some(format!("{name}=node '{}' {args}", path.display()))
}

/// Reads frames until the response to `id`, answering the agent's requests with `answer`;
/// returns (response, notifications seen on the way).
async fn response_to(
    ws: &mut Ws,
    id: i64,
    answer: impl Fn(&Value) -> Value,
) -> (Value, Vec<Value>) {
    let mut notifications = Vec::new();
    loop {
        let frame = next_json(ws).await;
        assert!(
            frame.get("relay").is_none(),
            "unexpected relay event {frame}"
        );
        assert_eq!(frame["jsonrpc"], "2.0", "{frame}");
        if frame.get("method").is_some() && frame.get("id").is_some() {
            let reply = json!({"jsonrpc": "2.0", "id": frame["id"], "result": answer(&frame)});
            send(ws, &reply.to_string()).await;
        } else if frame.get("method").is_some() {
            notifications.push(frame);
        } else if frame["id"] == id {
            return (frame, notifications);
        } else {
            panic!("a response to an id never sent: {frame}");
        }
    }
}

#[tokio::test]
async fn acp_sdk_example_agent_initialize_new_session_and_prompt() {
    let Some(agent) = node_agent("acp", ACP_AGENT, "") else {
        return;
    };
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", &agent]);
        let mut ws = relay.connect("acp").await;
        let pid = spawned_pid(&mut ws).await;
        let no_requests = |r: &Value| panic!("unexpected request {r}");

        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
            "clientInfo": {"name": "agentwire-relay-test", "version": "0.1.0"}
        }});
        send(&mut ws, &initialize.to_string()).await;
        let (response, _) = response_to(&mut ws, 1, no_requests).await;
        assert_eq!(response["result"]["protocolVersion"], 1, "{response}");
        assert_eq!(response["result"]["agentCapabilities"]["loadSession"], false, "{response}");

        let new_session = json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
            "params": {"cwd": "/tmp", "mcpServers": []}});
        send(&mut ws, &new_session.to_string()).await;
        let (response, _) = response_to(&mut ws, 2, no_requests).await;
        let session_id = response["result"]["sessionId"].as_str().expect("a sessionId").to_string();

        let prompt = json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
            "sessionId": session_id, "prompt": [{"type": "text", "text": "hello"}]}});
        send(&mut ws, &prompt.to_string()).await;
        let allow = |request: &Value| {
            assert_eq!(request["method"], "session/request_permission", "{request}");
            json!({"outcome": {"outcome": "selected", "optionId": "allow"}})
        };
        let (response, updates) = response_to(&mut ws, 3, allow).await;
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        let kinds: Vec<&str> = updates
            .iter()
            .inspect(|u| assert_eq!(u["method"], "session/update"))
            .inspect(|u| assert_eq!(u["params"]["sessionId"], session_id.as_str()))
            .filter_map(|u| u["params"]["update"]["sessionUpdate"].as_str())
            .collect();
        assert_eq!(
            kinds,
            ["agent_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
        );

        drop(ws);
        assert!(gone_within(pid, Duration::from_secs(10)).await, "the node agent is still there");
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn mcp_server_everything_initialize_and_tools_list() {
    let Some(agent) = node_agent("everything", EVERYTHING, "stdio") else {
        return;
    };
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", &agent]);
        let mut ws = relay.connect("everything").await;
        let pid = spawned_pid(&mut ws).await;
        let no_requests = |r: &Value| panic!("unexpected request {r}");

        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "agentwire-relay-test", "version": "0.1.0"}}});
        send(&mut ws, &initialize.to_string()).await;
        let (response, _) = response_to(&mut ws, 1, no_requests).await;
        assert_eq!(
            response["result"]["protocolVersion"], "2025-11-25",
            "{response}"
        );
        assert!(
            response["result"]["capabilities"]["tools"].is_object(),
            "{response}"
        );
        send(
            &mut ws,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .await;

        send(&mut ws, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).await;
        let (response, _) = response_to(&mut ws, 2, no_requests).await;
        let tools = response["result"]["tools"].as_array().expect("tools");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(names.contains(&"echo"), "{names:?}");
        assert!(
            tools.iter().all(|t| t["inputSchema"]["type"] == "object"),
            "{response}"
        );

        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "through the relay"}}});
        send(&mut ws, &call.to_string()).await;
        let (response, _) = response_to(&mut ws, 3, no_requests).await;
        let text = response["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("through the relay"), "{response}");

        drop(ws);
        assert!(
            gone_within(pid, Duration::from_secs(10)).await,
            "server-everything is still there"
        );
    })
    .await
    .expect("test timed out");
}
