#![cfg(not(target_arch = "wasm32"))]
//! Token, Origin and Host checks on the WebSocket upgrade: refused upgrades start nothing.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use tokio::time::timeout;

#[tokio::test]
async fn refused_upgrades_spawn_nothing() {
    timeout(TEST_TIMEOUT, async {
        let dir = scratch("guards");
        let marker = dir.join("spawned");
        let agent = marking_agent("m", &marker);
        let relay = Relay::start(&["--agent", &agent, "--allow-origin", "http://localhost:5173"]);
        let port = relay.port;
        let own = relay.origin();
        let good = relay.ws_url("m");
        let url = |query: &str| format!("ws://127.0.0.1:{port}/ws?{query}");
        let evil_host = format!("rebound.example:{port}");
        let https = own.replace("http:", "https:");
        // (what, URL, request headers, expected status)
        type Case<'a> = (&'a str, String, Vec<(&'static str, &'a str)>, u16);
        let cases: Vec<Case> = vec![
            ("no token", url("agent=m"), vec![("origin", &own)], 401),
            (
                "empty token",
                url("token=&agent=m"),
                vec![("origin", &own)],
                401,
            ),
            (
                "wrong token",
                url(&format!("token={TOKEN}x&agent=m")),
                vec![("origin", &own)],
                401,
            ),
            (
                "token prefix",
                url("token=test-token&agent=m"),
                vec![("origin", &own)],
                401,
            ),
            ("no Origin", good.clone(), vec![], 403),
            (
                "foreign Origin",
                good.clone(),
                vec![("origin", "http://evil.example")],
                403,
            ),
            ("null Origin", good.clone(), vec![("origin", "null")], 403),
            ("https Origin", good.clone(), vec![("origin", &https)], 403),
            (
                "other port",
                good.clone(),
                vec![("origin", "http://127.0.0.1:1")],
                403,
            ),
            (
                "rebound Host",
                good.clone(),
                vec![("origin", &own), ("host", &evil_host)],
                403,
            ),
            (
                "rebound Host and Origin",
                good.clone(),
                vec![("origin", "http://rebound.example"), ("host", &evil_host)],
                403,
            ),
            (
                "unknown agent",
                url(&format!("token={TOKEN}&agent=sh")),
                vec![("origin", &own)],
                404,
            ),
        ];
        for (what, url, headers, status) in &cases {
            let result = connect_with(url, headers).await;
            assert_eq!(result.err(), Some(*status), "{what}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!marker.exists(), "a refused upgrade started the agent");
        assert!(!relay.stderr.lock().unwrap().contains("started agent"));

        // The control: the same agent with everything right does start, from either own name
        // and from an allowed origin.
        let localhost = format!("http://localhost:{port}");
        let host = format!("localhost:{port}");
        let accepted: Vec<Vec<(&'static str, &str)>> = vec![
            vec![("origin", &own)],
            vec![("origin", &localhost), ("host", &host)],
            vec![("origin", "http://localhost:5173")],
        ];
        for headers in accepted {
            let mut ws = connect_with(&good, &headers)
                .await
                .unwrap_or_else(|s| panic!("{headers:?}: {s}"));
            // The agent's own word, not a race with its start: the marker is there now.
            marked(&mut ws).await;
        }
        assert!(marker.exists());
        let _ = std::fs::remove_dir_all(dir);
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn missing_origin_only_with_the_flag() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "cat", "--allow-missing-origin"]);
        let mut ws = connect_with(&relay.ws_url("default"), &[])
            .await
            .expect("accepted");
        spawned_pid(&mut ws).await;
        // The flag lets non-browser clients in; it does not let foreign pages in.
        let foreign = connect_with(
            &relay.ws_url("default"),
            &[("origin", "http://evil.example")],
        )
        .await;
        assert_eq!(foreign.err(), Some(403));
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn the_agent_list_needs_the_token_and_shows_names_only() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&[
            "--agent",
            "demo=sh -c 'exec cat' --secret-arg",
            "--agent",
            "other=cat",
        ]);
        let (status, headers, body) =
            http_get(relay.port, &format!("/api/agents?token={TOKEN}"), &[]);
        assert_eq!(status, 200);
        assert_eq!(header(&headers, "content-type"), Some("application/json"));
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            body["agents"],
            json!([{"name": "demo", "default": true}, {"name": "other", "default": false}])
        );
        // Beside the names, only the MCP Apps sandbox origin (another port of the same host).
        let sandbox = body["sandbox"].as_str().expect("the sandbox origin");
        assert!(
            sandbox.starts_with("http://127.0.0.1:")
                && !sandbox.ends_with(&format!(":{}", relay.port))
        );
        assert_eq!(body.as_object().map(|o| o.len()), Some(2));

        let bearer = format!("Bearer {TOKEN}");
        assert_eq!(
            http_get(relay.port, "/api/agents", &[("Authorization", &bearer)]).0,
            200
        );
        assert_eq!(http_get(relay.port, "/api/agents", &[]).0, 401);
        assert_eq!(http_get(relay.port, "/api/agents?token=nope", &[]).0, 401);
        let host = [("Host", "rebound.example")];
        assert_eq!(
            http_get(relay.port, &format!("/api/agents?token={TOKEN}"), &host).0,
            403
        );
    })
    .await
    .expect("test timed out");
}

#[test]
fn bad_command_lines_are_refused_at_start() {
    let cases: &[&[&str]] = &[
        &["--agent", "node a.js | tee log"],
        &["--agent", "a=x", "--agent", "a=y"],
        &["--agent", "x", "--host", "0.0.0.0"],
        &["--port", "0"],
    ];
    for args in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentwire-relay"))
            .args(*args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert!(!out.stderr.is_empty(), "{args:?}: a reason on stderr");
    }
}

#[test]
fn remote_listening_warns_and_token_from_the_environment() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_agentwire-relay"))
        .args([
            "--agent",
            "cat",
            "--port",
            "0",
            "--host",
            "0.0.0.0",
            "--allow-remote",
        ])
        .env("AGENTWIRE_TOKEN", "from-the-env")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    signal(child.id(), libc::SIGTERM);
    let out = child.wait_with_output().unwrap();
    assert!(
        line.starts_with("http://0.0.0.0:") && line.trim_end().ends_with("/?token=from-the-env"),
        "{line}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("WARNING"));
}
