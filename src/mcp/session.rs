//! The engine both roles share: lifecycle phase, negotiated version and era, both
//! parties' capabilities, gating both ways, validation, timeouts and progress,
//! cancellation. `McpClient` and `McpServer` add what only their role does.

use super::capabilities::{self, Capabilities, CapabilityModel, Side};
use super::config::{Common, EraPreference, Implementation, RequestOptions};
use super::event::{Event, PendingCall};
use super::methods::{self, Kind, ParamsRead};
use super::version::{Era, Version};
use crate::json::{Item, View};
use crate::json::{Map, Value};
use crate::jsonrpc::{
    call_text, codes, object, response_text, Endpoint, Flow, Id, Matched, Message, Notification,
    Outbound, Outgoing, ParseFailure, ParseOptions, ProtocolError, RawJson, Request, Timeout,
    VecMap, VecSet,
};
use crate::schema::{self, codes as issue_codes, Direction, Issue, Severity};
use serde::Serialize;

mod lifecycle;
use lifecycle::{Lifecycle, StatelessMeta};

/// The `_meta` keys of the stateless era.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Where the connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// Nothing agreed yet (a server waits for `initialize` or a stateless request).
    Idle,
    /// Client: `server/discover` sent.
    Discovering,
    /// Client: `initialize` sent. Server: answered, waiting for `notifications/initialized`.
    Initializing,
    Ready,
    Closed,
}
crate::json::json_names!(Phase {
    Phase::Idle => "idle",
    Phase::Discovering => "discovering",
    Phase::Initializing => "initializing",
    Phase::Ready => "ready",
    Phase::Closed => "closed",
});

/// One row of the method table as it stands now, for a capability matrix.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodStatus {
    pub method: &'static str,
    pub direction: Direction,
    pub kind: Kind,
    /// We may send it (our direction) or would deliver it (the peer's).
    pub enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl crate::json::Json for MethodStatus {
    fn write_json(&self, out: &mut String) {
        let mut m = crate::json::Members::open(out);
        m.member("method", &self.method)
            .member("direction", &self.direction)
            .member("kind", &self.kind)
            .member("enabled", &self.enabled)
            .some("reason", &self.reason)
            .close();
    }
}

/// An incoming request being served.
#[derive(Debug)]
struct Serving {
    method: String,
    /// Answered in the stateless era: results carry `resultType` and `serverInfo`.
    stateless: bool,
    cancelled: bool,
}

#[derive(Debug)]
pub struct Session {
    pub(super) side: Side,
    pub(super) settings: Common,
    pub(super) versions: Vec<Version>,
    pub(super) info: Implementation,
    pub(super) endpoint: Endpoint,
    pub(super) phase: Phase,
    pub(super) version: Option<Version>,
    pub(super) era: Option<Era>,
    pub(super) peer_caps: Option<Value>,
    pub(super) peer_info: Option<Value>,
    /// The peer's instructions (client side).
    pub(super) instructions: Option<String>,
    pub(super) role: Role,
    /// The version (and era) we are offering while the handshake runs (a server: while
    /// it answers `server/discover`).
    pub(super) offered: Option<(Version, Era)>,
    /// Progress token (as JSON text) -> our request it belongs to.
    progress: VecMap<String, Id>,
    /// Our requests whose deadline progress may push out.
    resets: VecSet<Id>,
    serving: VecMap<Id, Serving>,
}

/// What only one role needs to remember.
#[derive(Debug)]
pub(super) enum Role {
    Client {
        era: EraPreference,
        tried: Vec<Version>,
    },
    Server {
        instructions: Option<String>,
        reject_unsupported: bool,
    },
}

/// Requests and notifications the session sends itself; the generic calls refuse them.
const MANAGED: [&str; 3] = ["initialize", "notifications/initialized", "server/discover"];
/// Requests whose complete result is a `CacheableResult` (2026-07-28).
const CACHEABLE: [&str; 5] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

impl Session {
    pub(super) fn new(role: Role, settings: Common, info: Implementation) -> Self {
        let versions = settings.versions();
        let side = if matches!(role, Role::Client { .. }) {
            Side::Client
        } else {
            Side::Server
        };
        Session {
            side,
            role,
            offered: None,
            settings,
            versions,
            info,
            // MCP forbids null ids; batches only once 2025-03-26 is agreed.
            endpoint: Endpoint::new(ParseOptions {
                allow_batch: false,
                allow_null_id: false,
            }),
            phase: Phase::Idle,
            version: None,
            era: None,
            peer_caps: None,
            peer_info: None,
            instructions: None,
            progress: VecMap::new(),
            resets: VecSet::new(),
            serving: VecMap::new(),
        }
    }

    // ----- read-only view -----

    /// The agreed version (in the stateless era: of the latest request).
    pub fn protocol_version(&self) -> Option<&str> {
        self.version.as_ref().map(Version::as_str)
    }

    pub fn era(&self) -> Option<Era> {
        self.era
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn is_ready(&self) -> bool {
        self.phase == Phase::Ready
    }

    /// Supported versions, most preferred first.
    pub fn supported_versions(&self) -> Vec<&str> {
        self.versions.iter().map(Version::as_str).collect()
    }

    /// Our capabilities exactly as we send them for the current version.
    pub fn own_capabilities(&self) -> Value {
        let (v, era) = self.level();
        capabilities::trim(
            self.side,
            &Value::Object(self.settings.capabilities.clone()),
            &v,
            era,
        )
    }

    /// The peer's capabilities exactly as advertised.
    pub fn peer_capabilities(&self) -> Option<&Value> {
        self.peer_caps.as_ref()
    }

    pub fn own_capability_model(&self) -> CapabilityModel {
        let (v, era) = self.level();
        self.own().model(&v, era)
    }

    pub fn peer_capability_model(&self) -> CapabilityModel {
        let (v, era) = self.level();
        self.peer().model(&v, era)
    }

    pub fn peer_info(&self) -> Option<&Value> {
        self.peer_info.as_ref()
    }

    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// When `tick` next has something to do.
    pub fn next_deadline(&self) -> Option<u64> {
        self.endpoint.pending().next_deadline()
    }

    /// Every MCP method, with whether it may go (ours) or would be delivered (the
    /// peer's) right now, and why not.
    pub fn methods(&self) -> Vec<MethodStatus> {
        methods::METHODS
            .iter()
            .map(|spec| {
                let verdict = if spec.direction == self.out_dir() {
                    if MANAGED.contains(&spec.method) {
                        Err(ProtocolError::local_refusal(
                            "sent by the session itself during the handshake",
                        ))
                    } else {
                        self.permit(spec.method, spec.kind, ParamsRead::default())
                    }
                } else if spec.kind == Kind::Request {
                    self.screen_request(spec.method, ParamsRead::default())
                        .map_or(Ok(()), Err)
                } else {
                    self.screen_notification(spec.method)
                        .map_or(Ok(()), |i| Err(ProtocolError::local_refusal(i.message)))
                };
                MethodStatus {
                    method: spec.method,
                    direction: spec.direction,
                    kind: spec.kind,
                    enabled: verdict.is_ok(),
                    reason: verdict.err().map(|e| e.message),
                }
            })
            .collect()
    }

    // ----- outgoing -----

    /// Sends any request, with the same lifecycle, capability and validation checks as
    /// the named calls.
    pub fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        let params = params.map(|p| crate::json::text(&p));
        self.request_text(method, params, options, now_ms)
    }

    /// As `request`, with the params JSON text already (as the binding has them): put into
    /// the message as they are, and read from the parse that validates it.
    pub fn request_text(
        &mut self,
        method: &str,
        params: Option<String>,
        options: RequestOptions,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.unmanaged(method)?;
        self.send_request(method, params, options, now_ms, true)
    }

    /// Sends any notification, with the same checks.
    pub fn notify(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Outbound, ProtocolError> {
        let params = params.map(|p| crate::json::text(&p));
        self.notify_text(method, params.as_deref())
    }

    /// As `notify`, with the params JSON text already.
    pub fn notify_text(
        &mut self,
        method: &str,
        params: Option<&str>,
    ) -> Result<Outbound, ProtocolError> {
        self.unmanaged(method)?;
        let text = call_text(None, method, params);
        self.check_outgoing(&text, Some((method, Kind::Notification)), None)?;
        Ok(Outbound {
            id: None,
            method: None,
            text,
        })
    }

    /// Refuses what the session sends by itself.
    fn unmanaged(&self, method: &str) -> Result<(), ProtocolError> {
        if MANAGED.contains(&method) {
            return Err(refusal(
                method,
                None,
                format!("{method} is sent by the session itself"),
            ));
        }
        Ok(())
    }

    /// Answers a request the application received as a `request` event.
    pub fn respond(
        &mut self,
        id: &Id,
        outcome: Result<Value, ProtocolError>,
    ) -> Result<Outbound, ProtocolError> {
        self.respond_text(id, outcome.map(|v| crate::json::text(&v)))
    }

    /// As `respond`, with the result JSON text already.
    pub fn respond_text(
        &mut self,
        id: &Id,
        outcome: Result<String, ProtocolError>,
    ) -> Result<Outbound, ProtocolError> {
        let Some(serving) = self.serving.get(id) else {
            return Err(ProtocolError::local_refusal(format!(
                "no incoming request {id} is waiting for an answer"
            )));
        };
        let method = serving.method.clone();
        if serving.cancelled {
            self.finish(id);
            return Err(refusal(
                &method,
                None,
                format!("request {id} ({method}) was cancelled by the peer; no answer is sent"),
            )
            .with_data(object! { "method": method, "id": id }));
        }
        let text = match outcome {
            Ok(r) => response_text(
                id,
                "result",
                &self.decorate_result(&method, serving.stateless, r),
            ),
            Err(e) => response_text(id, "error", &crate::json::text(&e)),
        };
        self.check_outgoing(&text, None, Some(&method))?;
        self.finish(id);
        Ok(Outbound {
            id: None,
            method: None,
            text,
        })
    }

    /// Withdraws one of our requests and tells the peer (`notifications/cancelled`).
    /// `initialize` is never cancelled.
    pub fn cancel(&mut self, id: &Id, reason: Option<&str>) -> Result<Outbound, ProtocolError> {
        let Some(pending) = self.endpoint.pending().get(id) else {
            return Err(ProtocolError::local_refusal(format!(
                "no request {id} of ours is pending"
            )));
        };
        if pending.method == "initialize" {
            return Err(refusal(
                "initialize",
                None,
                "initialize must not be cancelled".into(),
            ));
        }
        let method = pending.method.clone();
        self.endpoint.cancel(id);
        self.forget(id);
        let text = self.cancelled_text(id, reason.unwrap_or("cancelled by the application"));
        Ok(Outbound {
            id: None,
            method: Some(method),
            text,
        })
    }

    // ----- incoming -----

    /// Takes one incoming frame at time `now_ms`.
    pub fn receive(&mut self, text: &str, now_ms: u64) -> Vec<Event> {
        self.take_frame(Ok(text), now_ms)
    }

    /// Takes one incoming frame as bytes (a binary WebSocket frame, a `fetch` body): UTF-8
    /// text, or a parse error (-32700).
    pub fn receive_bytes(&mut self, bytes: &[u8], now_ms: u64) -> Vec<Event> {
        self.take_frame(crate::jsonrpc::frame_text(bytes), now_ms)
    }

    fn take_frame(&mut self, frame: Result<&str, ParseFailure>, now_ms: u64) -> Vec<Event> {
        let mut events = Vec::new();
        crate::inbound::receive(self, frame, now_ms, &mut events);
        events
    }

    /// Time passed: requests past their deadline fail with `timeout` and are cancelled
    /// at the peer (except `initialize`).
    pub fn tick(&mut self, now_ms: u64) -> Vec<Event> {
        let mut events = Vec::new();
        let expired = self.endpoint.expire(now_ms);
        let listed: Vec<PendingCall> = expired
            .iter()
            .map(|e| PendingCall {
                id: e.id.clone(),
                method: e.method.clone(),
            })
            .collect();
        for expired in expired {
            self.forget(&expired.id);
            let after = now_ms.saturating_sub(expired.sent_ms);
            let error = ProtocolError::timeout(&expired.method, after);
            // Nothing is sent once the session has ended (a failed handshake earlier in this tick).
            if expired.method != "initialize" && self.phase != Phase::Closed {
                let text = self.cancelled_text(&expired.id, &format!("timed out after {after} ms"));
                events.push(Event::Send { text });
            }
            events.push(Event::Timeout {
                id: expired.id.clone(),
                method: expired.method.clone(),
                error: error.clone(),
            });
            if self.phase != Phase::Closed {
                self.after_failure(&expired, error, now_ms, &mut events);
            }
        }
        // `closed` comes last, and lists what was pending when the session ended: what the
        // shutdown failed and what expired in the same tick.
        if let Some(at) = events
            .iter()
            .position(|e| matches!(e, Event::Closed { .. }))
        {
            if let Event::Closed { pending } = events.remove(at) {
                let mut all = listed;
                all.extend(pending);
                events.push(Event::Closed { pending: all });
            }
        }
        events
    }

    /// The transport closed: everything pending fails, and the session ends.
    pub fn close(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        self.shut(&mut events);
        events
    }

    // ----- shared machinery -----

    pub(super) fn out_dir(&self) -> Direction {
        match self.side {
            Side::Client => Direction::ClientToServer,
            Side::Server => Direction::ServerToClient,
        }
    }

    fn in_dir(&self) -> Direction {
        match self.side {
            Side::Client => Direction::ServerToClient,
            Side::Server => Direction::ClientToServer,
        }
    }

    /// The version and era rules are judged by: the agreed one, else the first we offer.
    pub(super) fn level(&self) -> (Version, Era) {
        if let (Some(v), Some(era)) = (&self.version, self.era) {
            return (v.clone(), era);
        }
        if let Some(offered) = &self.offered {
            return offered.clone();
        }
        let version = self
            .versions
            .first()
            .cloned()
            .unwrap_or(Version::V2025_11_25);
        let era = version.era();
        (version, era)
    }

    fn own(&self) -> Capabilities<'_> {
        Capabilities::new(self.side, &self.settings.capabilities)
    }

    fn peer(&self) -> Capabilities<'_> {
        let other = if self.side == Side::Client {
            Side::Server
        } else {
            Side::Client
        };
        match self.peer_caps.as_ref().and_then(Value::as_object) {
            Some(m) => Capabilities::new(other, m),
            None => Capabilities::none(other),
        }
    }

    fn client_and_server(&self) -> (Capabilities<'_>, Capabilities<'_>) {
        match self.side {
            Side::Client => (self.own(), self.peer()),
            Side::Server => (self.peer(), self.own()),
        }
    }

    /// Our info as the version defines `Implementation`.
    pub(super) fn info_for(&self, version: &Version, era: Era) -> Value {
        let mut info = self.info.to_value();
        if let Value::Object(m) = &mut info {
            if !version.within(era, &Version::V2025_06_18, None) {
                m.remove("title");
            }
            if !version.within(era, &Version::V2025_11_25, None) {
                for k in ["description", "icons", "websiteUrl"] {
                    m.remove(k);
                }
            }
        }
        info
    }

    /// Lifecycle, version and capability checks for something we want to send.
    fn permit(&self, method: &str, kind: Kind, params: ParamsRead) -> Result<(), ProtocolError> {
        if self.phase == Phase::Closed {
            return Err(refusal(method, None, "the session is closed".into()));
        }
        let early_ok = match self.side {
            Side::Client => method == "ping" || method == "notifications/cancelled",
            Side::Server => matches!(
                method,
                "ping"
                    | "notifications/message"
                    | "notifications/progress"
                    | "notifications/cancelled"
            ),
        };
        if self.phase != Phase::Ready && !early_ok {
            let what = if kind == Kind::Request {
                "request"
            } else {
                "notification"
            };
            return Err(refusal(
                method,
                None,
                format!("the {what} {method} cannot be sent before the handshake completes"),
            ));
        }
        self.check_method(method, self.out_dir(), params)
            .map_err(|b| refusal(method, b.capability.as_deref(), b.reason))
    }

    /// For an incoming request: the error to answer with instead of delivering it.
    pub(super) fn screen_request(&self, method: &str, params: ParamsRead) -> Option<ProtocolError> {
        if method == "ping" && self.era != Some(Era::Stateless) {
            return None;
        }
        if self.phase != Phase::Ready
            && !(self.side == Side::Server && self.phase == Phase::Initializing)
        {
            return Some(
                ProtocolError::new(
                    codes::INVALID_REQUEST,
                    format!(
                        "{method} arrived before initialization: the handshake must complete first"
                    ),
                )
                .with_data(object! { "method": method }),
            );
        }
        self.check_method(method, self.in_dir(), params)
            .err()
            .map(|b| {
                let mut e = ProtocolError::method_not_found(method);
                e.data = Some(
                    object! { "method": method, "reason": b.reason, "capability": b.capability },
                );
                e
            })
    }

    /// The method table and both sides' capabilities at the agreed level.
    fn check_method(
        &self,
        method: &str,
        direction: Direction,
        params: ParamsRead,
    ) -> Result<(), methods::Blocked> {
        let (version, era) = self.level();
        let (client, server) = self.client_and_server();
        methods::check(method, direction, params, &version, era, &client, &server)
    }

    /// For an incoming notification: what is wrong with it arriving now (still delivered).
    fn screen_notification(&self, method: &str) -> Option<Issue> {
        let tolerated = [
            "notifications/message",
            "notifications/progress",
            "notifications/cancelled",
            "notifications/initialized",
        ];
        if self.phase != Phase::Ready && !tolerated.contains(&method) {
            return Some(issue(
                issue_codes::LIFECYCLE,
                Severity::Warning,
                format!("{method} arrived before the handshake completed"),
            ));
        }
        self.check_method(method, self.in_dir(), ParamsRead::default())
            .err()
            .map(|b| {
                issue(
                    issue_codes::CAPABILITY_NOT_NEGOTIATED,
                    Severity::Error,
                    b.reason,
                )
            })
    }

    /// Builds, validates and registers one of our requests.
    /// `gated`: by the lifecycle, the method table and capabilities (what the session sends
    /// by itself is not).
    pub(super) fn send_request(
        &mut self,
        method: &str,
        params: Option<String>,
        options: RequestOptions,
        now_ms: u64,
        gated: bool,
    ) -> Result<Outbound, ProtocolError> {
        let mut params = params;
        if self.side == Side::Client && self.era == Some(Era::Stateless) {
            params = Some(merge_meta_text(params, self.stateless_meta()));
        }
        // The id is taken once the message is known to go.
        let id = self.endpoint.pending().peek_id();
        if options.reset_on_progress {
            let mut token = Map::new();
            token.insert("progressToken".into(), id.to_value());
            params = Some(merge_meta_text(params, token));
        }
        let text = call_text(Some(&id), method, params.as_deref());
        self.check_outgoing(&text, gated.then_some((method, Kind::Request)), None)?;
        let id = self.endpoint.pending_mut().next_id();
        let timeout = Timeout {
            timeout_ms: options.timeout_ms.or(self.settings.request_timeout_ms),
            max_total_ms: if options.reset_on_progress {
                options.max_total_ms.or(self.settings.max_total_timeout_ms)
            } else {
                None
            },
        };
        // A fresh id is never in flight, so registering cannot fail.
        let _ = self
            .endpoint
            .pending_mut()
            .register(id.clone(), method, now_ms, timeout);
        if options.reset_on_progress {
            self.progress
                .insert(crate::json::text(&id.to_value()), id.clone());
            self.resets.insert(id.clone());
        }
        Ok(Outbound {
            id: Some(id),
            method: Some(method.to_owned()),
            text,
        })
    }

    /// The `_meta` every stateless-era request of a client carries.
    pub(super) fn stateless_meta(&self) -> Map<String, Value> {
        let (version, era) = self.level();
        let mut meta = Map::new();
        meta.insert(META_VERSION.into(), Value::from(version.as_str()));
        meta.insert(META_CLIENT_CAPABILITIES.into(), self.own_capabilities());
        meta.insert(META_CLIENT_INFO.into(), self.info_for(&version, era));
        meta
    }

    /// Checks the text of an outgoing message from one parse (the params are never a tree of
    /// values): a call's params against the lifecycle, the method table and capabilities
    /// (`call`: its method and kind), and the schema (refused on errors unless told not to
    /// validate). `in_reply_to`: the method a response answers.
    #[inline(never)]
    fn check_outgoing(
        &self,
        text: &str,
        call: Option<(&str, Kind)>,
        in_reply_to: Option<&str>,
    ) -> Result<(), ProtocolError> {
        let method = call.map(|(m, _)| m);
        let (issues, permitted) = schema::read_outgoing(text, |root| {
            let payload = root.get(if call.is_some() { "params" } else { "result" });
            let request = call.filter(|&(_, k)| k == Kind::Request).map(|(m, _)| m);
            let version = self.version_of(request, in_reply_to, Named::of(payload));
            let permitted = match call {
                Some((method, kind)) => self.permit(method, kind, ParamsRead::of(payload)),
                None => Ok(()),
            };
            let ctx = self.settings.validate_outgoing.then(|| schema::Context {
                protocol: schema::Protocol::Mcp,
                version: version.name(),
                direction: self.out_dir(),
                in_reply_to,
            });
            (ctx, permitted)
        })
        .map_err(|e| ProtocolError::invalid_params(e.to_string()))?;
        permitted?;
        schema::refuse_errors(method.or(in_reply_to).unwrap_or("response"), &issues)
    }

    /// Validates a message, from `wire` when that is its text (as it came, as it goes).
    fn validate(
        &self,
        message: &Message,
        direction: Direction,
        in_reply_to: Option<&str>,
        wire: Option<&str>,
    ) -> Vec<Issue> {
        let version = self.judged_by(message, in_reply_to);
        let ctx = schema::Context {
            protocol: schema::Protocol::Mcp,
            version: version.as_str(),
            direction,
            in_reply_to,
        };
        schema::validate_as(wire, message, &ctx)
    }

    /// The version a message is judged by (docs/validation.md, "Handshake messages"):
    /// `initialize` by the version it requests, its answer by the version it answers
    /// with when we speak it; otherwise the agreed version, or before agreement a request
    /// naming its version in `_meta` by that one, and anything else by the version we
    /// offer (a server offering none: its newest handshake-era version, as a peer that
    /// names no version speaks that era). Unknown versions by their feature level.
    fn judged_by(&self, message: &Message, in_reply_to: Option<&str>) -> Version {
        match message {
            Message::Request(r) => {
                self.version_of(Some(&r.method), None, Named::of(r.params.as_ref()))
            }
            Message::Notification(_) => self.version_of(None, None, Named::default()),
            Message::Response(r) => {
                self.version_of(None, in_reply_to, Named::of(r.outcome.as_ref().ok()))
            }
        }
    }

    /// As `judged_by`, from a request's method (`request`) or the method a response answers,
    /// and the versions its params or result name.
    fn version_of(
        &self,
        request: Option<&str>,
        in_reply_to: Option<&str>,
        named: Named,
    ) -> Version {
        let Named { protocol, in_meta } = named;
        let in_meta = in_meta.filter(|_| request.is_some());
        let (version, era) = if request == Some("initialize") {
            match protocol {
                Some(v) => (v, Era::Handshake),
                None => self.level(),
            }
        } else if in_reply_to == Some("initialize") {
            match protocol.filter(|v| self.versions.contains(v)) {
                Some(v) => (v, Era::Handshake),
                None => self.level(),
            }
        } else if self.version.is_some() || self.offered.is_some() {
            self.level()
        } else {
            match (in_meta, self.handshake_versions().first()) {
                (Some(v), _) => (v, Era::Stateless),
                (None, Some(v)) if self.side == Side::Server => (v.clone(), Era::Handshake),
                _ => self.level(),
            }
        };
        version.feature_level(era)
    }

    /// Text the session sends by itself; validated like everything else, but sent even
    /// if the validator objects, since the peer is waiting for it.
    pub(super) fn auto(
        &self,
        message: Message,
        in_reply_to: Option<&str>,
        events: &mut Vec<Event>,
    ) {
        let text = message.to_text();
        let issues = self.validate(&message, self.out_dir(), in_reply_to, Some(&text));
        if !issues.is_empty() {
            events.push(Event::violation(
                message.id(),
                message.method().or(in_reply_to),
                Flow::Out,
                issues,
            ));
        }
        events.push(Event::Send { text });
    }

    /// A request screened (`screen_request`), its id among those served: answered with its
    /// refusal, or handed to the application, its params as their JSON text.
    fn serve(
        &mut self,
        id: Id,
        method: String,
        params: Option<RawJson>,
        screened: Option<ProtocolError>,
        events: &mut Vec<Event>,
    ) {
        match screened {
            Some(error) => self.reply(&id, &method, Err(error), events),
            None => events.push(Event::Request { id, method, params }),
        }
    }

    /// A notification for the application (after what is wrong with it arriving now), its
    /// params as their JSON text.
    fn deliver(&self, method: String, params: Option<RawJson>, events: &mut Vec<Event>) {
        if let Some(i) = self.screen_notification(&method) {
            events.push(Event::violation(None, Some(&method), Flow::In, vec![i]));
        }
        events.push(Event::Notification { method, params });
    }

    /// Progress on one of our requests (`key`, its token as the progress table keys it): its
    /// deadline pushed out when it asked for that, and the event.
    fn on_progress(
        &mut self,
        key: &str,
        progress_token: RawJson,
        params: RawJson,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        let id = self.progress.get(key).cloned();
        if let Some(id) = &id {
            if self.resets.contains(id) {
                self.endpoint.pending_mut().touch(id, now_ms);
            }
        }
        events.push(Event::Progress {
            id,
            progress_token,
            params,
        });
    }

    /// Answers an incoming request on the session's own account.
    pub(super) fn reply(
        &mut self,
        id: &Id,
        method: &str,
        outcome: Result<Value, ProtocolError>,
        events: &mut Vec<Event>,
    ) {
        self.endpoint.pending_mut().finish_incoming(id);
        self.serving.remove(id);
        self.auto(
            Message::Response(crate::jsonrpc::Response {
                id: id.clone(),
                outcome,
            }),
            Some(method),
            events,
        );
    }

    fn cancelled_text(&self, id: &Id, reason: &str) -> String {
        Message::notification(
            "notifications/cancelled",
            Some(object! { "requestId": id, "reason": reason }),
        )
        .to_text()
    }

    fn after_failure(
        &mut self,
        request: &Outgoing,
        error: ProtocolError,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        if self.side == Side::Client && MANAGED.contains(&request.method.as_str()) {
            self.on_handshake_answer(&request.method, Err(error), now_ms, events);
        }
    }

    /// The session cannot go on: report why, fail what is pending, close.
    pub(super) fn fail(&mut self, error: ProtocolError, events: &mut Vec<Event>) {
        events.push(Event::ProtocolError { error });
        self.shut(events);
    }

    fn shut(&mut self, events: &mut Vec<Event>) {
        self.phase = Phase::Closed;
        let pending: Vec<Outgoing> = self.endpoint.close();
        let mut calls = Vec::new();
        for p in pending {
            self.forget(&p.id);
            events.push(Event::Error {
                id: p.id.clone(),
                method: p.method.clone(),
                error: ProtocolError::connection_closed(&p.method),
            });
            calls.push(PendingCall {
                id: p.id,
                method: p.method,
            });
        }
        events.push(Event::Closed { pending: calls });
    }

    /// Sets the agreed version and what follows from it (batches only in 2025-03-26).
    pub(super) fn agree(&mut self, version: Version, era: Era) {
        let batch = version == Version::V2025_03_26;
        self.version = Some(version);
        self.era = Some(era);
        self.endpoint.set_options(ParseOptions {
            allow_batch: batch,
            allow_null_id: false,
        });
    }

    /// In the stateless era results carry `resultType` and the server's info, and the
    /// cacheable ones a cache hint: unless the application gives one, the most cautious
    /// (`private`, stale at once), as in the session's own `server/discover` answer.
    /// Read from the result's parse and added to its text (`add_members`).
    fn decorate_result(&self, method: &str, stateless: bool, result: String) -> String {
        if !(stateless && self.side == Side::Server) {
            return result;
        }
        let Ok(tape) = crate::json::tape_of(&result) else {
            return result;
        };
        let root = Item::root(&tape);
        let complete = root
            .get("resultType")
            .is_none_or(|k| k.text().as_deref() == Some("complete"));
        // The cache hint only for what is cacheable and complete.
        let members = [
            ("resultType", "complete".into()),
            ("cacheScope", "private".into()),
            ("ttlMs", 0.into()),
        ];
        let cache = complete && CACHEABLE.contains(&method);
        let (version, era) = self.level();
        let mut meta = Map::new();
        meta.insert(META_SERVER_INFO.into(), self.info_for(&version, era));
        add_members(&result, root, &members[..if cache { 3 } else { 1 }], meta)
    }

    /// The connection is ready: tell the application what was agreed.
    pub(super) fn announce(&self, events: &mut Vec<Event>) {
        let (version, era) = self.level();
        events.push(Event::Initialized {
            protocol_version: version.as_str().to_owned(),
            era,
            peer_capabilities: self.peer_caps.clone().unwrap_or_else(|| object! {}),
            peer_info: self.peer_info.clone(),
            instructions: self.instructions.clone(),
        });
    }

    pub(super) fn finish(&mut self, id: &Id) {
        self.endpoint.pending_mut().finish_incoming(id);
        self.serving.remove(id);
    }

    fn forget(&mut self, id: &Id) {
        self.resets.remove(id);
        self.progress.retain(|_, v| v != id);
    }
}

/// What a frame read in place holds: a result of ours (its id, the result as it came), a
/// request (its id, method, params as they came, what the gates read of them, and a
/// stateless-era request's `_meta`), or a notification (its method and params as they came).
enum InPlace {
    Result(Id, RawJson),
    Request(
        Id,
        String,
        Option<RawJson>,
        ParamsRead,
        Option<StatelessMeta>,
    ),
    Notification(String, Option<RawJson>),
    /// `notifications/progress`: the token as the progress table keys it, the token and the
    /// params as they came.
    Progress(String, RawJson, RawJson),
}

/// The versions a message names: `protocolVersion` (`initialize` and its answer) and the one
/// in `_meta` (a stateless request).
#[derive(Default)]
struct Named {
    protocol: Option<Version>,
    in_meta: Option<Version>,
}

impl Named {
    fn of<'a, V: View<'a>>(payload: Option<V>) -> Self {
        let named = |v: Option<V>, key: &str| Some(Version::parse(&v?.get(key)?.text()?));
        Named {
            protocol: named(payload, "protocolVersion"),
            in_meta: named(payload.and_then(|p| p.get("_meta")), META_VERSION),
        }
    }
}

/// As `merge_meta`, on params as JSON text (`add_members`). Text that is not JSON within the
/// depth a peer reads is left as it is (the message is refused for it).
pub(super) fn merge_meta_text(params: Option<String>, entries: Map<String, Value>) -> String {
    let text = params.unwrap_or_else(|| "{}".into());
    let Ok(tape) = crate::json::tape_of(&text) else {
        return text;
    };
    add_members(&text, Item::root(&tape), &[], entries)
}

/// An object given as JSON text (`root`, its parse) with `members` it does not have and `meta`
/// merged into its `_meta` (entries it has kept). Without a `_meta` of its own, what is added
/// goes in before its closing brace, in order, where the tree would put it: the object is not
/// read into values and written again. With one, merged on values. Anything but an object is
/// left as it is.
fn add_members(
    text: &str,
    root: Item,
    members: &[(&str, Value)],
    meta: Map<String, Value>,
) -> String {
    if !root.is_object() {
        return text.to_owned();
    }
    let mut added = Map::new();
    for (k, v) in members {
        if root.get(k).is_none() {
            added.insert((*k).into(), v.clone());
        }
    }
    if !meta.is_empty() {
        if root.get("_meta").is_some() {
            let mut object = Some(root.value());
            if let Some(Value::Object(m)) = &mut object {
                m.extend(added);
            }
            merge_meta(&mut object, meta);
            return crate::json::text(&object);
        }
        added.insert("_meta".into(), Value::Object(meta));
    }
    if added.is_empty() {
        return text.to_owned();
    }
    // The added members as the one writer writes an object, spliced without its `{`.
    let added = crate::json::text(&added);
    let body = text.trim_ascii_end();
    let mut out = String::with_capacity(text.len() + added.len());
    out.push_str(crate::text::part(body, ..body.len() - 1).trim_ascii_end());
    if !root.is_empty() {
        out.push(',');
    }
    out.push_str(crate::text::part(&added, 1..));
    out
}

/// Adds `_meta` entries to params (creating both as needed), keeping what is there.
pub(super) fn merge_meta(params: &mut Option<Value>, entries: Map<String, Value>) {
    let p = params.get_or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(p) = p else { return };
    let meta = p
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        for (k, v) in entries {
            meta.entry(k).or_insert(v);
        }
    }
}

pub(super) fn refusal(method: &str, capability: Option<&str>, message: String) -> ProtocolError {
    ProtocolError::local_refusal(message)
        .with_data(object! { "method": method, "capability": capability })
}

pub(super) fn issue(code: &'static str, severity: Severity, message: String) -> Issue {
    Issue {
        path: String::new(),
        code,
        message,
        severity,
    }
}

impl crate::inbound::Inbound for Session {
    type Event = Event;

    /// A frame that is one result of a call of ours (a tool's output, a resource, a list: the
    /// bulk of what a client receives), a request, or a notification the session only screens,
    /// read from the parse that validates it: no tree of values, the payload handed on as the
    /// text it came in. Anything else, the handshake, or a message with an error (reported by
    /// the general path) is left to that path (false), which reads it the same way.
    ///
    /// Inlined into the receive path (wasm-opt leaves functions of one caller out of line).
    #[inline(always)]
    fn read_in_place(&mut self, text: &str, now_ms: u64, events: &mut Vec<Event>) -> bool {
        // Judged by the agreed or offered version, as `judged_by` judges a response; before
        // either, the general path works out which.
        if self.version.is_none() && self.offered.is_none() {
            return false;
        }
        let (version, era) = self.level();
        let version = version.feature_level(era);
        let direction = self.in_dir();
        // A request once the handshake is done, or a stateless-era request whose `_meta` the
        // server's lifecycle takes as it is; the handshake's own requests, `ping` and anything
        // the lifecycle answers are the general path's.
        let requests = self.phase == Phase::Ready;
        let read = schema::validate_and_read(text, |root| {
            let ctx = |in_reply_to| schema::Context {
                protocol: schema::Protocol::Mcp,
                version: version.as_str(),
                direction,
                in_reply_to,
            };
            let Some(id) = root.get("id") else {
                // A notification the session only screens, or progress (as frequent as a
                // long call's steps); those it acts on otherwise (`cancelled`, `initialized`)
                // are the general path's.
                let method = root.get("method")?.as_str()?;
                if method == "notifications/progress" {
                    let params = root.get("params")?;
                    let token = params.get("progressToken")?;
                    let read = InPlace::Progress(
                        crate::json::text(&token.value()),
                        RawJson::from_frame(token.raw()),
                        RawJson::from_frame(params.raw()),
                    );
                    return Some((ctx(None), read));
                }
                if matches!(
                    &*method,
                    "notifications/cancelled" | "notifications/initialized"
                ) {
                    return None;
                }
                let params = root.get("params").map(|p| RawJson::from_frame(p.raw()));
                return Some((
                    ctx(None),
                    InPlace::Notification(method.into_owned(), params),
                ));
            };
            let id = Id::from_value(&id.value()).ok()?;
            let Some(method) = root.get("method") else {
                let result = root.get("result")?;
                let method = self.endpoint.pending().get(&id)?.method.as_str();
                if MANAGED.contains(&method) {
                    return None;
                }
                let read = InPlace::Result(id, RawJson::from_frame(result.raw()));
                return Some((ctx(Some(method)), read));
            };
            let method = method.as_str()?;
            if !requests || matches!(&*method, "initialize" | "server/discover" | "ping") {
                return None;
            }
            let params = root.get("params");
            let stateless = match (self.side, self.era) {
                (Side::Client, _) | (Side::Server, Some(Era::Handshake)) => None,
                (Side::Server, Some(Era::Stateless)) => Some(self.named_in_meta(params)?),
                (Side::Server, None) => return None,
            };
            let read = InPlace::Request(
                id,
                method.into_owned(),
                params.map(|p| RawJson::from_frame(p.raw())),
                ParamsRead::of(params),
                stateless,
            );
            Some((ctx(None), read))
        });
        let Some((issues, read)) = read else {
            return false;
        };
        if schema::has_errors(&issues) {
            return false;
        }
        match read {
            InPlace::Result(id, result) => {
                let Matched::Answered(request) = self.endpoint.pending_mut().resolve(&id) else {
                    return false;
                };
                if !issues.is_empty() {
                    events.push(Event::violation(
                        Some(&id),
                        Some(&request.method),
                        Flow::In,
                        issues,
                    ));
                }
                self.forget(&id);
                events.push(Event::Response {
                    id,
                    method: request.method,
                    result,
                });
            }
            InPlace::Notification(method, params) => {
                if !issues.is_empty() {
                    events.push(Event::violation(None, Some(&method), Flow::In, issues));
                }
                self.deliver(method, params, events);
            }
            InPlace::Progress(key, token, params) => {
                if !issues.is_empty() {
                    let method = Some("notifications/progress");
                    events.push(Event::violation(None, method, Flow::In, issues));
                }
                self.on_progress(&key, token, params, now_ms, events);
            }
            InPlace::Request(id, method, params, read, stateless) => {
                // A duplicate id is the general path's to answer.
                if self.endpoint.pending_mut().begin_incoming(&id).is_err() {
                    return false;
                }
                if !issues.is_empty() {
                    events.push(Event::violation(Some(&id), Some(&method), Flow::In, issues));
                }
                let serving = Serving {
                    method: method.clone(),
                    stateless: stateless.is_some(),
                    cancelled: false,
                };
                self.serving.insert(id.clone(), serving);
                if let Some(meta) = stateless {
                    self.enter_stateless(meta);
                }
                let screened = self.screen_request(&method, read);
                self.serve(id, method, params, screened, events);
            }
        }
        true
    }

    fn endpoint(&mut self) -> &mut Endpoint {
        &mut self.endpoint
    }

    fn check(
        &self,
        message: &mut Message,
        in_reply_to: Option<&str>,
        wire: Option<&str>,
    ) -> Vec<Issue> {
        self.validate(message, self.in_dir(), in_reply_to, wire)
    }

    fn take_request(&mut self, r: Request, _now_ms: u64, events: &mut Vec<Event>) {
        self.serving.insert(
            r.id.clone(),
            Serving {
                method: r.method.clone(),
                stateless: false,
                cancelled: false,
            },
        );
        if self.side == Side::Server {
            match self.serve_lifecycle(&r, events) {
                Lifecycle::Handled => return,
                Lifecycle::Stateless => {
                    if let Some(s) = self.serving.get_mut(&r.id) {
                        s.stateless = true;
                    }
                }
                Lifecycle::Continue => {}
            }
        }
        if r.method == "ping" && self.screen_request("ping", ParamsRead::default()).is_none() {
            self.reply(&r.id, "ping", Ok(object! {}), events);
            return;
        }
        let screened = self.screen_request(&r.method, ParamsRead::of(r.params.as_ref()));
        let params = r.params.as_ref().map(RawJson::from_value);
        self.serve(r.id, r.method, params, screened, events);
    }

    fn take_notification(&mut self, n: Notification, now_ms: u64, events: &mut Vec<Event>) {
        match n.method.as_str() {
            "notifications/cancelled" => {
                let params = n.params.unwrap_or(Value::Null);
                let request_id = params.get("requestId").cloned().unwrap_or(Value::Null);
                if let Ok(id) = Id::from_value(&request_id) {
                    if let Some(s) = self.serving.get_mut(&id) {
                        s.cancelled = true;
                    }
                }
                let reason = params
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                events.push(Event::Cancelled { request_id, reason });
            }
            "notifications/progress" => {
                let params = n.params.unwrap_or(Value::Null);
                let token = params.get("progressToken").cloned().unwrap_or(Value::Null);
                let key = crate::json::text(&token);
                let (token, params) = (RawJson::from_value(&token), RawJson::from_value(&params));
                self.on_progress(&key, token, params, now_ms, events);
            }
            "notifications/initialized" if self.side == Side::Server => self.on_initialized(events),
            _ => {
                let params = n.params.as_ref().map(RawJson::from_value);
                self.deliver(n.method, params, events);
            }
        }
    }

    fn take_response(
        &mut self,
        request: Outgoing,
        outcome: Result<Value, ProtocolError>,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        self.forget(&request.id);
        if self.side == Side::Client && MANAGED.contains(&request.method.as_str()) {
            self.on_handshake_answer(&request.method, outcome, now_ms, events);
            return;
        }
        events.push(match outcome {
            Ok(result) => Event::Response {
                id: request.id,
                method: request.method,
                result: RawJson::from_value(&result),
            },
            Err(error) => Event::Error {
                id: request.id,
                method: request.method,
                error,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the tree would make of an object: members it lacks added, `_meta` merged.
    fn on_values(text: &str, members: &[(&str, Value)], meta: &Map<String, Value>) -> Value {
        let mut object = crate::json::value_of(text);
        if let Some(Value::Object(m)) = &mut object {
            for (k, v) in members {
                m.entry(*k).or_insert(v.clone());
            }
            merge_meta(&mut object, meta.clone());
        }
        object.unwrap_or(Value::Null)
    }

    #[test]
    fn members_are_added_to_the_text_where_the_tree_would_put_them() {
        let members = [
            ("resultType", Value::from("complete")),
            ("ttlMs", Value::from(0)),
        ];
        let meta: Map<String, Value> = serde_json::from_str(r#"{"k":{"n":1}}"#).unwrap();
        for text in [
            "{}",
            r#"{"a":1}"#,
            " { \"a\" : [1, {}] ,\n \"resultType\" : \"incomplete\" } \n",
            r#"{"_meta":{"x":1,"k":2},"a":2}"#,
            "[1]",
        ] {
            let tape = crate::json::tape_of(text).unwrap();
            let added = add_members(text, Item::root(&tape), &members, meta.clone());
            let want = on_values(text, &members, &meta);
            assert_eq!(crate::json::value_of(&added), Some(want.clone()), "{text}");
            if !text.contains(' ') && text.starts_with('{') {
                assert_eq!(added, crate::json::text(&want), "{text}");
            }
        }
        // Nothing to add: the text as it was.
        let text = r#"{ "resultType" : "complete" }"#;
        let tape = crate::json::tape_of(text).unwrap();
        let only = [("resultType", Value::from("x"))];
        assert_eq!(
            add_members(text, Item::root(&tape), &only, Map::new()),
            text
        );
    }
}
