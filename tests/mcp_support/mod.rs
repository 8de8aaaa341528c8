//! An in-process connection between an `McpClient` and an `McpServer`: what one side
//! sends is handed to the other; what the applications see is collected.
#![allow(dead_code)]

use agentwire::mcp::{ClientConfig, Event, McpClient, McpServer, ServerConfig};
use serde_json::{json, Value};
use std::collections::VecDeque;

pub enum To {
    Client,
    Server,
}

pub struct Pair {
    pub client: McpClient,
    pub server: McpServer,
    pub now: u64,
    /// Everything each session reported, `send` included.
    pub client_events: Vec<Event>,
    pub server_events: Vec<Event>,
    queue: VecDeque<(To, String)>,
}

pub fn client_config(value: Value) -> ClientConfig {
    serde_json::from_value(value).expect("client config")
}

pub fn server_config(value: Value) -> ServerConfig {
    serde_json::from_value(value).expect("server config")
}

impl Pair {
    pub fn new(client: Value, server: Value) -> Self {
        Pair {
            client: McpClient::new(client_config(client)),
            server: McpServer::new(server_config(server)),
            now: 0,
            client_events: Vec::new(),
            server_events: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Opens the connection and runs it until quiet.
    pub fn connect(client: Value, server: Value) -> Self {
        let mut pair = Pair::new(client, server);
        let out = pair.client.initialize(0).expect("initialize");
        pair.send(To::Server, out.text);
        pair
    }

    /// Delivers `text` and everything it causes, until nothing is in flight.
    pub fn send(&mut self, to: To, text: String) {
        self.queue.push_back((to, text));
        while let Some((to, text)) = self.queue.pop_front() {
            match to {
                To::Server => {
                    for e in self.server.receive(&text, self.now) {
                        if let Event::Send { text } = &e {
                            self.queue.push_back((To::Client, text.clone()));
                        }
                        self.server_events.push(e);
                    }
                }
                To::Client => {
                    for e in self.client.receive(&text, self.now) {
                        if let Event::Send { text } = &e {
                            self.queue.push_back((To::Server, text.clone()));
                        }
                        self.client_events.push(e);
                    }
                }
            }
        }
    }

    pub fn take_client_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.client_events)
    }

    pub fn take_server_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.server_events)
    }
}

/// Events as JSON values, for compact assertions.
pub fn values(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).expect("event serializes"))
        .collect()
}

/// The events of one type.
pub fn of_type(events: &[Event], kind: &str) -> Vec<Value> {
    values(events)
        .into_iter()
        .filter(|v| v["type"] == kind)
        .collect()
}

/// The JSON of every `send` event.
pub fn sent(events: &[Event]) -> Vec<Value> {
    of_type(events, "send")
        .iter()
        .map(|v| serde_json::from_str(v["text"].as_str().unwrap()).unwrap())
        .collect()
}

pub fn all_caps_server() -> Value {
    json!({
        "logging": {}, "completions": {},
        "prompts": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "tools": { "listChanged": true },
        "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }
    })
}

pub fn all_caps_client() -> Value {
    json!({
        "roots": { "listChanged": true },
        "sampling": { "context": {}, "tools": {} },
        "elicitation": { "form": {}, "url": {} },
        "tasks": { "list": {}, "cancel": {}, "requests": { "sampling": { "createMessage": {} }, "elicitation": { "create": {} } } }
    })
}
