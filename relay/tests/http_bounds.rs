//! The Streamable HTTP endpoints (`/mcp/<agent>`, `/hosted/<id>`) under hostile clients and
//! servers: guards before the body, sessions that end and leave, byte-bounded streams and
//! replay, caps on streams and connections that leave room for others, processes reaped,
//! event-stream framing, batches, `retry`, and sessions owned by whoever made them. Floods are
//! on loopback, bounded in count and time; each prints a FIGURE line (relay RSS and open
//! files, before, at the peak and after) for docs/RELIABILITY.md:
//! `cargo test -p agentwire-relay --test http_bounds -- --nocapture --test-threads 1`.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::http::*;
use common::*;
use serde_json::{json, Value};

const SSE: (&str, &str) = ("accept", "text/event-stream");

fn initialize(port: u16, extra: &[(&str, &str)]) -> String {
    let mut headers = vec![ACCEPT, JSON];
    headers.extend_from_slice(extra);
    let a = request(port, "POST", &mini_path(), &headers, INIT);
    assert_eq!(a.status, 200, "{}", a.body);
    a.header("mcp-session-id")
        .expect("a session id")
        .to_string()
}

fn in_session<'a>(session: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ACCEPT,
        JSON,
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    h.extend_from_slice(extra);
    h
}

/// The messages of an event stream (priming events left out).
fn messages(a: &Answer) -> Vec<Value> {
    a.events()
        .iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| {
            serde_json::from_str(&e.data).unwrap_or_else(|_| panic!("JSON data: {:?}", e.data))
        })
        .collect()
}

/// Writes a request head (and `body`) on a new connection and returns it unread.
fn open(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    s.write_all(format!("{head}\r\n{body}").as_bytes()).unwrap();
    s
}

/// Reads what has come on `s` until `needle` shows up (or `within` passes).
fn read_until(s: &mut TcpStream, needle: &str, within: Duration) -> String {
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let deadline = Instant::now() + within;
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    while Instant::now() < deadline && !String::from_utf8_lossy(&got).contains(needle) {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// Samples the relay's RSS until stopped; the peak in KiB.
struct Peak {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    fds: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Peak {
    fn watch(pid: u32) -> Peak {
        let (stop, peak, fds) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicU64::new(0)),
        );
        let (s, p, f) = (stop.clone(), peak.clone(), fds.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(rss_kib(pid), Ordering::Relaxed);
                f.fetch_max(fd_count(pid) as u64, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        Peak {
            stop,
            peak,
            fds,
            thread: Some(thread),
        }
    }
    /// (peak RSS KiB, peak open files)
    fn done(mut self) -> (u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.take().map(std::thread::JoinHandle::join);
        (
            self.peak.load(Ordering::Relaxed),
            self.fds.load(Ordering::Relaxed),
        )
    }
}

fn figure(what: &str, pid: u32, before: (u64, usize), peak: (u64, u64), recovered: Duration) {
    println!(
        "FIGURE {what}: RSS {:.1} MB before, {:.1} MB at the peak, {:.1} MB after; open files {} before, {} at the peak, {} after; recovered in {} ms",
        before.0 as f64 / 1024.0,
        peak.0 as f64 / 1024.0,
        rss_kib(pid) as f64 / 1024.0,
        before.1,
        peak.1,
        fd_count(pid),
        recovered.as_millis()
    );
}

/// Waits until the relay's open files are back to at most `fds` (+ slack); how long it took.
fn recover(pid: u32, fds: usize, within: Duration) -> Duration {
    let started = Instant::now();
    while fd_count(pid) > fds + 4 && started.elapsed() < within {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        fd_count(pid) <= fds + 4,
        "open files back to {fds}: {}",
        fd_count(pid)
    );
    started.elapsed()
}

fn open_sessions(relay: &Relay) -> Option<usize> {
    let log = relay.stderr.lock().unwrap().clone();
    log.lines()
        .rev()
        .filter(|l| l.contains("MCP session "))
        .find_map(|l| l.rsplit_once("; ")?.1.strip_suffix(" open")?.parse().ok())
}

fn wait_for(what: &str, within: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(check(), "never: {what}");
}

#[test]
fn the_guards_answer_before_any_body_is_read() {
    let relay = Relay::start(&["--agent", &mini("")]);
    let p = relay.port;
    // Headers announcing 4 MB (under the limit), and no body: the refusal must not wait for it.
    let big = "4000000";
    for (what, path, headers, want) in [
        (
            "a foreign Host",
            mini_path(),
            vec![("host", "evil.example:80"), ("content-length", big)],
            "403",
        ),
        (
            "no token",
            "/mcp/mini".to_string(),
            vec![("content-length", big)],
            "401",
        ),
        (
            "a foreign Origin",
            mini_path(),
            vec![("origin", "http://evil.example"), ("content-length", big)],
            "403",
        ),
        (
            "an unknown hosted server",
            "/hosted/0123456789abcdef0123456789abcdef".to_string(),
            vec![("content-length", big)],
            "404",
        ),
        (
            "an unknown session",
            mini_path(),
            vec![("mcp-session-id", "00"), ("content-length", big)],
            "404",
        ),
        (
            "a body over the limit",
            mini_path(),
            vec![("content-length", "5000000")],
            "413",
        ),
    ] {
        let mut s = TcpStream::connect(("127.0.0.1", p)).unwrap();
        let mut head = format!("POST {path} HTTP/1.1\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\n");
        if !headers.iter().any(|(k, _)| *k == "host") {
            head.push_str(&format!("host: 127.0.0.1:{p}\r\n"));
        }
        for (k, v) in &headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        s.write_all(format!("{head}\r\n").as_bytes()).unwrap();
        let got = read_until(&mut s, "\r\n\r\n", Duration::from_secs(3));
        assert!(
            got.starts_with(&format!("HTTP/1.1 {want}")),
            "{what}: answered before the body is sent, with {want}: {got:?}"
        );
    }

    // A flood of refused requests that do send their bodies: none is read.
    let before = (rss_kib(relay.pid()), fd_count(relay.pid()));
    let peak = Peak::watch(relay.pid());
    let body = vec![b'x'; 4_000_000];
    let threads: Vec<_> = (0..64)
        .map(|i| {
            let body = body.clone();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(("127.0.0.1", p)).unwrap();
                s.set_write_timeout(Some(Duration::from_secs(3))).unwrap();
                let host = if i % 2 == 0 { "evil.example:80".to_string() } else { format!("127.0.0.1:{p}") };
                let head = format!("POST /mcp/mini HTTP/1.1\r\nhost: {host}\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", body.len());
                let _ = s.write_all(head.as_bytes()).and_then(|_| s.write_all(&body));
                let mut rest = Vec::new();
                s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
                let _ = s.read_to_end(&mut rest);
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let peak = peak.done();
    let recovered = recover(relay.pid(), before.1, Duration::from_secs(10));
    figure(
        "64 refused POSTs of 4 MB bodies",
        relay.pid(),
        before,
        peak,
        recovered,
    );
    assert!(
        peak.0 < before.0 + 32 * 1024,
        "the refused bodies were not read: {} KiB -> {} KiB",
        before.0,
        peak.0
    );
    assert_eq!(children_of(relay.pid()).len(), 0, "nothing was spawned");
}

#[test]
fn a_session_leaves_when_its_process_exits_or_it_idles_out_and_orphans_are_reaped() {
    let script = repo().join("relay/tests/fixtures/mini-mcp.mjs");
    // The server leaves two children behind that exit soon after it (orphans handed to the
    // relay), and writes a flood on stderr first.
    let agent = format!(
        r#"mini=sh -c '(sleep 0.3 &) ; (sleep 0.3 &) ; head -c 2000000 /dev/zero | tr "\0" x >&2 ; exec node {}'"#,
        script.display()
    );
    let relay = Relay::start(&["--agent", &agent, "--session-idle-ms", "1500"]);
    let before = (rss_kib(relay.pid()), fd_count(relay.pid()));
    let peak = Peak::watch(relay.pid());
    let started = Instant::now();
    for _ in 0..12 {
        let id = initialize(relay.port, &[]);
        // `exit`: the process exits with the request unanswered.
        let owed = request(
            relay.port,
            "POST",
            &mini_path(),
            &in_session(&id, &[]),
            r#"{"jsonrpc":"2.0","id":2,"method":"exit"}"#,
        );
        assert_eq!(messages(&owed)[0]["error"]["code"], -32603);
        assert_eq!(
            request(
                relay.port,
                "POST",
                &mini_path(),
                &in_session(&id, &[]),
                r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#
            )
            .status,
            404
        );
    }
    wait_for(
        "every session left the hub",
        Duration::from_secs(20),
        || open_sessions(&relay) == Some(0),
    );
    wait_for("no zombie is left", Duration::from_secs(20), || {
        zombies_of(relay.pid()).is_empty() && children_of(relay.pid()).is_empty()
    });
    let peak = peak.done();
    figure(
        "12 sessions whose process exited under a stderr flood",
        relay.pid(),
        before,
        peak,
        started.elapsed(),
    );

    // A session nobody uses idles out: its process ends and it leaves the hub.
    let id = initialize(relay.port, &[]);
    assert_eq!(open_sessions(&relay), Some(1));
    wait_for("the idle session ended", Duration::from_secs(20), || {
        children_of(relay.pid()).is_empty() && open_sessions(&relay) == Some(0)
    });
    assert_eq!(
        request(
            relay.port,
            "POST",
            &mini_path(),
            &in_session(&id, &[]),
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#
        )
        .status,
        404
    );
    wait_for("no zombie is left", Duration::from_secs(20), || {
        zombies_of(relay.pid()).is_empty()
    });
}

#[tokio::test]
async fn a_websocket_agent_that_exits_under_a_stderr_flood_leaves_no_zombie() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let agent = r#"flood=sh -c '(sleep 0.2 &) ; (sleep 0.2 &) ; head -c 3000000 /dev/zero | tr "\0" x >&2 ; exit 0'"#;
        let relay = Relay::start(&["--agent", agent]);
        for _ in 0..4 {
            let mut ws = relay.connect("flood").await;
            while let Seen::Text(_) = next(&mut ws).await {}
        }
        let pid = relay.pid();
        let left = tokio::task::spawn_blocking(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline && !zombies_of(pid).is_empty() {
                std::thread::sleep(Duration::from_millis(20));
            }
            zombies_of(pid)
        })
        .await
        .unwrap();
        assert!(left.is_empty(), "zombies of the relay: {left:?}");
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn idled_out_hosted_sessions_stop_counting_toward_the_cap() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "echo=cat", "--session-idle-ms", "300"]);
        let mut ws = relay.connect("echo").await;
        spawned_pid(&mut ws).await;
        send(&mut ws, r#"{"relay":{"host":"ide"}}"#).await;
        let hosted = next_json(&mut ws).await;
        let url = hosted["relay"]["url"].as_str().unwrap().to_string();
        let path = url.trim_start_matches(&format!("http://127.0.0.1:{}", relay.port)).to_string();
        let auth = hosted["relay"]["authorization"].as_str().unwrap().to_string();
        let port = relay.port;
        let init = |path: String, auth: String| {
            tokio::task::spawn_blocking(move || request(port, "POST", &path, &[ACCEPT, JSON, ("authorization", &auth)], INIT))
        };
        // The page answers every initialize; 16 sessions fill the cap.
        let calls: Vec<_> = (0..16).map(|_| init(path.clone(), auth.clone())).collect();
        for _ in 0..16 {
            let frame = next_json(&mut ws).await;
            let session = frame["relay"]["session"].as_str().unwrap().to_string();
            let id = frame["relay"]["message"]["id"].clone();
            send(&mut ws, &json!({ "relay": { "mcp": session, "message": { "jsonrpc": "2.0", "id": id, "result": { "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "page", "version": "1" } } } } }).to_string()).await;
        }
        for c in calls {
            assert_eq!(c.await.unwrap().status, 200);
        }
        let over = init(path.clone(), auth.clone()).await.unwrap();
        assert_eq!(over.status, 503, "a 17th session is over the cap: {}", over.body);
        // They idle out (the page is told each one ended); then there is room again.
        for _ in 0..16 {
            let ended = next_json(&mut ws).await;
            assert_eq!(ended["relay"]["event"], "mcpEnded", "{ended}");
        }
        let again = init(path.clone(), auth.clone());
        let frame = next_json(&mut ws).await;
        assert_eq!(frame["relay"]["message"]["method"], "initialize", "{frame}");
        let session = frame["relay"]["session"].as_str().unwrap().to_string();
        send(&mut ws, &json!({ "relay": { "mcp": session, "message": { "jsonrpc": "2.0", "id": 1, "result": { "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "page", "version": "1" } } } } }).to_string()).await;
        assert_eq!(again.await.unwrap().status, 200, "idled-out sessions no longer count");
    })
    .await
    .expect("test timed out");
}

#[test]
fn an_unread_stream_and_unread_resumes_are_bounded_in_bytes() {
    let relay = Relay::start(&["--agent", &mini("")]);
    let id = initialize(relay.port, &[]);
    let before = (rss_kib(relay.pid()), fd_count(relay.pid()));
    let peak = Peak::watch(relay.pid());
    // 64 MiB of notifications toward a client that never reads.
    let unread = open(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[]),
        r#"{"jsonrpc":"2.0","id":2,"method":"big","params":{"count":64,"size":1048576,"_meta":{"progressToken":"u"}}}"#,
    );
    // The server is done once the session answers again (its stdin is read in order).
    let started = Instant::now();
    let after = request(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[]),
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    );
    assert_eq!(messages(&after)[0]["id"], 3);
    std::thread::sleep(Duration::from_millis(300));
    let one = rss_kib(relay.pid());
    println!("FIGURE one unread stream of 64 MiB: RSS {:.1} MB before, {:.1} MB with the stream held ({} ms)", before.0 as f64 / 1024.0, one as f64 / 1024.0, started.elapsed().as_millis());
    assert!(
        one < before.0 + 40 * 1024,
        "one unread stream holds {} KiB more",
        one - before.0
    );

    // A finished stream, read whole, then resumed 30 times by clients that never read.
    let read = request(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[]),
        r#"{"jsonrpc":"2.0","id":4,"method":"big","params":{"count":8,"size":1048576,"_meta":{"progressToken":"r"}}}"#,
    );
    let first = read.events()[0].id.clone().expect("a priming id");
    let resumes: Vec<TcpStream> = (0..30)
        .map(|_| {
            open(
                relay.port,
                "GET",
                &mini_path(),
                &[SSE, ("mcp-session-id", &id), ("last-event-id", &first)],
                "",
            )
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let resumed = rss_kib(relay.pid());
    let peak = peak.done();
    drop(unread);
    drop(resumes);
    let recovered = recover(relay.pid(), before.1, Duration::from_secs(10));
    figure(
        "one unread stream of 64 MiB, then 30 unread resumes of an 8 MiB stream",
        relay.pid(),
        before,
        peak,
        recovered,
    );
    assert!(
        resumed < one + 32 * 1024,
        "30 unread resumes hold {} KiB more",
        resumed.saturating_sub(one)
    );
    // The session still works.
    assert_eq!(
        messages(&request(
            relay.port,
            "POST",
            &mini_path(),
            &in_session(&id, &[]),
            r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#
        ))[0]["id"],
        5
    );
}

#[tokio::test]
async fn hung_posts_and_idle_connections_leave_room_for_new_sessions() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        // A relay that may open 512 files in all.
        let relay = Relay::start_limited(&["--agent", &mini(""), "--agent", "echo=cat", "--request-timeout-ms", "2000"], &[], Some(512));
        let port = relay.port;
        let before = (rss_kib(relay.pid()), fd_count(relay.pid()));
        let peak = Peak::watch(relay.pid());
        let (sessions, hung) = tokio::task::spawn_blocking(move || {
            let sessions: Vec<String> = (0..4).map(|_| initialize(port, &[])).collect();
            // 600 requests that are never answered, each on its own connection, never read.
            let mut hung: Vec<TcpStream> = (0..600).map(|i| open(port, "POST", &mini_path(), &in_session(&sessions[i % 4], &[]), &format!(r#"{{"jsonrpc":"2.0","id":{},"method":"never"}}"#, 100 + i))).collect();
            // Each is answered: a stream that waits (up to the caps), or 503 past them.
            let deadline = Instant::now() + Duration::from_secs(30);
            let (mut streams, mut refused) = (0, 0);
            for s in &mut hung {
                let head = read_until(s, "\r\n\r\n", deadline.saturating_duration_since(Instant::now()));
                if head.starts_with("HTTP/1.1 200") {
                    streams += 1;
                } else if head.starts_with("HTTP/1.1 503") {
                    refused += 1;
                }
            }
            assert_eq!(streams + refused, 600, "every request is answered ({streams} streams, {refused} refused)");
            println!("FIGURE 600 hung POSTs in 4 sessions: {streams} streams held, {refused} refused with 503");
            (sessions, hung)
        })
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(fd_count(relay.pid()) < 508, "the relay stays under its limit of open files: {}", fd_count(relay.pid()));
        // A WebSocket session and a new MCP session still get in, at once.
        let started = Instant::now();
        let mut ws = tokio::time::timeout(Duration::from_secs(5), relay.connect("echo")).await.expect("the WebSocket is answered");
        spawned_pid(&mut ws).await;
        send(&mut ws, r#"{"jsonrpc":"2.0","method":"x"}"#).await;
        assert_eq!(next_text(&mut ws).await, r#"{"jsonrpc":"2.0","method":"x"}"#);
        let fresh = tokio::task::spawn_blocking(move || request(port, "POST", &mini_path(), &[ACCEPT, JSON], INIT)).await.unwrap();
        assert_eq!(fresh.status, 200, "{}", fresh.body);
        println!("FIGURE 600 hung POSTs: a WebSocket and a new session served in {} ms", started.elapsed().as_millis());

        // 300 connections that say nothing: the relay still answers, at once.
        let idle: Vec<TcpStream> = (0..300).map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let started = Instant::now();
        let agents = tokio::task::spawn_blocking(move || http_get(port, &format!("/api/agents?token={TOKEN}"), &[])).await.unwrap();
        assert_eq!(agents.0, 200, "served beside 300 idle connections");
        assert!(started.elapsed() < Duration::from_secs(2), "at once: {:?}", started.elapsed());
        assert!(fd_count(relay.pid()) < 508, "{}", fd_count(relay.pid()));
        let peak = peak.done();
        drop(idle);
        drop(hung);
        drop(ws);
        let pid = relay.pid();
        let base = before.1;
        let recovered = tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            while fd_count(pid) > base + 3 * 5 + 8 && started.elapsed() < Duration::from_secs(20) {
                std::thread::sleep(Duration::from_millis(20));
            }
            started.elapsed()
        })
        .await
        .unwrap();
        figure("600 hung POSTs and 300 idle connections, files limited to 512", relay.pid(), before, peak, recovered);
        drop(sessions);
    })
    .await
    .expect("test timed out");
}

#[test]
fn a_bare_cr_in_an_answer_keeps_the_event_framing() {
    let relay = Relay::start(&["--agent", &mini("")]);
    let id = initialize(relay.port, &[]);
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[]),
        r#"{"jsonrpc":"2.0","id":2,"method":"cr"}"#,
    );
    assert_eq!(
        messages(&a),
        vec![json!({ "jsonrpc": "2.0", "id": 2, "result": { "method": "cr" } })],
        "{:?}",
        a.body
    );
}

#[test]
fn a_batch_to_a_server_that_refuses_batches_is_answered_and_its_stream_ends() {
    let relay = Relay::start(&["--agent", &mini("--no-batch")]);
    let id = initialize(relay.port, &[]);
    let batch = r#"[{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","id":3,"method":"b"}]"#;
    // A client of 2025-06-18 or later: batches are not part of its version; refused at once.
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[]),
        batch,
    );
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.json()["error"]["code"], -32600);
    // A 2025-03-26 client may batch; the server refuses with one error (id null): each request
    // of the batch is answered with it and the stream ends.
    let started = Instant::now();
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &[
            ACCEPT,
            JSON,
            ("mcp-session-id", &id),
            ("mcp-protocol-version", "2025-03-26"),
        ],
        batch,
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the stream ended"
    );
    let got = messages(&a);
    assert_eq!(
        got.iter().map(|m| m["id"].clone()).collect::<Vec<_>>(),
        vec![json!(2), json!(3)],
        "{got:?}"
    );
    assert!(got.iter().all(|m| m["error"]["code"] == -32600), "{got:?}");
    // The session goes on.
    assert_eq!(
        messages(&request(
            relay.port,
            "POST",
            &mini_path(),
            &in_session(&id, &[]),
            r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#
        ))[0]["id"],
        4
    );
}

#[test]
fn every_stream_tells_a_retry_of_at_least_one_second() {
    let relay = Relay::start(&["--agent", &mini("")]);
    let id = initialize(relay.port, &[]);
    let a = request(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[]),
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    );
    let primed = a.events()[0].id.clone().unwrap();
    let resumed = request(
        relay.port,
        "GET",
        &mini_path(),
        &[SSE, ("mcp-session-id", &id), ("last-event-id", &primed)],
        "",
    );
    for body in [&a.body, &resumed.body] {
        let retries: Vec<u64> = body
            .lines()
            .filter_map(|l| l.strip_prefix("retry:"))
            .map(|v| v.trim().parse().unwrap())
            .collect();
        assert!(
            !retries.is_empty() && retries.iter().all(|&r| r >= 1000),
            "{body:?}"
        );
    }
}

#[test]
fn a_session_belongs_to_whoever_made_it() {
    let relay = Relay::start(&[
        "--agent",
        &mini(""),
        "--allow-origin",
        "http://localhost:5173",
    ]);
    let own = relay.origin();
    let id = initialize(relay.port, &[("origin", &own)]);
    // Another allowed page, or a client that is not a browser, with the same id: unknown.
    for other in [vec![("origin", "http://localhost:5173")], vec![]] {
        let a = request(
            relay.port,
            "POST",
            &mini_path(),
            &in_session(&id, &other),
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        );
        assert_eq!(a.status, 404, "{other:?}: {}", a.body);
        let d = request(
            relay.port,
            "DELETE",
            &mini_path(),
            &[("mcp-session-id", id.as_str())]
                .into_iter()
                .chain(other.iter().copied())
                .collect::<Vec<_>>(),
            "",
        );
        assert_eq!(d.status, 404, "{other:?} cannot delete it");
    }
    let mine = request(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[("origin", &own)]),
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    );
    assert_eq!(messages(&mine)[0]["id"], 3, "the maker still uses it");
    // A browser leaves Origin out of a same-origin GET and says so with Sec-Fetch-Site (no
    // page can set it): the maker's own event stream opens.
    let mut own_stream = open(
        relay.port,
        "GET",
        &mini_path(),
        &[
            SSE,
            ("mcp-session-id", &id),
            ("sec-fetch-site", "same-origin"),
        ],
        "",
    );
    let head = read_until(&mut own_stream, "\r\n\r\n", Duration::from_secs(10));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    drop(own_stream);
    // A session a client that is not a browser made is no page's, same-origin or not.
    let bare = initialize(relay.port, &[]);
    let stray = request(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&bare, &[("sec-fetch-site", "same-origin")]),
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
    );
    assert_eq!(stray.status, 404, "{}", stray.body);

    // A reader still reading its stream is not cut off by a resume from another connection.
    let mut first = open(
        relay.port,
        "POST",
        &mini_path(),
        &in_session(&id, &[("origin", &own)]),
        r#"{"jsonrpc":"2.0","id":4,"method":"slow"}"#,
    );
    let head = read_until(&mut first, "retry:", Duration::from_secs(10));
    let primed = head
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("a priming id")
        .trim()
        .to_string();
    let second = request(
        relay.port,
        "GET",
        &mini_path(),
        &[
            SSE,
            ("mcp-session-id", &id),
            ("last-event-id", &primed),
            ("origin", &own),
        ],
        "",
    );
    assert_eq!(second.status, 409, "{}", second.body);
    let rest = read_until(&mut first, "\"slow\"", Duration::from_secs(10));
    assert!(
        rest.contains(r#""id":4"#),
        "the first reader got its answer: {rest:?}"
    );
}

#[tokio::test]
async fn a_page_that_stops_reading_holds_what_waits_for_it_bounded_in_bytes() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "echo=cat"]);
        let mut ws = relay.connect("echo").await;
        spawned_pid(&mut ws).await;
        send(&mut ws, r#"{"relay":{"host":"ide"}}"#).await;
        let hosted = next_json(&mut ws).await;
        let url = hosted["relay"]["url"].as_str().unwrap().to_string();
        let path = url.trim_start_matches(&format!("http://127.0.0.1:{}", relay.port)).to_string();
        let auth = hosted["relay"]["authorization"].as_str().unwrap().to_string();
        let (port, pid) = (relay.port, relay.pid());
        let init = {
            let (path, auth) = (path.clone(), auth.clone());
            tokio::task::spawn_blocking(move || request(port, "POST", &path, &[ACCEPT, JSON, ("authorization", &auth)], INIT))
        };
        let frame = next_json(&mut ws).await;
        let session = frame["relay"]["session"].as_str().unwrap().to_string();
        let answer = json!({ "relay": { "mcp": session, "message": { "jsonrpc": "2.0", "id": 1, "result": { "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "page", "version": "1" } } } } });
        send(&mut ws, &answer.to_string()).await;
        assert_eq!(init.await.unwrap().status, 200);

        // The page reads nothing more; its agent sends 64 notifications of 1 MiB.
        let before = (rss_kib(pid), fd_count(pid));
        let (held, posts) = tokio::task::spawn_blocking(move || {
            let body = format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{}"}}}}"#, "x".repeat(1 << 20));
            let headers = [ACCEPT, JSON, ("authorization", auth.as_str()), ("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
            let posts: Vec<TcpStream> = (0..64).map(|_| open(port, "POST", &path, &headers, &body)).collect();
            std::thread::sleep(Duration::from_secs(2));
            (rss_kib(pid), posts)
        })
        .await
        .unwrap();
        println!(
            "FIGURE a hosting page that stops reading, 64 messages of 1 MiB for it: RSS {:.1} MB before, {:.1} MB held",
            before.0 as f64 / 1024.0,
            held as f64 / 1024.0
        );
        assert!(held < before.0 + 40 * 1024, "what waits for the page is bounded: {} KiB more", held - before.0);

        // The page reads again: every message taken (202) reaches it, the others were refused (503).
        let mut delivered = 0;
        while let Ok(Seen::Text(t)) = tokio::time::timeout(Duration::from_secs(2), next(&mut ws)).await {
            if t.contains(r#""event":"mcp""#) {
                delivered += 1;
            }
        }
        let answers = tokio::task::spawn_blocking(move || {
            posts.into_iter().map(|mut s| read_until(&mut s, "\r\n\r\n", Duration::from_secs(5))).collect::<Vec<_>>()
        })
        .await
        .unwrap();
        let taken = answers.iter().filter(|a| a.starts_with("HTTP/1.1 202")).count();
        let refused = answers.iter().filter(|a| a.starts_with("HTTP/1.1 503")).count();
        assert_eq!((taken + refused, taken), (64, delivered), "each answered; each one taken delivered");
        assert!(taken >= 1, "the messages that fit were taken");
    })
    .await
    .expect("test timed out");
}
