//! Every ACP seed vector (seeds 000–002, fragments included), played through the
//! client and agent sessions: what we send equals the seed where the seed is what we
//! send, and what the seed receives is read right.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::acp::checks::check_mcp_server;
use agentwire::acp::*;
use agentwire::jsonrpc::Outbound;
use serde_json::{json, Value};

fn text_of(v: &Value) -> String {
    v.to_string()
}

fn parse(o: &Outbound) -> Value {
    serde_json::from_str(&o.text).expect("we send JSON")
}

fn client(versions: &[u16], caps: Value) -> AcpClient {
    let config: ClientConfig = serde_json::from_value(json!({
        "protocolVersions": versions,
        "capabilities": caps,
        "info": {"name": "my-client", "title": "My Client", "version": "1.0.0"},
    }))
    .expect("config");
    AcpClient::new(config)
}

fn agent(versions: &[u16], caps: Value) -> AcpAgent {
    let config: AgentConfig = serde_json::from_value(json!({
        "protocolVersions": versions,
        "capabilities": caps,
        "info": {"name": "my-agent", "title": "My Agent", "version": "1.0.0"},
    }))
    .expect("config");
    AcpAgent::new(config)
}

/// A v1 client that has received `init` (an initialize result).
fn initialized_client(init: Value) -> AcpClient {
    let mut c = client(&[1], json!({}));
    c.initialize(0).expect("initialize");
    let events = c.receive(
        &json!({"jsonrpc": "2.0", "id": 0, "result": init}).to_string(),
        1,
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Initialized { .. })),
        "{events:?}"
    );
    c
}

fn initialized(events: &[Event]) -> (u16, Value, Option<Value>) {
    events
        .iter()
        .find_map(|e| match e {
            Event::Initialized {
                protocol_version,
                peer_capabilities,
                peer_info,
                ..
            } => Some((
                *protocol_version,
                peer_capabilities.clone(),
                peer_info.clone(),
            )),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no initialized event in {events:?}"))
}

fn sent(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Send { text } => Some(serde_json::from_str(text).expect("json")),
            _ => None,
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(shared_oracle),
    ignore = "needs the official schemas and seed vectors: ../shared or AGENTWIRE_SHARED"
)]
fn every_acp_seed_vector() {
    let Some(seeds) = common::seeds_of("acp") else {
        return;
    };
    assert!(
        seeds.len() >= 14,
        "expected the 14 ACP seed vectors, found {}",
        seeds.len()
    );
    for seed in &seeds {
        let what = seed["what"].as_str().expect("what");
        let file = seed["seed"].as_str().expect("seed");
        let msg = &seed["message"];
        match (&file[..3], what) {
            ("000", "initialize request") => seed_000_request(msg),
            ("000", "initialize response") => seed_000_response(msg),
            ("001", "initialize request") => seed_001_request(msg),
            ("001", "initialize response") => seed_001_response(msg),
            ("002", "session/new request") => seed_002_new(msg),
            ("002", "session/new response") => seed_002_new_response(msg),
            ("002", "initialize response advertising loadSession") => seed_002_load_advertised(msg),
            ("002", "session/load request") => seed_002_load(msg, &seeds),
            ("002", w) if w.starts_with("session/update replay") => {
                seed_002_load(&seed_of(&seeds, "session/load request"), &seeds)
            }
            ("002", "session/load response after replay") => {
                seed_002_load(&seed_of(&seeds, "session/load request"), &seeds)
            }
            ("002", "McpServer stdio config") => seed_002_mcp_fragment(msg, "mcp.stdio"),
            ("002", "McpServer http config") => seed_002_mcp_fragment(msg, "mcp.http"),
            ("002", "McpServer sse config") => seed_002_mcp_fragment(msg, "mcp.sse"),
            ("002", "initialize response advertising mcpCapabilities") => seed_002_mcp_caps(msg),
            _ => panic!("unhandled ACP seed vector {file}: {what}"),
        }
    }
}

fn seed_of(seeds: &[Value], what: &str) -> Value {
    seeds
        .iter()
        .find(|s| s["what"] == what)
        .map(|s| s["message"].clone())
        .expect(what)
}

/// Seed 000: a v1 client with fs and terminal sends exactly the seed's initialize.
fn seed_000_request(msg: &Value) {
    let mut c = client(
        &[1],
        json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}),
    );
    assert_eq!(parse(&c.initialize(0).expect("initialize")), *msg);
    // An agent reads it into the model.
    let mut a = agent(&[1], json!({}));
    let events = a.receive(&text_of(msg), 0);
    let (v, wire, info) = initialized(&events);
    assert_eq!(v, 1);
    assert_eq!(wire, msg["params"]["clientCapabilities"]);
    assert_eq!(info, Some(msg["params"]["clientInfo"].clone()));
    let caps = a.peer_capabilities();
    assert!(caps.fs.read_text_file && caps.fs.write_text_file && caps.terminal);
}

/// Seed 000's answer spells MCP capabilities `mcp`; read as `mcpCapabilities`, which is
/// what agentwire sends.
fn seed_000_response(msg: &Value) {
    let mut c = client(&[1], json!({}));
    c.initialize(0).expect("initialize");
    let events = c.receive(&text_of(msg), 1);
    let (v, wire, info) = initialized(&events);
    assert_eq!(
        (v, wire, info),
        (
            1,
            msg["result"]["agentCapabilities"].clone(),
            Some(msg["result"]["agentInfo"].clone())
        )
    );
    let caps = c.peer_capabilities();
    assert!(
        caps.session.load
            && caps.session.new
            && caps.prompt.image
            && caps.prompt.audio
            && caps.prompt.embedded_context
    );
    assert!(caps.mcp.http && caps.mcp.sse && caps.mcp.stdio);
    assert_eq!(c.auth_methods(), &[] as &[Value]);
    // The same agent, configured, answers the seed with `mcpCapabilities` for `mcp`.
    let mut a = agent(
        &[1],
        json!({"session": {"load": true}, "prompt": {"image": true, "audio": true, "embeddedContext": true}, "mcp": {"http": true, "sse": true}}),
    );
    let events = a.receive(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}).to_string(), 0);
    let mut want = msg.clone();
    let mcp = want["result"]["agentCapabilities"]
        .as_object_mut()
        .and_then(|m| m.remove("mcp"))
        .expect("mcp");
    want["result"]["agentCapabilities"]["mcpCapabilities"] = mcp;
    assert_eq!(sent(&events), vec![want]);
}

/// Seed 001 (v2): `capabilities: {}` and `clientInfo`; agentwire adds `info` (required by
/// the newest draft) and sends nothing else.
fn seed_001_request(msg: &Value) {
    let mut c = client(&[2], json!({}));
    let mut want = msg.clone();
    want["params"]["info"] = msg["params"]["clientInfo"].clone();
    assert_eq!(parse(&c.initialize(0).expect("initialize")), want);
    let mut a = agent(&[2, 1], json!({}));
    let events = a.receive(&text_of(msg), 0);
    let (v, wire, info) = initialized(&events);
    assert_eq!(
        (v, wire, info),
        (2, json!({}), Some(msg["params"]["clientInfo"].clone()))
    );
    assert_eq!(*a.peer_capabilities(), ClientCapabilities::default());
}

fn seed_001_response(msg: &Value) {
    let mut c = client(&[2], json!({}));
    c.initialize(0).expect("initialize");
    let events = c.receive(&text_of(msg), 1);
    let (v, wire, _) = initialized(&events);
    assert_eq!((v, &wire), (2, &msg["result"]["capabilities"]));
    let caps = c.peer_capabilities();
    assert!(
        caps.session.new
            && caps.session.load
            && caps.prompt.image
            && caps.prompt.audio
            && caps.prompt.embedded_context
    );
    assert!(
        caps.mcp.stdio
            && caps.mcp.http
            && !caps.mcp.sse
            && !caps.session.delete
            && !caps.auth.logout
    );
    assert!(
        caps.session.list && caps.session.resume && caps.session.close,
        "implied by the v2 session marker"
    );
    // Written back exactly.
    assert_eq!(caps.to_wire(2), msg["result"]["capabilities"]);
    // An agent so configured answers the seed, plus `info`.
    let mut a = agent(
        &[2],
        json!({"session": {"load": true}, "prompt": {"image": true, "audio": true, "embeddedContext": true}, "mcp": {"http": true}}),
    );
    let events = a.receive(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}}).to_string(), 0);
    let mut want = msg.clone();
    want["result"]["info"] = msg["result"]["agentInfo"].clone();
    assert_eq!(sent(&events), vec![want]);
}

fn v1_full() -> Value {
    json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": true, "mcpCapabilities": {"http": true, "sse": true}}})
}

fn seed_002_new(msg: &Value) {
    let mut c = initialized_client(json!({"protocolVersion": 1}));
    assert_eq!(
        parse(
            &c.new_session(msg["params"].clone(), 2)
                .expect("session/new")
        ),
        *msg
    );
    // The agent serves it as it is.
    let mut a = agent(&[1], json!({}));
    a.receive(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}).to_string(), 0);
    let events = a.receive(&text_of(msg), 1);
    assert!(
        matches!(&events[..], [Event::Request { method, .. }] if method == "session/new"),
        "{events:?}"
    );
}

fn seed_002_new_response(msg: &Value) {
    let mut c = initialized_client(json!({"protocolVersion": 1}));
    c.new_session(json!({"cwd": "/home/user/project", "mcpServers": []}), 2)
        .expect("session/new");
    let events = c.receive(&text_of(msg), 3);
    assert!(
        matches!(&events[..], [Event::Response { method, result, .. }] if method == "session/new" && result == &msg["result"])
    );
    assert!(c.transcript("sess_abc123def456").is_some());
}

fn seed_002_load_advertised(msg: &Value) {
    let load = json!({"sessionId": "s", "cwd": "/p", "mcpServers": []});
    let mut c = initialized_client(msg["result"].clone());
    assert!(c.load_session(load.clone(), 2).is_ok());
    let mut c = initialized_client(json!({"protocolVersion": 1, "agentCapabilities": {}}));
    let e = c.load_session(load, 2).expect_err("not advertised");
    assert_eq!(e.code, agentwire::jsonrpc::codes::LOCAL_REFUSAL);
    assert_eq!(
        e.data.as_ref().and_then(|d| d.get("capability")),
        Some(&json!("session.load"))
    );
}

/// Seed 002's load: the request as in the seed, the replay attributed to the session,
/// then `result: null`.
fn seed_002_load(msg: &Value, seeds: &[Value]) {
    let mut c = initialized_client(v1_full());
    assert_eq!(
        parse(&c.load_session(msg["params"].clone(), 2).expect("load")),
        *msg
    );
    for update in seeds.iter().filter(|s| {
        s["what"]
            .as_str()
            .is_some_and(|w| w.starts_with("session/update replay"))
    }) {
        let events = c.receive(&text_of(&update["message"]), 3);
        match &events[..] {
            [Event::SessionUpdate {
                session_id,
                replay: true,
                update: u,
            }] => {
                assert_eq!(session_id, "sess_789xyz");
                assert_eq!(*u, update["message"]["params"]["update"]);
            }
            other => panic!("{other:?}"),
        }
    }
    let events = c.receive(
        &text_of(&seed_of(seeds, "session/load response after replay")),
        4,
    );
    // `result: null` is a tolerated deviation: delivered, with a warning (docs/validation.md).
    match &events[..] {
        [Event::Violation { issues, .. }, Event::Response { method, result, .. }]
            if method == "session/load" && *result == Value::Null =>
        {
            assert!(
                issues
                    .iter()
                    .all(|i| i.severity == agentwire::schema::Severity::Warning
                        && i.code == "tolerated"),
                "{issues:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let t = serde_json::to_value(c.transcript("sess_789xyz").expect("transcript")).expect("json");
    assert_eq!(
        t["entries"],
        json!([
            {"kind": "message", "role": "user", "content": [{"type": "text", "text": "What's the capital of France?"}]},
            {"kind": "message", "role": "agent", "content": [{"type": "text", "text": "The capital of France is Paris."}]}
        ])
    );
    // After the answer, updates are live again.
    let live = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "sess_789xyz", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "!"}}}});
    assert!(matches!(
        &c.receive(&live.to_string(), 5)[..],
        [Event::SessionUpdate { replay: false, .. }]
    ));
}

/// The fragments: valid field by field, and each transport gated by its capability.
fn seed_002_mcp_fragment(entry: &Value, flag: &str) {
    let mut issues = Vec::new();
    check_mcp_server(entry, "/x", &mut issues);
    assert!(issues.is_empty(), "{issues:?}");
    let params = json!({"cwd": "/home/user/project", "mcpServers": [entry]});
    let mut c = initialized_client(json!({"protocolVersion": 1, "agentCapabilities": {}}));
    let outcome = c.new_session(params.clone(), 2);
    if flag == "mcp.stdio" {
        assert!(outcome.is_ok(), "stdio is the v1 baseline");
    } else {
        let e = outcome.expect_err("transport not advertised");
        assert_eq!(
            e.data.as_ref().and_then(|d| d.get("capability")),
            Some(&json!(flag)),
            "{e:?}"
        );
        let mut c = initialized_client(v1_full());
        assert!(c.new_session(params, 2).is_ok());
    }
}

fn seed_002_mcp_caps(msg: &Value) {
    let c = initialized_client(msg["result"].clone());
    let caps = c.peer_capabilities();
    assert!(caps.mcp.http && caps.mcp.sse && caps.mcp.stdio && !caps.session.load);
    assert_eq!(caps.to_wire(1), msg["result"]["agentCapabilities"]);
}
