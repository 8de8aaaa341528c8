#![cfg(not(target_arch = "wasm32"))]
//! The relay under load and faults, with real processes on loopback: many connections at once,
//! agents killed, pages gone, a flooding agent and a page that does not read, the relay itself
//! killed and started again. Processes are counted before and after every test: no orphans.
//! Figures are printed (run with `--nocapture`) for docs/RELIABILITY.md.

mod common;

use std::time::{Duration, Instant};

use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

/// The tests measure memory and time: one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
/// How long agents may take to be gone after their session ended.
const REAP: Duration = Duration::from_secs(5);

fn figure(what: &str, value: impl std::fmt::Display) {
    println!("FIGURE {what}: {value}");
}

/// The relay has no agent left, within `REAP`.
async fn assert_no_children(relay: &Relay) {
    let pid = relay.pid();
    let left = none_left_within(REAP, || children_of(pid).len()).await;
    assert_eq!(
        left,
        0,
        "the relay still has children: {:?}",
        children_of(pid)
    );
}

/// What the page receives up to the close: (JSON-RPC frames, relay events, close).
async fn drain(ws: &mut Ws) -> (Vec<String>, Vec<Value>, Option<(u16, String)>) {
    let (mut frames, mut events) = (Vec::new(), Vec::new());
    loop {
        match next(ws).await {
            Seen::Text(t) if t.starts_with(r#"{"relay":"#) => {
                events.push(serde_json::from_str::<Value>(&t).unwrap()["relay"].clone());
            }
            Seen::Text(t) => frames.push(t),
            Seen::Closed(close) => return (frames, events, close),
        }
    }
}

/// `n` numbered messages of connection `c`, in order, each checked on the way back.
fn message(c: usize, i: usize) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"load","params":{{"c":{c},"i":{i}}}}}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_connections_each_with_its_own_agent_and_ten_thousand_messages() {
    let _serial = SERIAL.lock().await;
    timeout(TEST_TIMEOUT, async {
        const CONNECTIONS: usize = 50;
        const MESSAGES: usize = 10_000;
        let relay = Relay::start(&["--max-connections", "50", "--agent", "cat"]);
        assert!(children_of(relay.pid()).is_empty());
        let rss_before = rss_kib(relay.pid());
        let mut pages = Vec::new();
        let mut pids = Vec::new();
        for _ in 0..CONNECTIONS {
            let mut ws = relay.connect("default").await;
            pids.push(spawned_pid(&mut ws).await);
            pages.push(ws);
        }
        pids.sort_unstable();
        pids.dedup();
        assert_eq!(pids.len(), CONNECTIONS, "one agent per connection");
        let mut agents = children_of(relay.pid());
        agents.sort_unstable();
        assert_eq!(agents, pids, "the agents are the relay's children");

        let started = Instant::now();
        let tasks: Vec<_> = pages
            .into_iter()
            .enumerate()
            .map(|(c, ws)| {
                tokio::spawn(async move {
                    let (mut tx, mut rx) = ws.split();
                    let writer = tokio::spawn(async move {
                        for i in 0..MESSAGES {
                            tx.feed(Message::Text(message(c, i).into())).await.unwrap();
                        }
                        tx.flush().await.unwrap();
                        tx
                    });
                    for i in 0..MESSAGES {
                        match timeout(FRAME_TIMEOUT, rx.next()).await.expect("a frame in time") {
                            Some(Ok(Message::Text(t))) => assert_eq!(t.as_str(), message(c, i), "connection {c}, message {i}"),
                            other => panic!("connection {c}, message {i}: {other:?}"),
                        }
                    }
                    let mut tx = writer.await.unwrap();
                    tx.close().await.unwrap();
                })
            })
            .collect();
        let mut peak = 0;
        let mut tasks = std::pin::pin!(futures_util::future::try_join_all(tasks));
        let pid = relay.pid();
        loop {
            tokio::select! {
                done = &mut tasks => { done.expect("every connection got its messages back in order"); break; }
                _ = tokio::time::sleep(Duration::from_millis(100)) => peak = peak.max(rss_kib(pid)),
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        let total = CONNECTIONS * MESSAGES;
        figure("50 connections: messages echoed (each way)", total);
        figure("50 connections: seconds", format!("{seconds:.2}"));
        figure("50 connections: messages/s (round trips)", format!("{:.0}", total as f64 / seconds));
        figure("50 connections: relay RSS before / peak (KiB)", format!("{rss_before} / {peak}"));

        for pid in &pids {
            assert!(gone_within(*pid, REAP).await, "agent {pid} outlived its page");
        }
        assert_no_children(&relay).await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn an_agent_killed_mid_stream_is_reported_and_the_socket_closes() {
    let _serial = SERIAL.lock().await;
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "cat"]);
        let mut ws = relay.connect("default").await;
        let pid = spawned_pid(&mut ws).await;
        for i in 0..1000 {
            send(&mut ws, &message(0, i)).await;
        }
        assert_eq!(
            next_text(&mut ws).await,
            message(0, 0),
            "the stream is flowing"
        );
        signal(pid, libc::SIGKILL);
        // The page may go on sending into the dying session; nothing breaks.
        for i in 1000..1100 {
            if ws.send(Message::Text(message(0, i).into())).await.is_err() {
                break;
            }
        }
        let (frames, events, close) = drain(&mut ws).await;
        // What came back before the end is an unbroken, ordered run.
        for (k, frame) in frames.iter().enumerate() {
            assert_eq!(frame, &message(0, k + 1), "frame {k}");
        }
        let exit = events.last().expect("an exit event");
        assert_eq!(exit["event"], "exit", "{events:?}");
        assert_eq!(exit["signal"], "SIGKILL");
        assert_eq!(close, Some((1011, "the agent was ended by SIGKILL".into())));
        figure(
            "killed agent: messages echoed before the kill was seen",
            frames.len() + 1,
        );
        assert!(!alive(pid));
        assert_no_children(&relay).await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_page_gone_mid_stream_ends_its_agent() {
    let _serial = SERIAL.lock().await;
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&[
            "--agent",
            "cat",
            "--agent",
            r#"flood=yes '{"jsonrpc":"2.0","method":"x"}'"#,
        ]);
        // A page that was sending, and one that was receiving, drop their TCP connection.
        for agent in ["default", "flood"] {
            let mut ws = relay.connect(agent).await;
            let pid = spawned_pid(&mut ws).await;
            for i in 0..500 {
                send(&mut ws, &message(0, i)).await;
            }
            assert!(!next_text(&mut ws).await.is_empty());
            let started = Instant::now();
            drop(ws);
            assert!(
                gone_within(pid, REAP).await,
                "{agent}: agent {pid} outlived its page"
            );
            figure(
                &format!("page gone: {agent} agent gone after (ms)"),
                started.elapsed().as_millis(),
            );
        }
        assert_no_children(&relay).await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_flooding_agent_and_a_page_that_does_not_read_keep_memory_bounded() {
    let _serial = SERIAL.lock().await;
    timeout(TEST_TIMEOUT, async {
        const CEILING_KIB: u64 = 64 * 1024;
        let line = r#"{"jsonrpc":"2.0","method":"x"}"#;
        let relay = Relay::start(&["--agent", &format!("yes '{line}'")]);
        let pid = relay.pid();
        let before = rss_kib(pid);
        let mut ws = relay.connect("default").await;
        let agent = spawned_pid(&mut ws).await;
        assert_eq!(next_text(&mut ws).await, line);
        // The page stops reading for three seconds while the agent writes as fast as it can.
        let mut peak = 0;
        for _ in 0..30 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            peak = peak.max(rss_kib(pid));
        }
        assert!(alive(agent), "the agent is blocked, not ended");
        let growth = peak.saturating_sub(before);
        figure(
            "flood, page not reading 3 s: relay RSS before / peak / growth (KiB)",
            format!("{before} / {peak} / {growth}"),
        );
        assert!(growth < CEILING_KIB, "relay memory grew by {growth} KiB");
        // Then it reads again: the stream goes on, whole lines in order.
        let started = Instant::now();
        for _ in 0..100_000 {
            assert_eq!(next_text(&mut ws).await, line);
        }
        figure(
            "flood: 100000 frames read after the pause in (s)",
            format!("{:.2}", started.elapsed().as_secs_f64()),
        );
        ws.close(None).await.unwrap();
        assert!(gone_within(agent, REAP).await);
        assert_no_children(&relay).await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_relay_leaves_no_agent_behind_and_a_new_one_takes_its_port() {
    let _serial = SERIAL.lock().await;
    timeout(TEST_TIMEOUT, async {
        // The agent ignores SIGTERM and the EOF on its stdin: only the relay's own care ends it.
        let marker = format!("agentwire-load-marker-{}", std::process::id());
        let stubborn = format!(
            r#"stubborn=sh -c 'trap "" TERM; echo "{{}}"; while :; do sleep 0.05; done' {marker}"#
        );
        assert!(with_marker(&marker).is_empty());
        for signal_name in ["SIGKILL", "SIGTERM"] {
            let mut relay = Relay::start(&["--agent", &stubborn, "--agent", "cat"]);
            let port = relay.port.to_string();
            // The relay's own command line holds the marker too.
            let relay_pid = relay.pid();
            let agents = || {
                with_marker(&marker)
                    .into_iter()
                    .filter(|&p| p != relay_pid)
                    .collect::<Vec<_>>()
            };
            let mut pages = Vec::new();
            for _ in 0..3 {
                let mut ws = relay.connect("stubborn").await;
                spawned_pid(&mut ws).await;
                assert_eq!(next_text(&mut ws).await, "{}");
                pages.push(ws);
            }
            assert_eq!(agents().len(), 3, "{:?}", agents());
            let started = Instant::now();
            if signal_name == "SIGKILL" {
                signal(relay.pid(), libc::SIGKILL);
            } else {
                tokio::task::block_in_place(|| relay.terminate())
                    .expect("the relay exits on SIGTERM");
            }
            let left = none_left_within(REAP, || agents().len()).await;
            let orphans = agents();
            orphans.iter().for_each(|&p| signal(p, libc::SIGKILL)); // so a failure leaves nothing behind
            assert_eq!(
                left, 0,
                "after {signal_name} of the relay, agents are left: {orphans:?}"
            );
            figure(
                &format!("relay ended by {signal_name}: its 3 agents gone after (ms)"),
                started.elapsed().as_millis(),
            );
            // The pages see their socket end.
            for mut ws in pages {
                let (_, _, _close) = drain(&mut ws).await;
            }
            drop(relay);

            // A new relay on the same port serves new pages.
            let relay = Relay::start(&["--port", &port, "--agent", "cat"]);
            assert_eq!(relay.port.to_string(), port);
            let mut ws = relay.connect("default").await;
            spawned_pid(&mut ws).await;
            send(&mut ws, &message(1, 1)).await;
            assert_eq!(next_text(&mut ws).await, message(1, 1));
            ws.close(None).await.unwrap();
            assert_no_children(&relay).await;
        }
    })
    .await
    .expect("test timed out");
}
