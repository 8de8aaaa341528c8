#![cfg(not(target_arch = "wasm32"))]
//! What an outside security probe found and the relay now refuses: duplicate Host or Origin
//! headers, invalid UTF-8 in a text frame (docs/RELIABILITY.md, "Hardening").

mod common;

use common::*;
use tokio::time::timeout;

#[tokio::test]
async fn a_duplicate_host_or_origin_header_gets_400_and_starts_nothing() {
    timeout(TEST_TIMEOUT, async {
        let dir = scratch("hardening-dup");
        let marker = dir.join("spawned");
        let relay = Relay::start(&["--agent", &marking_agent("m", &marker)]);
        let host = format!("127.0.0.1:{}", relay.port);
        let own = relay.origin();
        let ws_path = format!("/ws?token={TOKEN}&agent=m");
        let upgrade = [
            ("connection", "Upgrade"),
            ("upgrade", "websocket"),
            ("sec-websocket-version", "13"),
            ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ];
        // (what, path, headers, expected status line)
        type Case<'a> = (&'a str, String, Vec<(&'a str, &'a str)>, &'a str);
        let cases: Vec<Case> = vec![
            (
                "two Hosts, the page",
                "/".into(),
                vec![("host", host.as_str()), ("host", "evil.example")],
                "Host",
            ),
            (
                "two Hosts, the upgrade",
                ws_path.clone(),
                [
                    &upgrade[..],
                    &[
                        ("host", host.as_str()),
                        ("host", "evil.example"),
                        ("origin", own.as_str()),
                    ],
                ]
                .concat(),
                "Host",
            ),
            (
                "two Hosts, the other first",
                ws_path.clone(),
                [
                    &upgrade[..],
                    &[
                        ("host", "evil.example"),
                        ("host", host.as_str()),
                        ("origin", own.as_str()),
                    ],
                ]
                .concat(),
                "Host",
            ),
            (
                "two Origins, the upgrade",
                ws_path.clone(),
                [
                    &upgrade[..],
                    &[
                        ("host", host.as_str()),
                        ("origin", own.as_str()),
                        ("origin", "http://evil.example"),
                    ],
                ]
                .concat(),
                "Origin",
            ),
        ];
        for (what, path, headers, named) in &cases {
            let (status, _, body) = http_get(relay.port, path, headers);
            let body = String::from_utf8_lossy(&body);
            assert_eq!(
                (status, body.as_ref()),
                (400, format!("more than one {named} header").as_str()),
                "{what}"
            );
        }
        assert!(!marker.exists(), "a refused request started the agent");
        // The control: one of each is accepted.
        let mut ws = connect_with(&relay.ws_url("m"), &[("origin", &own)])
            .await
            .expect("accepted");
        marked(&mut ws).await;
        let _ = std::fs::remove_dir_all(dir);
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_text_frame_that_is_not_utf8_closes_with_1007_and_says_why() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::protocol::frame::{
        coding::{Data, OpCode},
        Frame,
    };
    use tokio_tungstenite::tungstenite::Message;
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "cat"]);
        let mut ws = relay.connect("default").await;
        spawned_pid(&mut ws).await;
        let frame = Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true);
        ws.send(Message::Frame(frame)).await.expect("sent");
        let said = next_json(&mut ws).await;
        assert_eq!(said["relay"]["event"], "error", "{said}");
        assert!(
            said["relay"]["message"]
                .as_str()
                .unwrap()
                .contains("not valid UTF-8"),
            "{said}"
        );
        let mut closed = None;
        while closed.is_none() {
            if let Seen::Closed(c) = next(&mut ws).await {
                closed = Some(c);
            }
        }
        assert_eq!(closed.flatten().map(|(code, _)| code), Some(1007));
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_descendant_that_left_the_group_ends_with_its_session() {
    use std::time::Duration;
    timeout(TEST_TIMEOUT, async {
        // The sleeper calls setsid (a new session and group: killpg misses it), and its
        // parent shell exits at once, so it is an orphan long before the session ends.
        let relay = Relay::start(&[
            "--agent",
            r#"escape=sh -c 'sh -c "setsid sleep 300 & echo \$!" ; exec cat'"#,
        ]);
        let mut ws = relay.connect("escape").await;
        let agent = spawned_pid(&mut ws).await;
        let sleeper: u32 = next_text(&mut ws)
            .await
            .trim()
            .parse()
            .expect("the sleeper's pid");
        assert!(alive(sleeper), "the sleeper runs");
        // (session, parent) of the sleeper, once it has called setsid and its parent is gone.
        let wanted = (sleeper.to_string(), relay.pid().to_string());
        let mut seen = (String::new(), String::new());
        for _ in 0..500 {
            let stat = std::fs::read_to_string(format!("/proc/{sleeper}/stat")).unwrap_or_default();
            let fields: Vec<String> = stat
                .rsplit_once(')')
                .map(|(_, r)| r.split_whitespace().map(str::to_owned).collect())
                .unwrap_or_default();
            seen = (
                fields.get(3).cloned().unwrap_or_default(),
                fields.get(1).cloned().unwrap_or_default(),
            );
            if seen == wanted {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            seen, wanted,
            "the sleeper leads its own session, and the orphan was handed to the relay (subreaper)"
        );
        drop(ws);
        assert!(
            gone_within(agent, Duration::from_secs(10)).await,
            "agent {agent} still there"
        );
        assert!(
            gone_within(sleeper, Duration::from_secs(10)).await,
            "the escaped descendant {sleeper} outlived its session"
        );
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_page_that_floods_pings_is_closed_with_1008() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "cat"]);
        let pid = relay.pid();
        let before = rss_kib(pid);
        let mut ws = relay.connect("default").await;
        spawned_pid(&mut ws).await;
        // Many more pings than the budget, without reading a single pong.
        let mut sent = 0;
        for _ in 0..20_000 {
            if ws.feed(Message::Ping(vec![0u8; 100].into())).await.is_err() {
                break;
            }
            sent += 1;
        }
        let _ = ws.flush().await;
        let mut said = None;
        let mut closed = None;
        while closed.is_none() {
            match next(&mut ws).await {
                Seen::Text(t) if t.contains("too many pings") => said = Some(t),
                Seen::Text(_) => {}
                Seen::Closed(c) => closed = Some(c),
            }
        }
        assert!(
            said.is_some(),
            "said on the side channel ({sent} pings sent)"
        );
        assert_eq!(closed.flatten().map(|(code, _)| code), Some(1008));
        let growth = rss_kib(pid).saturating_sub(before);
        println!("FIGURE ping flood: {sent} pings sent, relay RSS growth {growth} KiB");
        assert!(growth < 16 * 1024, "relay memory grew by {growth} KiB");
    })
    .await
    .expect("test timed out");
}

/// Reads until the relay closes the connection; how long that took, or `None` past `within`.
fn closed_within(
    stream: &mut std::net::TcpStream,
    within: std::time::Duration,
) -> Option<std::time::Duration> {
    use std::io::Read;
    let started = std::time::Instant::now();
    stream.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => continue, // an answer (408 or the like) before the close
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(started.elapsed())
            }
            Err(_) => return None,
        }
    }
}

#[tokio::test]
async fn half_sent_requests_and_idle_connections_are_closed_and_capped() {
    use std::io::Write;
    use std::time::Duration;
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&[
            "--agent",
            "cat",
            "--request-timeout-ms",
            "300",
            "--max-pending",
            "4",
        ]);
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], relay.port));
        // A request whose headers never end, and a connection that never says anything.
        let mut half = std::net::TcpStream::connect(addr).unwrap();
        half.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes())
            .unwrap();
        let mut idle = std::net::TcpStream::connect(addr).unwrap();
        assert!(
            closed_within(&mut half, Duration::from_secs(20)).is_some(),
            "a half-sent request stays open"
        );
        assert!(
            closed_within(&mut idle, Duration::from_secs(20)).is_some(),
            "an idle connection stays open"
        );

        // Four connections that say nothing hold the four places of a relay with a long
        // deadline; a fifth (accepted after them: connections are accepted in order) takes the
        // place of the one idle longest, which is closed at once, long before any deadline, and
        // the fifth is served.
        let capped = Relay::start(&[
            "--agent",
            "cat",
            "--request-timeout-ms",
            "10000",
            "--max-pending",
            "4",
        ]);
        let capped_addr = std::net::SocketAddr::from(([127, 0, 0, 1], capped.port));
        let mut holders: Vec<_> = (0..4)
            .map(|_| std::net::TcpStream::connect(capped_addr).unwrap())
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let port = capped.port;
        let served = tokio::task::spawn_blocking(move || {
            http_get(port, &format!("/api/agents?token={TOKEN}"), &[]).0
        })
        .await
        .unwrap();
        assert_eq!(
            served, 200,
            "a new connection is served while idle ones hold every place"
        );
        let waited = closed_within(&mut holders[0], Duration::from_secs(20))
            .expect("the oldest idle connection is closed");
        assert!(
            waited < Duration::from_secs(5),
            "closed at once, not at its deadline ({waited:?})"
        );
        drop(holders);

        // The soft limit of open files was raised to the hard one.
        let limits = std::fs::read_to_string(format!("/proc/{}/limits", relay.pid())).unwrap();
        let files: Vec<&str> = limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(
            files[3], files[4],
            "soft and hard limit of open files: {files:?}"
        );
        // A WebSocket session is not bound by the request deadline.
        let mut ws = relay.connect("default").await;
        spawned_pid(&mut ws).await;
        tokio::time::sleep(Duration::from_millis(900)).await;
        send(&mut ws, r#"{"jsonrpc":"2.0","method":"x"}"#).await;
        assert_eq!(
            next_text(&mut ws).await,
            r#"{"jsonrpc":"2.0","method":"x"}"#
        );
    })
    .await
    .expect("test timed out");
}
