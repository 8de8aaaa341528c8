//! One ACP connection, either role, without I/O: lifecycle, negotiation, gating in both
//! directions, validation, and the bookkeeping that both `AcpClient` and `AcpAgent` use.
//! The role decides who serves which method; the rules are the same table for both.

use super::capabilities::{AgentCapabilities, CapabilityModel, ClientCapabilities};
use super::checks::required_flags;
use super::config::{Common, Implementation};
use super::event::Event;
use super::methods::{
    self, direction, Availability, Gate, Kind, MethodSpec, MethodStatus, Server, METHODS,
};
#[cfg(feature = "transcript")]
use super::transcript::Transcript;
use super::turns::Turns;
use super::version::{self, NegotiationRule};
use crate::json::{Item, View};
use crate::json::{Map, Value};
use crate::jsonrpc::{
    call_text, codes, object, response_text, set_member, sort_by, Endpoint, Flow, Id, Matched,
    Message, Notification, Outbound, Outgoing, ParseOptions, ProtocolError, RawJson, Request,
    Timeout, VecMap, VecSet,
};
use crate::schema::{self, Context, Direction, Issue, Protocol, Severity};
use serde::Serialize;
use std::borrow::Cow;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    Client,
    Agent,
}

impl Role {
    fn serves(self, server: Server) -> bool {
        matches!(
            (self, server),
            (_, Server::Both) | (Role::Client, Server::Client) | (Role::Agent, Server::Agent)
        )
    }
    fn name(self) -> &'static str {
        match self {
            Role::Client => "client",
            Role::Agent => "agent",
        }
    }
    /// The direction of what this role sends.
    fn sending(self) -> Direction {
        match self {
            Role::Client => Direction::ClientToServer,
            Role::Agent => Direction::ServerToClient,
        }
    }
    fn receiving(self) -> Direction {
        match self {
            Role::Client => Direction::ServerToClient,
            Role::Agent => Direction::ClientToServer,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// Nothing but `initialize` yet.
    Uninitialized,
    /// The client sent `initialize` and waits for the answer.
    Initializing,
    Ready,
    Closed,
}
crate::json::json_names!(Phase {
    Phase::Uninitialized => "uninitialized",
    Phase::Initializing => "initializing",
    Phase::Ready => "ready",
    Phase::Closed => "closed",
});

/// Methods a person answers: no deadline.
const HUMAN_PACED: &[&str] = &[
    "session/prompt",
    "session/request_permission",
    "elicitation/create",
];
/// Requests whose answer says something about a session the client keeps a transcript of.
const REPLAYING: &[&str] = &["session/load", "session/resume"];

/// An incoming request the application has not answered yet.
#[derive(Clone, Debug)]
struct Serving {
    method: String,
    session_id: Option<String>,
}

#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) role: Role,
    endpoint: Endpoint,
    pub(crate) phase: Phase,
    common: Common,
    pub(crate) negotiation: NegotiationRule,
    /// The negotiated version.
    pub(crate) version: Option<u16>,
    pub(crate) client_caps: ClientCapabilities,
    pub(crate) agent_caps: AgentCapabilities,
    pub(crate) own_wire: Option<Value>,
    pub(crate) peer_wire: Option<Value>,
    pub(crate) peer_info: Option<Value>,
    pub(crate) auth_methods: Vec<Value>,
    serving: VecMap<Id, Serving>,
    /// Our requests about a session (load, resume, prompt, …): id → session id.
    about_session: VecMap<Id, String>,
    /// Sessions whose load/resume is pending: their updates are a replay.
    replaying: VecSet<String>,
    /// Agent side: sessions the client cancelled; their pending prompt ends `cancelled`.
    pub(crate) cancelled: VecSet<String>,
    /// Sorted by session id.
    #[cfg(feature = "transcript")]
    pub(crate) transcripts: VecMap<String, Transcript>,
    /// Client side: prompts whose turn is not over yet.
    turns: Turns,
}

/// A refusal to be turned into a local error or an error reply.
struct Refusal {
    code: i64,
    message: String,
    capability: Option<&'static str>,
}

impl Refusal {
    fn new(code: i64, message: String) -> Self {
        Refusal {
            code,
            message,
            capability: None,
        }
    }
    fn to_error(&self, method: &str, code: i64) -> ProtocolError {
        let mut data = object! { "method": method };
        if let Some(c) = self.capability {
            set_member(&mut data, "capability", c);
        }
        ProtocolError::new(code, self.message.clone()).with_data(data)
    }
}

impl Session {
    /// Out of line: one copy for both roles' constructors, not one inlined into each binding's
    /// (−153 B gzipped of `agentwire/acp`'s `.wasm`).
    #[inline(never)]
    pub(crate) fn new(
        role: Role,
        common: Common,
        client_caps: ClientCapabilities,
        agent_caps: AgentCapabilities,
        auth_methods: Vec<Value>,
        negotiation: NegotiationRule,
    ) -> Self {
        Session {
            role,
            endpoint: Endpoint::new(ParseOptions {
                allow_batch: false,
                allow_null_id: true,
            }),
            phase: Phase::Uninitialized,
            common,
            negotiation,
            version: None,
            client_caps,
            agent_caps,
            own_wire: None,
            peer_wire: None,
            peer_info: None,
            auth_methods,
            serving: VecMap::new(),
            about_session: VecMap::new(),
            replaying: VecSet::new(),
            cancelled: VecSet::new(),
            #[cfg(feature = "transcript")]
            transcripts: VecMap::new(),
            turns: Turns::default(),
        }
    }

    pub(crate) fn supported(&self) -> &[u16] {
        &self.common.protocol_versions
    }

    pub(crate) fn info(&self) -> &Implementation {
        &self.common.info
    }

    /// The version a message is judged by (docs/validation.md, "Handshake messages"):
    /// `initialize` by the version it requests, its answer by the version it answers with
    /// when we speak it (else the requested one), everything else by the negotiated one.
    fn judged_by(&self, message: &Message, in_reply_to: Option<&str>) -> &'static str {
        match message {
            Message::Request(r) => self.version_of(Some(&r.method), None, named(r.params.as_ref())),
            Message::Notification(_) => self.version_of(None, None, None),
            Message::Response(r) => {
                self.version_of(None, in_reply_to, named(r.outcome.as_ref().ok()))
            }
        }
    }

    /// The version a message is judged by: the negotiated one (until then, the one our
    /// `initialize` asks for); an `initialize` request (`request`: its method) and its answer by
    /// the version they name (`named`: see `named`).
    fn version_of(
        &self,
        request: Option<&str>,
        in_reply_to: Option<&str>,
        named: Option<u16>,
    ) -> &'static str {
        let current = self
            .version
            .unwrap_or_else(|| version::latest(self.supported()));
        let version = if request == Some("initialize") {
            named.unwrap_or(current)
        } else if in_reply_to == Some("initialize") {
            named
                .filter(|v| self.supported().contains(v))
                .unwrap_or(current)
        } else {
            current
        };
        if version >= 2 {
            "2"
        } else {
            "1"
        }
    }

    // -----------------------------------------------------------------------------------
    // Gating.

    fn flag(&self, server: Server, name: &str) -> bool {
        let v = match server {
            Server::Agent => self.agent_caps.flag(name),
            Server::Client => self.client_caps.flag(name),
            Server::Both => Some(true),
        };
        v.unwrap_or(false)
    }

    /// Whether `method` may go from `sender` to its server now; `Err` says why not.
    /// The phase is checked by the callers (the rules differ per direction).
    fn gate(&self, spec: &MethodSpec, sender: Role) -> Result<(), Refusal> {
        let not_found = codes::METHOD_NOT_FOUND;
        if !sender_can_send(spec, sender) {
            return Err(Refusal::new(
                not_found,
                format!(
                    "{} is served by the {}, not sent by it",
                    spec.name,
                    sender.name()
                ),
            ));
        }
        let version = self
            .version
            .unwrap_or_else(|| version::latest(self.supported()));
        match spec.availability(version) {
            Availability::No => {
                return Err(Refusal::new(
                    not_found,
                    format!("{} is not a method of ACP v{version}", spec.name),
                ))
            }
            Availability::Unstable if !self.common.allow_unstable => {
                return Err(Refusal::new(
                    not_found,
                    format!(
                        "{} is unstable in ACP v{version}; allowUnstable is off",
                        spec.name
                    ),
                ))
            }
            _ => {}
        }
        let server = if sender == Role::Client {
            Server::Agent
        } else {
            Server::Client
        };
        let side = if server == Server::Agent {
            "agent"
        } else {
            "client"
        };
        let missing = |cap: &'static str| Refusal {
            code: not_found,
            message: format!(
                "{} needs the {side} capability {cap}, which was not advertised",
                spec.name
            ),
            capability: Some(cap),
        };
        match spec.gate {
            Gate::Lifecycle | Gate::Baseline => Ok(()),
            Gate::Flag(f) if self.flag(server, f) => Ok(()),
            Gate::Flag(f) => Err(missing(f)),
            Gate::AnyFlag(a, b) if self.flag(server, a) || self.flag(server, b) => Ok(()),
            Gate::AnyFlag(a, _) => Err(missing(a)),
            Gate::AuthMethods if !self.auth_methods.is_empty() => Ok(()),
            Gate::FlagOrAuthMethods(f) if self.flag(server, f) || !self.auth_methods.is_empty() => {
                Ok(())
            }
            Gate::FlagOrAuthMethods(f) => Err(missing(f)),
            Gate::AuthMethods => Err(Refusal {
                code: not_found,
                message: format!(
                    "{} needs an advertised auth method; authMethods is empty",
                    spec.name
                ),
                capability: Some("authMethods"),
            }),
        }
    }

    /// Parameter rules of a request to the agent: content types, MCP transports,
    /// additional directories, auth method ids.
    /// Read from the parse of their text in both directions (`check_outgoing`, `gate_incoming`).
    fn gate_params(&self, method: &str, params: Option<Item>) -> Result<(), Refusal> {
        for (flag, what) in required_flags(method, params) {
            if !self.agent_caps.flag(flag).unwrap_or(false) {
                return Err(Refusal {
                    code: codes::INVALID_PARAMS,
                    message: format!(
                        "{what} needs the agent capability {flag}, which was not advertised"
                    ),
                    capability: Some(flag),
                });
            }
        }
        if matches!(method, "authenticate" | "auth/login") {
            let wanted = params.and_then(|p| p.get("methodId")).map(|m| m.value());
            // v1 names an auth method's id `id`, v2 `methodId`.
            let id_of = |m: &Value| m.get("id").or_else(|| m.get("methodId")).cloned();
            let known = self
                .auth_methods
                .iter()
                .any(|m| id_of(m).is_some() && id_of(m) == wanted);
            if !known {
                let ids: Vec<Value> = self.auth_methods.iter().filter_map(id_of).collect();
                return Err(Refusal {
                    code: codes::INVALID_PARAMS,
                    message: format!(
                        "{method}: methodId {} is not one of the advertised auth methods {}",
                        crate::json::text(&wanted.unwrap_or(Value::Null)),
                        crate::json::text(&ids)
                    ),
                    capability: Some("authMethods"),
                });
            }
        }
        Ok(())
    }

    /// The capability matrix: every method of the current (or preferred) version.
    pub(crate) fn method_table(&self) -> Vec<MethodStatus> {
        let version = self
            .version
            .unwrap_or_else(|| version::latest(self.supported()));
        METHODS
            .iter()
            .filter(|m| m.availability(version) != Availability::No)
            .map(|spec| {
                let sender = match spec.server {
                    Server::Agent => Role::Client,
                    Server::Client => Role::Agent,
                    Server::Both => self.role,
                };
                let reason = self
                    .phase_rule(spec.name)
                    .and_then(|_| self.gate(spec, sender))
                    .err()
                    .map(|r| r.message);
                MethodStatus {
                    method: spec.name,
                    direction: direction(spec.server),
                    kind: spec.kind,
                    availability: spec.availability(version),
                    gate: spec.gate,
                    enabled: reason.is_none(),
                    reason,
                }
            })
            .collect()
    }

    /// The lifecycle: before the handshake completes only `initialize` flows, and only once.
    fn phase_rule(&self, method: &str) -> Result<(), Refusal> {
        let invalid = codes::INVALID_REQUEST;
        match (self.phase, method) {
            (Phase::Closed, _) => Err(Refusal::new(invalid, "the session is closed".into())),
            (Phase::Uninitialized, "initialize") => Ok(()),
            (_, "initialize") => Err(Refusal::new(
                invalid,
                "initialize was already sent; a session is initialized once".into(),
            )),
            (Phase::Ready, _) => Ok(()),
            (_, m) => Err(Refusal::new(
                invalid,
                format!("{m} before initialize completed; only initialize may come first"),
            )),
        }
    }

    // -----------------------------------------------------------------------------------
    // Sending.

    /// Checks the text of an outgoing message and reads what the session needs of it, from
    /// one parse (the params are never a tree of values): the params of a call to the agent
    /// against its capabilities (`gate`), the session the message is about, and the schema
    /// (refused on errors unless told not to validate). `call`: the method of a request or
    /// notification; `in_reply_to`: the method a response answers.
    #[inline(never)]
    fn check_outgoing(
        &self,
        text: &str,
        call: Option<&str>,
        in_reply_to: Option<&str>,
        gate: bool,
    ) -> Result<Option<String>, ProtocolError> {
        let what = call.or(in_reply_to).unwrap_or("response");
        let (issues, read) = schema::read_outgoing(text, |root| {
            let payload = root.get(if call.is_some() { "params" } else { "result" });
            let ctx = self.common.validate_outgoing.then(|| Context {
                protocol: Protocol::Acp,
                version: self.version_of(call, in_reply_to, named(payload)),
                direction: self.role.sending(),
                in_reply_to,
            });
            let gated = match call {
                Some(method) if gate => self.gate_params(method, payload),
                _ => Ok(()),
            };
            (ctx, gated.map(|()| session_id_of(payload)))
        })
        .map_err(|e| ProtocolError::invalid_params(e.to_string()))?;
        let session = read.map_err(|r| r.to_error(what, codes::LOCAL_REFUSAL))?;
        schema::refuse_errors(what, &issues)?;
        Ok(session)
    }

    /// Validates a message, from `wire` when that is its text (as it came, as it goes).
    fn validate(
        &self,
        message: &Message,
        direction: Direction,
        in_reply_to: Option<&str>,
        wire: Option<&str>,
    ) -> Vec<Issue> {
        let ctx = Context {
            protocol: Protocol::Acp,
            version: self.judged_by(message, in_reply_to),
            direction,
            in_reply_to,
        };
        // The schema and ACP's own parameter rules (absolute paths), as the Validator checks them.
        schema::validate_as(wire, message, &ctx)
    }

    /// Checks what an outgoing call must satisfy before it is written: the lifecycle, the
    /// method table, capabilities; true when its params are gated too (a call to the agent:
    /// `check_outgoing`).
    fn gate_outgoing(&self, method: &str, kind: Kind) -> Result<bool, ProtocolError> {
        let local = |r: Refusal| r.to_error(method, codes::LOCAL_REFUSAL);
        self.phase_rule(method).map_err(local)?;
        if !methods::is_extension(method) {
            let Some(spec) = methods::lookup(method) else {
                return Err(local(Refusal::new(
                    0,
                    format!("{method} is not an ACP method (extension methods start with \"_\")"),
                )));
            };
            if spec.kind != kind && spec.kind != Kind::Either {
                let k = if kind == Kind::Request {
                    "notification"
                } else {
                    "request"
                };
                return Err(local(Refusal::new(0, format!("{method} is a {k}"))));
            }
            self.gate(spec, self.role).map_err(local)?;
            return Ok(spec.server == Server::Agent);
        }
        Ok(false)
    }

    pub(crate) fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        let params = params.map(|p| crate::json::text(&p));
        self.request_text(method, params.as_deref(), now_ms)
    }

    /// As `request`, with the params JSON text already (as the binding has them): put into the
    /// message as they are, and read from the parse that validates it.
    pub(crate) fn request_text(
        &mut self,
        method: &str,
        params: Option<&str>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        // Every ACP request takes an object: none given is `{}` (agents refuse a missing
        // `params`), and a method with required members then names what is missing.
        let params = params.unwrap_or("{}");
        let gate = self.gate_outgoing(method, Kind::Request)?;
        let timeout = Timeout {
            timeout_ms: if HUMAN_PACED.contains(&method) {
                None
            } else {
                self.common.request_timeout_ms
            },
            max_total_ms: None,
        };
        // The id is taken once the message is known to go.
        let id = self.endpoint.pending().peek_id();
        let text = call_text(Some(&id), method, Some(params));
        let session_id = self.check_outgoing(&text, Some(method), None, gate)?;
        let id = self.endpoint.pending_mut().next_id();
        // A fresh id is never in flight, so registering cannot fail.
        let _ = self
            .endpoint
            .pending_mut()
            .register(id.clone(), method, now_ms, timeout);
        if let Some(s) = session_id {
            if self.role == Role::Client && REPLAYING.contains(&method) {
                self.replaying.insert(s.clone());
                #[cfg(feature = "transcript")]
                if method == "session/load" {
                    // A load starts the transcript over: the replay rebuilds it.
                    let t = self
                        .transcripts
                        .get_or_insert_sorted(s.clone(), |s| Transcript::new(s));
                    *t = Transcript::new(&s);
                }
            }
            if self.role == Role::Client && method == "session/prompt" {
                self.turns.start(id.clone(), s.clone());
            }
            self.about_session.insert(id.clone(), s);
        }
        if method == "initialize" {
            self.phase = Phase::Initializing;
        }
        Ok(Outbound {
            id: Some(id),
            method: Some(method.to_owned()),
            text,
        })
    }

    pub(crate) fn notify(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Outbound, ProtocolError> {
        let params = params.map(|p| crate::json::text(&p));
        self.notify_text(method, params.as_deref())
    }

    /// As `notify`, with the params JSON text already.
    pub(crate) fn notify_text(
        &mut self,
        method: &str,
        params: Option<&str>,
    ) -> Result<Outbound, ProtocolError> {
        let gate = self.gate_outgoing(method, Kind::Notification)?;
        let text = call_text(None, method, params);
        self.check_outgoing(&text, Some(method), None, gate)?;
        Ok(Outbound {
            id: None,
            method: Some(method.to_owned()),
            text,
        })
    }

    /// Answers an incoming request the application was given.
    pub(crate) fn respond(
        &mut self,
        id: &Id,
        outcome: Result<Value, ProtocolError>,
    ) -> Result<Outbound, ProtocolError> {
        self.respond_text(id, outcome.map(|v| crate::json::text(&v)))
    }

    /// As `respond`, with the result JSON text already.
    pub(crate) fn respond_text(
        &mut self,
        id: &Id,
        outcome: Result<String, ProtocolError>,
    ) -> Result<Outbound, ProtocolError> {
        let Some(serving) = self.serving.get(id).cloned() else {
            return Err(ProtocolError::local_refusal(format!(
                "no incoming request {id} is waiting for an answer"
            )));
        };
        let text = match self.enforce_cancelled(&serving, outcome) {
            Ok(result) => response_text(id, "result", &result),
            Err(e) => response_text(id, "error", &crate::json::text(&e)),
        };
        self.check_outgoing(&text, None, Some(&serving.method), false)?;
        self.endpoint.pending_mut().finish_incoming(id);
        self.serving.remove(id);
        if serving.method == "session/prompt" {
            if let Some(s) = &serving.session_id {
                self.cancelled.remove(s);
            }
        }
        Ok(Outbound {
            id: Some(id.clone()),
            method: Some(serving.method),
            text,
        })
    }

    /// Agent side: after `session/cancel`, the pending prompt of that session ends with
    /// `stopReason: "cancelled"`, whatever the application answers (an error included).
    fn enforce_cancelled(
        &self,
        serving: &Serving,
        outcome: Result<String, ProtocolError>,
    ) -> Result<String, ProtocolError> {
        let cancelled = serving.method == "session/prompt"
            && serving
                .session_id
                .as_ref()
                .is_some_and(|s| self.cancelled.contains(s))
            && self.version.unwrap_or(1) < 2;
        if !cancelled {
            return outcome;
        }
        let mut result = match outcome.ok().and_then(|r| crate::json::value_of(&r)) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        result.insert("stopReason".into(), "cancelled".into());
        Ok(crate::json::text(&result))
    }

    /// Incoming requests the application still has to answer, for one session and method.
    pub(crate) fn serving_ids(&self, method: &str, session_id: &str) -> Vec<Id> {
        let mut ids: Vec<Id> = self
            .serving
            .iter()
            .filter(|(_, s)| s.method == method && s.session_id.as_deref() == Some(session_id))
            .map(|(id, _)| id.clone())
            .collect();
        sort_by(&mut ids, |a, b| a < b); // unique keys: the same order as a stable sort
        ids
    }

    // -----------------------------------------------------------------------------------
    // Receiving.

    pub(crate) fn receive(&mut self, text: &str, now_ms: u64) -> Vec<Event> {
        self.take_frame(Ok(text), now_ms)
    }

    /// A frame as bytes (a binary WebSocket frame, a `fetch` body): UTF-8, or a parse error.
    pub(crate) fn receive_bytes(&mut self, bytes: &[u8], now_ms: u64) -> Vec<Event> {
        self.take_frame(crate::jsonrpc::frame_text(bytes), now_ms)
    }

    fn take_frame(
        &mut self,
        frame: Result<&str, crate::jsonrpc::ParseFailure>,
        now_ms: u64,
    ) -> Vec<Event> {
        if self.phase == Phase::Closed {
            return vec![Event::ProtocolError {
                error: ProtocolError::local_refusal("the session is closed; input ignored"),
            }];
        }
        let mut events = Vec::new();
        crate::inbound::receive(self, frame, now_ms, &mut events);
        events
    }

    /// An update applied (transcript, turns, a replay's deadline) and handed to the app.
    fn on_update(
        &mut self,
        session_id: String,
        update: RawJson,
        state_update: bool,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        #[cfg(feature = "transcript")]
        self.transcripts
            .get_or_insert_sorted(session_id.clone(), |s| Transcript::new(s))
            .apply(&update.value());
        let replay = self.replaying.contains(&session_id);
        if replay {
            // A long replay is progress: it pushes the load's deadline out.
            for (id, s) in self.about_session.iter() {
                if *s == session_id {
                    self.endpoint.pending_mut().touch(id, now_ms);
                }
            }
        }
        let ended = if state_update && !replay {
            self.turns.on_state(&session_id, &update.value())
        } else {
            Vec::new()
        };
        events.push(Event::SessionUpdate {
            session_id,
            update,
            replay,
        });
        push_ended(ended, events);
    }

    /// Checks what an incoming call must satisfy by its method: the lifecycle, the method table,
    /// capabilities; true when its params are gated too (a call an agent serves: `check_call`).
    fn gate_incoming(&self, method: &str, kind: Kind) -> Result<bool, ProtocolError> {
        let peer = if self.role == Role::Client {
            Role::Agent
        } else {
            Role::Client
        };
        self.phase_rule(method)
            .map_err(|r| r.to_error(method, r.code))?;
        if methods::is_extension(method) {
            return Ok(false);
        }
        let Some(spec) =
            methods::lookup(method).filter(|s| s.kind == kind || s.kind == Kind::Either)
        else {
            return Err(ProtocolError::method_not_found(method));
        };
        self.gate(spec, peer)
            .map_err(|r| r.to_error(method, r.code))?;
        Ok(self.role == Role::Agent && spec.server == Server::Agent)
    }

    /// An incoming call checked from the parse of its params: the gates, and the session it is
    /// about.
    fn check_call(
        &self,
        method: &str,
        params: Option<Item>,
        kind: Kind,
    ) -> Result<Option<String>, ProtocolError> {
        if self.gate_incoming(method, kind)? {
            self.gate_params(method, params)
                .map_err(|r| r.to_error(method, r.code))?;
        }
        Ok(session_id_of(params))
    }

    /// A call the general path read as values, checked as one read in place is: from the parse
    /// of its params' text, which is what its event carries.
    fn check_read(
        &self,
        method: &str,
        params: Option<&Value>,
        kind: Kind,
    ) -> (Option<RawJson>, Result<Option<String>, ProtocolError>) {
        let params = params.map(RawJson::from_value);
        let tape = params
            .as_ref()
            .and_then(|p| crate::json::tape_of(p.as_str()).ok());
        let checked = self.check_call(method, tape.as_ref().map(Item::root), kind);
        drop(tape);
        (params, checked)
    }

    /// A request checked (`check_call`): answered with its refusal, or handed to the
    /// application, its params as their JSON text.
    fn serve(
        &mut self,
        id: Id,
        method: String,
        params: Option<RawJson>,
        checked: Result<Option<String>, ProtocolError>,
        events: &mut Vec<Event>,
    ) {
        match checked {
            Err(e) => {
                if let Ok(text) = self.endpoint.respond(&id, Err(e)) {
                    events.push(Event::Send { text });
                }
            }
            Ok(session_id) => {
                self.serving.insert(
                    id.clone(),
                    Serving {
                        method: method.clone(),
                        session_id,
                    },
                );
                events.push(Event::Request { id, method, params });
            }
        }
    }

    /// The answer to a request of ours (`session`: the session it was about), its result as
    /// the JSON text it came in: a tree of it is made only for what the session reads of a
    /// prompt's answer (the turn's outcome) and of the session methods' (the Rust transcript).
    fn on_response(
        &mut self,
        id: Id,
        method: String,
        session: Option<String>,
        outcome: Result<RawJson, ProtocolError>,
        events: &mut Vec<Event>,
    ) {
        if let Some(s) = &session {
            self.replaying.remove(s);
        }
        let result = match outcome {
            Ok(result) => result,
            Err(error) => {
                self.turns.forget(&id);
                return events.push(Event::Error { id, method, error });
            }
        };
        let ended = match method.as_str() {
            "session/prompt" => {
                self.turns
                    .on_response(&id, &result.value(), self.version.unwrap_or(1))
            }
            _ => Vec::new(),
        };
        #[cfg(feature = "transcript")]
        if self.role == Role::Client {
            let tree = result.value();
            let target = match method.as_str() {
                "session/new" | "session/fork" => tree
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                _ => session,
            };
            if let Some(s) = target {
                let t = self
                    .transcripts
                    .get_or_insert_sorted(s.clone(), |s| Transcript::new(s));
                match method.as_str() {
                    "session/prompt" if self.version.unwrap_or(1) < 2 => {
                        if let Some(reason) = tree.get("stopReason") {
                            t.end_turn(reason);
                        }
                    }
                    "session/new" | "session/fork" | "session/load" | "session/resume" => {
                        t.apply_session_result(&tree)
                    }
                    _ => {}
                }
            }
        }
        events.push(Event::Response { id, method, result });
        push_ended(ended, events);
    }

    // -----------------------------------------------------------------------------------
    // The handshake.

    /// Client: the `initialize` params for the latest supported version. A v2 request
    /// carries both shapes (`capabilities` + `clientCapabilities`, `info` + `clientInfo`)
    /// when v1 is supported too, so a v1-only agent understands it.
    pub(crate) fn initialize_params(&self) -> Value {
        let requested = version::latest(self.supported());
        let info = self.info().to_value();
        let mut p = Map::new();
        p.insert("protocolVersion".into(), requested.into());
        if requested >= 2 {
            p.insert("capabilities".into(), self.client_caps.to_wire_sent(2));
            p.insert("info".into(), info.clone());
            if self.supported().contains(&1) {
                p.insert(
                    "clientCapabilities".into(),
                    self.client_caps.to_wire_sent(1),
                );
            }
        } else {
            p.insert(
                "clientCapabilities".into(),
                self.client_caps.to_wire_sent(1),
            );
        }
        p.insert("clientInfo".into(), info);
        Value::Object(p)
    }

    fn on_initialize_response(
        &mut self,
        id: Id,
        outcome: Result<Value, ProtocolError>,
        events: &mut Vec<Event>,
    ) {
        let requested = version::latest(self.supported());
        let result = match outcome {
            Ok(r) => r,
            Err(error) => {
                events.push(Event::Error {
                    id,
                    method: "initialize".into(),
                    error: error.clone(),
                });
                let reason =
                    ProtocolError::new(error.code, format!("initialize failed: {}", error.message));
                return self.shut(
                    Some(reason.with_data(error.data.unwrap_or(Value::Null))),
                    events,
                );
            }
        };
        let answered = result
            .get("protocolVersion")
            .cloned()
            .unwrap_or(Value::Null);
        let v = match version::client_accept(requested, &answered, self.supported()) {
            Ok(v) => v,
            Err(error) => {
                events.push(Event::Error {
                    id,
                    method: "initialize".into(),
                    error: error.clone(),
                });
                return self.shut(Some(error), events);
            }
        };
        self.version = Some(v);
        // v2's RequestId is a string or an integer: a null id is refused from then on (-32600).
        self.endpoint.set_options(ParseOptions {
            allow_batch: false,
            allow_null_id: v < 2,
        });
        let (wire, read_as) = pick_capabilities(&result, v, "agentCapabilities");
        self.agent_caps = AgentCapabilities::from_wire(&wire, read_as);
        self.peer_wire = Some(wire);
        self.own_wire = Some(self.client_caps.to_wire_sent(v));
        self.peer_info = pick_info(&result, "agentInfo");
        self.auth_methods = match result.get("authMethods") {
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        self.phase = Phase::Ready;
        events.push(Event::Response {
            id,
            method: "initialize".into(),
            result: RawJson::from_value(&result),
        });
        events.push(self.initialized_event());
    }

    pub(crate) fn initialized_event(&self) -> Event {
        Event::Initialized {
            protocol_version: self.version.unwrap_or(1),
            peer_capabilities: self.peer_wire.clone().unwrap_or(Value::Null),
            peer_info: self.peer_info.clone(),
            auth_methods: self.auth_methods.clone(),
        }
    }

    /// Agent: negotiates, answers, and is ready.
    fn answer_initialize(&mut self, r: Request, events: &mut Vec<Event>) {
        let params = r.params.clone().unwrap_or(Value::Null);
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_u64)
            .and_then(|v| u16::try_from(v).ok());
        let Some(requested) = requested else {
            let e =
                ProtocolError::invalid_params("protocolVersion must be an integer from 0 to 65535");
            if let Ok(text) = self.endpoint.respond(&r.id, Err(e)) {
                events.push(Event::Send { text });
            }
            return;
        };
        let v = match version::agent_choose(requested, self.supported(), self.negotiation) {
            Ok(v) => v,
            Err(e) => {
                if let Ok(text) = self.endpoint.respond(&r.id, Err(e)) {
                    events.push(Event::Send { text });
                }
                return;
            }
        };
        self.version = Some(v);
        // v2's RequestId is a string or an integer: a null id is refused from then on (-32600).
        self.endpoint.set_options(ParseOptions {
            allow_batch: false,
            allow_null_id: v < 2,
        });
        let (wire, read_as) = pick_capabilities(&params, v, "clientCapabilities");
        self.client_caps = ClientCapabilities::from_wire(&wire, read_as);
        self.peer_wire = Some(wire);
        self.peer_info = pick_info(&params, "clientInfo");
        let own = self.agent_caps.to_wire_sent(v);
        self.own_wire = Some(own.clone());
        let info = self.info().to_value();
        let mut result = Map::new();
        result.insert("protocolVersion".into(), v.into());
        if v >= 2 {
            result.insert("capabilities".into(), own);
            result.insert("info".into(), info.clone());
        } else {
            result.insert("agentCapabilities".into(), own);
        }
        result.insert("agentInfo".into(), info);
        result.insert(
            "authMethods".into(),
            Value::Array(self.auth_methods.clone()),
        );
        let result = Value::Object(result);
        let message = Message::response(r.id.clone(), result);
        let text = message.to_text();
        let issues = self.validate(
            &message,
            Direction::ServerToClient,
            Some("initialize"),
            Some(&text),
        );
        if !issues.is_empty() {
            events.push(Event::Violation {
                id: Some(r.id.clone()),
                method: Some("initialize".into()),
                direction: Flow::Out,
                issues,
            });
        }
        if self.endpoint.pending_mut().finish_incoming(&r.id) {
            events.push(Event::Send { text });
        }
        self.phase = Phase::Ready;
        events.push(self.initialized_event());
    }

    // -----------------------------------------------------------------------------------
    // Time and the end.

    pub(crate) fn tick(&mut self, now_ms: u64) -> Vec<Event> {
        let mut events = Vec::new();
        for gone in self.endpoint.expire(now_ms) {
            if let Some(s) = self.about_session.remove(&gone.id) {
                self.replaying.remove(&s);
            }
            self.turns.forget(&gone.id);
            let error = ProtocolError::timeout(&gone.method, gone.timeout_ms.unwrap_or(0));
            if self.phase == Phase::Ready {
                let text = self
                    .endpoint
                    .notify("$/cancel_request", Some(object! { "requestId": &gone.id }));
                events.push(Event::Send { text });
            }
            events.push(Event::Timeout {
                id: gone.id.clone(),
                method: gone.method.clone(),
                error: error.clone(),
            });
            if gone.method == "initialize" {
                self.shut(Some(error), &mut events);
            }
        }
        events
    }

    /// When `tick` should next be called.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        self.endpoint.pending().next_deadline()
    }

    pub(crate) fn close(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.phase != Phase::Closed {
            self.shut(None, &mut events);
        }
        events
    }

    fn shut(&mut self, error: Option<ProtocolError>, events: &mut Vec<Event>) {
        for gone in self.endpoint.close() {
            self.turns.forget(&gone.id);
            events.push(Event::Error {
                id: gone.id,
                method: gone.method.clone(),
                error: ProtocolError::connection_closed(&gone.method),
            });
        }
        // Acknowledged prompts whose turn never ended.
        for (id, session_id) in self.turns.drain() {
            events.push(Event::TurnEnded {
                id,
                session_id,
                outcome: None,
                error: Some(ProtocolError::connection_closed("session/prompt")),
            });
        }
        self.serving.clear();
        self.replaying.clear();
        self.about_session.clear();
        self.phase = Phase::Closed;
        events.push(Event::Closed { error });
    }
}

impl crate::inbound::Inbound for Session {
    type Event = Event;

    /// A `session/update` to the client (the bulk of any conversation, and all of a replay),
    /// a request, or a result of a call of ours, read from the parse that validated it: no
    /// tree of values, the payload handed on as the text it came in. The handshake, anything
    /// else, or a message with an error (repaired or reported by the general path) is left to
    /// that path (false).
    ///
    /// Inlined into the receive path (wasm-opt leaves functions of one caller out of line).
    #[inline(always)]
    fn read_in_place(&mut self, text: &str, now_ms: u64, events: &mut Vec<Event>) -> bool {
        if self.phase != Phase::Ready {
            return false;
        }
        let ctx = Context {
            protocol: Protocol::Acp,
            version: self.version_of(None, None, None),
            direction: self.role.receiving(),
            in_reply_to: None,
        };
        let read = schema::validate_and_read(text, |root| {
            let Some(method) = root.get("method") else {
                // A result of a call of ours, judged by the call it answers; the handshake's
                // is the general path's.
                let id = Id::from_value(&root.get("id")?.value()).ok()?;
                let result = root.get("result")?;
                let method = self.endpoint.pending().get(&id)?.method.as_str();
                if method == "initialize" {
                    return None;
                }
                let read = InPlace::Result(id, RawJson::from_frame(result.raw()));
                let ctx = Context {
                    in_reply_to: Some(method),
                    ..ctx
                };
                return Some((ctx, read));
            };
            let method = method.as_str()?;
            let params = root.get("params");
            let read = match root.get("id") {
                None if method == "session/update" && self.role == Role::Client => {
                    let params = params?;
                    let update = params.get("update").filter(Item::is_object)?;
                    let kind = update.get("sessionUpdate").and_then(|k| k.as_str());
                    InPlace::Update(
                        params.get("sessionId")?.as_str()?.into_owned(),
                        RawJson::from_frame(update.raw()),
                        kind.is_some_and(|k| k == "state_update"),
                    )
                }
                // `initialize` is the handshake's, read by the general path.
                Some(id) if method != "initialize" => {
                    let checked = self.check_call(&method, params, Kind::Request);
                    InPlace::Request(
                        Id::from_value(&id.value()).ok()?,
                        method.into_owned(),
                        params.map(|p| RawJson::from_frame(p.raw())),
                        checked,
                    )
                }
                _ => return None,
            };
            Some((ctx, read))
        });
        let Some((issues, read)) = read else {
            return false;
        };
        if schema::has_errors(&issues) {
            return false;
        }
        let (id, method) = match &read {
            InPlace::Result(id, _) => {
                let Matched::Answered(request) = self.endpoint.pending_mut().resolve(id) else {
                    return false;
                };
                (Some(request.id), request.method)
            }
            InPlace::Update(..) => {
                if self
                    .gate_incoming("session/update", Kind::Notification)
                    .is_err()
                {
                    return false;
                }
                (None, "session/update".to_owned())
            }
            // A duplicate id is the general path's to answer.
            InPlace::Request(id, method, ..) => {
                if self.endpoint.pending_mut().begin_incoming(id).is_err() {
                    return false;
                }
                (Some(id.clone()), method.clone())
            }
        };
        if !issues.is_empty() {
            events.push(Event::Violation {
                id,
                method: Some(method.clone()),
                direction: Flow::In,
                issues,
            });
        }
        match read {
            InPlace::Result(id, result) => {
                let session = self.about_session.remove(&id);
                self.on_response(id, method, session, Ok(result), events)
            }
            InPlace::Update(session_id, update, state) => {
                self.on_update(session_id, update, state, now_ms, events)
            }
            InPlace::Request(id, method, params, checked) => {
                self.serve(id, method, params, checked, events)
            }
        }
        true
    }

    fn endpoint(&mut self) -> &mut Endpoint {
        &mut self.endpoint
    }

    /// Unless `strict`, what the schema marks to be read leniently is repaired first (the
    /// repairs are warnings), and the message handed on repaired.
    fn check(
        &self,
        message: &mut Message,
        in_reply_to: Option<&str>,
        wire: Option<&str>,
    ) -> Vec<Issue> {
        let mut issues = self.validate(message, self.role.receiving(), in_reply_to, wire);
        if !self.common.strict && issues.iter().any(|i| i.severity == Severity::Error) {
            let version = self
                .version
                .unwrap_or_else(|| version::latest(self.supported()));
            let method = message.method().or(in_reply_to).unwrap_or("").to_owned();
            let (value, base, is_result) = match &mut *message {
                Message::Request(r) => (r.params.as_mut(), "/params", false),
                Message::Notification(n) => (n.params.as_mut(), "/params", false),
                Message::Response(r) => (r.outcome.as_mut().ok(), "/result", true),
            };
            if let Some(value) = value {
                let repairs =
                    super::lenient::repair(version, &method, is_result, base, value, &issues);
                if !repairs.is_empty() {
                    // What is left after the repairs, judged again.
                    let ctx = Context {
                        protocol: Protocol::Acp,
                        version: self.judged_by(message, in_reply_to),
                        direction: self.role.receiving(),
                        in_reply_to,
                    };
                    issues = repairs;
                    issues.extend(schema::validate_as(None, message, &ctx));
                }
            }
        }
        issues
    }

    fn take_request(&mut self, r: Request, _now_ms: u64, events: &mut Vec<Event>) {
        if self.role == Role::Agent
            && r.method == "initialize"
            && self.phase == Phase::Uninitialized
        {
            return self.answer_initialize(r, events);
        }
        let (params, checked) = self.check_read(&r.method, r.params.as_ref(), Kind::Request);
        self.serve(r.id, r.method, params, checked, events);
    }

    fn take_notification(&mut self, n: Notification, now_ms: u64, events: &mut Vec<Event>) {
        let (raw, checked) = self.check_read(&n.method, n.params.as_ref(), Kind::Notification);
        let session_id = match checked {
            Ok(session_id) => session_id,
            // Notifications are never answered: report and drop.
            Err(error) => return events.push(Event::ProtocolError { error }),
        };
        let params = n.params.as_ref();
        match n.method.as_str() {
            "$/cancel_request" => {
                let id = params.and_then(|p| p.get("requestId")).map(Id::from_value);
                match id {
                    Some(Ok(id)) if self.serving.contains_key(&id) => {
                        events.push(Event::CancelRequested { id })
                    }
                    // A request already answered, or never seen: nothing to cancel.
                    _ => {}
                }
            }
            "session/update" if self.role == Role::Client => {
                let session_id = session_id.unwrap_or_default();
                let update = params.and_then(|p| p.get("update")).unwrap_or(&Value::Null);
                let state =
                    update.get("sessionUpdate").and_then(Value::as_str) == Some("state_update");
                let update = RawJson::from_value(update);
                self.on_update(session_id, update, state, now_ms, events);
            }
            "session/cancel" if self.role == Role::Agent => {
                if let Some(s) = session_id {
                    if !self.serving_ids("session/prompt", &s).is_empty() {
                        self.cancelled.insert(s);
                    }
                }
                events.push(Event::Notification {
                    method: n.method,
                    params: raw,
                });
            }
            _ => events.push(Event::Notification {
                method: n.method,
                params: raw,
            }),
        }
    }

    fn take_response(
        &mut self,
        request: Outgoing,
        outcome: Result<Value, ProtocolError>,
        _: u64,
        events: &mut Vec<Event>,
    ) {
        if request.method == "initialize" {
            return self.on_initialize_response(request.id, outcome, events);
        }
        let session = self.about_session.remove(&request.id);
        let outcome = outcome.map(|r| RawJson::from_value(&r));
        self.on_response(request.id, request.method, session, outcome, events);
    }
}

fn push_ended(ended: Vec<super::turns::Ended>, events: &mut Vec<Event>) {
    events.extend(
        ended
            .into_iter()
            .map(|(id, session_id, outcome)| Event::TurnEnded {
                id,
                session_id,
                outcome: Some(outcome),
                error: None,
            }),
    );
}

/// Whether `sender` is the side that sends this method.
fn sender_can_send(spec: &MethodSpec, sender: Role) -> bool {
    !sender.serves(spec.server) || spec.server == Server::Both
}

/// The `protocolVersion` params or a result name (`initialize`'s).
fn named<'a, V: View<'a>>(payload: Option<V>) -> Option<u16> {
    payload?
        .get("protocolVersion")?
        .uint()
        .and_then(|v| u16::try_from(v).ok())
}

/// What a frame read in place holds: a result of a call of ours (its id, the result as it
/// came), a session update (its session, the update as it came, whether it is a state
/// update), or a request (its id, method, params as they came, and what `check_call` found).
enum InPlace {
    Result(Id, RawJson),
    Update(String, RawJson, bool),
    Request(
        Id,
        String,
        Option<RawJson>,
        Result<Option<String>, ProtocolError>,
    ),
}

fn session_id_of<'a, V: View<'a>>(params: Option<V>) -> Option<String> {
    params?.get("sessionId")?.text().map(Cow::into_owned)
}

/// The peer's capabilities: the key of the negotiated version's shape (`capabilities` for
/// v2, `v1_key` for v1), or failing that the other shape, read as that version.
fn pick_capabilities(obj: &Value, version: u16, v1_key: &str) -> (Value, u16) {
    let (first, other) = if version >= 2 {
        (("capabilities", 2), (v1_key, 1))
    } else {
        ((v1_key, 1), ("capabilities", 2))
    };
    for (key, as_version) in [first, other] {
        if let Some(v) = obj.get(key).filter(|v| !v.is_null()) {
            return (v.clone(), as_version);
        }
    }
    (Value::Object(Map::new()), version)
}

/// `info` (v2 draft) or `clientInfo`/`agentInfo` (v1, seed 001).
fn pick_info(obj: &Value, legacy_key: &str) -> Option<Value> {
    ["info", legacy_key]
        .iter()
        .find_map(|k| obj.get(*k).filter(|v| !v.is_null()).cloned())
}
