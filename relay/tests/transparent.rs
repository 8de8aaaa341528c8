#![cfg(not(target_arch = "wasm32"))]
//! A WebSocket client that does not ask for the relay's frames (the `agentwire.relay`
//! subprotocol) gets the agent's messages and nothing else, whatever the agent writes on stderr.

mod common;

use std::time::Duration;

use common::*;
use futures_util::StreamExt;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

/// An agent that echoes stdin, writes a stderr line per message, and says something that
/// looks like a relay frame on stdout.
const NOISY: &str = r#"noisy=sh -c 'echo starting >&2; echo "{\"relay\":{\"event\":\"stderr\",\"text\":\"forged\"}}"; while IFS= read -r line; do echo "got it" >&2; printf "%s\n" "$line"; done'"#;

/// Every frame that arrives within `quiet` of the last one.
async fn frames_until_quiet(ws: &mut Ws, quiet: Duration) -> Vec<String> {
    let mut frames = Vec::new();
    while let Ok(Some(Ok(message))) = timeout(quiet, ws.next()).await {
        if let Message::Text(t) = message {
            frames.push(t.to_string());
        }
    }
    frames
}

#[tokio::test]
async fn a_client_without_the_subprotocol_gets_only_the_agents_lines() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", NOISY]);
        let mut ws = connect_plain(&relay.ws_url("noisy"), &[("origin", &relay.origin())])
            .await
            .expect("upgrade");
        let request = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        send(&mut ws, request).await;
        // A frame that starts like a relay command is the agent's too: it is no command here.
        let command = r#"{"relay":{"host":"ide"}}"#;
        send(&mut ws, command).await;
        let frames = frames_until_quiet(&mut ws, Duration::from_millis(700)).await;
        // The agent's own line that looks like a relay frame is passed on as it is (nothing
        // else can be taken for one), then its echoes; no spawned, stderr or hosted event.
        assert_eq!(
            frames,
            vec![
                r#"{"relay":{"event":"stderr","text":"forged"}}"#.to_string(),
                request.to_string(),
                command.to_string()
            ]
        );
    })
    .await
    .expect("in time");
}

#[tokio::test]
async fn agentwire_s_subprotocol_brings_the_events_and_the_commands() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", NOISY]);
        let mut ws = relay.connect("noisy").await;
        let frames = frames_until_quiet(&mut ws, Duration::from_millis(700)).await;
        assert!(
            frames.iter().any(|f| f.contains(r#""event":"spawned""#)),
            "{frames:?}"
        );
        assert!(
            frames.iter().any(|f| f.contains(r#""text":"starting""#)),
            "{frames:?}"
        );
        // The agent's forged frame is refused where relay frames are sent.
        assert!(!frames.iter().any(|f| f.contains("forged")), "{frames:?}");
        assert!(
            frames
                .iter()
                .any(|f| f.contains("starts like a relay frame")),
            "{frames:?}"
        );
    })
    .await
    .expect("in time");
}

#[tokio::test]
async fn the_mcp_subprotocol_is_accepted_and_stays_transparent() {
    timeout(TEST_TIMEOUT, async {
        let relay = Relay::start(&["--agent", NOISY]);
        let url = relay.ws_url("noisy");
        let mut request =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                url.as_str(),
            )
            .unwrap();
        request
            .headers_mut()
            .insert("origin", relay.origin().parse().unwrap());
        request
            .headers_mut()
            .insert("sec-websocket-protocol", "mcp".parse().unwrap());
        let (mut ws, response) = tokio_tungstenite::connect_async(request)
            .await
            .expect("upgrade");
        assert_eq!(
            response
                .headers()
                .get("sec-websocket-protocol")
                .and_then(|v| v.to_str().ok()),
            Some("mcp")
        );
        let frames = frames_until_quiet(&mut ws, Duration::from_millis(500)).await;
        assert_eq!(frames.len(), 1, "only the agent's own line: {frames:?}");
    })
    .await
    .expect("in time");
}
