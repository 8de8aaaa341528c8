#![cfg(not(target_arch = "wasm32"))]
//! The demo agent as an MCP server (`--mcp`), driven by the core's `McpClient` over its
//! stdio, for every handshake version and the stateless era.

mod support;

use agentwire::jsonrpc::{codes, Id, Outbound, ProtocolError, RawJson};
use agentwire::mcp::{ClientConfig, Event, McpClient, RequestOptions};
use serde_json::{json, Value};
use support::Agent;

const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const STATELESS: &str = "2026-07-28";

fn connect(agent: &mut Agent, version: &str) -> McpClient {
    let era = if version == STATELESS {
        "stateless"
    } else {
        "handshake"
    };
    let config: ClientConfig = serde_json::from_value(json!({
        "protocolVersions": [version],
        "era": era,
        "clientInfo": { "name": "demo-agent-test", "version": "1.0.0" },
    }))
    .expect("client config");
    let mut c = McpClient::new(config);
    let now = agent.now();
    agent.send(c.initialize(now));
    let seen = agent.until(&mut c, |e| {
        matches!(e, Event::Initialized { .. } | Event::Closed { .. })
    });
    match seen.last() {
        Some(Event::Initialized {
            protocol_version, ..
        }) => assert_eq!(protocol_version, version),
        other => panic!("{version}: {other:?}"),
    }
    c
}

/// Sends a call and waits for its answer; returns what came before it too.
fn call(
    agent: &mut Agent,
    c: &mut McpClient,
    make: impl FnOnce(&mut McpClient) -> Result<Outbound, ProtocolError>,
) -> (Vec<Event>, Result<Value, ProtocolError>) {
    let sent = make(c);
    let id = agent.send(sent).id.expect("a request");
    answer(agent, c, id)
}

fn answer(
    agent: &mut Agent,
    c: &mut McpClient,
    id: Id,
) -> (Vec<Event>, Result<Value, ProtocolError>) {
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

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The values of params read as text.
fn values(params: Vec<&RawJson>) -> Vec<Value> {
    params.into_iter().map(RawJson::value).collect()
}

fn notified<'a>(events: &'a [Event], method: &str) -> Vec<&'a RawJson> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Notification {
                method: m,
                params: Some(p),
            } if m == method => Some(p),
            _ => None,
        })
        .collect()
}

#[test]
fn every_version_serves_tools_resources_prompts_and_completions() {
    for version in HANDSHAKE.iter().copied().chain([STATELESS]) {
        let mut agent = Agent::spawn(&["--mcp"]);
        let mut c = connect(&mut agent, version);
        let now = agent.now();

        let (_, tools) = call(&mut agent, &mut c, |c| c.list_tools(None, now));
        let tools = tools.expect("tools/list");
        let names: Vec<&str> = tools["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            names,
            ["echo", "add", "slow", "fail"],
            "{version}: the conformance catalogue only with --conformance"
        );
        assert!(tools["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .all(|t| t["inputSchema"]["type"] == "object"));

        let (_, echo) = call(&mut agent, &mut c, |c| {
            c.call_tool(
                "echo",
                Some(json!({ "message": "hi" })),
                RequestOptions::default(),
                now,
            )
        });
        assert_eq!(text(&echo.expect("echo")), "hi", "{version}");
        let (_, sum) = call(&mut agent, &mut c, |c| {
            c.call_tool(
                "add",
                Some(json!({ "a": 2, "b": 3.5 })),
                RequestOptions::default(),
                now,
            )
        });
        assert_eq!(text(&sum.expect("add")), "5.5", "{version}");
        let (_, failed) = call(&mut agent, &mut c, |c| {
            c.call_tool("fail", None, RequestOptions::default(), now)
        });
        assert_eq!(failed.expect("a result")["isError"], true, "{version}");

        let (_, readme) = call(&mut agent, &mut c, |c| {
            c.read_resource("demo://readme", now)
        });
        assert!(
            readme.expect("readme")["contents"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .contains("demo"),
            "{version}"
        );
        let (_, missing) = call(&mut agent, &mut c, |c| {
            c.read_resource("demo://nothing", now)
        });
        assert_eq!(missing.expect_err("not found").code, -32002, "{version}");
        let (_, templates) = call(&mut agent, &mut c, |c| c.list_resource_templates(None, now));
        assert_eq!(
            templates.expect("templates")["resourceTemplates"][0]["uriTemplate"],
            "demo://echo/{text}",
            "{version}"
        );

        let (_, prompts) = call(&mut agent, &mut c, |c| c.list_prompts(None, now));
        assert_eq!(
            prompts.expect("prompts")["prompts"][0]["name"],
            "greet",
            "{version}"
        );
        let (_, greet) = call(&mut agent, &mut c, |c| {
            c.get_prompt("greet", Some(json!({ "name": "Ada" })), now)
        });
        assert_eq!(
            greet.expect("greet")["messages"][0]["content"]["text"],
            "Please greet Ada warmly.",
            "{version}"
        );

        let complete = json!({ "ref": { "type": "ref/prompt", "name": "greet" }, "argument": { "name": "name", "value": "a" } });
        let (_, done) = call(&mut agent, &mut c, |c| c.complete(complete, now));
        assert_eq!(
            done.expect("completion")["completion"]["values"],
            json!(["Ada", "Alan"]),
            "{version}"
        );

        assert!(
            agent.finish().success(),
            "{version}: exit code 0 when stdin closes"
        );
    }
}

#[test]
fn slow_reports_progress_and_stops_when_cancelled() {
    for version in HANDSHAKE.iter().copied().chain([STATELESS]) {
        let mut agent = Agent::spawn(&["--mcp"]);
        let mut c = connect(&mut agent, version);
        let now = agent.now();
        let with_progress = RequestOptions {
            reset_on_progress: true,
            ..RequestOptions::default()
        };
        let (seen, done) = call(&mut agent, &mut c, |c| {
            c.call_tool(
                "slow",
                Some(json!({ "steps": 3, "delayMs": 20 })),
                with_progress,
                now,
            )
        });
        let progress: Vec<f64> = seen
            .iter()
            .filter_map(|e| match e {
                Event::Progress {
                    id: Some(_),
                    params,
                    ..
                } => params.value()["progress"].as_f64(),
                _ => None,
            })
            .collect();
        assert_eq!(progress, [1.0, 2.0, 3.0], "{version}");
        assert_eq!(text(&done.expect("slow")), "slow finished", "{version}");

        // Cancelled after the first progress: no answer comes, and the server goes on serving.
        let now = agent.now();
        let slow = agent
            .send(c.call_tool(
                "slow",
                Some(json!({ "steps": 50, "delayMs": 50 })),
                with_progress,
                now,
            ))
            .id
            .expect("id");
        agent.until(&mut c, |e| matches!(e, Event::Progress { .. }));
        let cancel = c.cancel(&slow, Some("enough"));
        agent.send(cancel);
        let now = agent.now();
        let (seen, echo) = call(&mut agent, &mut c, |c| {
            c.call_tool(
                "echo",
                Some(json!({ "message": "still here" })),
                RequestOptions::default(),
                now,
            )
        });
        assert_eq!(text(&echo.expect("echo")), "still here", "{version}");
        std::thread::sleep(std::time::Duration::from_millis(150));
        let now = agent.now();
        let (after, _) = call(&mut agent, &mut c, |c| {
            c.call_tool(
                "echo",
                Some(json!({ "message": "x" })),
                RequestOptions::default(),
                now,
            )
        });
        let late = seen
            .iter()
            .chain(&after)
            .filter(|e| matches!(e, Event::Progress { .. } | Event::Violation { .. }))
            .count();
        assert!(
            late <= 1,
            "{version}: the cancelled call went on: {seen:?} {after:?}"
        );
    }
}

#[test]
fn subscriptions_and_logging_report_changes() {
    for version in HANDSHAKE {
        let mut agent = Agent::spawn(&["--mcp"]);
        let mut c = connect(&mut agent, version);
        let now = agent.now();
        call(&mut agent, &mut c, |c| c.subscribe("demo://counter", now))
            .1
            .expect("subscribe");
        call(&mut agent, &mut c, |c| c.set_logging_level("info", now))
            .1
            .expect("setLevel");
        let (seen, _) = call(&mut agent, &mut c, |c| {
            c.call_tool(
                "echo",
                Some(json!({ "message": "x" })),
                RequestOptions::default(),
                now,
            )
        });
        let updated = notified(&seen, "notifications/resources/updated");
        assert_eq!(updated, [&json!({ "uri": "demo://counter" })], "{version}");
        let logged = values(notified(&seen, "notifications/message"));
        assert_eq!(logged.len(), 1, "{version}");
        assert_eq!(
            (logged[0]["level"].as_str(), logged[0]["logger"].as_str()),
            (Some("info"), Some("tools")),
            "{version}"
        );
        let (_, counter) = call(&mut agent, &mut c, |c| {
            c.read_resource("demo://counter", now)
        });
        assert_eq!(
            counter.expect("counter")["contents"][0]["text"],
            "1",
            "{version}"
        );

        // Above the level: no log; unsubscribed: no update.
        call(&mut agent, &mut c, |c| c.set_logging_level("error", now))
            .1
            .expect("setLevel");
        call(&mut agent, &mut c, |c| c.unsubscribe("demo://counter", now))
            .1
            .expect("unsubscribe");
        let (seen, _) = call(&mut agent, &mut c, |c| {
            c.call_tool(
                "echo",
                Some(json!({ "message": "x" })),
                RequestOptions::default(),
                now,
            )
        });
        assert!(
            notified(&seen, "notifications/message").is_empty()
                && notified(&seen, "notifications/resources/updated").is_empty(),
            "{version}: {seen:?}"
        );
        // An unknown level: the client refuses to send it; sent anyway, the server answers -32602.
        let refused = c
            .set_logging_level("loud", now)
            .expect_err("not a logging level");
        assert_eq!(refused.code, codes::LOCAL_REFUSAL, "{version}");
        assert_eq!(
            refused.data.as_ref().map(|d| &d["issues"][0]["code"]),
            Some(&json!("unknown_enum_value")),
            "{version}"
        );
        agent.write(r#"{"jsonrpc":"2.0","id":"loud","method":"logging/setLevel","params":{"level":"loud"}}"#);
        let bad: Value = serde_json::from_str(&agent.next_line()).expect("a JSON reply");
        assert_eq!(
            (&bad["id"], &bad["error"]["code"]),
            (&json!("loud"), &json!(-32602)),
            "{version}"
        );
    }

    // Stateless era: a subscriptions/listen stream carries the updates.
    let mut agent = Agent::spawn(&["--mcp"]);
    let mut c = connect(&mut agent, STATELESS);
    let now = agent.now();
    let listen = agent
        .send(c.listen(json!({ "resourceSubscriptions": ["demo://counter"] }), now))
        .id
        .expect("id");
    let seen = agent.until(&mut c, |e| matches!(e, Event::Notification { method, .. } if method == "notifications/subscriptions/acknowledged"));
    let ack = notified(&seen, "notifications/subscriptions/acknowledged")[0].value();
    assert_eq!(
        ack["notifications"]["resourceSubscriptions"],
        json!(["demo://counter"])
    );
    assert_eq!(
        ack["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen.to_value()
    );
    let (seen, _) = call(&mut agent, &mut c, |c| {
        c.call_tool(
            "echo",
            Some(json!({ "message": "x" })),
            RequestOptions::default(),
            now,
        )
    });
    let updated = values(notified(&seen, "notifications/resources/updated"));
    assert_eq!(updated.len(), 1, "{seen:?}");
    assert_eq!(updated[0]["uri"], "demo://counter");
}

#[test]
fn mcp_versions_is_a_set_and_an_unsupported_request_gets_the_newest() {
    let mut agent = Agent::spawn(&["--mcp", "--mcp-versions", "2024-11-05,2025-06-18"]);
    agent.write(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } } }).to_string());
    let answer: Value = serde_json::from_str(&agent.next_line()).expect("json");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-06-18",
        "{answer}"
    );
}

#[test]
fn wrong_types_get_invalid_params_and_initialize_is_taken_after_stateless_requests() {
    let mut agent = Agent::spawn(&["--mcp"]);
    let stateless = json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "c", "version": "1" },
    });
    let answers: Vec<Value> = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": { "uri": 42, "_meta": stateless } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "_meta": stateless } }),
        json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": { "_meta": stateless } }),
        json!({ "jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {} }),
        json!({ "jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } } }),
    ]
    .iter()
    .map(|m| {
        agent.write(&m.to_string());
        serde_json::from_str(&agent.next_line()).expect("json")
    })
    .collect();
    assert_eq!(answers[0]["error"]["code"], -32602, "{}", answers[0]);
    assert!(
        answers[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("uri must be a string, not an integer (42)"),
        "{}",
        answers[0]
    );
    assert_eq!(answers[1]["error"]["code"], -32602, "{}", answers[1]);
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("params.name"),
        "{}",
        answers[1]
    );
    assert!(answers[2]["result"]["tools"].is_array(), "{}", answers[2]);
    assert!(
        answers[3]["result"]["supportedVersions"].is_array(),
        "{}",
        answers[3]
    );
    assert_eq!(
        answers[4]["result"]["protocolVersion"], "2025-11-25",
        "stateless requests before it do not count as an initialize: {}",
        answers[4]
    );
}

#[test]
fn the_conformance_catalogue_logs_reports_progress_and_asks_the_client() {
    let mut agent = Agent::spawn(&["--mcp", "--conformance"]);
    let config: ClientConfig = serde_json::from_value(json!({
        "protocolVersions": ["2025-11-25"], "era": "handshake",
        "clientInfo": { "name": "demo-agent-test", "version": "1.0.0" },
        "capabilities": { "sampling": {}, "elicitation": {} },
    }))
    .expect("client config");
    let mut c = McpClient::new(config);
    let now = agent.now();
    agent.send(c.initialize(now));
    agent.until(&mut c, |e| matches!(e, Event::Initialized { .. }));

    let (seen, done) = call(&mut agent, &mut c, |c| {
        c.call_tool(
            "test_tool_with_logging",
            None,
            RequestOptions::default(),
            now,
        )
    });
    let logged = values(notified(&seen, "notifications/message"));
    let logs: Vec<&Value> = logged.iter().map(|p| &p["data"]).collect();
    assert_eq!(
        logs,
        [
            &json!("Tool execution started"),
            &json!("Tool processing data"),
            &json!("Tool execution completed")
        ]
    );
    assert_eq!(
        text(&done.expect("logging")),
        "Tool with logging executed successfully"
    );

    let asked = RequestOptions {
        reset_on_progress: true,
        ..RequestOptions::default()
    };
    let (seen, done) = call(&mut agent, &mut c, |c| {
        c.call_tool("test_tool_with_progress", None, asked, now)
    });
    let steps: Vec<f64> = seen
        .iter()
        .filter_map(|e| match e {
            Event::Progress { params, .. } => params.value()["progress"].as_f64(),
            _ => None,
        })
        .collect();
    assert_eq!(steps, [0.0, 50.0, 100.0]);
    assert!(
        !text(&done.expect("progress")).is_empty(),
        "the result names the token"
    );

    // Sampling: the tool waits for the client's answer and reports it.
    let id = agent
        .send(c.call_tool(
            "test_sampling",
            Some(json!({ "prompt": "2+2?" })),
            RequestOptions::default(),
            now,
        ))
        .id
        .expect("a request");
    let seen = agent.until(
        &mut c,
        |e| matches!(e, Event::Request { method, .. } if method == "sampling/createMessage"),
    );
    let Some(Event::Request {
        id: asked, params, ..
    }) = seen.last()
    else {
        unreachable!()
    };
    assert_eq!(
        params.as_ref().expect("params").value()["messages"][0]["content"]["text"],
        "2+2?"
    );
    let reply =
        json!({ "role": "assistant", "content": { "type": "text", "text": "4" }, "model": "m" });
    agent.send(c.respond(asked, Ok(reply)));
    let (_, done) = answer(&mut agent, &mut c, id);
    assert_eq!(text(&done.expect("sampling")), "LLM response: 4");

    // Elicitation declined: the tool says what came back.
    let id = agent
        .send(c.call_tool(
            "test_elicitation",
            Some(json!({ "message": "Name?" })),
            RequestOptions::default(),
            now,
        ))
        .id
        .expect("a request");
    let seen = agent.until(
        &mut c,
        |e| matches!(e, Event::Request { method, .. } if method == "elicitation/create"),
    );
    let Some(Event::Request { id: asked, .. }) = seen.last() else {
        unreachable!()
    };
    agent.send(c.respond(asked, Ok(json!({ "action": "decline" }))));
    let (_, done) = answer(&mut agent, &mut c, id);
    assert_eq!(
        text(&done.expect("elicitation")),
        "User response: action=decline, content={}"
    );
}
