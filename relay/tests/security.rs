#![cfg(not(target_arch = "wasm32"))]
//! Security review of the relay, one test per point (docs/RELIABILITY.md). The basic guard
//! refusals are in guards.rs and the basic traversal cases in static_files.rs; these are the
//! variations around them.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use serde_json::Value;
use tokio::time::timeout;

/// Request headers as owned values, and as `connect_with` takes them.
type Headers = Vec<(&'static str, String)>;

fn borrowed(headers: &Headers) -> Vec<(&'static str, &str)> {
    headers.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[tokio::test]
async fn host_origin_and_token_variations() {
    timeout(TEST_TIMEOUT, async {
        let dir = scratch("security-guards");
        let marker = dir.join("spawned");
        let relay = Relay::start(&["--agent", &marking_agent("m", &marker)]);
        let port = relay.port;
        let own = relay.origin();
        let good = relay.ws_url("m");
        let with_token = |token: &str| format!("ws://127.0.0.1:{port}/ws?{token}&agent=m");
        let h = |s: &str| s.replace("PORT", &port.to_string());
        let refused: Vec<(&str, String, Headers, u16)> = vec![
            // Host: only the bound address and localhost, with the port, are the relay.
            (
                "IPv6 loopback Host",
                good.clone(),
                vec![
                    ("host", h("[::1]:PORT")),
                    ("origin", h("http://[::1]:PORT")),
                ],
                403,
            ),
            (
                "IPv4-mapped IPv6 Host",
                good.clone(),
                vec![
                    ("host", h("[::ffff:127.0.0.1]:PORT")),
                    ("origin", own.clone()),
                ],
                403,
            ),
            (
                "Host without port",
                good.clone(),
                vec![("host", "127.0.0.1".into()), ("origin", own.clone())],
                403,
            ),
            (
                "Host of another port",
                good.clone(),
                vec![("host", "127.0.0.1:80".into()), ("origin", own.clone())],
                403,
            ),
            (
                "decimal IP Host",
                good.clone(),
                vec![("host", h("2130706433:PORT")), ("origin", own.clone())],
                403,
            ),
            (
                "short IP Host",
                good.clone(),
                vec![("host", h("127.1:PORT")), ("origin", own.clone())],
                403,
            ),
            (
                "trailing-dot Host",
                good.clone(),
                vec![
                    ("host", h("localhost.:PORT")),
                    ("origin", h("http://localhost.:PORT")),
                ],
                403,
            ),
            (
                "userinfo Host",
                good.clone(),
                vec![("host", h("evil@127.0.0.1:PORT")), ("origin", own.clone())],
                403,
            ),
            (
                "subdomain of localhost",
                good.clone(),
                vec![
                    ("host", h("evil.localhost:PORT")),
                    ("origin", h("http://evil.localhost:PORT")),
                ],
                403,
            ),
            (
                "empty Host",
                good.clone(),
                vec![("host", String::new()), ("origin", own.clone())],
                403,
            ),
            // Origin: exactly the relay's own page, as browsers write it.
            (
                "Origin with a path",
                good.clone(),
                vec![("origin", h("http://127.0.0.1:PORT/"))],
                403,
            ),
            (
                "Origin as a prefix",
                good.clone(),
                vec![("origin", h("http://127.0.0.1:PORT.evil.example"))],
                403,
            ),
            (
                "Origin with userinfo",
                good.clone(),
                vec![("origin", h("http://127.0.0.1:PORT@evil.example"))],
                403,
            ),
            (
                "ws: Origin",
                good.clone(),
                vec![("origin", h("ws://127.0.0.1:PORT"))],
                403,
            ),
            (
                "file Origin",
                good.clone(),
                vec![("origin", "file://".into())],
                403,
            ),
            (
                "IPv6 Origin",
                good.clone(),
                vec![("origin", h("http://[::1]:PORT"))],
                403,
            ),
            (
                "NULL Origin",
                good.clone(),
                vec![("origin", "NULL".into())],
                403,
            ),
            (
                "empty Origin",
                good.clone(),
                vec![("origin", String::new())],
                403,
            ),
            // Token: exact key, exact value; the last `token=` counts.
            (
                "upper-case key",
                with_token(&format!("TOKEN={TOKEN}")),
                vec![("origin", own.clone())],
                401,
            ),
            (
                "upper-case value",
                with_token(&format!("token={}", TOKEN.to_uppercase())),
                vec![("origin", own.clone())],
                401,
            ),
            (
                "value with a space",
                with_token(&format!("token={TOKEN}%20")),
                vec![("origin", own.clone())],
                401,
            ),
            (
                "right then wrong",
                with_token(&format!("token={TOKEN}&token=x")),
                vec![("origin", own.clone())],
                401,
            ),
            (
                "bad escape",
                with_token("token=%zz"),
                vec![("origin", own.clone())],
                401,
            ),
            (
                "token in a header only",
                with_token(""),
                vec![
                    ("origin", own.clone()),
                    ("authorization", format!("Bearer {TOKEN}")),
                ],
                401,
            ),
        ];
        for (what, url, headers, status) in &refused {
            assert_eq!(
                connect_with(url, &borrowed(headers)).await.err(),
                Some(*status),
                "{what}"
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!marker.exists(), "a refused upgrade started the agent");

        // Scheme and host are case-insensitive: browsers lower-case them, the relay does too.
        let accepted: Vec<(&str, String, Headers)> = vec![
            (
                "upper-case Host and Origin",
                good.clone(),
                vec![
                    ("host", h("LOCALHOST:PORT")),
                    ("origin", h("HTTP://LocalHost:PORT")),
                ],
            ),
            (
                "percent-encoded token",
                with_token(&format!(
                    "token=%{:02X}{}",
                    TOKEN.as_bytes()[0],
                    &TOKEN[1..]
                )),
                vec![("origin", own.clone())],
            ),
            (
                "wrong then right",
                with_token(&format!("token=x&token={TOKEN}")),
                vec![("origin", own.clone())],
            ),
        ];
        for (what, url, headers) in &accepted {
            let mut ws = connect_with(url, &borrowed(headers))
                .await
                .unwrap_or_else(|s| panic!("{what}: {s}"));
            marked(&mut ws).await;
        }
        assert!(marker.exists());
        let _ = std::fs::remove_dir_all(dir);
    })
    .await
    .expect("test timed out");
}

#[test]
fn bound_to_ipv6_loopback_the_host_must_be_that_literal_or_localhost() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_agentwire-relay"))
        .args([
            "--agent", "cat", "--port", "0", "--host", "::1", "--token", TOKEN,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .strip_prefix("http://[::1]:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected URL line {line:?}"));
    let addr: SocketAddr = format!("[::1]:{port}").parse().unwrap();
    let path = format!("/api/agents?token={TOKEN}");
    let cases = [
        (format!("[::1]:{port}"), 200),
        (format!("localhost:{port}"), 200),
        (format!("[0:0:0:0:0:0:0:1]:{port}"), 403),
        (format!("127.0.0.1:{port}"), 403),
        ("[::1]".to_string(), 403),
    ];
    for (host, status) in cases {
        assert_eq!(
            http_request(addr, "GET", &path, &[("Host", &host)]).0,
            status,
            "{host}"
        );
    }
    signal(child.id(), libc::SIGTERM);
    child.wait().unwrap();
}

#[tokio::test]
async fn the_page_cannot_choose_the_command_or_its_arguments() {
    timeout(TEST_TIMEOUT, async {
        let dir = scratch("security-choose");
        let marker = dir.join("spawned");
        let relay = Relay::start(&[
            "--agent",
            r#"fixed=printf '%s\n' one 'two words'"#,
            "--agent",
            &marking_agent("m", &marker),
        ]);
        let port = relay.port;
        let own = relay.origin();
        let url = |query: &str| format!("ws://127.0.0.1:{port}/ws?token={TOKEN}&{query}");
        for query in [
            "agent=../m",
            "agent=..%2Fm",
            "agent=m%00",
            "agent=M",
            "agent=m%20",
            "agent=sh",
            "agent=cat",
            "agent=m;sh",
            "agent=fixed&agent=evil",
            "agent=%2Fbin%2Fsh",
        ] {
            assert_eq!(
                connect_with(&url(query), &[("origin", &own)]).await.err(),
                Some(404),
                "{query}"
            );
        }
        // Parameters other than token and agent are ignored: the configured command runs, with
        // its configured arguments and nothing else.
        for query in [
            "cmd=touch%20x",
            "agent=fixed&cmd=sh&args=-c&arg=x&argv=y&program=sh&command=sh",
            "agent=fixed&agent=fixed&x=1",
        ] {
            let mut ws = connect_with(&url(query), &[("origin", &own)])
                .await
                .unwrap_or_else(|s| panic!("{query}: {s}"));
            let spawned = next_json(&mut ws).await;
            assert_eq!(spawned["relay"]["agent"], "fixed", "{query}");
            assert_eq!(next_text(&mut ws).await, "one");
            assert_eq!(next_text(&mut ws).await, "two words");
            assert_eq!(next_json(&mut ws).await["relay"]["event"], "exit");
        }
        assert!(!marker.exists(), "the other agent was started");
        let _ = std::fs::remove_dir_all(dir);
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn agent_arguments_reach_the_agent_literally_without_a_shell() {
    timeout(TEST_TIMEOUT, async {
        let dir = scratch("security-argv");
        let victim = dir.join("victim");
        std::fs::write(&victim, "still here").unwrap();
        let marker = dir.join("marker");
        let args = [
            format!("a;rm -rf {}", victim.display()),
            format!("$(touch {})", marker.display()),
            format!("`touch {}`", marker.display()),
            "$HOME".to_string(),
            "*".to_string(),
            "~".to_string(),
            "two words".to_string(),
            "a|b&c>d<e".to_string(),
            String::new(),
        ];
        // Each argument single-quoted for the relay's own splitter; printf prints each on a line.
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let agent = format!("argv=printf '[%s]\\n' {}", quoted.join(" "));
        let relay = Relay::start(&["--agent", &agent]);
        let mut ws = relay.connect("argv").await;
        spawned_pid(&mut ws).await;
        for arg in &args {
            assert_eq!(next_text(&mut ws).await, format!("[{arg}]"));
        }
        assert_eq!(next_json(&mut ws).await["relay"]["event"], "exit");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "still here");
        assert!(!marker.exists(), "a command substitution ran");
        let _ = std::fs::remove_dir_all(dir);
    })
    .await
    .expect("test timed out");
}

#[test]
fn static_files_cannot_escape_their_folder() {
    let dir = scratch("security-static");
    let www = dir.join("www");
    let outside = dir.join("outside");
    std::fs::create_dir_all(&www).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(www.join("index.html"), "ok").unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET").unwrap();
    std::fs::write(dir.join("secret.txt"), "SECRET").unwrap();
    std::os::unix::fs::symlink(&outside, www.join("linkdir")).unwrap();
    std::os::unix::fs::symlink("/", www.join("root")).unwrap();
    let relay = Relay::start(&[
        "--agent",
        "cat",
        "--static",
        www.to_str().unwrap(),
        "--pkg",
        www.to_str().unwrap(),
    ]);
    let port = relay.port;
    let absolute = format!("http://127.0.0.1:{port}/../secret.txt");
    let cases: &[(&str, &[u16])] = &[
        ("/..\\secret.txt", &[400]),
        ("/%5c..%5csecret.txt", &[400]),
        ("/%252e%252e/secret.txt", &[404]),
        ("/%c0%ae%c0%ae/secret.txt", &[400]),
        ("/%e0%80%ae%e0%80%ae/secret.txt", &[400]),
        ("/.%2e/secret.txt", &[403]),
        ("/%2e/secret.txt", &[403]),
        ("/linkdir/secret.txt", &[403]),
        ("/root/etc/passwd", &[403]),
        ("/pkg/..%2f..%2fsecret.txt", &[403]),
        ("/pkg/linkdir/secret.txt", &[403]),
        ("/./secret.txt", &[403]),
        (&absolute, &[400, 403]),
    ];
    for (path, statuses) in cases {
        let (status, _, body) = http_get(port, path, &[]);
        assert!(statuses.contains(&status), "{path}: {status}");
        assert!(!String::from_utf8_lossy(&body).contains("SECRET"), "{path}");
        assert!(!String::from_utf8_lossy(&body).contains("root:"), "{path}");
    }
    assert_eq!(http_get(port, "/", &[]).0, 200);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn oversized_requests_are_refused_and_the_relay_goes_on() {
    let relay = Relay::start(&["--agent", "cat"]);
    let port = relay.port;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let big_header = "x".repeat(1 << 20);
    let (status, _, _) = http_request(addr, "GET", "/", &[("X-Big", &big_header)]);
    assert!(
        status == 0 || status == 431 || status == 400,
        "a 1 MiB header: {status}"
    );
    let big_query = format!("/api/agents?token={}", "t".repeat(1 << 20));
    let (status, _, _) = http_request(addr, "GET", &big_query, &[]);
    assert!(
        status == 0 || (400..500).contains(&status),
        "a 1 MiB URL: {status}"
    );
    let many: Vec<(String, String)> = (0..500).map(|i| (format!("X-H{i}"), "v".into())).collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (status, _, _) = http_request(addr, "GET", "/", &many);
    assert!(
        status == 0 || status == 431 || status == 400,
        "500 headers: {status}"
    );
    // A body is never read: a GET-only server refuses the method first.
    let (status, _, _) = http_request(addr, "POST", "/", &[("Content-Length", "1000000000")]);
    assert_eq!(status, 405);
    // Still serving.
    assert_eq!(
        http_get(port, &format!("/api/agents?token={TOKEN}"), &[]).0,
        200
    );
}

#[test]
fn every_response_carries_the_safety_headers_and_no_cors() {
    let dir = scratch("security-headers");
    std::fs::write(dir.join("index.html"), "ok").unwrap();
    let relay = Relay::start(&["--agent", "cat", "--static", dir.to_str().unwrap()]);
    let port = relay.port;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let token = format!("/api/agents?token={TOKEN}");
    let ws = format!("/ws?token={TOKEN}");
    let evil = [("Origin", "http://evil.example")];
    let own = format!("http://127.0.0.1:{port}");
    let own = [("Origin", own.as_str())];
    let preflight = [
        ("Origin", "http://evil.example"),
        ("Access-Control-Request-Method", "GET"),
    ];
    // (method, path, request headers, status)
    type Request<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], u16);
    let cases: Vec<Request> = vec![
        ("GET", "/", &evil, 200),
        ("HEAD", "/", &[], 200),
        ("GET", &token, &evil, 200),
        ("GET", "/api/agents", &evil, 401),
        ("GET", "/missing", &[], 404),
        ("GET", "/../x", &[], 403),
        ("GET", "/%zz", &[], 400),
        ("POST", "/", &[], 405),
        ("OPTIONS", &token, &preflight, 405),
        ("GET", "/", &[("Host", "rebound.example")], 403),
        ("GET", "/ws", &[], 401),
        ("GET", &ws, &own, 400),
        ("POST", &ws, &[], 405),
        ("GET", &ws, &[("Host", "rebound.example")], 403),
    ];
    for (method, path, headers, status) in cases {
        let (got, h, _) = http_request(addr, method, path, headers);
        let what = format!("{method} {path} {headers:?}");
        assert_eq!(got, status, "{what}");
        assert_eq!(
            header(&h, "x-content-type-options"),
            Some("nosniff"),
            "{what}"
        );
        assert_eq!(header(&h, "x-frame-options"), Some("DENY"), "{what}");
        assert_eq!(header(&h, "referrer-policy"), Some("no-referrer"), "{what}");
        assert_eq!(header(&h, "cache-control"), Some("no-store"), "{what}");
        let csp = header(&h, "content-security-policy").unwrap_or_else(|| panic!("{what}: no CSP"));
        for directive in [
            "default-src 'self'",
            "frame-ancestors 'none'",
            "object-src 'none'",
            "base-uri 'none'",
        ] {
            assert!(csp.contains(directive), "{what}: {csp}");
        }
        assert!(!csp.contains('*'), "{what}: {csp}");
        assert!(
            h.iter().all(|(k, _)| !k.starts_with("access-control-")),
            "{what}: CORS headers {h:?}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn the_token_is_not_logged_nor_passed_to_agents() {
    timeout(TEST_TIMEOUT, async {
        let agent = r#"env=sh -c 'echo "[${AGENTWIRE_TOKEN:-unset}]"; exec cat'"#;
        let relay = Relay::start_with_env(&["--agent", agent], &[("AGENTWIRE_TOKEN", TOKEN)]);
        let port = relay.port;
        let own = relay.origin();
        // Refusals of every kind, some carrying the token or a near miss of it.
        for query in [
            format!("token={TOKEN}x&agent=env"),
            format!("token={TOKEN}&agent=nope"),
            "token=x".into(),
        ] {
            let url = format!("ws://127.0.0.1:{port}/ws?{query}");
            assert!(connect_with(&url, &[("origin", &own)]).await.is_err());
        }
        let _ = connect_with(&relay.ws_url("env"), &[("origin", "http://evil.example")]).await;
        http_get(port, &format!("/api/agents?token={TOKEN}"), &[]);
        http_get(port, &format!("/missing?token={TOKEN}"), &[]);
        let mut ws = relay.connect("env").await;
        spawned_pid(&mut ws).await;
        assert_eq!(
            next_text(&mut ws).await,
            "[unset]",
            "the agent saw the token"
        );
        drop(ws);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let log = relay.stderr.lock().unwrap().clone();
        assert!(
            log.contains("refused") && log.contains("started agent"),
            "{log}"
        );
        assert!(!log.contains(TOKEN), "the token is in the log: {log}");
        // The one place it is printed is the URL on stdout.
        assert!(relay.url.ends_with(TOKEN));
        let agents: Value =
            serde_json::from_slice(&http_get(port, &format!("/api/agents?token={TOKEN}"), &[]).2)
                .unwrap();
        assert!(
            !agents.to_string().contains("AGENTWIRE_TOKEN")
                && !agents.to_string().contains("sh -c")
        );
    })
    .await
    .expect("test timed out");
}
