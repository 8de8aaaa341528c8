//! MCP servers hosted by a page (`{"relay":{"host":…}}`): the agent's HTTP requests reach the
//! page on its WebSocket and the page's answers come back on the right streams; and the hosted
//! endpoint refuses everyone else (a wrong or missing secret, another connection, a browser, a
//! rebound Host, an oversized body, after the page left) without spawning anything.

mod common;

use common::http::*;
use common::*;
use serde_json::{json, Value};
use tokio::time::timeout;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}"#;

/// The relay, and a page connected to `cat` that hosts a server named `ide`: its WebSocket,
/// the hosted URL's path and the `Authorization` value.
async fn hosting() -> (Relay, Ws, String, String) {
    let relay = Relay::start(&["--agent", "echo=cat", "--max-message-bytes", "65536"]);
    let mut ws = relay.connect("echo").await;
    spawned_pid(&mut ws).await;
    send(&mut ws, r#"{"relay":{"host":"ide"}}"#).await;
    let hosted = next_json(&mut ws).await;
    assert_eq!(hosted["relay"]["event"], "hosted", "{hosted}");
    assert_eq!(hosted["relay"]["name"], "ide");
    let url = hosted["relay"]["url"].as_str().unwrap().to_string();
    let prefix = format!("http://127.0.0.1:{}/hosted/", relay.port);
    assert!(url.starts_with(&prefix), "{url}");
    let authorization = hosted["relay"]["authorization"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        authorization.starts_with("Bearer ") && authorization.len() == "Bearer ".len() + 64,
        "a 256-bit secret"
    );
    let path = url
        .trim_start_matches(&format!("http://127.0.0.1:{}", relay.port))
        .to_string();
    (relay, ws, path, authorization)
}

/// POSTs on a thread (the answer may wait for the page) and returns the join handle.
fn post(
    port: u16,
    path: &str,
    headers: Vec<(String, String)>,
    body: String,
) -> tokio::task::JoinHandle<Answer> {
    let path = path.to_string();
    tokio::task::spawn_blocking(move || {
        let mut all: Vec<(&str, &str)> = vec![
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
        ];
        all.extend(headers.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        request(port, "POST", &path, &all, &body)
    })
}

/// The next message the page's server is asked: (session, message).
async fn asked(ws: &mut Ws) -> (String, Value) {
    let frame = next_json(ws).await;
    assert_eq!(frame["relay"]["event"], "mcp", "{frame}");
    assert_eq!(frame["relay"]["host"], "ide");
    (
        frame["relay"]["session"].as_str().unwrap().to_string(),
        frame["relay"]["message"].clone(),
    )
}

async fn answer(ws: &mut Ws, session: &str, message: Value) {
    send(
        ws,
        &json!({ "relay": { "mcp": session, "message": message } }).to_string(),
    )
    .await;
}

#[tokio::test]
async fn the_agent_reaches_the_pages_server_and_its_answers_come_back_on_their_streams() {
    timeout(TEST_TIMEOUT, async {
        let (relay, mut ws, path, auth) = hosting().await;
        let secret = vec![("authorization".to_string(), auth.clone())];

        // initialize: the page sees it, answers, and the answer carries the session id.
        let init = post(relay.port, &path, secret.clone(), INIT.into());
        let (session, message) = asked(&mut ws).await;
        assert_eq!(message["method"], "initialize");
        answer(&mut ws, &session, json!({ "jsonrpc": "2.0", "id": 1, "result": { "protocolVersion": "2025-11-25", "capabilities": { "tools": {} }, "serverInfo": { "name": "page", "version": "1" } } })).await;
        let init = init.await.unwrap();
        assert_eq!(init.status, 200, "{}", init.body);
        assert_eq!(init.header("mcp-session-id"), Some(session.as_str()));
        let events: Vec<Value> = init.events().iter().filter(|e| !e.data.is_empty()).map(|e| serde_json::from_str(&e.data).unwrap()).collect();
        assert_eq!(events[0]["result"]["serverInfo"]["name"], "page");

        let mut in_session = secret.clone();
        in_session.push(("mcp-session-id".into(), session.clone()));
        in_session.push(("mcp-protocol-version".into(), "2025-11-25".into()));
        // A notification: 202, and the page gets it.
        let note = post(relay.port, &path, in_session.clone(), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into()).await.unwrap();
        assert_eq!(note.status, 202);
        assert_eq!(asked(&mut ws).await.1["method"], "notifications/initialized");

        // A tool call: progress and a request of the page's server ride on its stream, then the result.
        let call = post(relay.port, &path, in_session.clone(),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open_editors","arguments":{},"_meta":{"progressToken":"p"}}}"#.into());
        let (s, message) = asked(&mut ws).await;
        assert_eq!((s.as_str(), message["params"]["name"].as_str()), (session.as_str(), Some("open_editors")));
        answer(&mut ws, &session, json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": "p", "progress": 1, "total": 2 } })).await;
        answer(&mut ws, &session, json!({ "jsonrpc": "2.0", "id": 2, "result": { "content": [{ "type": "text", "text": "main.rs, lib.rs" }] } })).await;
        let call = call.await.unwrap();
        let events: Vec<Value> = call.events().iter().filter(|e| !e.data.is_empty()).map(|e| serde_json::from_str(&e.data).unwrap()).collect();
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0]["method"], "notifications/progress");
        assert_eq!(events[1]["result"]["content"][0]["text"], "main.rs, lib.rs");

        // DELETE ends the session: the page is told, and the id is gone.
        let delete = tokio::task::spawn_blocking({
            let (port, path, h) = (relay.port, path.clone(), in_session.clone());
            move || request(port, "DELETE", &path, &h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect::<Vec<_>>(), "")
        }).await.unwrap();
        assert_eq!(delete.status, 204);
        let ended = next_json(&mut ws).await;
        assert_eq!((ended["relay"]["event"].as_str(), ended["relay"]["session"].as_str()), (Some("mcpEnded"), Some(session.as_str())), "{ended}");
        let after = post(relay.port, &path, in_session, r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.into()).await.unwrap();
        assert_eq!(after.status, 404);
        assert!(children_of(relay.pid()).len() == 1, "only the page's own agent runs: nothing was spawned for the hosted server");
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn everyone_but_the_agent_is_refused_and_nothing_reaches_the_page() {
    timeout(TEST_TIMEOUT, async {
        let (relay, mut ws, path, auth) = hosting().await;
        let port = relay.port;
        let with = |extra: &[(&str, &str)]| {
            extra
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        let refusals = [
            ("no secret", with(&[]), INIT.to_string(), 401),
            (
                "a wrong secret",
                with(&[("authorization", &format!("Bearer {}", "0".repeat(64)))]),
                INIT.to_string(),
                401,
            ),
            (
                "the relay's token",
                with(&[("authorization", &format!("Bearer {TOKEN}"))]),
                INIT.to_string(),
                401,
            ),
            (
                "a browser page",
                with(&[("authorization", &auth), ("origin", &relay.origin())]),
                INIT.to_string(),
                403,
            ),
            (
                "a rebound Host",
                with(&[
                    ("authorization", &auth),
                    ("host", &format!("evil.example:{port}")),
                ]),
                INIT.to_string(),
                403,
            ),
            (
                "an oversized body",
                with(&[("authorization", &auth)]),
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
                    "a".repeat(70_000)
                ),
                413,
            ),
            (
                "a session of nobody",
                with(&[("authorization", &auth), ("mcp-session-id", "f00")]),
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_string(),
                404,
            ),
        ];
        for (what, headers, body, status) in refusals {
            let answer = post(port, &path, headers, body).await.unwrap();
            assert_eq!(answer.status, status, "{what}: {}", answer.body);
        }
        let unknown = post(
            port,
            "/hosted/0123456789abcdef0123456789abcdef",
            with(&[("authorization", &auth)]),
            INIT.to_string(),
        )
        .await
        .unwrap();
        assert_eq!(unknown.status, 404, "an id that was never hosted");

        // Nothing reached the page: the next frame it sees is the answer to its own ping.
        send(&mut ws, r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#).await;
        assert_eq!(
            next_text(&mut ws).await,
            r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
            "cat echoes the page's own frame, nothing came before it"
        );
        assert_eq!(children_of(relay.pid()).len(), 1);
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn another_connection_can_neither_answer_nor_enter_and_the_endpoint_ends_with_its_page() {
    timeout(TEST_TIMEOUT, async {
        let (relay, mut ws, path, auth) = hosting().await;
        let secret = vec![("authorization".to_string(), auth.clone())];
        let pending = post(relay.port, &path, secret.clone(), INIT.into());
        let (session, _) = asked(&mut ws).await;

        // A second page, hosting its own server, cannot answer into the first page's session,
        // and its secret does not open the first page's endpoint.
        let mut other = relay.connect("echo").await;
        spawned_pid(&mut other).await;
        send(&mut other, r#"{"relay":{"host":"ide"}}"#).await;
        let theirs = next_json(&mut other).await;
        assert_ne!(theirs["relay"]["url"].as_str().unwrap(), format!("http://127.0.0.1:{}{path}", relay.port));
        answer(&mut other, &session, json!({ "jsonrpc": "2.0", "id": 1, "result": { "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "intruder", "version": "1" } } })).await;
        let refused = next_json(&mut other).await;
        assert_eq!(refused["relay"]["event"], "error");
        assert!(refused["relay"]["message"].as_str().unwrap().contains("no MCP session of this connection"), "{refused}");
        let wrong = vec![("authorization".to_string(), theirs["relay"]["authorization"].as_str().unwrap().to_string())];
        assert_eq!(post(relay.port, &path, wrong, INIT.into()).await.unwrap().status, 401);

        // The page leaves with the request still owed: the agent gets an error answer, and the
        // endpoint is gone.
        drop(ws);
        let owed = pending.await.unwrap();
        let events: Vec<Value> = owed.events().iter().filter(|e| !e.data.is_empty()).map(|e| serde_json::from_str(&e.data).unwrap()).collect();
        assert_eq!(events.len(), 1, "{}", owed.body);
        assert!(events[0]["error"]["message"].as_str().unwrap().contains("the page hosting it left"), "{}", events[0]);
        let after = post(relay.port, &path, secret, INIT.into()).await.unwrap();
        assert_eq!(after.status, 404);
        // The other page's server lives on.
        drop(other);
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn bad_hosting_commands_are_refused_with_a_reason() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "echo=cat"]);
        let mut ws = relay.connect("echo").await;
        spawned_pid(&mut ws).await;
        for (command, expected) in [
            (r#"{"relay":{"host":"no spaces"}}"#, "hostRefused"),
            (r#"{"relay":{"host":"a","mcp":"b"}}"#, "error"),
            (r#"{"relay":{"mcp":"x"}}"#, "error"),
            (r#"{"relay":"host"}"#, "error"),
            (r#"{"relay":{"mcp":"x","message":{}}}"#, "error"),
        ] {
            send(&mut ws, command).await;
            let got = next_json(&mut ws).await;
            assert_eq!(got["relay"]["event"], expected, "{command}: {got}");
        }
        send(&mut ws, r#"{"relay":{"host":"ide"}}"#).await;
        assert_eq!(next_json(&mut ws).await["relay"]["event"], "hosted");
        send(&mut ws, r#"{"relay":{"host":"ide"}}"#).await;
        let twice = next_json(&mut ws).await;
        assert_eq!(
            twice["relay"]["event"], "hostRefused",
            "one name once per connection: {twice}"
        );
    })
    .await
    .expect("test timed out");
}
