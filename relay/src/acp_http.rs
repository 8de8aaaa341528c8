//! ACP over HTTP (the Streamable HTTP transport of ACP's remote-transport RFD), served for
//! every configured stdio agent at `/acp/<agent>`: one process per ACP connection, its lines
//! routed between HTTP and its stdio.
//!
//! ```text
//! POST initialize (no Acp-Connection-Id) ─► new connection: one process, unguessable id;
//!                                          200, the agent's answer, Acp-Connection-Id
//! POST anything else                      ─► stdin; 202 (answers come on a GET stream)
//! GET  Acp-Connection-Id                  ─► the connection's stream
//! GET  Acp-Connection-Id + Acp-Session-Id ─► that session's stream
//! DELETE Acp-Connection-Id                ─► the process group ends, the id is gone (404 after)
//! ```
//! The agent's messages go where the RFD says: an answer to the stream its request was
//! routed to (a session's own, but `session/new` and `session/load` to the connection's), a
//! request or notification naming `params.sessionId` to that session's stream, anything
//! else to the connection's. A stream without a reader keeps its messages until one comes.
//!
//! Every byte held is bounded: what waits for readers is capped per connection
//! (`Bounds::buffered_bytes`); past it the relay stops reading the agent's stdout (the agent
//! waits, nothing is dropped), and a client that takes nothing for `Bounds::stall` loses its
//! connection. Streams are capped per connection and, with MCP's, across the relay; a
//! connection with no request and no open stream for the idle limit ends.

// A refusal is a whole response, returned as the error of the steps that may refuse.
#![allow(clippy::result_large_err)]

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwire::jsonrpc::{parse, Id, Incoming, Message, ParseOptions};
use agentwire::mcp::http::encode_event;
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::io::BufReader;
use tokio::process::ChildStdout;
use tokio::sync::{oneshot, Notify, OwnedSemaphorePermit, Semaphore};

use crate::accept::Lasting;
use crate::cli::Agent;
use crate::event_stream;
use crate::hub::{self, Entry, Owner, Record, Registry};
use crate::lines::{read_line, Line, Overflow};
use crate::permits::Permits;
use crate::pipes::{self, Stdin};
use crate::process;
use crate::refusal::{refused, Refused};
use crate::request::{accepts, read_bounded};

pub const CONNECTION_HEADER: &str = "acp-connection-id";
pub const SESSION_HEADER: &str = "acp-session-id";
/// Session streams one connection may have (open, or keeping messages for a reader to come).
pub const SESSIONS_PER_CONNECTION: usize = 64;
/// The longest `Acp-Session-Id`, and request id, taken (the official SDK's limit too).
pub const MAX_SESSION_ID: usize = 1024;
pub const MAX_ID: usize = MAX_SESSION_ID;
/// A comment on every open stream this often: a reader that is gone is noticed (its stream
/// is freed for the next GET) and proxies do not time the stream out.
pub const KEEPALIVE: Duration = Duration::from_secs(15);
/// How long a client may take none of a full connection's output before it is ended.
pub const STALL_LIMIT: Duration = Duration::from_secs(60);
/// Requests of either side one connection tracks while they wait for their answer: past it
/// the client's are refused (503), and the agent's go untracked (their answers are not
/// checked against their session).
pub const UNANSWERED: usize = 1024;

/// Methods whose POST must name its session in `Acp-Session-Id` (the official SDK's list).
const SESSION_METHODS: [&str; 10] = [
    "session/cancel",
    "session/close",
    "session/delete",
    "session/fork",
    "session/load",
    "session/prompt",
    "session/resume",
    "session/set_config_option",
    "session/set_mode",
    "session/set_model",
];

/// What the endpoint may hold.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub max_message_bytes: usize,
    /// Bytes of the agent's messages waiting for readers, per connection.
    pub buffered_bytes: usize,
    /// A connection with no request and no open stream for this long ends.
    pub idle: Duration,
    /// A connection whose output is full and untouched for this long ends.
    pub stall: Duration,
    /// How long `initialize` may wait for the agent's answer.
    pub initialize: Duration,
    pub grace: Duration,
}

impl Bounds {
    pub fn new(
        max_message_bytes: usize,
        idle: Duration,
        request_timeout: Duration,
        grace: Duration,
    ) -> Self {
        // Two messages at the limit and their framing always fit.
        let unit = max_message_bytes.max(1 << 20) + 64 * 1024;
        Bounds {
            max_message_bytes,
            buffered_bytes: 2 * unit,
            idle,
            stall: STALL_LIMIT.min(idle),
            // Answered before the accept loop's deadline for the request closes it.
            initialize: request_timeout.mul_f32(0.9),
            grace,
        }
    }
}

/// Every ACP connection over HTTP, by id.
#[derive(Clone)]
pub struct Hub(Arc<Shared>);

struct Shared {
    bounds: Bounds,
    /// Its owner is the agent's name and the page's origin.
    conns: Registry<Conn>,
    /// Open streams and bodies held, across the relay (shared with the MCP endpoints).
    permits: Permits,
}

struct Conn {
    record: Record,
    stdin: Stdin,
    pgid: u32,
    mark: String,
    slot: Mutex<Option<OwnedSemaphorePermit>>,
    state: Mutex<State>,
    /// A reader took output: the pump may read the agent's stdout again.
    progress: Notify,
}

impl Entry for Conn {
    fn record(&self) -> &Record {
        &self.record
    }

    /// A stream open, or an `initialize` waiting for its answer.
    fn busy(&self) -> bool {
        self.record.streaming()
            || self
                .state
                .lock()
                .expect("not poisoned")
                .initialize
                .is_some()
    }
}

/// Where the answer to a request goes, or which session a request of the agent's belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Route {
    Connection,
    Session(String),
}

#[derive(Default)]
struct State {
    /// The `initialize` request waiting for its answer.
    initialize: Option<(Id, oneshot::Sender<String>)>,
    main: Outbox,
    sessions: HashMap<String, Outbox>,
    /// The client's requests not answered yet, and the stream their answer goes to.
    client_requests: HashMap<Id, Route>,
    /// The agent's requests not answered yet, and their session.
    agent_requests: HashMap<Id, Route>,
    /// Bytes queued in every outbox.
    buffered: usize,
    next_lease: u64,
    ended: bool,
    /// Whether the session cap was reported (once per connection, not once per message).
    overflowed: bool,
}

/// The messages of one stream not yet taken by a reader, and who reads it.
#[derive(Default)]
struct Outbox {
    queue: VecDeque<Bytes>,
    reader: Option<u64>,
    wake: Arc<Notify>,
}

impl State {
    fn outbox(&mut self, route: &Route) -> Option<&mut Outbox> {
        match route {
            Route::Connection => Some(&mut self.main),
            Route::Session(s) => self.sessions.get_mut(s),
        }
    }

    /// Queues one message for `route`'s stream. A session stream is made when first needed;
    /// past the cap its messages go on the connection's stream instead (never dropped).
    fn deliver(&mut self, route: &Route, text: &str) {
        let event = Bytes::from(encode_event(None, None, text));
        let route = match route {
            Route::Session(s)
                if !self.sessions.contains_key(s)
                    && self.sessions.len() >= SESSIONS_PER_CONNECTION =>
            {
                if !self.overflowed {
                    self.overflowed = true;
                    eprintln!("agentwire-relay: an ACP connection has {SESSIONS_PER_CONNECTION} session streams; messages of other sessions go on the connection's stream");
                }
                &Route::Connection
            }
            Route::Session(s) => {
                self.sessions.entry(s.clone()).or_default();
                route
            }
            Route::Connection => route,
        };
        self.buffered += event.len();
        let outbox = self.outbox(route).expect("made above");
        outbox.queue.push_back(event);
        outbox.wake.notify_one();
    }

    /// Routes one line of the agent's output.
    fn route(&mut self, text: &str) {
        let Ok(Incoming::Single(message)) = parse(text, &options()) else {
            eprintln!("agentwire-relay: the ACP agent wrote a line that is not a JSON-RPC message; dropped");
            return;
        };
        let route = match &message {
            Message::Response(r) => {
                if self.initialize.as_ref().is_some_and(|(id, _)| *id == r.id) {
                    if let Some((_, tx)) = self.initialize.take() {
                        let _ = tx.send(text.to_string());
                    }
                    return;
                }
                self.client_requests
                    .remove(&r.id)
                    .unwrap_or(Route::Connection)
            }
            Message::Request(r) => {
                let route = session_of(r.params.as_ref());
                if self.agent_requests.len() < UNANSWERED && id_ok(&r.id) {
                    self.agent_requests.insert(r.id.clone(), route.clone());
                }
                route
            }
            Message::Notification(n) => session_of(n.params.as_ref()),
        };
        self.deliver(&route, text);
    }

    /// The agent is gone: each request still owed an answer gets an error, every stream ends
    /// once its reader took what is queued.
    fn end(&mut self) {
        self.ended = true;
        self.initialize = None;
        let owed: Vec<(Id, Route)> = self.client_requests.drain().collect();
        for (id, route) in owed {
            let answer = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32603, "message": "the agent ended (its process exited, or the connection was closed)" } });
            self.deliver(&route, &answer.to_string());
        }
        self.main.wake.notify_one();
        for s in self.sessions.values() {
            s.wake.notify_one();
        }
    }
}

fn options() -> ParseOptions {
    // ACP follows JSON-RPC, whose request ids may be null.
    ParseOptions {
        allow_batch: false,
        allow_null_id: true,
    }
}

/// The session a message's `params.sessionId` names (one longer than an `Acp-Session-Id`
/// may be is no session's: its messages go on the connection's stream).
fn session_of(params: Option<&Value>) -> Route {
    match params
        .and_then(|p| p.get("sessionId"))
        .and_then(Value::as_str)
    {
        Some(s) if s.len() <= MAX_SESSION_ID => Route::Session(s.to_string()),
        _ => Route::Connection,
    }
}

/// Whether a request id may be kept while its request waits (ids are kept as keys, so their
/// length is bounded as a session id's is).
fn id_ok(id: &Id) -> bool {
    !matches!(id, Id::String(s) if s.len() > MAX_ID)
}

/// A response body reading one stream; gives its place back when dropped.
struct Reader {
    conn: Arc<Conn>,
    route: Route,
    lease: u64,
    _stream: OwnedSemaphorePermit,
}

impl Reader {
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            let wake = {
                let mut state = self.conn.state.lock().expect("not poisoned");
                let ended = state.ended;
                let outbox = state.outbox(&self.route)?;
                if outbox.reader != Some(self.lease) {
                    return None;
                }
                if let Some(event) = outbox.queue.pop_front() {
                    state.buffered -= event.len();
                    self.conn.progress.notify_one();
                    return Some(event);
                }
                if ended {
                    return None;
                }
                outbox.wake.clone()
            };
            if tokio::time::timeout(KEEPALIVE, wake.notified())
                .await
                .is_err()
            {
                return Some(Bytes::from_static(b": keep-alive\n\n"));
            }
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        let mut state = self.conn.state.lock().expect("not poisoned");
        if let Some(outbox) = state.outbox(&self.route) {
            if outbox.reader == Some(self.lease) {
                outbox.reader = None;
            }
        }
        // A session stream nobody reads and nothing waits on is forgotten (the cap counts).
        if let Route::Session(s) = &self.route {
            if state
                .sessions
                .get(s)
                .is_some_and(|o| o.reader.is_none() && o.queue.is_empty())
            {
                state.sessions.remove(s);
            }
        }
        drop(state);
        self.conn.record.readers.fetch_sub(1, Ordering::Relaxed);
        self.conn.record.touch();
    }
}

/// Why a request is refused: an HTTP status and a JSON-RPC error (id null) as the body.
fn refuse(status: StatusCode, code: i64, why: impl Into<String>) -> Response {
    Refused(status, code, why.into()).into_response()
}

/// Ends a connection whose `initialize` did not complete (the client gave up, say).
struct EndUnlessKept(Option<(Hub, Arc<Conn>)>);

impl Drop for EndUnlessKept {
    fn drop(&mut self) {
        if let Some((hub, conn)) = self.0.take() {
            tokio::spawn(async move { hub.end(&conn, "its initialize did not complete").await });
        }
    }
}

impl Hub {
    pub fn new(bounds: Bounds, permits: Permits) -> Self {
        Hub(Arc::new(Shared {
            bounds,
            conns: Registry::default(),
            permits,
        }))
    }

    pub fn bounds(&self) -> Bounds {
        self.0.bounds
    }

    /// Serves one request to `/acp/<agent>` (not a WebSocket upgrade); the relay's guards
    /// passed, and the body is read only here.
    // The request's parts, each used: bundling them would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub async fn serve(
        &self,
        agent: &Agent,
        slots: &Arc<Semaphore>,
        method: Method,
        headers: HeaderMap,
        body: Body,
        lasting: Option<Lasting>,
    ) -> Response {
        let owner = Owner::asking(agent.name.clone(), &headers);
        let Ok(conn) = self.0.conns.named(&headers, CONNECTION_HEADER, &owner) else {
            return refuse(
                StatusCode::NOT_FOUND,
                -32600,
                "Not Found: no such ACP connection (it ended or never was)",
            );
        };
        match method {
            Method::POST => {
                // Held until the message was written: bodies waiting on a slow agent count.
                let waiting = conn.as_ref().map(|c| &c.record.waiting);
                let _held = match self.0.permits.hold_post(waiting).await {
                    Ok(held) => held,
                    Err(r) => return r,
                };
                let json_body = headers
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.split(';').next())
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
                if !json_body {
                    return refuse(
                        StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        -32600,
                        "Unsupported Media Type: the body must be application/json",
                    );
                }
                let limit = self.0.bounds.max_message_bytes;
                let text = match read_bounded(&headers, body, limit).await {
                    Ok(text) => text,
                    Err(r) => return r,
                };
                match conn {
                    Some(conn) => self.post(&conn, &headers, &text).await,
                    None => self.initialize(agent, slots, owner, &text).await,
                }
            }
            Method::GET => {
                if !accepts(&headers, &["text/event-stream"]) {
                    return refuse(
                        StatusCode::NOT_ACCEPTABLE,
                        -32600,
                        "Not Acceptable: Accept must list text/event-stream",
                    );
                }
                let Some(conn) = conn else {
                    return refuse(
                        StatusCode::BAD_REQUEST,
                        -32600,
                        "Bad Request: a GET stream needs an Acp-Connection-Id",
                    );
                };
                self.get(conn, &headers, lasting.as_ref())
            }
            Method::DELETE => match conn {
                Some(c) => {
                    self.end(&c, "DELETE").await;
                    StatusCode::ACCEPTED.into_response()
                }
                None => refuse(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "Bad Request: DELETE needs an Acp-Connection-Id",
                ),
            },
            _ => refused(StatusCode::METHOD_NOT_ALLOWED, "POST, GET or DELETE"),
        }
    }

    /// The body as one JSON-RPC message, or the refusal the RFD names.
    fn message(text: &str) -> Result<Message, Response> {
        // Read once, batches let through to be refused by name.
        let batches = ParseOptions {
            allow_batch: true,
            ..options()
        };
        match parse(text, &batches) {
            Ok(Incoming::Single(m)) => Ok(m),
            Ok(Incoming::Batch(_)) => Err(refuse(
                StatusCode::NOT_IMPLEMENTED,
                -32600,
                "Not Implemented: ACP over HTTP takes no batches; send one message per request",
            )),
            Err(f) if f.error.code == -32700 => {
                let why = f
                    .error
                    .data
                    .as_ref()
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                Err(refuse(
                    StatusCode::BAD_REQUEST,
                    -32700,
                    format!("Parse error: {why}"),
                ))
            }
            Err(f) => Err(refuse(
                StatusCode::BAD_REQUEST,
                f.error.code,
                f.error.message,
            )),
        }
    }

    /// `initialize` without a connection: a new process, answered 200 with its answer.
    async fn initialize(
        &self,
        agent: &Agent,
        slots: &Arc<Semaphore>,
        owner: Owner,
        text: &str,
    ) -> Response {
        let message = match Self::message(text) {
            Ok(m) => m,
            Err(r) => return r,
        };
        let id = match &message {
            Message::Request(r) if r.method == "initialize" => r.id.clone(),
            _ => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "Bad Request: no Acp-Connection-Id; send initialize first",
                )
            }
        };
        let conn = match self.start(agent, slots, owner).await {
            Ok(c) => c,
            Err(r) => return r,
        };
        let (tx, rx) = oneshot::channel();
        conn.state.lock().expect("not poisoned").initialize = Some((id.clone(), tx));
        let mut guard = EndUnlessKept(Some((self.clone(), conn.clone())));
        let failed = |status: StatusCode, why: &str| {
            let body =
                json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32603, "message": why } });
            let mut r = (status, body.to_string()).into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        };
        if !conn.write(text).await {
            return failed(StatusCode::BAD_GATEWAY, "the agent is not running");
        }
        let answer = match tokio::time::timeout(self.0.bounds.initialize, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => {
                return failed(
                    StatusCode::BAD_GATEWAY,
                    "the agent ended before it answered initialize",
                )
            }
            Err(_) => {
                return failed(
                    StatusCode::GATEWAY_TIMEOUT,
                    "the agent did not answer initialize in time",
                )
            }
        };
        let mut value: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        let Some(result) = value.get_mut("result").and_then(Value::as_object_mut) else {
            // The agent refused: its error is the answer, and there is no connection.
            let mut r = (StatusCode::OK, answer).into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            return r;
        };
        // The RFD's initialize answer names the connection in its body too.
        result
            .entry("connectionId")
            .or_insert_with(|| Value::String(conn.record.id.clone()));
        guard.0 = None;
        let mut r = (StatusCode::OK, value.to_string()).into_response();
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Ok(v) = HeaderValue::from_str(&conn.record.id) {
            h.insert(CONNECTION_HEADER, v);
        }
        r
    }

    /// Any message but `initialize`, on a connection: written to the agent, 202.
    async fn post(&self, conn: &Arc<Conn>, headers: &HeaderMap, text: &str) -> Response {
        let pending = match Self::message(text).and_then(|m| Self::admit(conn, headers, &m)) {
            Ok(pending) => pending,
            Err(r) => return r,
        };
        if !conn.write(text).await {
            if let Some(id) = pending {
                conn.state
                    .lock()
                    .expect("not poisoned")
                    .client_requests
                    .remove(&id);
            }
            return refuse(
                StatusCode::BAD_GATEWAY,
                -32603,
                "Bad Gateway: the agent is not running",
            );
        }
        StatusCode::ACCEPTED.into_response()
    }

    /// Checks a message's session against `Acp-Session-Id` and notes where the answer to a
    /// request goes; the id of that request, to forget if it cannot be written.
    fn admit(conn: &Conn, headers: &HeaderMap, message: &Message) -> Result<Option<Id>, Response> {
        let header_session = match headers.get(SESSION_HEADER).map(HeaderValue::to_str) {
            None => None,
            Some(Ok(s)) if !s.is_empty() && s.len() <= MAX_SESSION_ID => Some(s.to_string()),
            Some(_) => {
                return Err(refuse(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    format!("Bad Request: Acp-Session-Id must be 1 to {MAX_SESSION_ID} visible ASCII characters"),
                ))
            }
        };
        let mismatch = |named: &str| {
            refuse(
                StatusCode::BAD_REQUEST,
                -32600,
                format!("Bad Request: Acp-Session-Id does not match the session {named}"),
            )
        };
        let mut state = conn.state.lock().expect("not poisoned");
        if state.ended {
            return Err(refuse(
                StatusCode::NOT_FOUND,
                -32600,
                "Not Found: the ACP connection ended",
            ));
        }
        // What to undo if the message cannot be written.
        let mut pending = None;
        match message {
            Message::Request(r) if r.method == "initialize" => return Err(refuse(
                StatusCode::BAD_REQUEST,
                -32600,
                "Bad Request: initialize opens a new connection; send it without Acp-Connection-Id",
            )),
            Message::Request(_) | Message::Notification(_) => {
                let (method, params) = match message {
                    Message::Request(r) => (r.method.as_str(), r.params.as_ref()),
                    Message::Notification(n) => (n.method.as_str(), n.params.as_ref()),
                    Message::Response(_) => unreachable!(),
                };
                let named = match session_of(params) {
                    Route::Session(s) => Some(s),
                    Route::Connection => None,
                };
                let session = match (&header_session, &named) {
                    (None, Some(_)) => {
                        return Err(refuse(
                            StatusCode::BAD_REQUEST,
                            -32600,
                            format!("Bad Request: {method} names a session; send Acp-Session-Id"),
                        ))
                    }
                    (None, None) if SESSION_METHODS.contains(&method) => {
                        return Err(refuse(
                            StatusCode::BAD_REQUEST,
                            -32600,
                            format!("Bad Request: {method} is session-scoped; send Acp-Session-Id"),
                        ))
                    }
                    (Some(h), Some(n)) if h != n => return Err(mismatch("in params.sessionId")),
                    (h, _) => h.clone(),
                };
                if let Message::Request(r) = message {
                    if !id_ok(&r.id) {
                        return Err(refuse(
                            StatusCode::BAD_REQUEST,
                            -32600,
                            format!("Bad Request: a request id may be at most {MAX_ID} characters"),
                        ));
                    }
                    if state.client_requests.contains_key(&r.id) {
                        return Err(refuse(
                            StatusCode::BAD_REQUEST,
                            -32600,
                            format!("Bad Request: a request with id {} is still unanswered on this connection", r.id),
                        ));
                    }
                    if state.client_requests.len() >= UNANSWERED {
                        return Err(refuse(
                            StatusCode::SERVICE_UNAVAILABLE,
                            -32600,
                            format!("Service Unavailable: {UNANSWERED} requests are unanswered on this connection; try again later"),
                        ));
                    }
                    // session/new and session/load are answered on the connection's stream.
                    let route = match session {
                        Some(s) if r.method != "session/load" => Route::Session(s),
                        _ => Route::Connection,
                    };
                    state.client_requests.insert(r.id.clone(), route);
                    pending = Some(r.id.clone());
                }
            }
            Message::Response(r) => {
                if let Some(Route::Session(s)) = state.agent_requests.get(&r.id) {
                    if header_session.as_deref() != Some(s.as_str()) {
                        return Err(mismatch("of the request it answers"));
                    }
                }
                state.agent_requests.remove(&r.id);
            }
        }
        Ok(pending)
    }

    /// `GET`: the connection's stream, or with `Acp-Session-Id` that session's.
    fn get(&self, conn: Arc<Conn>, headers: &HeaderMap, lasting: Option<&Lasting>) -> Response {
        let route = match headers.get(SESSION_HEADER).map(HeaderValue::to_str) {
            None => Route::Connection,
            Some(Ok(s)) if !s.is_empty() && s.len() <= MAX_SESSION_ID => {
                Route::Session(s.to_string())
            }
            Some(_) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    format!("Bad Request: Acp-Session-Id must be 1 to {MAX_SESSION_ID} visible ASCII characters"),
                )
            }
        };
        let Some(permit) = self.0.permits.stream() else {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                -32600,
                "Service Unavailable: too many open streams; try again later",
            );
        };
        let mut state = conn.state.lock().expect("not poisoned");
        if state.ended {
            return refuse(
                StatusCode::NOT_FOUND,
                -32600,
                "Not Found: the ACP connection ended",
            );
        }
        if let Route::Session(s) = &route {
            if !state.sessions.contains_key(s) {
                // The RFD's resume flow opens a session's stream before session/load names
                // it, so a session the agent has not named yet gets its stream too.
                if state.sessions.len() >= SESSIONS_PER_CONNECTION {
                    return refuse(
                        StatusCode::SERVICE_UNAVAILABLE,
                        -32600,
                        format!("Service Unavailable: a connection has at most {SESSIONS_PER_CONNECTION} session streams"),
                    );
                }
                state.sessions.insert(s.clone(), Outbox::default());
            }
        }
        state.next_lease += 1;
        let lease = state.next_lease;
        let outbox = state.outbox(&route).expect("made above");
        if outbox.reader.is_some() {
            return refuse(
                StatusCode::CONFLICT,
                -32600,
                "Conflict: this stream is being read by another request",
            );
        }
        outbox.reader = Some(lease);
        drop(state);
        conn.record.readers.fetch_add(1, Ordering::Relaxed);
        let reader = Reader {
            conn,
            route,
            lease,
            _stream: permit,
        };
        let body = Body::from_stream(futures_util::stream::unfold(reader, |mut r| async move {
            let event = r.next().await?;
            Some((Ok::<_, Infallible>(event), r))
        }));
        // The stream lasts as long as the connection.
        event_stream::response(body, lasting)
    }

    /// A new connection: its process, its id, its output pump.
    async fn start(
        &self,
        agent: &Agent,
        slots: &Arc<Semaphore>,
        owner: Owner,
    ) -> Result<Arc<Conn>, Response> {
        let full = || {
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                -32600,
                "Service Unavailable: too many connections",
            )
        };
        // When every slot is taken, the connection idle longest with no stream open (a
        // client of the RFD keeps its connection's stream open) makes room.
        let slot = self
            .0
            .conns
            .slot(
                slots,
                |_| true,
                |victim| async move {
                    let why = "every slot is taken and it was idle longest, with no stream open";
                    self.end(&victim, why).await
                },
            )
            .await
            .ok_or_else(full)?;
        let mark = process::session_mark();
        let mut child = process::spawn(agent, &mark).map_err(|e| {
            eprintln!("agentwire-relay: cannot start agent {:?}: {e}", agent.name);
            refuse(
                StatusCode::BAD_GATEWAY,
                -32603,
                format!("Bad Gateway: cannot start the agent {:?}", agent.name),
            )
        })?;
        let pgid = child.id().unwrap_or(0);
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let made = self.0.conns.insert(owner, |record| Conn {
            record,
            stdin: pipes::shared(stdin),
            pgid,
            mark,
            slot: Mutex::new(Some(slot)),
            state: Mutex::new(State::default()),
            progress: Notify::new(),
        });
        let Ok((conn, open)) = made else {
            drop(child); // killed on drop
            return Err(refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                -32603,
                "no randomness for a connection id",
            ));
        };
        eprintln!(
            "agentwire-relay: started agent {:?} (pid {pgid}) for an ACP connection over HTTP; {open} open",
            agent.name,
        );
        process::log_ending(process::wait_in_background(child), "agent", pgid);
        tokio::spawn(pump(self.clone(), conn.clone(), stdout));
        tokio::spawn(pipes::log_stderr(stderr, agent.name.clone()));
        let (hub, idle) = (self.clone(), self.0.bounds.idle);
        tokio::spawn(hub::watch_idle(
            Arc::downgrade(&conn),
            idle,
            move |c, why| {
                let hub = hub.clone();
                async move { hub.end(&c, &why).await }
            },
        ));
        Ok(conn)
    }

    /// Ends a connection: it leaves the hub, its streams end once drained, its process group
    /// and everything it started end, its slot is free. Once only.
    async fn end(&self, conn: &Arc<Conn>, why: &str) {
        let Some(open) = self.0.conns.remove(conn) else {
            return;
        };
        eprintln!("agentwire-relay: ACP connection over HTTP ended ({why}); {open} open");
        conn.state.lock().expect("not poisoned").end();
        conn.progress.notify_one();
        pipes::close_stdin(&conn.stdin);
        process::end_session(conn.pgid, &conn.mark, self.0.bounds.grace).await;
        conn.slot.lock().expect("not poisoned").take();
    }

    /// Ends every connection (the relay shuts down).
    pub async fn end_all(&self) {
        for c in self.0.conns.select(|_| true) {
            self.end(&c, "the relay shuts down").await;
        }
    }
}

impl Conn {
    /// One message to the agent, a line on its stdin; false when it is gone.
    async fn write(&self, text: &str) -> bool {
        pipes::write_line(&self.stdin, text).await
    }

    fn buffered(&self) -> usize {
        self.state.lock().expect("not poisoned").buffered
    }
}

/// The agent's stdout → one routed message per line. While the connection's readers are
/// behind by `buffered_bytes`, no more is read (the agent waits on its pipe); when they take
/// nothing for `stall`, the connection ends. At the end of the output the connection ends.
async fn pump(hub: Hub, conn: Arc<Conn>, stdout: Option<ChildStdout>) {
    let bounds = hub.0.bounds;
    let why = 'read: {
        let Some(stdout) = stdout else {
            break 'read "the agent has no output".to_string();
        };
        let mut reader = BufReader::with_capacity(64 * 1024, stdout);
        let mut buf = Vec::new();
        loop {
            while conn.buffered() >= bounds.buffered_bytes {
                if conn.record.ended() {
                    break 'read "it was ended".to_string();
                }
                if tokio::time::timeout(bounds.stall, conn.progress.notified())
                    .await
                    .is_err()
                    && conn.buffered() >= bounds.buffered_bytes
                {
                    break 'read format!(
                        "its client took none of {} bytes of output for {} ms",
                        bounds.buffered_bytes,
                        bounds.stall.as_millis()
                    );
                }
            }
            let limit = bounds.max_message_bytes;
            match read_line(&mut reader, &mut buf, limit, Overflow::Skip).await {
                Ok(Line::Full | Line::Last) => match std::str::from_utf8(&buf).map(str::trim) {
                    Ok("") => {}
                    Ok(text) => conn.state.lock().expect("not poisoned").route(text),
                    Err(_) => eprintln!(
                        "agentwire-relay: the ACP agent wrote a line that is not UTF-8; dropped"
                    ),
                },
                Ok(Line::TooLong(n)) => eprintln!("agentwire-relay: the ACP agent wrote {n} bytes in one line, over the limit of {limit}; dropped"),
                Ok(Line::Eof) | Err(_) => break 'read "its process exited".to_string(),
            }
        }
    };
    hub.end(&conn, &why).await;
}
