//! The harness shared by the fuzz targets and the property tests
//! (`tests/properties_sessions.rs` includes this file as a module): it drives one
//! session role with frames of text and checks, after every step, what must hold
//! whatever the input:
//!
//! - every event serializes (events cross to JS as JSON) and every text to send is one
//!   valid JSON-RPC message;
//! - every incoming request of a frame gets exactly one answer or is handed to the
//!   application, every invalid message one error reply, and nothing else is answered
//!   (unless the session had already ended);
//! - every request of ours gets at most one outcome (response, error, timeout), and
//!   exactly one once the session is closed; nothing stays pending after `close`;
//! - every getter works in every state, and an answered request cannot be answered twice.
//!
//! A broken rule is a panic with a sentence saying which.
#![allow(dead_code)]

use agentwire::acp::{self, AcpAgent, AcpClient};
use agentwire::jsonrpc::{parse, Id, Incoming, Message, Outbound, ParseOptions, ProtocolError};
use agentwire::mcp::{self, McpClient, McpServer, RequestOptions};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// What the harness needs to know of an event, whatever the protocol.
pub enum Seen {
    Send(String),
    Request {
        id: Id,
        method: String,
        params: Option<Value>,
    },
    /// A response, error or timeout for one of our requests.
    Outcome(Id),
    Other,
}

/// One session role, as the harness drives it.
pub trait Driven {
    type Event: Serialize + std::fmt::Debug;
    fn receive(&mut self, text: &str, now_ms: u64) -> Vec<Self::Event>;
    fn tick(&mut self, now_ms: u64) -> Vec<Self::Event>;
    fn close(&mut self) -> Vec<Self::Event>;
    fn respond(
        &mut self,
        id: &Id,
        outcome: Result<Value, ProtocolError>,
    ) -> Result<Outbound, ProtocolError>;
    fn seen(event: &Self::Event) -> Seen;
    fn next_deadline(&self) -> Option<u64>;
    fn is_closed(&self) -> bool;
    /// Whether the session still answers requests once closed.
    fn answers_when_closed(&self) -> bool;
    fn allows_batch(&self) -> bool;
    /// Whether a request of ours owes an outcome event. An MCP client's `initialize`
    /// and `server/discover` end in `initialized` (or a failure) instead.
    fn owes_outcome(method: &str) -> bool;
    /// Reads every getter; they must work in any state. The costly ones (capability
    /// models, the method table) only when `deep`.
    fn inspect(&self, deep: bool);
    /// Phase and version, to tell when the state changed.
    fn state(&self) -> String;
}

fn to_json<T: Serialize + ?Sized>(what: &str, v: &T) -> Value {
    serde_json::to_value(v).unwrap_or_else(|e| panic!("{what} does not serialize: {e}"))
}

macro_rules! seen_of {
    ($event:ty) => {
        fn seen(event: &$event) -> Seen {
            use $event as E;
            match event {
                E::Send { text } => Seen::Send(text.clone()),
                E::Request { id, method, params } => Seen::Request {
                    id: id.clone(),
                    method: method.clone(),
                    params: params.as_ref().map(|p| to_json("params", p)),
                },
                E::Response { id, .. } | E::Error { id, .. } | E::Timeout { id, .. } => {
                    Seen::Outcome(id.clone())
                }
                _ => Seen::Other,
            }
        }
    };
}

macro_rules! driven_acp {
    ($t:ty) => {
        impl Driven for $t {
            type Event = acp::Event;
            fn receive(&mut self, text: &str, now_ms: u64) -> Vec<acp::Event> {
                <$t>::receive(self, text, now_ms)
            }
            fn tick(&mut self, now_ms: u64) -> Vec<acp::Event> {
                <$t>::tick(self, now_ms)
            }
            fn close(&mut self) -> Vec<acp::Event> {
                <$t>::close(self)
            }
            fn respond(
                &mut self,
                id: &Id,
                outcome: Result<Value, ProtocolError>,
            ) -> Result<Outbound, ProtocolError> {
                <$t>::respond(self, id, outcome)
            }
            seen_of!(acp::Event);
            fn next_deadline(&self) -> Option<u64> {
                <$t>::next_deadline(self)
            }
            fn is_closed(&self) -> bool {
                self.phase() == acp::Phase::Closed
            }
            fn answers_when_closed(&self) -> bool {
                false
            }
            fn allows_batch(&self) -> bool {
                false
            }
            fn owes_outcome(_method: &str) -> bool {
                true
            }
            fn inspect(&self, deep: bool) {
                let _ = (
                    self.own_capabilities_wire(),
                    self.peer_capabilities_wire(),
                    self.peer_info(),
                    self.auth_methods(),
                );
                if deep {
                    to_json("own capabilities", self.own_capabilities());
                    to_json("peer capabilities", self.peer_capabilities());
                    to_json("the method table", &self.methods());
                }
            }
            fn state(&self) -> String {
                format!("{:?} {:?}", self.phase(), self.protocol_version())
            }
        }
    };
}

driven_acp!(AcpClient);
driven_acp!(AcpAgent);

macro_rules! driven_mcp {
    ($t:ty) => {
        impl Driven for $t {
            type Event = mcp::Event;
            fn receive(&mut self, text: &str, now_ms: u64) -> Vec<mcp::Event> {
                (**self).receive(text, now_ms)
            }
            fn tick(&mut self, now_ms: u64) -> Vec<mcp::Event> {
                (**self).tick(now_ms)
            }
            fn close(&mut self) -> Vec<mcp::Event> {
                (**self).close()
            }
            fn respond(
                &mut self,
                id: &Id,
                outcome: Result<Value, ProtocolError>,
            ) -> Result<Outbound, ProtocolError> {
                (**self).respond(id, outcome)
            }
            seen_of!(mcp::Event);
            fn next_deadline(&self) -> Option<u64> {
                (**self).next_deadline()
            }
            fn is_closed(&self) -> bool {
                self.phase() == mcp::Phase::Closed
            }
            fn answers_when_closed(&self) -> bool {
                true
            }
            fn allows_batch(&self) -> bool {
                self.protocol_version() == Some("2025-03-26")
            }
            fn owes_outcome(method: &str) -> bool {
                !matches!(method, "initialize" | "server/discover")
            }
            fn inspect(&self, deep: bool) {
                let _ = (
                    self.is_ready(),
                    self.supported_versions(),
                    self.peer_info(),
                    self.instructions(),
                    self.peer_capabilities(),
                );
                if deep {
                    to_json("own capabilities", &self.own_capabilities());
                    to_json("own capability model", &self.own_capability_model());
                    to_json("peer capability model", &self.peer_capability_model());
                    to_json("the method table", &self.methods());
                }
            }
            fn state(&self) -> String {
                format!(
                    "{:?} {:?} {:?}",
                    self.phase(),
                    self.era(),
                    self.protocol_version()
                )
            }
        }
    };
}

driven_mcp!(McpClient);
driven_mcp!(McpServer);

/// How the application answers the requests delivered to it.
pub type Responder = fn(&str, Option<&Value>) -> Result<Value, ProtocolError>;

/// Refuses everything: an error response is valid for any method.
pub fn refuse(method: &str, _params: Option<&Value>) -> Result<Value, ProtocolError> {
    Err(ProtocolError::internal_error(format!(
        "{method} is not served here"
    )))
}

/// Plausible results, so that conversations between two sessions go somewhere.
pub fn serve(method: &str, _params: Option<&Value>) -> Result<Value, ProtocolError> {
    Ok(match method {
        "session/new" => json!({ "sessionId": "s1" }),
        "session/prompt" => json!({ "stopReason": "end_turn" }),
        "session/request_permission" => json!({ "outcome": { "outcome": "cancelled" } }),
        "fs/read_text_file" => json!({ "content": "" }),
        "tools/list" => json!({ "tools": [] }),
        "tools/call" => json!({ "content": [{ "type": "text", "text": "ok" }] }),
        "roots/list" => json!({ "roots": [] }),
        "sampling/createMessage" => {
            json!({ "role": "assistant", "content": { "type": "text", "text": "hi" }, "model": "m" })
        }
        _ => json!({}),
    })
}

/// One of our requests.
struct Track {
    method: String,
    outcomes: u32,
    /// Exactly one outcome is owed by the end (see `Driven::owes_outcome`); otherwise
    /// at most one.
    owed: bool,
}

/// A session plus what the harness knows of it.
pub struct Harness<S: Driven> {
    pub session: S,
    pub now: u64,
    /// Texts the session asked to send, for a peer to read.
    pub outbox: Vec<String>,
    pub responder: Responder,
    /// Answer delivered requests right away (otherwise they stay being served).
    pub answer: bool,
    ours: HashMap<Id, Track>,
    /// The session's state when last inspected.
    state: String,
}

/// Parses a text the session sends: it must be exactly one JSON-RPC message.
pub fn sent_message(text: &str) -> Message {
    let any = ParseOptions {
        allow_batch: true,
        allow_null_id: true,
    };
    match parse(text, &any) {
        Ok(Incoming::Single(m)) => m,
        other => panic!("a text to send is not one JSON-RPC message: {text} -> {other:?}"),
    }
}

impl<S: Driven> Harness<S> {
    pub fn new(session: S) -> Self {
        Harness {
            session,
            now: 0,
            outbox: Vec::new(),
            responder: refuse,
            answer: true,
            ours: HashMap::new(),
            state: String::new(),
        }
    }

    /// Makes an application call at the current time and records what it sends.
    pub fn call(
        &mut self,
        f: impl FnOnce(&mut S, u64) -> Result<Outbound, ProtocolError>,
    ) -> Option<Id> {
        let out = f(&mut self.session, self.now).ok()?;
        let message = sent_message(&out.text);
        self.outbox.push(out.text);
        let Message::Request(r) = message else {
            return None;
        };
        let owed = S::owes_outcome(&r.method);
        self.track(r.id.clone(), r.method, owed);
        Some(r.id)
    }

    fn track(&mut self, id: Id, method: String, owed: bool) {
        if let Some(old) = self.ours.get(&id) {
            assert!(
                old.outcomes > 0,
                "request id {id} reused while {} is pending",
                old.method
            );
        }
        self.ours.insert(
            id,
            Track {
                method,
                outcomes: 0,
                owed,
            },
        );
    }

    /// Requests of ours still without an outcome.
    pub fn unanswered(&self) -> usize {
        self.ours
            .values()
            .filter(|t| t.outcomes == 0 && t.owed)
            .count()
    }

    /// How many of our requests ended with a response, error or timeout.
    pub fn answered(&self) -> usize {
        self.ours.values().filter(|t| t.outcomes > 0).count()
    }

    /// One incoming frame.
    pub fn frame(&mut self, text: &str) -> Vec<S::Event> {
        self.now += 1;
        let expected = if self.session.is_closed() && !self.session.answers_when_closed() {
            Vec::new()
        } else {
            owed_answers(text, self.session.allows_batch())
        };
        let events = self.session.receive(text, self.now);
        self.absorb(&events, &expected);
        events
    }

    /// Lets time pass.
    pub fn tick(&mut self, advance_ms: u64) -> Vec<S::Event> {
        self.now = self.now.saturating_add(advance_ms);
        let events = self.session.tick(self.now);
        self.absorb(&events, &[]);
        if let Some(d) = self.session.next_deadline() {
            assert!(
                d > self.now,
                "deadline {d} already passed at {} after tick",
                self.now
            );
        }
        events
    }

    /// Checks a batch of events; `expected`: the ids the input is owed answers for.
    fn absorb(&mut self, events: &[S::Event], expected: &[Id]) {
        let mut answers: HashMap<Id, usize> = HashMap::new();
        let mut delivered = Vec::new();
        for event in events {
            to_json("an event", event);
            match S::seen(event) {
                Seen::Send(text) => {
                    match sent_message(&text) {
                        Message::Request(r) => {
                            let owed = S::owes_outcome(&r.method);
                            self.track(r.id, r.method, owed)
                        }
                        Message::Response(r) => *answers.entry(r.id).or_default() += 1,
                        Message::Notification(_) => {}
                    }
                    self.outbox.push(text);
                }
                Seen::Request { id, method, params } => {
                    *answers.entry(id.clone()).or_default() += 1;
                    delivered.push((id, method, params));
                }
                Seen::Outcome(id) => {
                    let Some(t) = self.ours.get_mut(&id) else {
                        panic!("an outcome for request {id}, which was never sent: {event:?}")
                    };
                    t.outcomes += 1;
                    assert_eq!(
                        t.outcomes, 1,
                        "request {id} ({}) got a second outcome: {event:?}",
                        t.method
                    );
                }
                Seen::Other => {}
            }
        }
        let mut owed: HashMap<&Id, usize> = HashMap::new();
        for id in expected {
            *owed.entry(id).or_default() += 1;
        }
        for id in owed.keys().copied().chain(answers.keys()) {
            let (want, got) = (
                owed.get(id).copied().unwrap_or(0),
                answers.get(id).copied().unwrap_or(0),
            );
            assert_eq!(
                got, want,
                "id {id} got {got} answers or deliveries, not {want}: {events:?}"
            );
        }
        let state = self.session.state();
        self.session.inspect(state != self.state);
        self.state = state;
        if self.answer {
            for (id, method, params) in delivered {
                self.answer_one(&id, &method, params.as_ref());
            }
        }
    }

    fn answer_one(&mut self, id: &Id, method: &str, params: Option<&Value>) {
        let first = match self.session.respond(id, (self.responder)(method, params)) {
            Ok(out) => Ok(out),
            // A result the validator refuses: an error is always a valid answer.
            Err(_) => self.session.respond(id, refuse(method, params)),
        };
        if let Ok(out) = first {
            match sent_message(&out.text) {
                Message::Response(r) => {
                    assert_eq!(&r.id, id, "the answer to {id} carries another id")
                }
                other => panic!("the answer to {id} is not a response: {other:?}"),
            }
            self.outbox.push(out.text);
            assert!(
                self.session.respond(id, refuse(method, params)).is_err(),
                "request {id} ({method}) was answered twice"
            );
        }
    }

    /// Closes the session and checks that nothing is left over.
    pub fn finish(&mut self) {
        self.session.inspect(true);
        let events = self.session.close();
        self.absorb(&events, &[]);
        for (id, t) in &self.ours {
            if t.owed {
                assert_eq!(
                    t.outcomes, 1,
                    "request {id} ({}) ended without an outcome",
                    t.method
                );
            }
        }
        assert!(self.session.is_closed(), "close() left the session open");
        assert_eq!(
            self.session.next_deadline(),
            None,
            "a deadline is still pending after close"
        );
        // Nothing resolves after the end, whatever arrives.
        let late: Vec<String> = self
            .ours
            .keys()
            .map(|id| Message::response(id.clone(), json!({})).to_text())
            .collect();
        for text in late {
            let events = self.session.receive(&text, self.now);
            self.absorb(&events, &[]);
        }
        let events = self.session.close();
        self.absorb(&events, &[]);
    }
}

/// The ids a frame is owed answers for, as the session will read it: its requests
/// (answered or delivered) and its invalid messages (answered with an error).
fn owed_answers(text: &str, allow_batch: bool) -> Vec<Id> {
    let opts = ParseOptions {
        allow_batch,
        allow_null_id: true,
    };
    let owed = |item: Result<Message, agentwire::jsonrpc::ParseFailure>| match item {
        Ok(Message::Request(r)) => Some(r.id),
        Ok(_) => None,
        // Something shaped as a response is never answered, however malformed.
        Err(f) => f.answerable.then_some(f.id),
    };
    match parse(text, &opts) {
        Ok(Incoming::Single(m)) => owed(Ok(m)).into_iter().collect(),
        Ok(Incoming::Batch(items)) => items.into_iter().filter_map(owed).collect(),
        Err(f) => owed(Err(f)).into_iter().collect(),
    }
}

/// Delivers everything both sides want to send until both are quiet (at most `rounds`
/// exchanges, so a ping-pong loop cannot hang a test).
pub fn exchange<A: Driven, B: Driven>(a: &mut Harness<A>, b: &mut Harness<B>, rounds: usize) {
    for _ in 0..rounds {
        if a.outbox.is_empty() && b.outbox.is_empty() {
            return;
        }
        for text in std::mem::take(&mut a.outbox) {
            b.frame(&text);
        }
        for text in std::mem::take(&mut b.outbox) {
            a.frame(&text);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Sessions in realistic states. A scenario byte picks the state (low two bits: fresh,
// handshake under way, ready, ready with requests pending both ways) and the versions.

/// Where a scenario starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Fresh,
    Handshaking,
    Ready,
    Busy,
}

pub fn stage(scenario: u8) -> Stage {
    [Stage::Fresh, Stage::Handshaking, Stage::Ready, Stage::Busy][usize::from(scenario & 3)]
}

fn pick<T: Clone>(scenario: u8, choices: &[T]) -> T {
    choices[usize::from(scenario >> 2) % choices.len()].clone()
}

fn config<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap_or_else(|e| panic!("harness configuration: {e}"))
}

pub fn acp_client_config(versions: &Value) -> acp::ClientConfig {
    config(
        json!({ "protocolVersions": versions, "capabilities": { "fs": { "readTextFile": true, "writeTextFile": true }, "terminal": true } }),
    )
}

pub fn acp_agent_config(versions: &Value) -> acp::AgentConfig {
    config(json!({
        "protocolVersions": versions,
        "capabilities": {
            "session": { "load": true, "list": true, "resume": true, "close": true },
            "prompt": { "image": true, "audio": true, "embeddedContext": true },
            "mcp": { "http": true, "sse": true }
        },
        "authMethods": [{ "id": "token", "name": "Token" }]
    }))
}

fn acp_versions(scenario: u8) -> (Value, Value) {
    pick(
        scenario,
        &[
            (json!([1]), json!([1])),
            (json!([2]), json!([2])),
            (json!([2, 1]), json!([1])),
            (json!([1]), json!([2, 1])),
        ],
    )
}

/// Both ACP roles, handshake done when the stage asks for it.
pub fn acp_pair(scenario: u8) -> (Harness<AcpClient>, Harness<AcpAgent>) {
    let (cv, av) = acp_versions(scenario);
    let mut c = Harness::new(AcpClient::new(acp_client_config(&cv)));
    let mut a = Harness::new(AcpAgent::new(acp_agent_config(&av)));
    c.responder = serve;
    a.responder = serve;
    if stage(scenario) >= Stage::Handshaking {
        c.call(|s, now| s.initialize(now));
    }
    if stage(scenario) >= Stage::Ready {
        exchange(&mut c, &mut a, 8);
    }
    (c, a)
}

/// An ACP client facing the input as its agent. Busy: `session/new`, a prompt and an
/// extension request pending.
pub fn acp_client(scenario: u8) -> Harness<AcpClient> {
    let (mut c, _) = acp_pair(scenario);
    if stage(scenario) == Stage::Handshaking {
        c.outbox.clear();
    }
    if stage(scenario) == Stage::Busy {
        c.call(|s, now| {
            s.new_session(
                json!({ "cwd": "/home/user/project", "mcpServers": [] }),
                now,
            )
        });
        c.call(|s, now| {
            s.prompt(
                "sess_abc123def456",
                json!([{ "type": "text", "text": "hi" }]),
                now,
            )
        });
        c.call(|s, now| s.request("_fuzz/echo", Some(json!({})), now));
    }
    c.outbox.clear();
    c.responder = refuse;
    c
}

/// An ACP agent facing the input as its client. Busy: a permission request and a file
/// read of ours pending, a prompt of the client's being served.
pub fn acp_agent(scenario: u8) -> Harness<AcpAgent> {
    let (mut c, mut a) = acp_pair(scenario);
    if stage(scenario) == Stage::Busy {
        c.call(|s, now| {
            s.new_session(
                json!({ "cwd": "/home/user/project", "mcpServers": [] }),
                now,
            )
        });
        exchange(&mut c, &mut a, 8);
        a.answer = false;
        c.call(|s, now| s.prompt("s1", json!([{ "type": "text", "text": "hi" }]), now));
        exchange(&mut c, &mut a, 8);
        let permission = json!({ "sessionId": "s1", "toolCall": { "toolCallId": "t1" }, "options": [{ "optionId": "ok", "name": "OK", "kind": "allow_once" }] });
        a.call(|s, now| s.request_permission(permission, now));
        a.call(|s, now| {
            s.read_text_file(
                json!({ "sessionId": "s1", "path": "/home/user/project/a.txt" }),
                now,
            )
        });
    }
    a.outbox.clear();
    a.responder = refuse;
    a.answer = true;
    a
}

pub fn mcp_client_config(versions: &Value, era: &str) -> mcp::ClientConfig {
    config(json!({
        "protocolVersions": versions,
        "era": era,
        "capabilities": { "roots": { "listChanged": true }, "sampling": {}, "elicitation": { "form": {} } }
    }))
}

pub fn mcp_server_config(versions: &Value) -> mcp::ServerConfig {
    config(json!({
        "protocolVersions": versions,
        "capabilities": { "logging": {}, "prompts": { "listChanged": true }, "resources": { "subscribe": true, "listChanged": true }, "tools": {} },
        "instructions": "fuzz"
    }))
}

fn mcp_versions(scenario: u8) -> (Value, &'static str, Value) {
    let all = json!([
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05"
    ]);
    pick(
        scenario,
        &[
            (json!(["2025-11-25"]), "handshake", json!(["2025-11-25"])),
            (all.clone(), "auto", all.clone()),
            (
                json!(["2025-03-26"]),
                "handshake",
                json!(["2025-03-26", "2024-11-05"]),
            ),
            (all.clone(), "auto", json!(["2025-11-25", "2024-11-05"])),
            (json!(["2024-11-05"]), "handshake", all),
        ],
    )
}

/// Both MCP roles, connected when the stage asks for it.
pub fn mcp_pair(scenario: u8) -> (Harness<McpClient>, Harness<McpServer>) {
    let (cv, era, sv) = mcp_versions(scenario);
    let mut c = Harness::new(McpClient::new(mcp_client_config(&cv, era)));
    let mut s = Harness::new(McpServer::new(mcp_server_config(&sv)));
    c.responder = serve;
    s.responder = serve;
    if stage(scenario) >= Stage::Handshaking {
        c.call(|s, now| s.initialize(now));
    }
    if stage(scenario) >= Stage::Ready {
        exchange(&mut c, &mut s, 8);
    }
    (c, s)
}

/// An MCP client facing the input as its server. Busy: `tools/list` and a `tools/call`
/// whose deadline progress pushes out are pending.
pub fn mcp_client(scenario: u8) -> Harness<McpClient> {
    let (mut c, _) = mcp_pair(scenario);
    if stage(scenario) == Stage::Busy {
        c.call(|s, now| s.list_tools(None, now));
        let options = RequestOptions {
            timeout_ms: Some(1_000),
            reset_on_progress: true,
            max_total_ms: Some(100_000),
        };
        c.call(|s, now| s.call_tool("echo", Some(json!({ "text": "hi" })), options, now));
    }
    c.outbox.clear();
    c.responder = refuse;
    c
}

/// An MCP server facing the input as its client. Handshaking: `initialize` answered,
/// `notifications/initialized` not yet. Busy: `roots/list`, sampling and `ping` pending.
pub fn mcp_server(scenario: u8) -> Harness<McpServer> {
    let (mut c, mut s) = mcp_pair(scenario);
    if stage(scenario) == Stage::Handshaking {
        for text in std::mem::take(&mut c.outbox) {
            s.frame(&text);
        }
    }
    if stage(scenario) == Stage::Busy {
        s.call(|s, now| s.list_roots(now));
        s.call(|s, now| {
            s.create_message(
                json!({ "messages": [], "maxTokens": 10 }),
                RequestOptions::default(),
                now,
            )
        });
        s.call(|s, now| s.ping(now));
    }
    s.outbox.clear();
    s.responder = refuse;
    s
}

/// One step of a run: a frame from the peer, or time passing.
#[derive(Clone, Debug)]
pub enum Step {
    Frame(String),
    Wait(u64),
}

/// Drives a session through the steps, then closes it.
pub fn drive<S: Driven>(mut h: Harness<S>, steps: impl IntoIterator<Item = Step>) {
    for step in steps {
        match step {
            Step::Frame(text) => drop(h.frame(&text)),
            Step::Wait(ms) => drop(h.tick(ms)),
        }
        h.outbox.clear();
    }
    h.finish();
}

/// Fuzz input as steps: one frame per line; an empty line lets a minute and more pass
/// (past every default deadline); lines that are not UTF-8 are skipped.
pub fn run<S: Driven>(h: Harness<S>, input: &[u8]) {
    let steps = input
        .split(|b| *b == b'\n')
        .filter_map(|line| match std::str::from_utf8(line) {
            Ok("") => Some(Step::Wait(61_000)),
            Ok(text) => Some(Step::Frame(text.to_owned())),
            Err(_) => None,
        });
    drive(h, steps);
}

// ---------------------------------------------------------------------------------------
// The envelope and the validator.

/// Every way the envelope layer can be configured.
pub const PARSE_OPTIONS: [ParseOptions; 4] = [
    ParseOptions {
        allow_batch: true,
        allow_null_id: true,
    },
    ParseOptions {
        allow_batch: true,
        allow_null_id: false,
    },
    ParseOptions {
        allow_batch: false,
        allow_null_id: true,
    },
    ParseOptions {
        allow_batch: false,
        allow_null_id: false,
    },
];

/// Parses `text` under every configuration: a message serializes to text that parses
/// back to the same message; a failure carries -32700 or -32600 and its reply is a
/// valid error response.
pub fn parse_round_trip(text: &str) {
    for opts in PARSE_OPTIONS {
        match parse(text, &opts) {
            Ok(Incoming::Single(m)) => round_trip(&m, &opts),
            Ok(Incoming::Batch(items)) => {
                assert!(
                    opts.allow_batch && !items.is_empty(),
                    "a batch accepted against {opts:?}"
                );
                let ok: Vec<Message> = items.into_iter().filter_map(Result::ok).collect();
                ok.iter().for_each(|m| round_trip(m, &opts));
                if !ok.is_empty() {
                    let text = agentwire::jsonrpc::batch_to_text(&ok);
                    let Ok(Incoming::Batch(again)) = parse(&text, &opts) else {
                        panic!("a batch does not parse back: {text}")
                    };
                    assert_eq!(again.len(), ok.len(), "a batch changed length: {text}");
                }
            }
            Err(f) => {
                let code = f.error.code;
                assert!(
                    code == -32700 || code == -32600,
                    "parse failure with code {code}: {f:?}"
                );
                let reply = Message::Response(f.to_response()).to_text();
                match sent_message(&reply) {
                    Message::Response(r) => assert!(
                        r.outcome.is_err(),
                        "the reply to a failure is a result: {reply}"
                    ),
                    other => panic!("the reply to a failure is not a response: {other:?}"),
                }
            }
        }
    }
}

fn round_trip(m: &Message, opts: &ParseOptions) {
    let text = m.to_text();
    match parse(&text, opts) {
        Ok(Incoming::Single(again)) => {
            assert_eq!(m, &again, "round trip changed the message: {text}")
        }
        other => panic!("a serialized message does not parse back: {text} -> {other:?}"),
    }
}

/// The contexts the validator is asked about, picked by one byte.
pub fn validation_context(selector: u8) -> agentwire::schema::Context<'static> {
    use agentwire::schema::{Context, Direction, Protocol};
    const VERSIONS: [(Protocol, &str); 7] = [
        (Protocol::Acp, "1"),
        (Protocol::Acp, "2"),
        (Protocol::Mcp, "2024-11-05"),
        (Protocol::Mcp, "2025-03-26"),
        (Protocol::Mcp, "2025-06-18"),
        (Protocol::Mcp, "2025-11-25"),
        (Protocol::Mcp, "2026-07-28"),
    ];
    const REPLIES: [Option<&str>; 10] = [
        None,
        Some("initialize"),
        Some("session/new"),
        Some("session/prompt"),
        Some("session/load"),
        Some("fs/read_text_file"),
        Some("tools/list"),
        Some("tools/call"),
        Some("server/discover"),
        Some("sampling/createMessage"),
    ];
    let s = usize::from(selector);
    let (protocol, version) = VERSIONS[s % 7];
    let direction = if (s / 7) % 2 == 0 {
        Direction::ClientToServer
    } else {
        Direction::ServerToClient
    };
    Context {
        protocol,
        version,
        direction,
        in_reply_to: REPLIES[(s / 14) % REPLIES.len()],
    }
}

/// Validates every message the text holds in the context the selector picks: never a
/// panic, and every issue is well formed (a JSON pointer, a code, a sentence).
pub fn validate_all(selector: u8, text: &str) {
    let ctx = validation_context(selector);
    let messages = match parse(text, &PARSE_OPTIONS[0]) {
        Ok(Incoming::Single(m)) => vec![m],
        Ok(Incoming::Batch(items)) => items.into_iter().filter_map(Result::ok).collect(),
        Err(_) => Vec::new(),
    };
    let check = |issue: &agentwire::schema::Issue| {
        assert!(
            issue.path.is_empty() || issue.path.starts_with('/'),
            "not a JSON pointer: {issue:?}"
        );
        assert!(
            !issue.code.is_empty() && !issue.message.is_empty(),
            "an issue without code or message: {issue:?}"
        );
        to_json("an issue", issue);
    };
    for m in &messages {
        agentwire::schema::validate_message(m, &ctx)
            .iter()
            .for_each(check);
    }
    // The raw text too, as the JS Validator sees it: its own parser, limits and verdict.
    let report =
        agentwire::schema::validate_text(text, &ctx, &agentwire::schema::Limits::default());
    report.issues.iter().for_each(check);
    assert_eq!(
        report.ok,
        !report
            .issues
            .iter()
            .any(|i| i.severity == agentwire::schema::Severity::Error)
    );
}
