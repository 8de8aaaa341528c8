//! A client and an agent session talking in-process through whole conversations, every
//! gating rule in both directions, the lifecycle, timeouts, and malformed input.
#![cfg(not(target_arch = "wasm32"))]

use agentwire::acp::*;
use agentwire::jsonrpc::{codes, Id, Outbound, ProtocolError};
use agentwire::schema::Severity;
use proptest::prelude::*;
use serde_json::{json, Value};

fn client(config: Value) -> AcpClient {
    AcpClient::new(serde_json::from_value(config).expect("client config"))
}

fn agent(config: Value) -> AcpAgent {
    AcpAgent::new(serde_json::from_value(config).expect("agent config"))
}

/// Delivers text to the other side; returns its events, with every `Send` delivered
/// back (and the replies' events appended to `back`).
fn to_agent(
    a: &mut AcpAgent,
    c: &mut AcpClient,
    o: &Outbound,
    back: &mut Vec<Event>,
) -> Vec<Event> {
    let events = a.receive(&o.text, 0);
    for e in &events {
        if let Event::Send { text } = e {
            back.extend(c.receive(text, 0));
        }
    }
    events
}

fn to_client(
    c: &mut AcpClient,
    a: &mut AcpAgent,
    o: &Outbound,
    back: &mut Vec<Event>,
) -> Vec<Event> {
    let events = c.receive(&o.text, 0);
    for e in &events {
        if let Event::Send { text } = e {
            back.extend(a.receive(text, 0));
        }
    }
    events
}

/// Runs the handshake; returns the client's events.
fn handshake(c: &mut AcpClient, a: &mut AcpAgent) -> Vec<Event> {
    let init = c.initialize(0).expect("initialize");
    let mut client_events = Vec::new();
    to_agent(a, c, &init, &mut client_events);
    client_events
}

fn pair(client_config: Value, agent_config: Value) -> (AcpClient, AcpAgent) {
    let (mut c, mut a) = (client(client_config), agent(agent_config));
    let events = handshake(&mut c, &mut a);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Initialized { .. })),
        "{events:?}"
    );
    (c, a)
}

fn request_of(events: &[Event]) -> (Id, String, Value) {
    events
        .iter()
        .find_map(|e| match e {
            Event::Request { id, method, params } => Some((
                id.clone(),
                method.clone(),
                params.as_ref().map_or(Value::Null, |p| p.value()),
            )),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no request in {events:?}"))
}

fn response_of(events: &[Event]) -> Value {
    events
        .iter()
        .find_map(|e| match e {
            Event::Response { result, .. } => Some(result.value()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no response in {events:?}"))
}

fn error_of(events: &[Event]) -> ProtocolError {
    events
        .iter()
        .find_map(|e| match e {
            Event::Error { error, .. } => Some(error.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no error in {events:?}"))
}

fn refused(r: Result<Outbound, ProtocolError>, capability: &str) {
    let e = r.expect_err("must be refused locally");
    assert_eq!(e.code, codes::LOCAL_REFUSAL, "{e:?}");
    assert_eq!(
        e.data.as_ref().and_then(|d| d.get("capability")),
        Some(&json!(capability)),
        "{e:?}"
    );
    assert!(e.message.contains(capability), "{}", e.message);
}

/// A full conversation: new session, prompt with streamed updates, a permission round
/// trip, an fs request, end of turn. Each version in its own words: v2 chunks carry
/// message ids, tool calls are upserts, plans are `plan_update`s, there are no modes, a
/// prompt is answered with its message id and its turn ends with an idle `state_update`.
/// Returns the session id.
fn conversation(c: &mut AcpClient, a: &mut AcpAgent) -> String {
    let v2 = c.protocol_version() == Some(2);
    let out = c
        .new_session(json!({"cwd": "/work", "mcpServers": []}), 1)
        .expect("session/new");
    let mut back = Vec::new();
    let (id, method, _) = request_of(&to_agent(a, c, &out, &mut back));
    assert_eq!(method, "session/new");
    let reply = a
        .respond(&id, Ok(json!({"sessionId": "s1"})))
        .expect("respond");
    assert_eq!(response_of(&c.receive(&reply.text, 1))["sessionId"], "s1");

    let out = c
        .prompt("s1", json!([{"type": "text", "text": "hi"}]), 2)
        .expect("prompt");
    let (prompt_id, _, _) = request_of(&to_agent(a, c, &out, &mut back));
    let chunk = |kind: &str, message_id: &str, text: &str| {
        let mut u = json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}});
        if v2 {
            u["messageId"] = json!(message_id);
        }
        u
    };
    let plan_entries = json!([{"content": "x", "priority": "high", "status": "pending"}]);
    let custom = json!({"sessionUpdate": "_custom_kind", "x": 1});
    let mut updates = vec![
        chunk("agent_thought_chunk", "r1", "thinking"),
        chunk("agent_message_chunk", "m1", "Hel"),
        chunk("agent_message_chunk", "m1", "lo"),
        json!({"sessionUpdate": if v2 { "tool_call_update" } else { "tool_call" }, "toolCallId": "t1", "title": "Read", "status": "pending"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        if v2 {
            json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": plan_entries}})
        } else {
            json!({"sessionUpdate": "plan", "entries": plan_entries})
        },
        json!({"sessionUpdate": "usage_update", "used": 5, "size": 100}),
    ];
    if v2 {
        // v2's union of updates is open: unknown kinds are valid.
        updates.push(custom.clone());
    } else {
        updates.push(json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"}));
    }
    for u in &updates {
        let o = a.send_update("s1", u.clone()).expect("update");
        let events = to_client(c, a, &o, &mut back);
        assert!(
            matches!(&events[..], [Event::SessionUpdate { replay: false, .. }]),
            "{events:?}"
        );
    }
    if !v2 {
        // v1's union is closed: the agent refuses to send an unknown kind; a client that
        // receives one anyway reports it and still keeps it.
        assert_eq!(
            a.send_update("s1", custom.clone())
                .expect_err("not a v1 update")
                .code,
            codes::LOCAL_REFUSAL
        );
        let raw = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": custom}});
        let events = c.receive(&raw.to_string(), 2);
        match &events[..] {
            [Event::Violation { issues, .. }, Event::SessionUpdate { replay: false, .. }] => {
                let found: Vec<(&str, &str, Severity)> = issues
                    .iter()
                    .map(|i| (i.path.as_str(), i.code, i.severity))
                    .collect();
                assert_eq!(
                    found,
                    [(
                        "/params/update/sessionUpdate",
                        "unknown_enum_value",
                        Severity::Error
                    )]
                );
            }
            other => panic!("{other:?}"),
        }
    }
    // A permission round trip.
    let options = json!([{"optionId": "ok", "name": "OK", "kind": "allow_once"}]);
    let permission = if v2 {
        json!({"sessionId": "s1", "title": "Read", "options": options})
    } else {
        json!({"sessionId": "s1", "toolCall": {"toolCallId": "t1"}, "options": options})
    };
    let perm = a.request_permission(permission, 3).expect("permission");
    let (pid, method, _) = request_of(&to_client(c, a, &perm, &mut back));
    assert_eq!(method, "session/request_permission");
    let answer = c
        .respond(
            &pid,
            Ok(json!({"outcome": {"outcome": "selected", "optionId": "ok"}})),
        )
        .expect("answer");
    assert_eq!(
        response_of(&a.receive(&answer.text, 4))["outcome"]["optionId"],
        "ok"
    );
    // End of turn.
    if v2 {
        let accepted = a
            .respond(&prompt_id, Ok(json!({"messageId": "u1"})))
            .expect("prompt accepted");
        assert_eq!(
            response_of(&c.receive(&accepted.text, 5))["messageId"],
            "u1"
        );
        let idle = a
            .send_update(
                "s1",
                json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
            )
            .expect("idle");
        let ended = c.receive(&idle.text, 5);
        match &ended[..] {
            [Event::SessionUpdate { .. }, Event::TurnEnded {
                id,
                session_id,
                outcome,
                error: None,
            }] => {
                assert_eq!((id, session_id.as_str()), (&prompt_id, "s1"));
                assert_eq!(
                    outcome,
                    &Some(json!({"stopReason": "end_turn", "messageId": "u1"}))
                );
            }
            other => panic!("the idle update ends the turn: {other:?}"),
        }
    } else {
        let end = a.end_turn("s1", "end_turn").expect("end turn");
        assert_eq!(end.id, Some(prompt_id));
        let events = c.receive(&end.text, 5);
        assert_eq!(response_of(&events)["stopReason"], "end_turn");
        assert!(
            matches!(events.last(), Some(Event::TurnEnded { outcome: Some(o), .. }) if o["stopReason"] == "end_turn"),
            "{events:?}"
        );
    }
    let t = serde_json::to_value(c.transcript("s1").expect("transcript")).expect("json");
    let with_id = |mut entry: Value, id: &str| {
        if v2 {
            entry["messageId"] = json!(id);
        }
        entry
    };
    assert_eq!(
        t["entries"][0],
        with_id(
            json!({"kind": "thought", "content": [{"type": "text", "text": "thinking"}]}),
            "r1"
        )
    );
    assert_eq!(
        t["entries"][1],
        with_id(
            json!({"kind": "message", "role": "agent", "content": [{"type": "text", "text": "Hello"}]}),
            "m1"
        )
    );
    assert_eq!(t["entries"][2]["kind"], "toolCall");
    assert_eq!(t["entries"][2]["call"]["status"], "completed");
    assert_eq!(t["entries"][2]["call"]["title"], "Read");
    assert_eq!(t["entries"][2]["updates"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        t["entries"][3],
        json!({"kind": "other", "update": {"sessionUpdate": "_custom_kind", "x": 1}})
    );
    assert_eq!(
        t["entries"][4],
        json!({"kind": "turnEnded", "stopReason": "end_turn"})
    );
    assert_eq!(t["entries"].as_array().map(Vec::len), Some(5));
    assert_eq!(
        t["currentModeId"],
        if v2 { Value::Null } else { json!("code") }
    );
    assert_eq!(t["plan"]["entries"][0]["content"], "x");
    assert_eq!(t["usage"], json!({"used": 5, "size": 100}));
    "s1".into()
}

#[test]
fn v1_to_v1() {
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [1], "capabilities": {"fs": {"readTextFile": true}}}),
        json!({"protocolVersions": [1]}),
    );
    assert_eq!(c.protocol_version(), Some(1));
    assert_eq!(a.protocol_version(), Some(1));
    conversation(&mut c, &mut a);
    // fs/read_text_file was advertised, write was not.
    let mut back = Vec::new();
    let r = a
        .read_text_file(json!({"sessionId": "s1", "path": "/work/a"}), 6)
        .expect("read");
    let (id, _, _) = request_of(&to_client(&mut c, &mut a, &r, &mut back));
    let reply = c.respond(&id, Ok(json!({"content": "x"}))).expect("reply");
    assert_eq!(response_of(&a.receive(&reply.text, 7))["content"], "x");
    refused(
        a.write_text_file(
            json!({"sessionId": "s1", "path": "/work/a", "content": ""}),
            8,
        ),
        "fs.writeTextFile",
    );
}

#[test]
fn v2_to_v2() {
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [2]}),
        json!({"protocolVersions": [2]}),
    );
    assert_eq!(c.protocol_version(), Some(2));
    assert_eq!(
        c.peer_capabilities_wire(),
        Some(&json!({"session": {"mcp": {"stdio": {}}}}))
    );
    conversation(&mut c, &mut a);
    // v2 has no fs/*: the agent cannot send it, whatever the client says.
    let e = a
        .read_text_file(json!({"sessionId": "s1", "path": "/a"}), 6)
        .expect_err("no fs in v2");
    assert!(
        e.message.contains("not a method of ACP v2"),
        "{}",
        e.message
    );
    // v2 names: auth/login, session/resume; no session/set_mode.
    let e = c.set_mode("s1", "code", 7).expect_err("no set_mode in v2");
    assert!(e.message.contains("not a method of ACP v2"));
    assert!(c
        .resume_session(json!({"sessionId": "s1", "cwd": "/work"}), 8)
        .is_ok());
}

#[test]
fn v2_client_with_v1_only_agent_ends_on_1() {
    let (mut c, a) = pair(
        json!({"protocolVersions": [2, 1], "capabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}}),
        json!({"protocolVersions": [1]}),
    );
    assert_eq!(c.protocol_version(), Some(1));
    // The v1 agent understood the client's capabilities from `clientCapabilities`.
    assert!(a.peer_capabilities().fs.read_text_file && a.peer_capabilities().terminal);
    assert_eq!(
        c.own_capabilities_wire(),
        Some(&json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}))
    );
    let mut a = a;
    conversation(&mut c, &mut a);
}

/// The issues of every `Violation` among the events, as (path, code, severity).
fn violations(events: &[Event]) -> Vec<(String, &'static str, Severity)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Violation { issues, .. } => {
                Some(issues.iter().map(|i| (i.path.clone(), i.code, i.severity)))
            }
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn handshake_messages_are_judged_by_the_version_they_name() {
    // A v2 request reaching a v1-only agent is judged as v2: the `clientInfo` it carries on
    // purpose for v1 agents sits beside `info`, an extra member the schema allows, so there is
    // nothing to report (alone, as in seed 001, it is the tolerated warning). The v1 answer is
    // judged as v1 by the client: nothing to report either.
    let mut c = client(json!({"protocolVersions": [2, 1]}));
    let mut a = agent(json!({"protocolVersions": [1]}));
    let init = c.initialize(0).expect("initialize");
    let mut client_events = Vec::new();
    let agent_events = to_agent(&mut a, &mut c, &init, &mut client_events);
    assert_eq!(violations(&agent_events), []);
    assert_eq!(violations(&client_events), []);
    assert_eq!(c.protocol_version(), Some(1));
    // After negotiation, an `initialize` is still judged by the version it requests.
    let again = json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"protocolVersion": 2}});
    let events = a.receive(&again.to_string(), 0);
    assert_eq!(
        violations(&events),
        [(
            "/params/info".to_owned(),
            "missing_required",
            Severity::Error
        )]
    );
}

#[test]
fn unsupported_answer_ends_the_session() {
    let mut c = client(json!({"protocolVersions": [2]}));
    let init = c.initialize(0).expect("initialize");
    let pending = c.new_session(json!({"cwd": "/"}), 0);
    assert!(
        pending.is_err(),
        "nothing but initialize before the handshake"
    );
    let mut a = agent(json!({"protocolVersions": [1]}));
    let mut events = Vec::new();
    to_agent(&mut a, &mut c, &init, &mut events);
    let closed = events.iter().find_map(|e| match e {
        Event::Closed { error: Some(e) } => Some(e.clone()),
        _ => None,
    });
    let e = closed.unwrap_or_else(|| panic!("{events:?}"));
    assert!(
        e.message.contains("version 1") && e.message.contains("for 2"),
        "{}",
        e.message
    );
    assert_eq!(c.phase(), Phase::Closed);
    assert!(c.new_session(json!({"cwd": "/"}), 1).is_err());
    assert!(matches!(
        &c.receive("{}", 2)[..],
        [Event::ProtocolError { .. }]
    ));
}

#[test]
fn draft_rule_answers_32022_and_the_client_closes() {
    let mut c = client(json!({"protocolVersions": [1]}));
    let mut a = agent(json!({"protocolVersions": [2], "negotiation": "draft"}));
    let init = c.initialize(0).expect("initialize");
    let mut events = Vec::new();
    let agent_events = to_agent(&mut a, &mut c, &init, &mut events);
    let reply: Value = match &agent_events[..] {
        [Event::Send { text }] => serde_json::from_str(text).expect("json"),
        other => panic!("{other:?}"),
    };
    assert_eq!(reply["error"]["code"], -32022);
    assert_eq!(
        reply["error"]["data"],
        json!({"requested": 1, "supported": [2]})
    );
    assert_eq!(error_of(&events).code, -32022);
    assert!(matches!(
        events.last(),
        Some(Event::Closed { error: Some(_) })
    ));
    assert_eq!(
        a.phase(),
        Phase::Uninitialized,
        "the agent may still be initialized"
    );
}

#[test]
fn lifecycle_gate_both_ways() {
    // Agent: nothing before initialize; initialize once.
    let mut a = agent(json!({}));
    let early = json!({"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}});
    let reply: Value = match &a.receive(&early.to_string(), 0)[..] {
        [Event::Send { text }] => serde_json::from_str(text).expect("json"),
        other => panic!("{other:?}"),
    };
    assert_eq!(reply["error"]["code"], codes::INVALID_REQUEST);
    assert!(reply["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("before initialize")));
    assert!(
        a.send_update("s", json!({})).is_err(),
        "the agent sends nothing before initialize"
    );
    let mut c = client(json!({}));
    let init = c.initialize(0).expect("init");
    assert!(
        c.initialize(0).is_err(),
        "second initialize refused locally"
    );
    a.receive(&init.text, 0);
    let again = json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"protocolVersion": 1}});
    let events = a.receive(&again.to_string(), 0);
    assert!(
        matches!(&events[..], [Event::Send { text }] if text.contains("already")),
        "{events:?}"
    );
    // Client: an agent request before the handshake completed is refused.
    let params = json!({"sessionId": "s", "title": "Run", "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]});
    let perm = json!({"jsonrpc": "2.0", "id": 1, "method": "session/request_permission", "params": params});
    assert!(
        matches!(&c.receive(&perm.to_string(), 0)[..], [Event::Send { text }] if text.contains("-32600"))
    );
}

#[test]
fn client_side_gating() {
    let (mut c, _) = pair(
        json!({"protocolVersions": [1]}),
        json!({"protocolVersions": [1]}),
    );
    let s = "s";
    refused(
        c.load_session(json!({"sessionId": s, "cwd": "/", "mcpServers": []}), 1),
        "session.load",
    );
    for (kind, cap) in [
        ("image", "prompt.image"),
        ("audio", "prompt.audio"),
        ("resource", "prompt.embeddedContext"),
    ] {
        refused(c.prompt(s, json!([{"type": kind}]), 1), cap);
    }
    assert!(c.prompt(s, json!([{"type": "text", "text": "x"}, {"type": "resource_link", "uri": "file:///a", "name": "a"}]), 1).is_ok());
    for (entry, cap) in [
        (
            json!({"type": "http", "name": "h", "url": "https://x", "headers": []}),
            "mcp.http",
        ),
        (
            json!({"type": "sse", "name": "h", "url": "https://x", "headers": []}),
            "mcp.sse",
        ),
    ] {
        refused(
            c.new_session(json!({"cwd": "/", "mcpServers": [entry]}), 1),
            cap,
        );
    }
    refused(
        c.new_session(
            json!({"cwd": "/", "mcpServers": [], "additionalDirectories": ["/b"]}),
            1,
        ),
        "session.additionalDirectories",
    );
    refused(c.delete_session(s, 1), "session.delete");
    refused(c.list_sessions(json!({}), 1), "session.list");
    refused(c.close_session(s, 1), "session.close");
    refused(c.logout(1), "auth.logout");
    refused(c.authenticate("x", 1), "authMethods");
    // v2 without stdio MCP: even stdio is gated.
    let (mut c2, _) = pair(
        json!({"protocolVersions": [2]}),
        json!({"protocolVersions": [2], "capabilities": {"mcp": {"stdio": false}}}),
    );
    refused(c2.new_session(json!({"cwd": "/", "mcpServers": [{"type": "stdio", "name": "a", "command": "/bin/a"}]}), 1), "mcp.stdio");
    // Unknown non-extension methods are refused; extensions pass.
    assert!(c.request("session/unknown", None, 1).is_err());
    assert!(c.request("_vendor/x", Some(json!({})), 1).is_ok());
    // Unstable methods only with allowUnstable.
    assert!(c
        .request("session/fork", Some(json!({"sessionId": s})), 1)
        .unwrap_err()
        .message
        .contains("allowUnstable"));
    // The client cannot send what the client serves.
    assert!(c.request("fs/read_text_file", Some(json!({})), 1).is_err());
}

#[test]
fn advertised_features_pass_the_gate() {
    let agent_caps = json!({"session": {"load": true, "list": true, "delete": true, "close": true, "resume": true, "additionalDirectories": true}, "prompt": {"image": true, "audio": true, "embeddedContext": true}, "mcp": {"http": true, "sse": true}, "auth": {"logout": true}});
    for v in [1, 2] {
        let (mut c, _) = pair(
            json!({"protocolVersions": [v]}),
            // v1 names an auth method's id `id`, v2 `methodId` with a `type` (an entry of another shape is skipped).
            json!({"protocolVersions": [v], "capabilities": agent_caps, "authMethods": [if v == 1 { json!({"id": "key", "name": "API key"}) } else { json!({"type": "agent", "methodId": "key", "name": "API key"}) }]}),
        );
        let load = json!({"sessionId": "s", "cwd": "C:\\work", "mcpServers": [{"type": "http", "name": "h", "url": "https://x", "headers": []}], "additionalDirectories": ["/b"]});
        assert!(c.load_session(load, 1).is_ok(), "v{v}");
        assert!(c
            .prompt(
                "s",
                json!([{"type": "image", "data": "", "mimeType": "image/png"}]),
                1
            )
            .is_ok());
        assert!(c.delete_session("s", 1).is_ok());
        assert!(c.logout(1).is_ok());
        assert!(c.authenticate("key", 1).is_ok());
        let e = c
            .authenticate("other", 1)
            .expect_err("unknown auth method id");
        assert!(e.message.contains("other"));
        let matrix = c.methods();
        let row = |m: &str| matrix.iter().find(|r| r.method == m).map(|r| r.enabled);
        assert_eq!(row("session/load"), Some(true), "v{v}");
        assert_eq!(row("initialize"), Some(false));
    }
}

#[test]
fn agent_side_gating_and_minus_32601() {
    // The client did not declare fs or terminal: the agent refuses to send, and a client
    // receiving such a call anyway answers -32601.
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [1]}),
        json!({"protocolVersions": [1]}),
    );
    refused(
        a.read_text_file(json!({"sessionId": "s", "path": "/a"}), 1),
        "fs.readTextFile",
    );
    refused(
        a.create_terminal(json!({"sessionId": "s", "command": "ls"}), 1),
        "terminal",
    );
    for method in [
        "fs/read_text_file",
        "fs/write_text_file",
        "terminal/create",
        "terminal/kill",
        "session/new",
        "nope",
    ] {
        let raw =
            json!({"jsonrpc": "2.0", "id": 77, "method": method, "params": {"sessionId": "s"}});
        let reply: Value = match &c.receive(&raw.to_string(), 1)[..] {
            [.., Event::Send { text }] => serde_json::from_str(text).expect("json"),
            other => panic!("{method}: {other:?}"),
        };
        assert_eq!(reply["error"]["code"], -32601, "{method}");
        assert_eq!(reply["id"], 77);
    }
    // The agent did not advertise load, image, http: it answers -32601 / -32602.
    let cases = [
        (
            json!({"method": "session/load", "params": {"sessionId": "s", "cwd": "/", "mcpServers": []}}),
            -32601,
        ),
        (
            json!({"method": "session/prompt", "params": {"sessionId": "s", "prompt": [{"type": "image", "data": "", "mimeType": "image/png"}]}}),
            -32602,
        ),
        (
            json!({"method": "session/new", "params": {"cwd": "/", "mcpServers": [{"type": "http", "name": "h", "url": "u", "headers": []}]}}),
            -32602,
        ),
        (json!({"method": "logout", "params": {}}), -32601),
        (
            json!({"method": "authenticate", "params": {"methodId": "x"}}),
            -32601,
        ),
        (
            json!({"method": "session/request_permission", "params": {}}),
            -32601,
        ),
    ];
    for (i, (mut raw, code)) in cases.into_iter().enumerate() {
        raw["jsonrpc"] = json!("2.0");
        raw["id"] = json!(100 + i);
        let events = a.receive(&raw.to_string(), 1);
        let reply: Value = match events.iter().rev().find_map(|e| match e {
            Event::Send { text } => Some(text),
            _ => None,
        }) {
            Some(text) => serde_json::from_str(text).expect("json"),
            None => panic!("{raw}: {events:?}"),
        };
        assert_eq!(reply["error"]["code"], code, "{raw}");
        if let Some(cap) = reply["error"]["data"].get("capability") {
            assert!(reply["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(cap.as_str().unwrap_or("?"))));
        }
    }
}

#[test]
fn cancel_ends_the_prompt_cancelled_and_answers_permissions() {
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [1]}),
        json!({"protocolVersions": [1]}),
    );
    let mut back = Vec::new();
    let out = c
        .new_session(json!({"cwd": "/w", "mcpServers": []}), 0)
        .expect("new");
    let (id, _, _) = request_of(&to_agent(&mut a, &mut c, &out, &mut back));
    c.receive(
        &a.respond(&id, Ok(json!({"sessionId": "s"})))
            .expect("r")
            .text,
        0,
    );
    let out = c
        .prompt("s", json!([{"type": "text", "text": "go"}]), 0)
        .expect("prompt");
    let (prompt_id, _, _) = request_of(&to_agent(&mut a, &mut c, &out, &mut back));
    let perm = a
        .request_permission(
            json!({"sessionId": "s", "toolCall": {"toolCallId": "t"}, "options": []}),
            0,
        )
        .expect("perm");
    to_client(&mut c, &mut a, &perm, &mut back);
    // Cancel: the notification, then the pending permission answered `cancelled`.
    let outs = c.cancel("s").expect("cancel");
    assert_eq!(outs.len(), 2);
    let answered: Value = serde_json::from_str(&outs[1].text).expect("json");
    assert_eq!(
        answered["result"],
        json!({"outcome": {"outcome": "cancelled"}})
    );
    let events = a.receive(&outs[0].text, 1);
    assert!(
        matches!(&events[..], [Event::Notification { method, .. }] if method == "session/cancel")
    );
    assert!(a.is_cancelled("s"));
    assert_eq!(
        response_of(&a.receive(&outs[1].text, 1))["outcome"]["outcome"],
        "cancelled"
    );
    // Whatever the agent answers, the prompt ends `cancelled`.
    let end = a
        .respond(&prompt_id, Err(ProtocolError::internal_error("aborted")))
        .expect("end");
    assert_eq!(
        response_of(&c.receive(&end.text, 2))["stopReason"],
        "cancelled"
    );
    assert!(!a.is_cancelled("s"));
}

#[test]
fn cancel_request_and_timeouts() {
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [1], "requestTimeoutMs": 100}),
        json!({"protocolVersions": [1], "capabilities": {"session": {"list": true}}}),
    );
    let out = c.list_sessions(json!({}), 0).expect("list");
    let (id, _, _) = request_of(&a.receive(&out.text, 0));
    // $/cancel_request reaches the agent as a cancellation of the request it serves.
    let cancel = c
        .cancel_request(out.id.as_ref().expect("id"))
        .expect("cancel");
    assert_eq!(
        a.receive(&cancel.text, 1),
        vec![Event::CancelRequested { id: id.clone() }]
    );
    // Unknown ids are ignored.
    let stray =
        json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 999}});
    assert!(a.receive(&stray.to_string(), 1).is_empty());
    assert_eq!(c.next_deadline(), Some(100));
    assert!(c.tick(99).is_empty());
    let events = c.tick(100);
    assert!(
        matches!(&events[..], [Event::Send { text }, Event::Timeout { method, .. }] if text.contains("$/cancel_request") && method == "session/list"),
        "{events:?}"
    );
    // The late answer is a stray; prompts never time out.
    let late = a
        .respond(
            &id,
            Err(ProtocolError::new(codes::REQUEST_CANCELLED, "cancelled")),
        )
        .expect("late");
    assert!(matches!(
        &c.receive(&late.text, 200)[..],
        [Event::Stray {
            already_answered: true,
            ..
        }]
    ));
    c.prompt("s", json!([{"type": "text", "text": "x"}]), 300)
        .expect("prompt");
    assert!(c.tick(1_000_000).is_empty());
    // close(): the pending prompt fails, the session ends.
    let events = c.close();
    assert!(
        matches!(&events[..], [Event::Error { error, .. }, Event::Closed { error: None }] if error.code == codes::CONNECTION_CLOSED),
        "{events:?}"
    );
}

#[test]
fn v2_transcript_kinds() {
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [2]}),
        json!({"protocolVersions": [2]}),
    );
    let mut back = Vec::new();
    let updates = [
        json!({"sessionUpdate": "user_message", "messageId": "u1", "content": [{"type": "text", "text": "hi"}]}),
        json!({"sessionUpdate": "state_update", "state": "running"}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "a"}}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "b"}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": "Run", "status": "in_progress"}),
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t", "content": {"type": "content", "content": {"type": "text", "text": "out"}}}),
        json!({"sessionUpdate": "agent_message", "messageId": "m1"}),
        json!({"sessionUpdate": "terminal_update", "terminalId": "term", "command": "ls"}),
        json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "term", "data": "a\n"}),
        json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "term", "data": "b\n"}),
        json!({"sessionUpdate": "config_option_update", "configOptions": [{"configId": "fast", "name": "Fast", "type": "boolean", "currentValue": true}]}),
        json!({"sessionUpdate": "session_info_update", "title": "T"}),
        json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
    ];
    for u in &updates {
        let o = a.send_update("s2", u.clone()).expect("update");
        to_client(&mut c, &mut a, &o, &mut back);
    }
    let t = serde_json::to_value(c.transcript("s2").expect("t")).expect("json");
    assert_eq!(
        t["entries"][0],
        json!({"kind": "message", "role": "user", "messageId": "u1", "content": [{"type": "text", "text": "hi"}]})
    );
    assert_eq!(
        t["entries"][1]["content"],
        json!([{"type": "text", "text": "ab"}])
    );
    assert_eq!(
        t["entries"][2]["call"]["content"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(
        t["entries"][3],
        json!({"kind": "turnEnded", "stopReason": "end_turn"})
    );
    assert_eq!(t["terminals"]["term"]["outputText"], "a\nb\n");
    assert_eq!(t["terminals"]["term"]["command"], "ls");
    assert_eq!(t["info"]["title"], "T");
    assert_eq!(
        t["state"],
        json!({"state": "idle", "stopReason": "end_turn"})
    );
    assert_eq!(
        t["configOptions"],
        json!([{"configId": "fast", "name": "Fast", "type": "boolean", "currentValue": true}])
    );
}

/// Messages and tool calls are found by id however far back they are, and the newest entry of
/// an id wins when chunks without `by id anywhere` open a second one.
#[test]
fn transcript_finds_entries_by_id_far_back() {
    let mut t = agentwire::acp::Transcript::new("s");
    let tool = |id: &str, status: &str| json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status});
    t.apply(&json!({"sessionUpdate": "user_message", "messageId": "u0", "content": [{"type": "text", "text": "first"}]}));
    t.apply(&tool("t0", "pending"));
    for i in 1..200 {
        t.apply(&json!({"sessionUpdate": "agent_message_chunk", "messageId": format!("a{i}"), "content": {"type": "text", "text": "x"}}));
        t.apply(&tool(&format!("t{i}"), "pending"));
    }
    t.apply(&tool("t0", "completed"));
    t.apply(&json!({"sessionUpdate": "user_message", "messageId": "u0", "content": [{"type": "text", "text": "edited"}]}));
    // A chunk of an old id after other entries starts a new entry; a whole message then finds that one.
    t.apply(&json!({"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": "late"}}));
    t.apply(&json!({"sessionUpdate": "agent_message", "messageId": "a1", "content": [{"type": "text", "text": "whole"}]}));
    let v = serde_json::to_value(&t).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2 + 2 * 199 + 1);
    assert_eq!(
        entries[0]["content"],
        json!([{"type": "text", "text": "edited"}])
    );
    assert_eq!(entries[1]["call"]["status"], "completed");
    assert_eq!(entries[1]["updates"].as_array().unwrap().len(), 2);
    assert_eq!(
        entries[2]["content"],
        json!([{"type": "text", "text": "x"}])
    );
    assert_eq!(
        entries.last().unwrap()["content"],
        json!([{"type": "text", "text": "whole"}])
    );
}

#[test]
fn capabilities_round_trip_exactly() {
    let cases = [
        (
            1,
            json!({"loadSession": true, "promptCapabilities": {"image": true, "audio": false}, "mcpCapabilities": {"http": true}, "sessionCapabilities": {"list": {}, "close": {"_meta": {"a": 1}}}, "auth": {"logout": {}}, "_meta": {"x": 1}, "future": [1]}),
        ),
        (
            2,
            json!({"session": {"load": {}, "prompt": {"image": {"_meta": {}}, "audio": null}, "mcp": {"stdio": {}}, "delete": {}, "future": {}}, "auth": {"logout": {}}, "_meta": {"y": true}}),
        ),
        (2, json!({})),
        (1, json!({})),
    ];
    for (v, wire) in cases {
        let model = AgentCapabilities::from_wire(&wire, v);
        assert_eq!(model.to_wire(v), wire, "v{v}");
    }
    let c = json!({"fs": {"readTextFile": true, "writeTextFile": false}, "terminal": true, "auth": {"terminal": true}, "session": {"configOptions": {}}, "_meta": {}});
    assert_eq!(ClientCapabilities::from_wire(&c, 1).to_wire(1), c);
    // Not objects: nothing supported, never a panic.
    for junk in [
        json!(null),
        json!([1]),
        json!("x"),
        json!({"session": 3, "loadSession": "yes"}),
    ] {
        let m = AgentCapabilities::from_wire(&junk, 2);
        assert!(!m.session.load);
        let _ = AgentCapabilities::from_wire(&junk, 1).to_wire(1);
    }
}

#[test]
fn malformed_and_out_of_order_input() {
    let (mut c, mut a) = pair(json!({}), json!({}));
    for junk in [
        "",
        "{",
        "[]",
        "[1,2]",
        "null",
        "42",
        r#"{"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
    ] {
        for events in [c.receive(junk, 0), a.receive(junk, 0)] {
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, Event::ProtocolError { .. })),
                "{junk}: {events:?}"
            );
        }
    }
    // A response nobody asked for.
    assert!(matches!(
        &c.receive(r#"{"jsonrpc":"2.0","id":4242,"result":{}}"#, 0)[..],
        [Event::Stray {
            already_answered: false,
            ..
        }]
    ));
    // Answering an unknown id, twice, or a notification.
    assert!(a.respond(&Id::Number(31337), Ok(json!({}))).is_err());
    // Duplicate incoming request ids.
    let req = json!({"jsonrpc": "2.0", "id": "dup", "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}).to_string();
    assert!(matches!(&a.receive(&req, 0)[..], [Event::Request { .. }]));
    assert!(matches!(
        &a.receive(&req, 0)[..],
        [Event::Send { .. }, Event::ProtocolError { .. }]
    ));
    // A relative cwd is reported (and still delivered).
    let rel = json!({"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": {"cwd": "rel", "mcpServers": []}}).to_string();
    let events = a.receive(&rel, 0);
    assert!(
        matches!(&events[..], [Event::Violation { issues, .. }, Event::Request { .. }] if issues[0].code == "acp.cwd.not_absolute"),
        "{events:?}"
    );
    // ...and refused on the way out.
    let e = c
        .new_session(json!({"cwd": "rel", "mcpServers": []}), 0)
        .expect_err("relative cwd");
    assert_eq!(e.code, codes::LOCAL_REFUSAL);
    // Unless validation of outgoing messages is off.
    let (mut lax, _) = pair(json!({"validateOutgoing": false}), json!({}));
    assert!(lax
        .new_session(json!({"cwd": "rel", "mcpServers": []}), 0)
        .is_ok());
    // Updates with missing pieces do not panic and land somewhere.
    for u in [
        json!(null),
        json!({}),
        json!({"sessionUpdate": 5}),
        json!({"sessionUpdate": "tool_call_update"}),
        json!({"sessionUpdate": "agent_message_chunk"}),
    ] {
        let n = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "z", "update": u}});
        assert!(c
            .receive(&n.to_string(), 0)
            .iter()
            .any(|e| matches!(e, Event::SessionUpdate { .. })));
    }
}

#[test]
fn events_serialize_flat_and_camel_case() {
    let e = Event::SessionUpdate {
        session_id: "s".into(),
        update: json!({}).into(),
        replay: true,
    };
    assert_eq!(
        serde_json::to_value(&e).expect("json"),
        json!({"type": "sessionUpdate", "sessionId": "s", "update": {}, "replay": true})
    );
    let e = Event::Initialized {
        protocol_version: 2,
        peer_capabilities: json!({}),
        peer_info: None,
        auth_methods: vec![],
    };
    assert_eq!(
        serde_json::to_value(&e).expect("json"),
        json!({"type": "initialized", "protocolVersion": 2, "peerCapabilities": {}, "authMethods": []})
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random sequences of frames, well-formed or not, at both sides: never a panic, and
    /// every request handed to the application can be answered exactly once.
    #[test]
    fn random_sequences_never_panic(frames in prop::collection::vec(frame(), 0..24)) {
        let mut c = client(json!({}));
        let mut a = agent(json!({}));
        let _ = c.initialize(0);
        for (i, f) in frames.iter().enumerate() {
            let now = i as u64 * 1000;
            let from_agent = a.receive(f, now);
            for e in from_agent {
                if let Event::Request { id, .. } = e {
                    prop_assert!(a.respond(&id, Err(ProtocolError::internal_error("test"))).is_ok());
                    prop_assert!(a.respond(&id, Ok(json!({}))).is_err(), "answered twice");
                }
            }
            let from_client = c.receive(f, now);
            for e in from_client {
                if let Event::Request { id, .. } = e {
                    prop_assert!(c.respond(&id, Err(ProtocolError::internal_error("test"))).is_ok());
                }
            }
            let _ = c.tick(now);
            let _ = a.tick(now);
            let _ = c.methods();
        }
        let _ = c.close();
        let _ = a.close();
    }
}

fn frame() -> impl Strategy<Value = String> {
    let methods = prop::sample::select(vec![
        "initialize",
        "session/new",
        "session/load",
        "session/prompt",
        "session/cancel",
        "session/update",
        "session/request_permission",
        "fs/read_text_file",
        "$/cancel_request",
        "authenticate",
        "_x",
        "bogus",
    ]);
    let id = prop_oneof![
        Just(json!(0)),
        Just(json!(1)),
        Just(json!("a")),
        Just(Value::Null),
        (0i64..5).prop_map(|n| json!(n))
    ];
    let params = prop_oneof![
        Just(json!({"protocolVersion": 1})),
        Just(json!({"protocolVersion": 2, "capabilities": {"session": {}}})),
        Just(
            json!({"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}})
        ),
        Just(json!({"cwd": "/", "mcpServers": [{"type": "http"}]})),
        Just(json!({"requestId": 0})),
        Just(json!([1, 2])),
        Just(json!({})),
    ];
    prop_oneof![
        (methods.clone(), id.clone(), params.clone()).prop_map(|(m, id, p)| json!({"jsonrpc": "2.0", "id": id, "method": m, "params": p}).to_string()),
        (methods, params.clone()).prop_map(|(m, p)| json!({"jsonrpc": "2.0", "method": m, "params": p}).to_string()),
        (id.clone(), params).prop_map(|(id, r)| json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": 1, "agentCapabilities": r}}).to_string()),
        id.prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "x"}}).to_string()),
        ".{0,40}",
    ]
}

#[test]
fn replayed_updates_push_the_load_deadline() {
    let (mut c, _) = pair(
        json!({"protocolVersions": [1], "requestTimeoutMs": 100}),
        json!({"protocolVersions": [1], "capabilities": {"session": {"load": true}}}),
    );
    c.load_session(json!({"sessionId": "s", "cwd": "/", "mcpServers": []}), 0)
        .expect("load");
    let update = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "x"}}}});
    assert!(matches!(
        &c.receive(&update.to_string(), 90)[..],
        [Event::SessionUpdate { replay: true, .. }]
    ));
    assert_eq!(c.next_deadline(), Some(190));
    assert!(c.tick(150).is_empty());
    assert!(matches!(
        &c.tick(190)[..],
        [Event::Send { .. }, Event::Timeout { .. }]
    ));
}

#[test]
fn meta_is_accepted_in_capabilities_wherever_the_schema_allows_it() {
    for v in [1u16, 2] {
        let (c, a) = pair(
            json!({ "protocolVersions": [v], "capabilities": {
                "_meta": { "terminal_output": true }, "fs": { "readTextFile": true, "_meta": { "f": 1 } },
                "auth": { "terminal": true, "_meta": { "a": 1 } } } }),
            json!({ "protocolVersions": [v], "capabilities": { "_meta": { "x": 1 }, "auth": { "logout": true, "_meta": { "gateway": true } } } }),
        );
        let sent = c.own_capabilities_wire().expect("sent").clone();
        assert_eq!(
            sent["_meta"],
            json!({ "terminal_output": true }),
            "v{v}: {sent}"
        );
        assert_eq!(sent["auth"]["_meta"], json!({ "a": 1 }), "v{v}: {sent}");
        if v == 1 {
            assert_eq!(
                sent["fs"],
                json!({ "_meta": { "f": 1 }, "readTextFile": true }),
                "{sent}"
            );
        }
        let agent_sent = a.own_capabilities_wire().expect("sent").clone();
        assert_eq!(
            agent_sent["auth"]["_meta"],
            json!({ "gateway": true }),
            "v{v}: {agent_sent}"
        );
        assert_eq!(agent_sent["_meta"], json!({ "x": 1 }), "v{v}: {agent_sent}");
        assert!(
            a.peer_capabilities().auth.terminal && c.peer_capabilities().auth.logout,
            "v{v}: flags beside _meta still read"
        );
    }
    // A group spelled differently in v1 and v2 has no one place for `_meta`: a clear error.
    let e = serde_json::from_value::<AgentConfig>(
        json!({ "capabilities": { "session": { "load": true, "_meta": {} } } }),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("session._meta") && e.contains("extensions"),
        "{e}"
    );
}

#[test]
fn a_v2_turn_acknowledged_but_not_over_ends_with_an_error_when_the_session_closes() {
    let (mut c, mut a) = pair(
        json!({ "protocolVersions": [2] }),
        json!({ "protocolVersions": [2] }),
    );
    let mut back = Vec::new();
    let p = c
        .prompt("s1", json!([{ "type": "text", "text": "hi" }]), 1)
        .expect("prompt");
    let (id, _, _) = request_of(&to_agent(&mut a, &mut c, &p, &mut back));
    let ack = a
        .respond(&id, Ok(json!({ "messageId": "u1" })))
        .expect("ack");
    let events = c.receive(&ack.text, 2);
    assert!(
        matches!(&events[..], [Event::Response { .. }]),
        "an acknowledgement does not end the turn: {events:?}"
    );
    let closed = c.close();
    match &closed[..] {
        [Event::TurnEnded {
            id: i,
            outcome: None,
            error: Some(e),
            ..
        }, Event::Closed { .. }] => {
            assert_eq!((i, e.code), (&id, codes::CONNECTION_CLOSED));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_error_response_without_id_is_a_violation_and_gets_no_answer() {
    let (mut c, _) = pair(
        json!({ "protocolVersions": [1] }),
        json!({ "protocolVersions": [1] }),
    );
    let events = c.receive(r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found: $/cancel_request"}}"#, 1);
    match &events[..] {
        [Event::Violation {
            id: None, issues, ..
        }] => assert_eq!(issues[0].code, "invalid_envelope"),
        other => panic!("reported, not answered: {other:?}"),
    }
}

#[test]
fn a_request_without_params_sends_an_empty_object() {
    let (mut c, _) = pair(
        json!({ "protocolVersions": [1] }),
        json!({ "protocolVersions": [1], "capabilities": { "session": { "list": true } } }),
    );
    let out = c.request("session/list", None, 1).expect("session/list");
    let sent: Value = serde_json::from_str(&out.text).expect("json");
    assert_eq!(sent["params"], json!({}), "{}", out.text);
    let e = c
        .request("session/new", None, 1)
        .expect_err("session/new needs cwd");
    assert!(e.message.contains("cwd"), "{e:?}");
}

#[test]
fn the_validator_and_the_sessions_agree_on_paths() {
    use agentwire::schema::{validate_text, Context, Direction, Limits, Protocol};
    let request = |cwd: &str, command: &str| {
        json!({ "jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {
            "cwd": cwd, "mcpServers": [{ "type": "stdio", "name": "fs", "command": command, "args": [], "env": [] }] } })
    };
    for v in ["1", "2"] {
        let ctx = Context {
            protocol: Protocol::Acp,
            version: v,
            direction: Direction::ClientToServer,
            in_reply_to: None,
        };
        let report = validate_text(
            &request("relative/dir", "/usr/bin/mcp").to_string(),
            &ctx,
            &Limits::default(),
        );
        assert!(
            !report.ok
                && report
                    .issues
                    .iter()
                    .any(|i| i.path == "/params/cwd" && i.severity == Severity::Error),
            "v{v}: {report:?}"
        );
        let report = validate_text(&request("/w", "npx").to_string(), &ctx, &Limits::default());
        assert!(
            report.ok,
            "v{v}: a bare command is only a warning: {report:?}"
        );
        let warning = report
            .issues
            .iter()
            .find(|i| i.path == "/params/mcpServers/0/command")
            .expect("warned");
        assert_eq!(warning.severity, Severity::Warning);
    }
    let (mut c, _) = pair(
        json!({ "protocolVersions": [1] }),
        json!({ "protocolVersions": [1] }),
    );
    let params = |cwd: &str, command: &str| request(cwd, command)["params"].clone();
    let sent = c
        .new_session(params("/w", "npx"), 1)
        .expect("a bare command is sent");
    assert!(sent.text.contains("\"npx\""));
    let e = c
        .new_session(params("relative", "/bin/x"), 1)
        .expect_err("a relative cwd is refused");
    assert!(e.message.contains("absolute"), "{e:?}");
}

#[test]
fn a_v2_initialize_has_no_fs_even_when_fs_carries_meta() {
    // v2 has no fs methods and no `fs` capability: `_meta` given in `fs` goes out in v1 only.
    let config = json!({ "protocolVersions": [2, 1], "capabilities": { "fs": { "readTextFile": true, "_meta": { "f": 1 } }, "auth": { "_meta": { "a": 1 } } } });
    let mut c = client(config.clone());
    let params = serde_json::from_str::<Value>(&c.initialize(0).expect("initialize").text)
        .expect("json")["params"]
        .clone();
    assert_eq!(params["capabilities"].get("fs"), None, "{params}");
    assert_eq!(
        params["capabilities"]["auth"]["_meta"],
        json!({ "a": 1 }),
        "{params}"
    );
    assert_eq!(
        params["clientCapabilities"]["fs"],
        json!({ "_meta": { "f": 1 }, "readTextFile": true }),
        "{params}"
    );
    let (c, _) = pair(
        json!({ "protocolVersions": [2], "capabilities": config["capabilities"].clone() }),
        json!({ "protocolVersions": [2] }),
    );
    assert_eq!(c.own_capabilities_wire().expect("sent").get("fs"), None);
}

/// What the WebAssembly binding hands to JS: the same JSON as `Serialize` writes, a session
/// update's `update` being the text it came in (escapes and spacing kept).
#[test]
fn a_session_update_is_written_with_the_text_it_came_in() {
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [2]}),
        json!({"protocolVersions": [2]}),
    );
    let out = c
        .new_session(json!({"cwd": "/work", "mcpServers": []}), 1)
        .expect("session/new");
    let (id, _, _) = request_of(&to_agent(&mut a, &mut c, &out, &mut Vec::new()));
    let reply = a
        .respond(&id, Ok(json!({"sessionId": "s1"})))
        .expect("respond");
    c.receive(&reply.text, 1);
    let s = "s1";
    let frame = format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{s}","update": {{ "sessionUpdate":"agent_message_chunk","messageId":"m","content":{{"type":"text","text":"\u00e9 \"q\" }}]"}} }} }}}}"#
    );
    let events = c.receive(&frame, 10);
    let [Event::SessionUpdate { update, .. }] = &events[..] else {
        panic!("{events:?}")
    };
    assert_eq!(
        update.as_str(),
        r#"{ "sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":"\u00e9 \"q\" }]"} }"#
    );
    let mut text = String::new();
    events[0].write_json(&mut text);
    let written: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(written, serde_json::to_value(&events[0]).expect("json"));
    assert_eq!(written["update"]["content"]["text"], "é \"q\" }]");
    assert!(update.in_frame(), "read from the frame as it came");
    // An update with a schema error takes the general path (read leniently, then reported):
    // the same event, its update written out again, and so never by reference.
    let bad = format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{s}","update":{{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{{"type":"text","text":7}}}}}}}}"#
    );
    let events = c.receive(&bad, 11);
    assert!(
        matches!(&events[..], [Event::Violation { .. }, Event::SessionUpdate { update, .. }] if update.value()["content"]["text"] == 7),
        "{events:?}"
    );
    let [_, Event::SessionUpdate { update, .. }] = &events[..] else {
        panic!("{events:?}")
    };
    assert!(
        !update.in_frame(),
        "written out again: JS is handed this text"
    );
}

#[test]
fn an_update_deeper_than_the_endpoint_reads_is_refused_as_any_frame_is() {
    let (mut c, _a) = pair(json!({}), json!({}));
    let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    let update = format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s1","update":{{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{{"type":"text","text":"x"}},"_meta":{{"deep":{deep}}}}}}}}}"#
    );
    let events = c.receive(&update, 1);
    assert!(
        matches!(&events[..], [Event::Send { .. }, Event::ProtocolError { error }] if error.code == codes::PARSE_ERROR),
        "{events:?}"
    );
    // 100 deep is within the bound: delivered.
    let update = update.replace(&deep, &format!("{}1{}", "[".repeat(100), "]".repeat(100)));
    let events = c.receive(&update, 2);
    assert!(
        matches!(&events[..], [Event::SessionUpdate { .. }]),
        "{events:?}"
    );
}

/// Params given as text go out as they are, read and validated from one parse: their spacing,
/// escapes and digits kept, the gates reading the same parse, and a refused request takes no
/// id (the next one goes out with the id it would have had).
#[test]
fn params_given_as_text_go_out_as_they_are() {
    let (mut c, mut a) = pair(json!({}), json!({}));
    let params = r#"{ "cwd" : "/w\u0073", "mcpServers":[], "_meta": {"n": 1.50} }"#;
    let out = c
        .request_text("session/new", Some(params), 0)
        .expect("sent");
    assert!(
        out.text.ends_with(&format!(",\"params\":{params}}}")),
        "{}",
        out.text
    );
    assert_eq!(out.id, Some(Id::Number(1)));
    let events = to_agent(&mut a, &mut c, &out, &mut Vec::new());
    let (id, _, got) = request_of(&events);
    assert_eq!(got["cwd"], "/ws");
    // An answer given as text goes out as it is too, and is checked as any answer.
    assert!(a
        .respond_text(&id, Ok(r#"{"sessionId":7}"#.into()))
        .is_err());
    let result = r#"{ "sessionId" : "s1" }"#;
    let answer = a.respond_text(&id, Ok(result.into())).expect("answered");
    assert!(
        answer.text.ends_with(&format!(",\"result\":{result}}}")),
        "{}",
        answer.text
    );
    let events = c.receive(&answer.text, 0);
    assert_eq!(response_of(&events)["sessionId"], "s1");
    // Gated from the text: an image needs promptCapabilities.image.
    let prompt =
        r#"{"sessionId":"s","prompt":[{"type":"image","data":"AA==","mimeType":"image/png"}]}"#;
    refused(
        c.request_text("session/prompt", Some(prompt), 0),
        "prompt.image",
    );
    // Refused by the schema, not JSON, or deeper than a peer reads: -32602 or a local
    // refusal, and no id taken.
    let invalid = c.request_text("session/new", Some(r#"{"cwd":"relative"}"#), 0);
    assert_eq!(invalid.expect_err("invalid").code, codes::LOCAL_REFUSAL);
    for text in [
        "{\"cwd\":",
        "{} {}",
        &format!("{}1{}", "[".repeat(200), "]".repeat(200)),
    ] {
        let e = c.request_text("_x/y", Some(text), 0).expect_err(text);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{text}: {e:?}");
    }
    let next = c
        .request_text("session/new", Some(r#"{"cwd":"/","mcpServers":[]}"#), 0)
        .expect("sent");
    assert_eq!(next.id, Some(Id::Number(2)));
}

/// A request is read from the parse that validates it: its params reach the application as the
/// text they came in, gated on that parse; one with a schema error, or an id already being
/// served, takes the general path and is delivered or answered as before.
#[test]
fn a_request_is_handed_on_as_the_text_it_came_in() {
    let (mut c, mut a) = pair(json!({}), json!({}));
    let params = r#"{ "cwd" : "/w\u0073" , "mcpServers" : [ ] }"#;
    let frame =
        format!(r#"{{"jsonrpc":"2.0","id":"r 1","method":"session/new","params":{params}}}"#);
    let events = a.receive(&frame, 0);
    let [Event::Request {
        id,
        method,
        params: Some(got),
    }] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert_eq!((id, method.as_str()), (&Id::from("r 1"), "session/new"));
    assert_eq!(got.as_str(), params);
    assert!(got.in_frame());
    // The same id again while it is served: answered -32600 by the general path.
    let events = a.receive(&frame, 0);
    assert!(
        matches!(&events[..], [Event::Send { text }, Event::ProtocolError { .. }] if text.contains("-32600")),
        "{events:?}"
    );
    // Gated on the parse: an MCP server over http needs mcpCapabilities.http.
    let http = r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[{"type":"http","name":"h","url":"https://x","headers":[]}]}}"#;
    let events = a.receive(http, 0);
    let [Event::Send { text }] = &events[..] else {
        panic!("{events:?}")
    };
    let reply: Value = serde_json::from_str(text).unwrap();
    assert_eq!(reply["error"]["code"], codes::INVALID_PARAMS);
    assert_eq!(reply["error"]["data"]["capability"], "mcp.http");
    // A schema error: reported, then delivered (read as values, as it always was).
    let relative =
        r#"{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}}"#;
    let events = a.receive(relative, 0);
    assert!(
        matches!(&events[..], [Event::Violation { .. }, Event::Request { params: Some(p), .. }] if !p.in_frame() && p.value()["cwd"] == "rel"),
        "{events:?}"
    );
    // The client side too: a request of the agent's.
    let read = r#"{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"title":"T","options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}"#;
    let events = c.receive(read, 0);
    assert!(
        matches!(&events[..], [Event::Request { params: Some(p), .. }] if p.in_frame()),
        "{events:?}"
    );
}

/// A result of a call of ours is read from the parse that validates it: it reaches the
/// application as the text it came in, the session's state taken from it (a prompt's answer
/// ends a v1 turn); a duplicate answer, and one with a schema error, take the general path as
/// before.
#[test]
fn a_result_is_handed_on_as_the_text_it_came_in() {
    let (mut c, mut a) = pair(
        json!({"protocolVersions": [1], "capabilities": {"fs": {"readTextFile": true}}}),
        json!({"protocolVersions": [1]}),
    );
    // The agent asks for a file; the answer's text is the application's, byte for byte.
    let read = a
        .read_text_file(json!({"sessionId": "s1", "path": "/work/a"}), 0)
        .expect("sent");
    let id = read.id.clone().expect("an id");
    let result = r#"{ "content" : "line 1\nline \u0032" }"#;
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#,
        serde_json::to_string(&id).unwrap()
    );
    let events = a.receive(&frame, 1);
    let [Event::Response {
        id: got_id,
        method,
        result: got,
    }] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert_eq!((got_id, method.as_str()), (&id, "fs/read_text_file"));
    assert_eq!(got.as_str(), result);
    assert!(got.in_frame());
    // The same answer again: a stray, answered before.
    let events = a.receive(&frame, 2);
    assert!(
        matches!(
            &events[..],
            [Event::Stray {
                already_answered: true,
                ..
            }]
        ),
        "{events:?}"
    );
    // The client side: session/new's answer, then a v1 prompt's, which ends the turn.
    let new = c
        .new_session(json!({"cwd": "/w", "mcpServers": []}), 3)
        .expect("sent");
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"sessionId":"s1"}}}}"#,
        serde_json::to_string(&new.id).unwrap()
    );
    let events = c.receive(&frame, 4);
    assert!(
        matches!(&events[..], [Event::Response { method, result, .. }] if method == "session/new" && result.in_frame() && result.as_str() == r#"{"sessionId":"s1"}"#),
        "{events:?}"
    );
    let prompt = c
        .prompt("s1", json!([{"type": "text", "text": "hi"}]), 5)
        .expect("sent");
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"stopReason":"end_turn"}}}}"#,
        serde_json::to_string(&prompt.id).unwrap()
    );
    let events = c.receive(&frame, 6);
    match &events[..] {
        [Event::Response { result, .. }, Event::TurnEnded {
            session_id,
            outcome: Some(outcome),
            ..
        }] => {
            assert!(result.in_frame());
            assert_eq!(session_id, "s1");
            assert_eq!(outcome["stopReason"], "end_turn");
        }
        other => panic!("{other:?}"),
    }
    // Schema errors: reported, read leniently (`modes` left out, as the schema marks it), then
    // delivered as repaired.
    let new = c
        .new_session(json!({"cwd": "/w", "mcpServers": []}), 7)
        .expect("sent");
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"modes":7}}}}"#,
        serde_json::to_string(&new.id).unwrap()
    );
    let events = c.receive(&frame, 8);
    assert!(
        matches!(&events[..], [Event::Violation { .. }, Event::Response { result, .. }] if !result.in_frame() && result.as_str() == "{}"),
        "{events:?}"
    );
}
