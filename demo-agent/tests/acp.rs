#![cfg(not(target_arch = "wasm32"))]
//! The demo agent as an ACP agent, driven by the core's `AcpClient` over its stdio:
//! handshake and version flags, prompts by keyword in v1 and v2, permission, fs, cancel,
//! and sessions replayed after a restart.

mod support;

use agentwire::acp::{AcpClient, ClientConfig, Event};
use serde_json::{json, Value};
use support::{data_dir, Agent};

fn client(versions: &[u16], fs: bool) -> AcpClient {
    let config: ClientConfig = serde_json::from_value(json!({
        "protocolVersions": versions,
        "info": { "name": "demo-agent-test", "version": "1.0.0" },
        "capabilities": { "fs": { "readTextFile": fs, "writeTextFile": fs } },
    }))
    .expect("client config");
    AcpClient::new(config)
}

/// Initializes and returns the `initialized` or `closed` event.
fn handshake(agent: &mut Agent, c: &mut AcpClient) -> Event {
    let now = agent.now();
    agent.send(c.initialize(now));
    let seen = agent.until(c, |e| {
        matches!(e, Event::Initialized { .. } | Event::Closed { .. })
    });
    seen.into_iter().last().expect("an event")
}

fn connect(agent: &mut Agent, versions: &[u16], fs: bool) -> AcpClient {
    let mut c = client(versions, fs);
    let e = handshake(agent, &mut c);
    assert!(matches!(e, Event::Initialized { .. }), "{e:?}");
    c
}

fn response(
    agent: &mut Agent,
    c: &mut AcpClient,
    id: &agentwire::jsonrpc::Id,
) -> (Vec<Event>, Result<Value, agentwire::jsonrpc::ProtocolError>) {
    let id = id.clone();
    let mut seen = agent.until(
        c,
        |e| matches!(e, Event::Response { id: i, .. } | Event::Error { id: i, .. } if *i == id),
    );
    let outcome = match seen.pop() {
        Some(Event::Response { result, .. }) => Ok(result.value()),
        Some(Event::Error { error, .. }) => Err(error),
        other => panic!("{other:?}"),
    };
    (seen, outcome)
}

fn new_session(agent: &mut Agent, c: &mut AcpClient) -> String {
    let now = agent.now();
    let out = agent.send(c.new_session(json!({ "cwd": "/work/project", "mcpServers": [] }), now));
    let (_, result) = response(agent, c, &out.id.expect("id"));
    result.expect("session/new answered")["sessionId"]
        .as_str()
        .expect("sessionId")
        .to_owned()
}

/// Waits for the end of a prompt's turn (v1: its answer; v2: the idle state after the
/// acknowledgement): the events before it, and the outcome or the error.
fn turn(
    agent: &mut Agent,
    c: &mut AcpClient,
    id: &agentwire::jsonrpc::Id,
) -> (Vec<Event>, Result<Value, agentwire::jsonrpc::ProtocolError>) {
    let id = id.clone();
    let mut seen = agent.until(
        c,
        |e| matches!(e, Event::TurnEnded { id: i, .. } | Event::Error { id: i, .. } if *i == id),
    );
    let outcome = match seen.pop() {
        Some(Event::TurnEnded {
            outcome: Some(outcome),
            ..
        }) => Ok(outcome),
        Some(Event::TurnEnded {
            error: Some(error), ..
        }) => Err(error),
        Some(Event::Error { error, .. }) => Err(error),
        other => panic!("{other:?}"),
    };
    (seen, outcome)
}

/// Sends a prompt and returns the updates that came before the end of the turn, and its outcome.
fn prompt(
    agent: &mut Agent,
    c: &mut AcpClient,
    session: &str,
    text: &str,
) -> (Vec<Value>, Result<Value, agentwire::jsonrpc::ProtocolError>) {
    let now = agent.now();
    let out = agent.send(c.prompt(session, json!([{ "type": "text", "text": text }]), now));
    let (seen, outcome) = turn(agent, c, &out.id.expect("id"));
    (updates(&seen), outcome)
}

fn updates(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::SessionUpdate { update, .. } => Some(update.value()),
            _ => None,
        })
        .collect()
}

fn kinds(updates: &[Value]) -> Vec<&str> {
    updates
        .iter()
        .filter_map(|u| u["sessionUpdate"].as_str())
        .collect()
}

fn agent_text(updates: &[Value]) -> String {
    updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

#[test]
fn a_prompt_streams_a_thought_and_chunks_then_ends_the_turn() {
    for v in [1u16, 2] {
        let dir = data_dir(&format!("echo{v}"));
        let mut agent = Agent::acp(&dir, &[]);
        let mut c = connect(&mut agent, &[v], true);
        assert_eq!(c.protocol_version(), Some(v));
        let s = new_session(&mut agent, &mut c);
        let (ups, result) = prompt(&mut agent, &mut c, &s, "Hello, agent!");
        let k = kinds(&ups);
        assert!(k.contains(&"agent_thought_chunk"), "v{v}: {k:?}");
        assert!(
            k.iter().filter(|k| **k == "agent_message_chunk").count() >= 3,
            "v{v}: {k:?}"
        );
        assert_eq!(agent_text(&ups), "You said: Hello, agent!", "v{v}");
        assert_eq!(
            result.as_ref().expect("answered")["stopReason"],
            "end_turn",
            "v{v}"
        );
        if v == 2 {
            assert_eq!(
                result.as_ref().expect("answered")["messageId"],
                "msg_1_user"
            );
            assert_eq!(k.first(), Some(&"user_message"), "{k:?}");
            assert!(
                ups.iter().any(|u| u["sessionUpdate"] == "state_update"
                    && u["state"] == "idle"
                    && u["stopReason"] == "end_turn"),
                "{ups:?}"
            );
            assert!(ups.iter().all(|u| !u["sessionUpdate"]
                .as_str()
                .unwrap_or("")
                .ends_with("_chunk")
                || u["messageId"].is_string()));
        }
        assert!(
            agent.finish().success(),
            "v{v}: exit code 0 when stdin closes"
        );
    }
}

#[test]
fn v2_acknowledges_a_prompt_at_once_and_ends_the_turn_with_idle() {
    let dir = data_dir("ack2");
    let mut agent = Agent::acp(&dir, &[]);
    let mut c = connect(&mut agent, &[2], true);
    let s = new_session(&mut agent, &mut c);
    let now = agent.now();
    let p = agent
        .send(c.prompt(&s, json!([{ "type": "text", "text": "Hello" }]), now))
        .id
        .expect("id");
    let (before, ack) = response(&mut agent, &mut c, &p);
    assert_eq!(
        ack.expect("acknowledged"),
        json!({ "messageId": "msg_1_user" }),
        "the acknowledgement carries no stop reason"
    );
    assert!(
        !kinds(&updates(&before)).contains(&"agent_message_chunk"),
        "acknowledged before the agent answers: {before:?}"
    );
    let (after, outcome) = turn(&mut agent, &mut c, &p);
    assert!(agent_text(&updates(&after)).contains("You said: Hello"));
    assert_eq!(
        outcome.expect("ended"),
        json!({ "stopReason": "end_turn", "messageId": "msg_1_user" })
    );
    // A refused prompt is an error response, not an acknowledgement.
    let (_, refused) = prompt(&mut agent, &mut c, &s, "fail");
    assert_eq!(
        refused.expect_err("refused").code,
        agentwire::jsonrpc::codes::INTERNAL_ERROR
    );
}

#[test]
fn keywords_choose_what_a_prompt_does() {
    // (prompt, version, update kinds that must appear, stop reason or error code)
    type Case<'a> = (&'a str, u16, &'a [&'a str], Result<&'a str, i64>);
    let cases: &[Case] = &[
        (
            "make a plan",
            1,
            &["plan", "agent_message_chunk"],
            Ok("end_turn"),
        ),
        (
            "make a plan",
            2,
            &["plan_update", "agent_message_chunk"],
            Ok("end_turn"),
        ),
        (
            "show me a tool",
            1,
            &["tool_call", "tool_call_update"],
            Ok("end_turn"),
        ),
        ("show me a tool", 2, &["tool_call_update"], Ok("end_turn")),
        ("usage please", 1, &["usage_update"], Ok("end_turn")),
        ("usage please", 2, &["usage_update"], Ok("end_turn")),
        ("HELP", 1, &["agent_message_chunk"], Ok("end_turn")),
        ("fail now", 1, &[], Err(-32603)),
        ("fail now", 2, &[], Err(-32603)),
    ];
    let dir = data_dir("keywords");
    for (text, v, want, end) in cases {
        let mut agent = Agent::acp(&dir, &[]);
        let mut c = connect(&mut agent, &[*v], true);
        let s = new_session(&mut agent, &mut c);
        let (ups, result) = prompt(&mut agent, &mut c, &s, text);
        let k = kinds(&ups);
        for w in *want {
            assert!(k.contains(w), "{text:?} v{v}: {w} missing from {k:?}");
        }
        match (end, result) {
            (Ok(reason), Ok(r)) => assert_eq!(r["stopReason"], *reason, "{text:?} v{v}"),
            (Err(code), Err(e)) => assert_eq!(e.code, *code, "{text:?} v{v}"),
            (want, got) => panic!("{text:?} v{v}: wanted {want:?}, got {got:?}"),
        }
        if *text == "make a plan" {
            let last_plan = ups
                .iter()
                .rev()
                .find(|u| u["sessionUpdate"] == "plan" || u["sessionUpdate"] == "plan_update")
                .expect("plan");
            let entries = if *v == 2 {
                &last_plan["plan"]["entries"]
            } else {
                &last_plan["entries"]
            };
            assert!(
                entries
                    .as_array()
                    .expect("entries")
                    .iter()
                    .all(|e| e["status"] == "completed"),
                "{last_plan}"
            );
        }
        if *text == "show me a tool" {
            let statuses: Vec<&str> = ups.iter().filter_map(|u| u["status"].as_str()).collect();
            assert_eq!(statuses, ["pending", "in_progress", "completed"], "v{v}");
            let done = ups
                .iter()
                .find(|u| u["status"] == "completed")
                .expect("completed");
            assert!(
                done["content"]
                    .as_array()
                    .expect("content")
                    .iter()
                    .any(|c| c["type"] == "diff"),
                "{done}"
            );
        }
        if *text == "HELP" {
            assert!(
                agent_text(&ups).contains("permission"),
                "{}",
                agent_text(&ups)
            );
        }
    }
}

#[test]
fn permission_round_trip_goes_on_or_stops_by_the_chosen_option() {
    let cases = [
        (1u16, "allow_once", "completed"),
        (1, "reject_once", "failed"),
        (2, "allow_once", "completed"),
        (2, "reject_once", "failed"),
    ];
    let dir = data_dir("permission");
    for (v, option, status) in cases {
        let mut agent = Agent::acp(&dir, &[]);
        let mut c = connect(&mut agent, &[v], true);
        let s = new_session(&mut agent, &mut c);
        let now = agent.now();
        let p = agent.send(c.prompt(
            &s,
            json!([{ "type": "text", "text": "ask permission" }]),
            now,
        ));
        let seen = agent.until(&mut c, |e| matches!(e, Event::Request { method, .. } if method == "session/request_permission"));
        let Some(Event::Request { id, params, .. }) = seen.last() else {
            panic!()
        };
        let params = params.as_ref().expect("params").value();
        let options: Vec<&str> = params["options"]
            .as_array()
            .expect("options")
            .iter()
            .filter_map(|o| o["optionId"].as_str())
            .collect();
        assert_eq!(options, ["allow_once", "reject_once"], "v{v}");
        let answer = c.respond(
            id,
            Ok(json!({ "outcome": { "outcome": "selected", "optionId": option } })),
        );
        agent.send(answer);
        let (after, result) = turn(&mut agent, &mut c, &p.id.expect("id"));
        let last_status = updates(&after)
            .iter()
            .rev()
            .find_map(|u| u["status"].as_str().map(str::to_owned));
        assert_eq!(last_status.as_deref(), Some(status), "v{v} {option}");
        assert_eq!(
            result.expect("answered")["stopReason"],
            "end_turn",
            "v{v} {option}"
        );
    }
}

#[test]
fn fs_requests_go_to_the_client_only_when_advertised() {
    let dir = data_dir("fs");
    let mut agent = Agent::acp(&dir, &[]);
    let mut c = connect(&mut agent, &[1], true);
    let s = new_session(&mut agent, &mut c);

    let now = agent.now();
    let p = agent.send(c.prompt(
        &s,
        json!([{ "type": "text", "text": "read notes.md" }]),
        now,
    ));
    let seen = agent.until(&mut c, |e| matches!(e, Event::Request { .. }));
    let Some(Event::Request { id, method, params }) = seen.last() else {
        panic!()
    };
    assert_eq!(method, "fs/read_text_file");
    let params = params.as_ref().expect("params").value();
    assert_eq!(
        (params["sessionId"].as_str(), params["path"].as_str()),
        (Some(s.as_str()), Some("/work/project/notes.md"))
    );
    let answer = c.respond(id, Ok(json!({ "content": "first line\nsecond line" })));
    agent.send(answer);
    let (after, result) = turn(&mut agent, &mut c, &p.id.expect("id"));
    assert!(
        agent_text(&updates(&after)).contains("> first line\n> second line"),
        "{}",
        agent_text(&updates(&after))
    );
    assert_eq!(result.expect("answered")["stopReason"], "end_turn");

    let now = agent.now();
    let p = agent.send(c.prompt(
        &s,
        json!([{ "type": "text", "text": "write out.txt hello world" }]),
        now,
    ));
    let seen = agent.until(&mut c, |e| matches!(e, Event::Request { .. }));
    let Some(Event::Request { id, method, params }) = seen.last() else {
        panic!()
    };
    assert_eq!(method, "fs/write_text_file");
    assert_eq!(
        params.as_ref().expect("params").value()["content"],
        "hello world"
    );
    let answer = c.respond(id, Ok(json!({})));
    agent.send(answer);
    let (_, result) = turn(&mut agent, &mut c, &p.id.expect("id"));
    assert_eq!(result.expect("answered")["stopReason"], "end_turn");

    // A client without fs: the agent says so and sends nothing to the client.
    for v in [1u16, 2] {
        let mut agent = Agent::acp(&dir, &[]);
        let mut c = connect(&mut agent, &[v], false);
        let s = new_session(&mut agent, &mut c);
        let now = agent.now();
        let p = agent.send(c.prompt(
            &s,
            json!([{ "type": "text", "text": "read notes.md" }]),
            now,
        ));
        let (seen, result) = turn(&mut agent, &mut c, &p.id.expect("id"));
        assert!(
            !seen.iter().any(|e| matches!(e, Event::Request { .. })),
            "v{v}: {seen:?}"
        );
        assert!(
            agent_text(&updates(&seen)).contains("did not advertise fs.readTextFile"),
            "v{v}"
        );
        assert_eq!(result.expect("answered")["stopReason"], "end_turn");
    }
}

#[test]
fn cancel_stops_a_slow_prompt_promptly() {
    let dir = data_dir("cancel");
    for v in [1u16, 2] {
        let mut agent = Agent::acp(&dir, &[]);
        let mut c = connect(&mut agent, &[v], true);
        let s = new_session(&mut agent, &mut c);
        let now = agent.now();
        let p = agent.send(c.prompt(&s, json!([{ "type": "text", "text": "slow" }]), now));
        let mut chunks = 0;
        agent.until(&mut c, |e| {
            chunks += usize::from(matches!(e, Event::SessionUpdate { update, .. } if update.value()["sessionUpdate"] == "agent_message_chunk"));
            chunks == 3
        });
        for out in c.cancel(&s).expect("cancel") {
            agent.write(&out.text);
        }
        let (after, result) = turn(&mut agent, &mut c, &p.id.expect("id"));
        assert_eq!(result.expect("answered")["stopReason"], "cancelled", "v{v}");
        // The turn stopped early: a slow turn is 50 chunks 100 ms apart. Counted, not timed:
        // on a loaded machine the cancel may take a few chunk periods to be read.
        let more = kinds(&updates(&after))
            .iter()
            .filter(|k| **k == "agent_message_chunk")
            .count();
        assert!(
            chunks + more < 50,
            "v{v}: {more} more chunks after the cancel: the turn ran to its end"
        );
        // The session takes the next prompt.
        let (_, result) = prompt(&mut agent, &mut c, &s, "hi");
        assert_eq!(result.expect("answered")["stopReason"], "end_turn", "v{v}");
    }
}

#[test]
fn load_replays_the_conversation_after_a_restart() {
    // (version that records, version that loads): sessions are stored version-neutral.
    for (record, load) in [(1u16, 1u16), (2, 2), (1, 2)] {
        let dir = data_dir(&format!("load{record}{load}"));
        let mut first = Agent::acp(&dir, &[]);
        let mut c = connect(&mut first, &[record], true);
        let s = new_session(&mut first, &mut c);
        prompt(&mut first, &mut c, &s, "hello there")
            .1
            .expect("first prompt");
        prompt(&mut first, &mut c, &s, "show me a tool")
            .1
            .expect("second prompt");
        assert!(first.finish().success());

        let mut second = Agent::acp(&dir, &[]);
        let mut c = connect(&mut second, &[load], true);
        let now = second.now();
        let out = second.send(c.load_session(
            json!({ "sessionId": s, "cwd": "/work/project", "mcpServers": [] }),
            now,
        ));
        let (seen, result) = response(&mut second, &mut c, &out.id.expect("id"));
        assert_eq!(result.expect("loaded"), Value::Null, "{record}->{load}");
        let replayed: Vec<Value> = seen
            .iter()
            .filter_map(|e| match e {
                Event::SessionUpdate {
                    update,
                    replay: true,
                    ..
                } => Some(update.value()),
                _ => None,
            })
            .collect();
        let user = if load == 2 {
            "user_message"
        } else {
            "user_message_chunk"
        };
        let texts: Vec<String> = replayed
            .iter()
            .filter(|u| u["sessionUpdate"] == user || u["sessionUpdate"] == "agent_message_chunk")
            .map(|u| {
                if u["content"].is_array() {
                    u["content"][0]["text"].to_string()
                } else {
                    u["content"]["text"].to_string()
                }
            })
            .collect();
        assert_eq!(
            texts[..3],
            [
                "\"hello there\"".to_owned(),
                "\"You said: hello there\"".into(),
                "\"show me a tool\"".into()
            ],
            "{record}->{load}"
        );
        assert!(
            replayed.iter().any(|u| u["status"] == "completed"),
            "{record}->{load}: the tool call is replayed"
        );
        // The replayed session takes prompts again.
        let (_, result) = prompt(&mut second, &mut c, &s, "usage");
        assert_eq!(result.expect("answered")["stopReason"], "end_turn");
        let now = second.now();
        let out = second.send(c.load_session(
            json!({ "sessionId": "sess_unknown", "cwd": "/w", "mcpServers": [] }),
            now,
        ));
        let (_, result) = response(&mut second, &mut c, &out.id.expect("id"));
        assert_eq!(result.expect_err("unknown session").code, -32002);
    }
}

#[test]
fn version_flags_show_negotiation_down_and_refusal() {
    let dir = data_dir("versions");
    // A v1-only agent and a client that prefers 2 but speaks 1: negotiated down.
    let mut agent = Agent::acp(&dir, &["--versions", "1"]);
    let c = connect(&mut agent, &[2, 1], true);
    assert_eq!(c.protocol_version(), Some(1));

    // A client that cannot use the agent's answer: the session closes, naming both versions.
    // (agent flags, client versions, expected error code, expected data)
    let cases: &[(&[&str], &[u16], i64, Value)] = &[
        (
            &["--versions", "1"],
            &[2],
            -32099,
            json!({ "requested": 2, "answered": 1, "supported": [2] }),
        ),
        (
            &["--versions", "1", "--negotiation", "draft"],
            &[2],
            -32099,
            json!({ "requested": 2, "answered": 1, "supported": [2] }),
        ),
        (
            &["--versions", "2"],
            &[1],
            -32099,
            json!({ "requested": 1, "answered": 2, "supported": [1] }),
        ),
        // The draft rule refuses a request below everything it speaks.
        (
            &["--versions", "2", "--negotiation", "draft"],
            &[1],
            -32022,
            json!({ "requested": 1, "supported": [2] }),
        ),
    ];
    for (flags, versions, code, data) in cases {
        let mut agent = Agent::acp(&dir, flags);
        let mut c = client(versions, true);
        let Event::Closed { error: Some(e) } = handshake(&mut agent, &mut c) else {
            panic!("{flags:?}: not closed")
        };
        assert!(
            e.message.contains('1') && e.message.contains('2'),
            "{flags:?}: {}",
            e.message
        );
        assert_eq!(
            (e.code, e.data.clone().expect("data")),
            (*code, data.clone()),
            "{flags:?}"
        );
    }
}

#[test]
fn help_documents_flags_and_keywords() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentwire-demo-agent"))
        .arg("--help")
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for word in [
        "--versions",
        "--negotiation",
        "--data-dir",
        "--mcp",
        "plan",
        "tool",
        "permission",
        "read PATH",
        "write PATH TEXT",
        "slow",
        "fail",
        "usage",
    ] {
        assert!(text.contains(word), "--help does not mention {word}");
    }
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_agentwire-demo-agent"))
        .arg("--versions")
        .arg("7")
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn bad_input_gets_invalid_params_and_files_stay_inside_cwd() {
    let dir = data_dir("input");
    let mut agent = Agent::acp(&dir, &[]);
    let mut c = connect(&mut agent, &[1], true);
    // Sent raw: the client's own checks would refuse these before sending.
    for (n, params) in [
        json!({ "cwd": "relative/dir", "mcpServers": [] }),
        json!({ "mcpServers": [] }),
    ]
    .into_iter()
    .enumerate()
    {
        agent.write(&json!({ "jsonrpc": "2.0", "id": format!("new{n}"), "method": "session/new", "params": params }).to_string());
    }
    agent.write(&json!({ "jsonrpc": "2.0", "id": "load", "method": "session/load", "params": { "sessionId": 7, "cwd": "/w", "mcpServers": [] } }).to_string());
    agent.write(&json!({ "jsonrpc": "2.0", "id": "prompt", "method": "session/prompt", "params": { "sessionId": ["x"], "prompt": [] } }).to_string());
    let lines: Vec<String> = (0..4).map(|_| agent.next_line()).collect();
    for line in &lines {
        let v: Value = serde_json::from_str(line).expect("json");
        assert_eq!(v["error"]["code"], -32602, "{line}");
    }
    // A path that climbs out of cwd is refused by the agent itself: nothing is asked of the client.
    let s = new_session(&mut agent, &mut c);
    let (ups, result) = prompt(&mut agent, &mut c, &s, "read ../../../etc/passwd");
    assert!(agent_text(&ups).contains("outside"), "{}", agent_text(&ups));
    assert_eq!(result.expect("answered")["stopReason"], "end_turn");
}
