//! The Rust transcript model over a script of client calls and received frames, for the test
//! that the JS model (js/transcript.js) builds the same transcripts
//! (tests/js/transcript.test.mjs). Reads JSON lines on stdin:
//! `{"initialize": {config}}`, `{"request": [method, params]}`, `{"receive": "frame text"}`;
//! writes `{sessionId: transcript, …}`.
use agentwire::acp::{AcpClient, ClientConfig};
use serde_json::{Map, Value};
use std::io::BufRead;

fn main() {
    let mut client: Option<AcpClient> = None;
    for line in std::io::stdin().lock().lines() {
        let step: Value = serde_json::from_str(&line.expect("stdin")).expect("a JSON line");
        if let Some(config) = step.get("initialize") {
            let config: ClientConfig = serde_json::from_value(config.clone()).expect("config");
            let mut c = AcpClient::new(config);
            c.initialize(0).expect("initialize");
            client = Some(c);
        } else if let Some(call) = step.get("request") {
            let c = client.as_mut().expect("initialized first");
            let method = call[0].as_str().expect("method");
            // A refused call is refused alike in JS: nothing to record.
            let _ = c.request(method, Some(call[1].clone()), 0);
        } else if let Some(frame) = step.get("receive").and_then(Value::as_str) {
            client
                .as_mut()
                .expect("initialized first")
                .receive(frame, 0);
        }
    }
    let c = client.expect("a script");
    let mut out = Map::new();
    for id in c.session_ids() {
        let t = serde_json::to_value(c.transcript(id)).expect("json");
        out.insert(id.to_owned(), t);
    }
    println!("{}", Value::Object(out));
}
