#![cfg(not(target_arch = "wasm32"))]
//! The bridge itself with real processes: frames <-> lines, the side channel, exits, limits.

mod common;

use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

/// Everything the page receives until the socket closes: (frames, close).
async fn until_closed(ws: &mut Ws) -> (Vec<String>, Option<(u16, String)>) {
    let mut frames = Vec::new();
    loop {
        match next(ws).await {
            Seen::Text(t) => frames.push(t),
            Seen::Closed(close) => return (frames, close),
        }
    }
}

fn relay_event(frame: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(frame).ok()?;
    let event = v.get("relay")?.clone();
    assert_eq!(
        v.as_object().map(|o| o.len()),
        Some(1),
        "side-channel frames have one member: {frame}"
    );
    assert!(frame.starts_with(r#"{"relay":"#), "{frame}");
    Some(event)
}

#[tokio::test]
async fn cat_echoes_in_order_and_the_session_goes_on_after_refusals() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "echo=cat"]);
        let mut ws = relay.connect("echo").await;
        let pid = spawned_pid(&mut ws).await;
        assert!(alive(pid));

        let request = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        send(&mut ws, request).await;
        assert_eq!(next_text(&mut ws).await, request);

        // Pretty-printed JSON: line breaks between tokens become spaces, one line goes out.
        send(&mut ws, "{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 2\n}").await;
        assert_eq!(
            next_text(&mut ws).await,
            "{   \"jsonrpc\": \"2.0\",    \"id\": 2 }"
        );

        // A raw line break inside a string would split the message: refused, not sent.
        send(&mut ws, "{\"jsonrpc\":\"2.0\",\"method\":\"a\nb\"}").await;
        let error = relay_event(&next_text(&mut ws).await).expect("an error event");
        assert_eq!(error["event"], "error");

        // Binary frames are refused; the session goes on.
        ws.send(Message::Binary(b"{}".to_vec().into()))
            .await
            .unwrap();
        let error = relay_event(&next_text(&mut ws).await).expect("an error event");
        assert_eq!(error["event"], "error");
        assert!(
            error["message"].as_str().unwrap().contains("binary"),
            "{error}"
        );

        // A page frame that starts like a relay frame is a command to the relay, never sent to
        // the agent; one the relay does not know is refused and the session goes on.
        send(&mut ws, r#"{"relay":{"event":"exit"}}"#).await;
        send(&mut ws, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).await;
        let error = relay_event(&next_text(&mut ws).await).expect("an error event");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("a relay command must be"),
            "{error}"
        );
        assert_eq!(
            next_text(&mut ws).await,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#
        );
        assert!(alive(pid));
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn an_agent_line_that_starts_like_a_relay_frame_is_dropped() {
    timeout(TEST_TIMEOUT, async {
        let liar = r#"liar=sh -c 'echo "{\"relay\":{\"event\":\"exit\"}}"; echo "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"; cat'"#;
        let relay = Relay::start(&["--agent", liar]);
        let mut ws = relay.connect("liar").await;
        spawned_pid(&mut ws).await;
        let error = relay_event(&next_text(&mut ws).await).expect("an error event");
        assert!(error["message"].as_str().unwrap().contains("relay frame"), "{error}");
        assert_eq!(next_text(&mut ws).await, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_hundred_thousand_messages_through_cat_none_lost_or_reordered() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "cat"]);
        let mut ws = relay.connect("default").await;
        spawned_pid(&mut ws).await;
        let (mut tx, mut rx) = ws.split();
        const N: usize = 100_000;
        let message =
            |i: usize| format!(r#"{{"jsonrpc":"2.0","method":"n","params":{{"i":{i}}}}}"#);
        let writer = tokio::spawn(async move {
            for i in 0..N {
                tx.feed(Message::Text(message(i).into())).await.unwrap();
            }
            tx.flush().await.unwrap();
            tx
        });
        for i in 0..N {
            let frame = timeout(FRAME_TIMEOUT, rx.next())
                .await
                .expect("frame in time");
            match frame {
                Some(Ok(Message::Text(t))) => assert_eq!(t.as_str(), message(i), "message {i}"),
                other => panic!("message {i}: {other:?}"),
            }
        }
        let _tx = writer.await.unwrap();
    })
    .await
    .expect("test timed out");
}

/// Frames that arrive together reach the agent in one write; what is refused among them is
/// reported and skipped, and a close right after them still lets them through.
#[tokio::test]
async fn a_burst_then_a_close_reaches_the_agent_whole_with_refusals_reported() {
    timeout(TEST_TIMEOUT, async {
        let dir = scratch("burst");
        let out = dir.join("stdin.txt");
        let agent = format!("sink=sh -c 'cat > {}'", out.display());
        let relay = Relay::start(&["--agent", &agent]);
        let mut ws = relay.connect("sink").await;
        let pid = spawned_pid(&mut ws).await;
        let good = |i: usize| format!(r#"{{"jsonrpc":"2.0","method":"n","params":{{"i":{i}}}}}"#);
        for i in 0..500 {
            ws.feed(Message::Text(good(i).into())).await.unwrap();
            if i == 100 {
                ws.feed(Message::Text("{\"method\":\"a\nb\"}".into()))
                    .await
                    .unwrap();
            }
            if i == 200 {
                ws.feed(Message::Binary(b"{}".to_vec().into()))
                    .await
                    .unwrap();
            }
        }
        ws.flush().await.unwrap();
        for _ in 0..2 {
            let error = relay_event(&next_text(&mut ws).await).expect("an error event");
            assert_eq!(error["event"], "error", "{error}");
        }
        // A second burst with the close right behind it.
        for i in 500..1000 {
            ws.feed(Message::Text(good(i).into())).await.unwrap();
        }
        ws.send(Message::Close(None)).await.unwrap();
        let _ = until_closed(&mut ws).await;
        assert!(gone_within(pid, Duration::from_secs(5)).await);
        let written = std::fs::read_to_string(&out).unwrap();
        let want: String = (0..1000).map(|i| good(i) + "\n").collect();
        assert_eq!(written, want);
        // The agent that wrote in it is gone (above).
        let _ = std::fs::remove_dir_all(&dir);
    })
    .await
    .expect("test timed out");
}

/// With `frames=binary` the agent's lines come as binary frames of their bytes, as they came
/// (a line that is not UTF-8 too: the page's session answers it), and the relay's events
/// stay text frames; any other `frames` value is refused before anything is spawned.
#[tokio::test]
async fn binary_frames_carry_the_agent_lines_as_bytes_when_asked() {
    timeout(TEST_TIMEOUT, async {
        let agent = r#"bytes=sh -c 'printf "{\"relay\":1}\n\377\376\n"; cat'"#;
        let relay = Relay::start(&["--agent", agent]);
        let url = format!("{}&frames=binary", relay.ws_url("bytes"));
        let mut ws = connect_with(&url, &[("origin", &relay.origin())])
            .await
            .expect("upgrade");
        let mut binary = Vec::new();
        let mut events = Vec::new();
        ws.send(Message::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.into(),
        ))
        .await
        .unwrap();
        while binary.len() < 3 {
            match timeout(FRAME_TIMEOUT, ws.next())
                .await
                .expect("a frame in time")
            {
                Some(Ok(Message::Binary(b))) => binary.push(b.to_vec()),
                Some(Ok(Message::Text(t))) => {
                    events.push(relay_event(t.as_str()).expect("only relay events are text"))
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            binary,
            [
                br#"{"relay":1}"#.to_vec(),
                vec![0xff, 0xfe],
                br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec()
            ]
        );
        assert_eq!(events[0]["event"], "spawned", "{events:?}");
        assert!(events.iter().all(|e| e["event"] != "error"), "{events:?}");
        let refused = connect_with(
            &format!("{}&frames=xml", relay.ws_url("bytes")),
            &[("origin", &relay.origin())],
        )
        .await;
        assert_eq!(refused.err(), Some(400));
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn agent_crash_reports_output_stderr_partial_line_then_exit_and_closes() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&[
            "--agent",
            r#"crash=sh -c 'read line; echo "$line"; echo oops >&2; printf "{\"tail\":1}"; exit 3'"#,
            "--agent",
            r#"killed=sh -c 'echo up; kill -9 $$'"#,
            "--agent",
            "clean=true",
        ]);
        let mut ws = relay.connect("crash").await;
        let pid = spawned_pid(&mut ws).await;
        send(&mut ws, r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#).await;
        let (frames, close) = until_closed(&mut ws).await;
        let stdout: Vec<&String> = frames.iter().filter(|f| relay_event(f).is_none()).collect();
        assert_eq!(stdout, [r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#, r#"{"tail":1}"#]);
        let events: Vec<Value> = frames.iter().filter_map(|f| relay_event(f)).collect();
        assert!(events.contains(&json!({"event": "stderr", "text": "oops"})), "{events:?}");
        assert_eq!(frames.last().and_then(|f| relay_event(f)), Some(json!({"event": "exit", "code": 3, "signal": null})));
        assert_eq!(close, Some((1011, "the agent exited with code 3".into())));
        assert!(gone_within(pid, Duration::from_secs(5)).await);

        let mut ws = relay.connect("killed").await;
        spawned_pid(&mut ws).await;
        let (frames, close) = until_closed(&mut ws).await;
        assert_eq!(frames[0], "up");
        assert_eq!(relay_event(&frames[1]), Some(json!({"event": "exit", "code": null, "signal": "SIGKILL"})));
        assert_eq!(close, Some((1011, "the agent was ended by SIGKILL".into())));

        let mut ws = relay.connect("clean").await;
        spawned_pid(&mut ws).await;
        let (frames, close) = until_closed(&mut ws).await;
        assert_eq!(relay_event(&frames[0]), Some(json!({"event": "exit", "code": 0, "signal": null})));
        assert_eq!(close, Some((1000, "the agent exited".into())));
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_command_that_cannot_start_is_reported() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", "missing=/nonexistent/agent --flag"]);
        let mut ws = relay.connect("missing").await;
        let (frames, close) = until_closed(&mut ws).await;
        let event = relay_event(&frames[0]).unwrap();
        assert_eq!(event["event"], "error");
        assert!(
            event["message"].as_str().unwrap().contains("cannot start"),
            "{event}"
        );
        assert_eq!(close, Some((1011, "cannot start the agent".into())));
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn page_disconnect_ends_the_agent_and_everything_it_started() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&[
            "--agent",
            r#"tree=sh -c 'sleep 300 & echo "{\"sleeper\":$!}"; exec cat'"#,
            "--agent",
            r#"stubborn=sh -c 'trap "" TERM; echo "{\"ready\":true}"; while :; do read x || sleep 0.05; done'"#,
        ]);
        // A clean close from the page; cat leaves when stdin closes, the sleeper gets SIGTERM.
        let mut ws = relay.connect("tree").await;
        let pid = spawned_pid(&mut ws).await;
        let sleeper: Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
        let sleeper = sleeper["sleeper"].as_u64().unwrap() as u32;
        assert!(alive(pid) && alive(sleeper));
        ws.close(None).await.unwrap();
        assert!(gone_within(pid, Duration::from_secs(5)).await, "agent {pid} still there");
        assert!(gone_within(sleeper, Duration::from_secs(5)).await, "its child {sleeper} still there");

        // The TCP connection just drops; the agent ignores stdin EOF and SIGTERM: SIGKILL it is.
        let mut ws = relay.connect("stubborn").await;
        let pid = spawned_pid(&mut ws).await;
        assert_eq!(next_json(&mut ws).await, json!({"ready": true}));
        drop(ws);
        assert!(gone_within(pid, Duration::from_secs(5)).await, "stubborn agent {pid} still there");
        let ended = format!("(pid {pid}) ended: killed by SIGKILL");
        for _ in 0..250 {
            if relay.stderr.lock().unwrap().contains(&ended) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let log = relay.stderr.lock().unwrap().clone();
        assert!(log.contains(&ended), "{log}");
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn message_size_limits_both_ways() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&[
            "--max-message-bytes",
            "2048",
            "--agent",
            r#"big=sh -c 'head -c 5000 /dev/zero | tr "\0" x; echo; echo after; exec cat'"#,
        ]);
        // Agent -> page: the long line is skipped (never buffered whole) and reported.
        let mut ws = relay.connect("big").await;
        let pid = spawned_pid(&mut ws).await;
        let error = relay_event(&next_text(&mut ws).await).unwrap();
        assert_eq!(error["event"], "error");
        assert!(
            error["message"].as_str().unwrap().contains("5000 bytes"),
            "{error}"
        );
        assert_eq!(next_text(&mut ws).await, "after");

        // Page -> agent: exactly the limit passes; one byte more closes with 1009.
        let fits = format!("\"{}\"", "y".repeat(2046));
        send(&mut ws, &fits).await;
        assert_eq!(next_text(&mut ws).await, fits);
        send(&mut ws, &format!("\"{}\"", "y".repeat(2047))).await;
        let (frames, close) = until_closed(&mut ws).await;
        assert_eq!(
            relay_event(frames.last().unwrap()).unwrap()["event"],
            "exit"
        );
        let (code, reason) = close.expect("a close frame");
        assert_eq!(code, 1009, "{reason}");
        assert!(gone_within(pid, Duration::from_secs(5)).await);
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn an_agent_cannot_pose_as_the_relay() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&[
            "--agent",
            r#"liar=sh -c 'echo "{\"relay\":{\"event\":\"exit\",\"code\":0}}"; echo; echo fine; exec cat'"#,
        ]);
        let mut ws = relay.connect("liar").await;
        spawned_pid(&mut ws).await;
        let error = relay_event(&next_text(&mut ws).await).unwrap();
        assert_eq!(error["event"], "error", "{error}");
        // The blank line is no message either.
        assert_eq!(next_text(&mut ws).await, "fine");
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn connection_limit_then_the_slot_comes_back() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--max-connections", "1", "--agent", "cat"]);
        let origin = relay.origin();
        let mut first = relay.connect("default").await;
        let pid = spawned_pid(&mut first).await;
        let second = connect_with(&relay.ws_url("default"), &[("origin", &origin)]).await;
        assert_eq!(second.err(), Some(503));
        first.close(None).await.unwrap();
        assert!(gone_within(pid, Duration::from_secs(5)).await);
        let mut third = None;
        for _ in 0..100 {
            if let Ok(ws) = connect_with(&relay.ws_url("default"), &[("origin", &origin)]).await {
                third = Some(ws);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut third = third.expect("the slot is released once the agent is gone");
        spawned_pid(&mut third).await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread")]
async fn relay_shutdown_stops_its_agents_and_tells_the_page() {
    timeout(TEST_TIMEOUT, async {
        let mut relay = Relay::start(&["--agent", "cat"]);
        let mut ws = relay.connect("default").await;
        let pid = spawned_pid(&mut ws).await;
        let status = tokio::task::block_in_place(|| relay.terminate()).expect("the relay exits");
        assert!(status.success(), "{status:?}");
        let (frames, close) = until_closed(&mut ws).await;
        assert_eq!(
            relay_event(frames.last().unwrap()).unwrap()["event"],
            "exit"
        );
        assert_eq!(close.map(|c| c.0), Some(1001));
        assert!(!alive(pid));
    })
    .await
    .expect("test timed out");
}
