#![cfg(not(target_arch = "wasm32"))]
//! Interop with a real MCP server nobody here wrote: `@modelcontextprotocol/server-everything`
//! over stdio, driven by our client session, for every handshake-era version and in auto era.
//! Skips (saying so) when `node_modules` is missing; every wait is bounded.

use agentwire::mcp::{ClientConfig, Event, McpClient, RequestOptions};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(15);

fn server_script() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !path.is_file() {
        eprintln!(
            "SKIPPED: {} is missing; run `npm install` to test against the reference server",
            path.display()
        );
        return None;
    }
    Some(path)
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    started: Instant,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn spawn(script: &PathBuf) -> Server {
        let mut child = Command::new("node")
            .arg(script)
            .arg("stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
            started: Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn write(&mut self, text: &str) {
        writeln!(self.stdin, "{text}").expect("write to server");
        self.stdin.flush().unwrap();
    }

    /// Feeds the server's output to the client, sending what it answers, until an
    /// event matches; panics after `WAIT`.
    fn until(
        &mut self,
        client: &mut McpClient,
        mut done: impl FnMut(&Event) -> bool,
    ) -> Vec<Event> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "no answer from server-everything in time; saw {seen:?}"
            );
            let events = match self
                .lines
                .recv_timeout(left.min(Duration::from_millis(200)))
            {
                Ok(line) => client.receive(&line, self.now()),
                Err(_) => client.tick(self.now()),
            };
            let mut finished = false;
            for e in events {
                if let Event::Send { text } = &e {
                    self.write(text);
                }
                finished |= done(&e);
                seen.push(e);
            }
            if finished {
                return seen;
            }
        }
    }
}

fn client(value: Value) -> McpClient {
    McpClient::new(serde_json::from_value::<ClientConfig>(value).unwrap())
}

fn response_of(events: &[Event], id: &agentwire::jsonrpc::Id) -> Value {
    events
        .iter()
        .find_map(|e| match e {
            Event::Response { id: i, result, .. } if i == id => Some(result.value()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no response to {id}: {events:?}"))
}

fn exercise(script: &PathBuf, config: Value, expected_version: &str, expected_era: &str) {
    let mut server = Server::spawn(script);
    let mut c = client(config);
    let out = c.initialize(server.now()).unwrap();
    server.write(&out.text);
    let events = server.until(&mut c, |e| {
        matches!(e, Event::Initialized { .. } | Event::Closed { .. })
    });
    let init = events
        .iter()
        .find(|e| matches!(e, Event::Initialized { .. }))
        .unwrap_or_else(|| panic!("{events:?}"));
    let Event::Initialized {
        protocol_version,
        era,
        peer_capabilities,
        peer_info,
        ..
    } = init
    else {
        unreachable!()
    };
    assert_eq!(protocol_version, expected_version);
    assert_eq!(serde_json::to_value(era).unwrap(), expected_era);
    assert_eq!(c.protocol_version(), Some(expected_version));
    assert!(
        peer_capabilities["tools"].is_object(),
        "{peer_capabilities}"
    );
    assert!(peer_info.as_ref().unwrap()["name"].is_string());
    let model = c.peer_capability_model();
    assert_eq!(model.features.get("tools"), Some(&true));
    // Tasks exist only from 2025-11-25: the server's tasks capability counts elsewhere as absent.
    assert_eq!(
        model.features.contains_key("tasks"),
        expected_version == "2025-11-25",
        "{expected_version}"
    );
    assert_eq!(
        model.features.contains_key("completions"),
        expected_version != "2024-11-05"
    );

    let list = c.list_tools(None, server.now()).unwrap();
    let list_id = list.id.clone().unwrap();
    server.write(&list.text);
    let events = server.until(
        &mut c,
        |e| matches!(e, Event::Response { id, .. } | Event::Error { id, .. } if *id == list_id),
    );
    let tools = response_of(&events, &list_id);
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");

    let call = c
        .call_tool(
            "echo",
            Some(json!({ "message": "hello from agentwire" })),
            RequestOptions::default(),
            server.now(),
        )
        .unwrap();
    let call_id = call.id.clone().unwrap();
    server.write(&call.text);
    let events = server.until(
        &mut c,
        |e| matches!(e, Event::Response { id, .. } | Event::Error { id, .. } if *id == call_id),
    );
    let result = response_of(&events, &call_id);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hello from agentwire"),
        "{result}"
    );

    let ping = c.ping(server.now()).unwrap();
    let ping_id = ping.id.clone().unwrap();
    server.write(&ping.text);
    let events = server.until(
        &mut c,
        |e| matches!(e, Event::Response { id, .. } if *id == ping_id),
    );
    assert_eq!(response_of(&events, &ping_id), json!({}));
}

#[test]
fn server_everything_for_each_handshake_version() {
    let Some(script) = server_script() else {
        return;
    };
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let config = json!({
            "protocolVersions": [version],
            "era": "handshake",
            "requestTimeoutMs": 10_000,
            "capabilities": { "roots": { "listChanged": true }, "sampling": {} },
            "clientInfo": { "name": "agentwire-interop", "version": "0.1.0" },
        });
        exercise(&script, config, version, "handshake");
    }
}

#[test]
fn server_everything_in_auto_era_falls_back_to_the_handshake() {
    let Some(script) = server_script() else {
        return;
    };
    let config = json!({ "era": "auto", "requestTimeoutMs": 10_000 });
    exercise(&script, config, "2025-11-25", "handshake");
}
