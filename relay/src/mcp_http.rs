//! MCP's Streamable HTTP transport, served for any configured stdio MCP server at
//! `/mcp/<agent>` (one process per MCP session, messages routed between HTTP and its stdio)
//! and for servers hosted by a page at `/hosted/<id>` (messages routed between HTTP and the
//! page's WebSocket; see hosting.rs).
//!
//! ```text
//! POST (initialize) ─► new session: unguessable id, one process ─► SSE: priming event, answer
//! POST (requests)   ─► stdin; a stream per POST carries what answers them, then ends
//! POST (other)      ─► stdin; 202
//! GET               ─► the session's own stream (server-initiated messages), or with
//!                      Last-Event-ID the rest of an earlier stream, replayed then live
//! DELETE            ─► the process group ends, the session is gone (404 after)
//! ```
//! Which message answers which, and the versions, come from agentwire's core
//! (`jsonrpc::parse`, `mcp::Version`); events are written with its SSE encoder.
//!
//! Every byte held is bounded (`Bounds`): an event is encoded once and shared (`Bytes`)
//! between the replay buffer and every reader; a reader's queue is bounded in bytes and a
//! reader that falls behind is cut off (it may resume); replay is bounded per session and
//! across sessions; open streams are capped per session and across sessions. A session
//! leaves the hub as soon as it ends (its process exited, it idled out, DELETE).

// A refusal is a whole response, returned as the error of the steps that may refuse.
#![allow(clippy::result_large_err)]

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwire::jsonrpc::codes;
use agentwire::jsonrpc::{parse, Id, Incoming, Message, ParseOptions};
use agentwire::mcp::http::encode_event;
use agentwire::mcp::http::headers::decode_header_value;
use agentwire::mcp::Version;
use agentwire::mcp::META_VERSION;
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::io::BufReader;
use tokio::process::ChildStdout;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::accept::Lasting;
use crate::cli::Agent;
use crate::event_stream;
use crate::hosting::{self, Host};
use crate::hub::{self, Entry, Owner, Record, Registry};
use crate::lines::{read_line, Line, Overflow};
use crate::permits::Permits;
use crate::pipes::{self, Stdin};
use crate::process;
use crate::refusal::{refused, Refused};
use crate::request::{accepts, read_bounded, too_big, too_long};

/// What a client is told to wait before resuming a stream (`retry`). The relay never passes
/// on a `retry` of its own servers' (they speak stdio or WebSocket), and this is its floor.
pub const RETRY_MS: u64 = 1000;
/// Events kept per stream for resumption (and bytes, see `Bounds`); older ones go first.
const REPLAY_EVENTS: usize = 1024;
/// Finished streams kept for resumption, per session.
const FINISHED_KEPT: usize = 16;
/// Open streams (readers) one session may have; with the relay's 8 slots for processes,
/// sessions of processes alone can never take every stream.
pub const STREAMS_PER_SESSION: usize = 16;
/// A session with no request and no open stream for this long ends.
pub const IDLE_LIMIT: Duration = Duration::from_secs(15 * 60);

/// What the endpoints may hold, in bytes and in streams.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub max_message_bytes: usize,
    /// Bytes waiting for one reader; past them it is cut off (an empty queue takes any one event).
    pub live_bytes: usize,
    /// Bytes waiting for all readers together.
    pub live_total_bytes: usize,
    /// Bytes of events kept for replay by one session, and by all together.
    pub replay_session_bytes: usize,
    pub replay_total_bytes: usize,
    pub streams_per_session: usize,
    /// A session with no request and no open stream for this long ends.
    pub idle: Duration,
    pub grace: Duration,
}

impl Bounds {
    pub fn new(max_message_bytes: usize, idle: Duration, grace: Duration) -> Self {
        // One message and its event framing always fit.
        let unit = max_message_bytes.max(1 << 20) + 64 * 1024;
        Bounds {
            max_message_bytes,
            live_bytes: unit,
            live_total_bytes: 16 * unit,
            replay_session_bytes: 2 * unit,
            replay_total_bytes: 16 * unit,
            streams_per_session: STREAMS_PER_SESSION,
            idle,
            grace,
        }
    }
}

/// Every MCP session of the relay, by id.
#[derive(Clone)]
pub struct Hub(Arc<Shared>);

struct Shared {
    bounds: Bounds,
    /// Its owner is the endpoint (`agent NAME`, `host ID`) and the page's origin.
    sessions: Registry<Session>,
    replay_bytes: AtomicUsize,
    live_bytes: AtomicUsize,
    /// Open streams and bodies held, across the relay (shared with ACP's endpoint).
    permits: Permits,
}

struct Session {
    record: Record,
    backend: Backend,
    routes: Mutex<Routes>,
}

impl Entry for Session {
    fn record(&self) -> &Record {
        &self.record
    }
}

/// Where a session's server runs.
enum Backend {
    /// A stdio process of its own, holding one of the relay's connection slots.
    Process {
        stdin: Stdin,
        pgid: u32,
        mark: String,
        slot: Mutex<Option<OwnedSemaphorePermit>>,
    },
    /// A page, reached on its WebSocket.
    Page(Arc<Host>),
}

/// The server a request is for.
pub enum Target<'a> {
    Agent {
        agent: &'a Agent,
        slots: &'a Arc<Semaphore>,
    },
    Hosted(Arc<Host>),
}

impl Target<'_> {
    fn endpoint(&self) -> String {
        match self {
            Target::Agent { agent, .. } => format!("agent {}", agent.name),
            Target::Hosted(host) => format!("host {}", host.id),
        }
    }
}

#[derive(Default)]
struct Routes {
    streams: BTreeMap<u64, Stream>,
    next: u64,
    /// Client request id → the stream its answer goes on.
    by_request: HashMap<Id, u64>,
    /// Progress token (as JSON text) → stream.
    by_token: HashMap<String, u64>,
    /// The GET stream for messages related to no request.
    listen: Option<u64>,
    /// Bytes of events this session keeps for replay.
    replay_bytes: usize,
    /// The id of the `initialize` request, until its answer names the version.
    initialize: Option<Id>,
    version: Option<Version>,
    ended: bool,
}

#[derive(Default)]
struct Stream {
    /// Encoded events, shared with every reader they were or will be sent to.
    events: VecDeque<(u64, Bytes)>,
    next_seq: u64,
    live: Option<Live>,
    /// Requests of this stream's POST not answered yet.
    owed: usize,
    post: bool,
}

/// The sending side of a reader's queue, bounded in bytes.
struct Live {
    tx: mpsc::UnboundedSender<Bytes>,
    queued: Arc<AtomicUsize>,
}

impl Live {
    fn attached(&self) -> bool {
        !self.tx.is_closed()
    }

    /// Queues an event; false when the reader is too far behind (or gone): it is cut off.
    fn offer(&self, event: &Bytes, hub: &Shared) -> bool {
        let len = event.len();
        let queued = self.queued.load(Ordering::Relaxed);
        let bounds = &hub.bounds;
        if queued > 0
            && (queued + len > bounds.live_bytes
                || hub.live_bytes.load(Ordering::Relaxed) + len > bounds.live_total_bytes)
        {
            return false;
        }
        self.queued.fetch_add(len, Ordering::Relaxed);
        hub.live_bytes.fetch_add(len, Ordering::Relaxed);
        if self.tx.send(event.clone()).is_err() {
            self.queued.fetch_sub(len, Ordering::Relaxed);
            hub.live_bytes.fetch_sub(len, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// The reading side: a response body. What it still holds is given back when it is dropped.
struct Reader {
    /// Replayed events (already counted as replay, shared), sent before the live ones.
    prelude: VecDeque<Bytes>,
    rx: mpsc::UnboundedReceiver<Bytes>,
    queued: Arc<AtomicUsize>,
    hub: Arc<Shared>,
    readers: Arc<AtomicUsize>,
    _stream: Option<OwnedSemaphorePermit>,
    /// A stateless request's session, which ends with its one stream: answered, or given up
    /// by the client (closing the stream is the 2026-07-28 cancellation).
    one_shot: Option<(Hub, Arc<Session>)>,
}

impl Reader {
    fn took(&self, len: usize) {
        self.queued.fetch_sub(len, Ordering::Relaxed);
        self.hub.live_bytes.fetch_sub(len, Ordering::Relaxed);
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.rx.close();
        while let Ok(b) = self.rx.try_recv() {
            self.took(b.len());
        }
        self.readers.fetch_sub(1, Ordering::Relaxed);
        if let Some((hub, session)) = self.one_shot.take() {
            tokio::spawn(async move {
                hub.end(
                    &session,
                    "its one stateless request was answered or given up",
                )
                .await
            });
        }
    }
}

/// A place for one more reader of `session`: refused past the caps. The first stream of a
/// session (its `initialize`) does not count toward the relay-wide cap, so a full relay still
/// lets new sessions in.
struct Place {
    stream: Option<OwnedSemaphorePermit>,
    readers: Option<Arc<AtomicUsize>>,
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(readers) = self.readers.take() {
            readers.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Routes {
    /// A new stream, its priming event queued: an id to resume from, and how long to wait
    /// first (SEP-1699).
    fn open(
        &mut self,
        post: bool,
        hub: &Shared,
    ) -> (u64, mpsc::UnboundedReceiver<Bytes>, Arc<AtomicUsize>) {
        let id = self.next;
        self.next += 1;
        let (tx, rx) = mpsc::unbounded_channel();
        let live = Live {
            tx,
            queued: Arc::new(AtomicUsize::new(0)),
        };
        let queued = live.queued.clone();
        live.offer(
            &Bytes::from(format!("id: {id}-0\nretry: {RETRY_MS}\ndata: \n\n")),
            hub,
        );
        self.streams.insert(
            id,
            Stream {
                post,
                next_seq: 1,
                live: Some(live),
                ..Stream::default()
            },
        );
        // Forget the oldest finished streams.
        let finished: Vec<u64> = self
            .streams
            .iter()
            .filter(|(_, s)| s.post && s.owed == 0 && s.live.is_none())
            .map(|(k, _)| *k)
            .collect();
        for k in finished
            .iter()
            .take(finished.len().saturating_sub(FINISHED_KEPT))
        {
            self.forget(*k, hub);
        }
        (id, rx, queued)
    }

    fn forget(&mut self, stream: u64, hub: &Shared) {
        if let Some(s) = self.streams.remove(&stream) {
            let bytes: usize = s.events.iter().map(|(_, e)| e.len()).sum();
            self.replay_bytes -= bytes;
            hub.replay_bytes.fetch_sub(bytes, Ordering::Relaxed);
        }
    }

    fn push(&mut self, stream: u64, text: &str, hub: &Shared) {
        let Some(s) = self.streams.get_mut(&stream) else {
            return;
        };
        let seq = s.next_seq;
        s.next_seq += 1;
        let event = Bytes::from(encode_event(Some(&format!("{stream}-{seq}")), None, text));
        s.events.push_back((seq, event.clone()));
        self.replay_bytes += event.len();
        hub.replay_bytes.fetch_add(event.len(), Ordering::Relaxed);
        if let Some(live) = &s.live {
            // A reader that fell this far behind is cut off; it may resume from its last id.
            if !live.offer(&event, hub) {
                s.live = None;
            }
        }
        self.trim(stream, seq, hub);
    }

    /// Drops the oldest kept events (oldest streams first) while this stream keeps too many or
    /// the session or the relay keeps too many bytes; never the event just pushed.
    fn trim(&mut self, stream: u64, newest: u64, hub: &Shared) {
        let bounds = &hub.bounds;
        loop {
            let too_many = self
                .streams
                .get(&stream)
                .is_some_and(|s| s.events.len() > REPLAY_EVENTS);
            let too_big = self.replay_bytes > bounds.replay_session_bytes
                || hub.replay_bytes.load(Ordering::Relaxed) > bounds.replay_total_bytes;
            if !too_many && !too_big {
                return;
            }
            let victim = if too_many {
                Some(stream)
            } else {
                self.streams
                    .iter()
                    .find(|(k, s)| {
                        s.events
                            .front()
                            .is_some_and(|(seq, _)| **k != stream || *seq != newest)
                    })
                    .map(|(k, _)| *k)
            };
            let Some((_, old)) = victim
                .and_then(|v| self.streams.get_mut(&v))
                .and_then(|s| s.events.pop_front())
            else {
                return;
            };
            self.replay_bytes -= old.len();
            hub.replay_bytes.fetch_sub(old.len(), Ordering::Relaxed);
        }
    }

    /// The stream for a message related to no known request: the newest POST stream still
    /// owing answers (server requests during a tool call belong there), else the GET stream.
    fn related(&self) -> Option<u64> {
        self.streams
            .iter()
            .rev()
            .find(|(_, s)| s.post && s.owed > 0)
            .map(|(k, _)| *k)
            .or(self.listen)
    }

    /// Routes one line of the server's output.
    fn route(&mut self, text: &str, hub: &Shared) {
        let options = ParseOptions {
            allow_batch: true,
            allow_null_id: false,
        };
        let first = match parse(text, &options) {
            Ok(Incoming::Single(m)) => Some(m),
            Ok(Incoming::Batch(items)) => items.into_iter().flatten().next(),
            Err(_) => None,
        };
        // An error with id null: the server could not read what it was sent (a batch it does
        // not take, say). Each request of the stream that waits is answered with it; the
        // stream ends.
        if let Some(Message::Response(r)) = &first {
            if let (Id::Null, Err(e)) = (&r.id, &r.outcome) {
                if let Some(target) = self.related() {
                    let mut owed: Vec<Id> = self
                        .by_request
                        .iter()
                        .filter(|(_, s)| **s == target)
                        .map(|(id, _)| id.clone())
                        .collect();
                    owed.sort_by_key(Id::to_string);
                    if !owed.is_empty() {
                        for id in owed {
                            self.by_request.remove(&id);
                            let answer = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": e.code, "message": format!("the MCP server refused the message: {}", e.message) } });
                            self.push(target, &answer.to_string(), hub);
                        }
                        self.finish_stream(target);
                        return;
                    }
                }
            }
        }
        let target = match &first {
            Some(Message::Response(r)) => self.by_request.remove(&r.id),
            Some(Message::Notification(n)) if n.method == "notifications/progress" => {
                let token = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("progressToken"))
                    .map(Value::to_string);
                token.and_then(|t| self.by_token.get(&t).copied())
            }
            _ => None,
        }
        .or_else(|| self.related());
        let Some(target) = target else {
            eprintln!("agentwire-relay: an MCP message with no stream to carry it was dropped");
            return;
        };
        if let Some(Message::Response(r)) = &first {
            if self.initialize.as_ref() == Some(&r.id) {
                self.initialize = None;
                self.version = r
                    .outcome
                    .as_ref()
                    .ok()
                    .and_then(|v| v.get("protocolVersion"))
                    .and_then(Value::as_str)
                    .map(Version::parse);
            }
        }
        self.push(target, text, hub);
        if let Some(Message::Response(_)) = first {
            if let Some(s) = self.streams.get_mut(&target) {
                s.owed = s.owed.saturating_sub(1);
                if s.post && s.owed == 0 {
                    self.finish_stream(target);
                }
            }
        }
    }

    /// Every request of a POST stream is answered: the stream ends.
    fn finish_stream(&mut self, target: u64) {
        if let Some(s) = self.streams.get_mut(&target) {
            s.owed = 0;
            s.live = None;
        }
        self.by_token.retain(|_, v| *v != target);
    }

    /// The server ended: what is still owed is answered with an error, every stream ends.
    fn end(&mut self, hub: &Shared) {
        self.ended = true;
        let owed: Vec<(Id, u64)> = self.by_request.drain().collect();
        for (id, stream) in owed {
            let answer = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32603, "message": "the MCP server ended (its process exited, or the page hosting it left)" } });
            self.push(stream, &answer.to_string(), hub);
        }
        for s in self.streams.values_mut() {
            s.live = None;
        }
    }

    /// Everything kept is given back (the session left the hub).
    fn release(&mut self, hub: &Shared) {
        let keys: Vec<u64> = self.streams.keys().copied().collect();
        for k in keys {
            self.forget(k, hub);
        }
    }
}

/// An event stream: the replayed events, then what comes live.
fn sse(reader: Reader, session_id: Option<&str>, lasting: Option<&Lasting>) -> Response {
    let body = Body::from_stream(futures_util::stream::unfold(reader, |mut r| async move {
        if let Some(b) = r.prelude.pop_front() {
            return Some((Ok::<_, Infallible>(b), r));
        }
        let b = r.rx.recv().await?;
        r.took(b.len());
        Some((Ok(b), r))
    }));
    // The stream may last as long as the call it answers.
    let mut r = event_stream::response(body, lasting);
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(id).ok()) {
        r.headers_mut().insert("mcp-session-id", id);
    }
    r
}

/// The version a lone request names in `_meta` (2026-07-28 and later carry it in each request).
fn stateless_claim(messages: &[Message]) -> Option<&str> {
    match messages {
        [Message::Request(r)] => r.params.as_ref()?.get("_meta")?.get(META_VERSION)?.as_str(),
        _ => None,
    }
}

/// SEP-2243: `MCP-Protocol-Version`, `Mcp-Method` and (for the methods that name a tool,
/// prompt or resource) `Mcp-Name` must be present and match the body; else 400 with
/// HeaderMismatch (-32020). `Mcp-Param-*` headers are passed over: the relay forwards the body
/// to a server that reads no headers, as an intermediary that does not know them must.
fn check_mirrored_headers(
    headers: &HeaderMap,
    message: &Message,
    claimed: &str,
) -> Result<(), Response> {
    let Message::Request(r) = message else {
        return Ok(());
    };
    let mismatch = |why: String| {
        Err(Refused(
            StatusCode::BAD_REQUEST,
            codes::HEADER_MISMATCH,
            format!("Header mismatch: {why}"),
        )
        .into_response())
    };
    let header = |name: &str| {
        headers.get(name).map(|v| {
            v.to_str()
                .map_err(|_| format!("{name} is not visible ASCII"))
        })
    };
    match header("mcp-protocol-version") {
        None => return mismatch("MCP-Protocol-Version is missing".into()),
        Some(Err(why)) => return mismatch(why),
        Some(Ok(v)) if v != claimed => {
            return mismatch(format!(
                "MCP-Protocol-Version is {v}, the body's _meta names {claimed}"
            ))
        }
        Some(Ok(_)) => {}
    }
    match header("mcp-method") {
        None => {
            return mismatch(format!(
                "Mcp-Method is missing (the body's method is {})",
                r.method
            ))
        }
        Some(Err(why)) => return mismatch(why),
        Some(Ok(m)) if m != r.method => {
            return mismatch(format!(
                "Mcp-Method is {m}, the body's method is {}",
                r.method
            ))
        }
        Some(Ok(_)) => {}
    }
    let source = match r.method.as_str() {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let body = r
        .params
        .as_ref()
        .and_then(|p| p.get(source))
        .and_then(Value::as_str);
    match (header("mcp-name"), body) {
        (None, Some(_)) => mismatch("Mcp-Name is missing".into()),
        (Some(Err(why)), _) => mismatch(why),
        (Some(Ok(n)), _) if decode_header_value(n).as_deref() != body => mismatch(format!(
            "Mcp-Name does not match the body's params.{source}"
        )),
        _ => Ok(()),
    }
}

/// Batches were part of MCP 2025-03-26 only.
fn takes_batches(version: &Version) -> bool {
    version
        .rank()
        .is_some_and(|r| r <= Version::V2025_03_26.rank().unwrap_or(0))
}

impl Hub {
    pub fn new(bounds: Bounds, permits: Permits) -> Self {
        Hub(Arc::new(Shared {
            bounds,
            sessions: Registry::default(),
            replay_bytes: AtomicUsize::new(0),
            live_bytes: AtomicUsize::new(0),
            permits,
        }))
    }

    /// Serves one request to `/mcp/<agent>` or `/hosted/<id>`; the relay's guards passed, and
    /// the body is read only here, after the session is known.
    pub async fn serve(
        &self,
        target: Target<'_>,
        method: Method,
        headers: HeaderMap,
        body: Body,
        lasting: Option<Lasting>,
    ) -> Response {
        // The version header, when sent, must name a version (2025-03-26 is assumed without).
        let version = match headers.get("mcp-protocol-version") {
            None => None,
            Some(v) => match v
                .to_str()
                .ok()
                .map(Version::parse)
                .filter(|v| v.rank().is_some())
            {
                Some(v) => Some(v),
                None => {
                    return refused(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: unsupported MCP-Protocol-Version",
                    )
                }
            },
        };
        let owner = Owner::asking(target.endpoint(), &headers);
        let Ok(session) = self.0.sessions.named(&headers, "mcp-session-id", &owner) else {
            return refused(
                StatusCode::NOT_FOUND,
                "Not Found: no such MCP session (it ended or never was)",
            );
        };
        match method {
            Method::POST => {
                // Held until the message is handed on: bodies waiting on a slow server count.
                let waiting = session.as_ref().map(|s| &s.record.waiting);
                let _held = match self.0.permits.hold_post(waiting).await {
                    Ok(held) => held,
                    Err(r) => return r,
                };
                let text = match self.read_body(&headers, body).await {
                    Ok(text) => text,
                    Err(r) => return r,
                };
                self.post(
                    target,
                    owner,
                    session,
                    version,
                    &headers,
                    &text,
                    lasting.as_ref(),
                )
                .await
            }
            Method::GET => self.get(session, &headers, lasting.as_ref()),
            Method::DELETE => match session {
                Some(s) => {
                    self.end(&s, "DELETE").await;
                    StatusCode::NO_CONTENT.into_response()
                }
                None => refused(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: DELETE needs an Mcp-Session-Id",
                ),
            },
            _ => refused(StatusCode::METHOD_NOT_ALLOWED, "POST, GET or DELETE"),
        }
    }

    /// The body, at most the message limit.
    async fn read_body(&self, headers: &HeaderMap, body: Body) -> Result<String, Response> {
        let limit = self.0.bounds.max_message_bytes;
        if too_long(headers, limit) {
            return Err(too_big(limit));
        }
        if !accepts(headers, &["application/json", "text/event-stream"]) {
            return Err(refused(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: Accept must list application/json and text/event-stream",
            ));
        }
        let json_body = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
        if !json_body {
            return Err(refused(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: the body must be application/json",
            ));
        }
        read_bounded(headers, body, limit).await
    }

    /// A place for one more open stream of `session`, or the 503 that says why not.
    fn place(&self, session: &Session, first: bool) -> Result<Place, Response> {
        let bounds = &self.0.bounds;
        let stream = if first {
            None
        } else {
            Some(self.0.permits.stream().ok_or_else(|| {
                refused(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Service Unavailable: too many open streams; try again later",
                )
            })?)
        };
        session
            .record
            .readers
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < bounds.streams_per_session).then_some(n + 1)
            })
            .map_err(|_| {
                refused(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Service Unavailable: too many open streams in this session; try again later",
                )
            })?;
        Ok(Place {
            stream,
            readers: Some(session.record.readers.clone()),
        })
    }

    fn reader(
        &self,
        mut place: Place,
        prelude: VecDeque<Bytes>,
        rx: mpsc::UnboundedReceiver<Bytes>,
        queued: Arc<AtomicUsize>,
    ) -> Reader {
        // The place's count now belongs to the reader, which gives it back when dropped.
        let readers = place.readers.take().expect("a place holds its count");
        Reader {
            prelude,
            rx,
            queued,
            hub: self.0.clone(),
            readers,
            _stream: place.stream.take(),
            one_shot: None,
        }
    }

    // The request's parts, each used: bundling them would only rename them.
    #[allow(clippy::too_many_arguments)]
    async fn post(
        &self,
        target: Target<'_>,
        owner: Owner,
        session: Option<Arc<Session>>,
        version: Option<Version>,
        headers: &HeaderMap,
        text: &str,
        lasting: Option<&Lasting>,
    ) -> Response {
        let messages: Vec<Message> = match parse(
            text,
            &ParseOptions {
                allow_batch: true,
                allow_null_id: false,
            },
        ) {
            Ok(Incoming::Single(m)) => vec![m],
            Ok(Incoming::Batch(items)) => {
                // A version without batches (the header's, else the one the server chose).
                let version = version.or_else(|| {
                    session
                        .as_ref()
                        .and_then(|s| s.routes.lock().expect("not poisoned").version.clone())
                });
                if let Some(v) = version.filter(|v| !takes_batches(v)) {
                    return refused(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "Invalid Request: MCP {} has no batches; send one message per request",
                            v.as_str()
                        ),
                    );
                }
                match items.into_iter().collect::<Result<Vec<_>, _>>() {
                    Ok(all) => all,
                    Err(f) => {
                        return Refused(StatusCode::BAD_REQUEST, f.error.code, f.error.message)
                            .into_response()
                    }
                }
            }
            Err(f) => {
                return Refused(StatusCode::BAD_REQUEST, f.error.code, f.error.message)
                    .into_response()
            }
        };
        let initialize = messages.iter().any(|m| m.method() == Some("initialize"));
        // A 2026-07-28 request names its version in `_meta`: it needs no session, and gets a
        // server of its own for as long as its one stream lasts (no state is shared between
        // stateless requests, and ids of different clients never meet in one process).
        let stateless = match stateless_claim(&messages) {
            Some(claimed) => match check_mirrored_headers(headers, &messages[0], claimed) {
                Ok(()) => true,
                Err(r) => return r,
            },
            None => false,
        };
        let session = match (session, initialize || stateless) {
            (Some(_), true) if initialize => return refused(StatusCode::BAD_REQUEST, "Bad Request: initialize opens a new session; send it without Mcp-Session-Id"),
            (Some(s), false) => s,
            (_, true) => match target {
                Target::Agent { agent, slots } => match self.start(agent, slots, owner).await {
                    Ok(s) => s,
                    Err(r) => return r,
                },
                Target::Hosted(host) => match self.start_hosted(host, owner) {
                    Ok(s) => s,
                    Err(r) => return r,
                },
            },
            (None, false) => return refused(StatusCode::BAD_REQUEST, "Bad Request: no Mcp-Session-Id; send initialize first, or a 2026-07-28 request with its _meta"),
        };
        let requests: Vec<(Id, Option<String>)> = messages
            .iter()
            .filter_map(|m| match m {
                Message::Request(r) => Some((
                    r.id.clone(),
                    r.params
                        .as_ref()
                        .and_then(|p| p.get("_meta"))
                        .and_then(|m| m.get("progressToken"))
                        .map(Value::to_string),
                )),
                _ => None,
            })
            .collect();
        let stream = if requests.is_empty() {
            None
        } else {
            let place = match self.place(&session, initialize || stateless) {
                Ok(p) => p,
                Err(r) => {
                    if initialize || stateless {
                        self.end(&session, "no stream for its first request").await;
                    }
                    return r;
                }
            };
            let mut routes = session.routes.lock().expect("not poisoned");
            let (id, rx, queued) = routes.open(true, &self.0);
            routes.streams.get_mut(&id).expect("just opened").owed = requests.len();
            for (request, token) in &requests {
                routes.by_request.insert(request.clone(), id);
                if let Some(t) = token {
                    routes.by_token.insert(t.clone(), id);
                }
            }
            if let Some(Message::Request(r)) =
                messages.iter().find(|m| m.method() == Some("initialize"))
            {
                routes.initialize = Some(r.id.clone());
            }
            drop(routes);
            let mut reader = self.reader(place, VecDeque::new(), rx, queued);
            if stateless {
                reader.one_shot = Some((self.clone(), session.clone()));
            }
            Some(reader)
        };
        if !session.write(text).await {
            if initialize || stateless {
                self.end(&session, "its server is not running").await;
            }
            return refused(
                StatusCode::BAD_GATEWAY,
                "Bad Gateway: the MCP server is not running",
            );
        }
        match stream {
            Some(reader) => sse(
                reader,
                initialize.then_some(session.record.id.as_str()),
                lasting,
            ),
            None => StatusCode::ACCEPTED.into_response(),
        }
    }

    /// `GET`: with `Last-Event-ID` the rest of that stream; without, the session's own stream.
    fn get(
        &self,
        session: Option<Arc<Session>>,
        headers: &HeaderMap,
        lasting: Option<&Lasting>,
    ) -> Response {
        if !accepts(headers, &["text/event-stream"]) {
            return refused(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: Accept must list text/event-stream",
            );
        }
        let Some(session) = session else {
            return refused(StatusCode::BAD_REQUEST, "Bad Request: no Mcp-Session-Id");
        };
        let mut routes = session.routes.lock().expect("not poisoned");
        if routes.ended {
            return refused(StatusCode::NOT_FOUND, "Not Found: the session ended");
        }
        let Some(last) = headers.get("last-event-id") else {
            if routes.listen.is_some_and(|l| {
                routes
                    .streams
                    .get(&l)
                    .is_some_and(|s| s.live.as_ref().is_some_and(Live::attached))
            }) {
                return refused(
                    StatusCode::CONFLICT,
                    "Conflict: this session's GET stream is already open",
                );
            }
            let place = match self.place(&session, false) {
                Ok(p) => p,
                Err(r) => return r,
            };
            let (id, rx, queued) = routes.open(false, &self.0);
            routes.listen = Some(id);
            return sse(
                self.reader(place, VecDeque::new(), rx, queued),
                None,
                lasting,
            );
        };
        let parsed = last
            .to_str()
            .ok()
            .and_then(|v| v.split_once('-'))
            .and_then(|(s, n)| Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
        let Some((stream, after)) =
            parsed.filter(|(s, n)| routes.streams.get(s).is_some_and(|st| *n < st.next_seq))
        else {
            return refused(
                StatusCode::BAD_REQUEST,
                "Bad Request: Last-Event-ID names no event of this session",
            );
        };
        let s = routes.streams.get_mut(&stream).expect("checked");
        if s.events
            .front()
            .is_some_and(|(first, _)| *first > after + 1)
            || (s.events.is_empty() && s.next_seq > after + 1)
        {
            return refused(
                StatusCode::BAD_REQUEST,
                "Bad Request: the events after Last-Event-ID are no longer kept",
            );
        }
        // Whoever reads the stream now keeps it: a resume never cuts off a reader still reading.
        if s.live.as_ref().is_some_and(Live::attached) {
            return refused(
                StatusCode::CONFLICT,
                "Conflict: this stream is being read by another connection",
            );
        }
        let place = match self.place(&session, false) {
            Ok(p) => p,
            Err(r) => return r,
        };
        // The replay shares the kept events: no copy per resume.
        let mut prelude: VecDeque<Bytes> =
            VecDeque::from([Bytes::from(format!("retry: {RETRY_MS}\n\n"))]);
        prelude.extend(
            s.events
                .iter()
                .filter(|(seq, _)| *seq > after)
                .map(|(_, e)| e.clone()),
        );
        let (tx, rx) = mpsc::unbounded_channel();
        let live = Live {
            tx,
            queued: Arc::new(AtomicUsize::new(0)),
        };
        let queued = live.queued.clone();
        // A stream still owing answers goes on live; a finished one ends after the replay.
        s.live = (!s.post || s.owed > 0).then_some(live);
        drop(routes);
        sse(self.reader(place, prelude, rx, queued), None, lasting)
    }

    /// A new session: its process, its id, its output pump.
    async fn start(
        &self,
        agent: &Agent,
        slots: &Arc<Semaphore>,
        owner: Owner,
    ) -> Result<Arc<Session>, Response> {
        // When every slot is taken, the session of a process idle longest (no open stream)
        // makes room.
        let slot = self
            .0
            .sessions
            .slot(
                slots,
                |s| matches!(s.backend, Backend::Process { .. }),
                |victim| async move {
                    self.end(&victim, "every slot is taken and it was idle longest")
                        .await
                },
            )
            .await
            .ok_or_else(|| {
                refused(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Service Unavailable: too many sessions",
                )
            })?;
        let mark = process::session_mark();
        let mut child = process::spawn(agent, &mark).map_err(|e| {
            eprintln!(
                "agentwire-relay: cannot start MCP server {:?}: {e}",
                agent.name
            );
            refused(
                StatusCode::BAD_GATEWAY,
                format!("Bad Gateway: cannot start the MCP server {:?}", agent.name),
            )
        })?;
        let pgid = child.id().unwrap_or(0);
        eprintln!(
            "agentwire-relay: started MCP server {:?} (pid {pgid}) for an HTTP session",
            agent.name
        );
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let backend = Backend::Process {
            stdin: pipes::shared(stdin),
            pgid,
            mark,
            slot: Mutex::new(Some(slot)),
        };
        let session = match self.insert(owner, backend) {
            Ok(s) => s,
            Err(r) => {
                drop(child); // killed on drop
                return Err(r);
            }
        };
        process::log_ending(process::wait_in_background(child), "MCP server", pgid);
        tokio::spawn(pump(self.clone(), session.clone(), stdout));
        tokio::spawn(pipes::log_stderr(stderr, agent.name.clone()));
        self.watch_idle(&session);
        Ok(session)
    }

    /// A session with a fresh id (256 random bits), in the hub.
    fn insert(&self, owner: Owner, backend: Backend) -> Result<Arc<Session>, Response> {
        let (session, open) = self
            .0
            .sessions
            .insert(owner, |record| Session {
                record,
                backend,
                routes: Mutex::new(Routes::default()),
            })
            .map_err(|_| {
                refused(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "no randomness for a session id",
                )
            })?;
        eprintln!("agentwire-relay: MCP session started; {open} open");
        Ok(session)
    }

    /// A new session of a hosted server: the page makes its server when the first message comes.
    fn start_hosted(&self, host: Arc<Host>, owner: Owner) -> Result<Arc<Session>, Response> {
        let mine = self
            .0
            .sessions
            .select(|s| s.record.owner.endpoint == owner.endpoint)
            .len();
        if mine >= hosting::SESSIONS_PER_HOST {
            return Err(refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: too many sessions of this hosted server",
            ));
        }
        let session = self.insert(owner, Backend::Page(host))?;
        self.watch_idle(&session);
        Ok(session)
    }

    /// Ends `session` once nobody used it for the idle limit.
    fn watch_idle(&self, session: &Arc<Session>) {
        let (hub, idle) = (self.clone(), self.0.bounds.idle);
        tokio::spawn(hub::watch_idle(
            Arc::downgrade(session),
            idle,
            move |s, why| {
                let hub = hub.clone();
                async move { hub.end(&s, &why).await }
            },
        ));
    }

    /// A message (or batch) from the page hosting session `id`'s server, routed to the agent's
    /// streams; refused when that session is not one of connection `conn`'s.
    pub fn from_page(&self, conn: u64, id: &str, text: &str) -> Result<(), &'static str> {
        match self.0.sessions.lookup(id) {
            Some(s) if matches!(&s.backend, Backend::Page(h) if h.conn == conn) => {
                let mut routes = s.routes.lock().expect("not poisoned");
                if routes.ended {
                    return Err("that MCP session has ended; message not delivered");
                }
                routes.route(text, &self.0);
                Ok(())
            }
            _ => Err("no MCP session of this connection has that id; message not delivered"),
        }
    }

    /// The page's connection ended: the sessions of its hosted servers end.
    pub async fn end_hosted(&self, hosts: &[Arc<Host>]) {
        let endpoints: Vec<String> = hosts
            .iter()
            .map(|h| Target::Hosted(h.clone()).endpoint())
            .collect();
        let gone = self
            .0
            .sessions
            .select(|s| endpoints.contains(&s.record.owner.endpoint));
        for s in gone {
            self.end(&s, "the page hosting it left").await;
        }
    }

    /// Ends a session: it leaves the hub (what it kept is given back), its process group and
    /// everything it started end. Once only.
    async fn end(&self, session: &Arc<Session>, why: &str) {
        let Some(open) = self.0.sessions.remove(session) else {
            return;
        };
        eprintln!("agentwire-relay: MCP session ended ({why}); {open} open");
        session.finish(&self.0).await;
    }

    /// Ends every session (the relay shuts down).
    pub async fn end_all(&self) {
        for s in self.0.sessions.select(|_| true) {
            self.end(&s, "the relay shuts down").await;
        }
    }

    /// Bytes kept for replay and queued for readers, across sessions.
    pub fn held_bytes(&self) -> (usize, usize) {
        (
            self.0.replay_bytes.load(Ordering::Relaxed),
            self.0.live_bytes.load(Ordering::Relaxed),
        )
    }
}

impl Session {
    /// Ends the process group and everything it started (or tells the page); every stream
    /// ends and what the session kept is given back.
    async fn finish(&self, hub: &Shared) {
        {
            let mut routes = self.routes.lock().expect("not poisoned");
            routes.end(hub);
            routes.release(hub);
        }
        match &self.backend {
            Backend::Process {
                stdin,
                pgid,
                mark,
                slot,
            } => {
                pipes::close_stdin(stdin);
                process::end_session(*pgid, mark, hub.bounds.grace).await;
                slot.lock().expect("not poisoned").take();
            }
            Backend::Page(host) => host.notify(
                json!({ "relay": { "event": "mcpEnded", "host": host.name, "session": self.record.id } })
                    .to_string(),
            ),
        }
    }

    /// One message (or batch) to the server: a line on the process's stdin, or a frame to the
    /// page; false when it is gone.
    async fn write(&self, text: &str) -> bool {
        let stdin = match &self.backend {
            Backend::Process { stdin, .. } => stdin,
            Backend::Page(host) => {
                // The text was parsed as JSON-RPC, so it goes in as a JSON value.
                let frame = format!(
                    r#"{{"relay":{{"event":"mcp","host":{},"session":{},"message":{text}}}}}"#,
                    json!(host.name),
                    json!(self.record.id)
                );
                return host.send(frame).await;
            }
        };
        pipes::write_line(stdin, text).await
    }
}

/// The process's stdout → one routed message per line; at its end the session ends.
async fn pump(hub: Hub, session: Arc<Session>, stdout: Option<ChildStdout>) {
    let limit = hub.0.bounds.max_message_bytes;
    if let Some(stdout) = stdout {
        let mut reader = BufReader::with_capacity(64 * 1024, stdout);
        let mut buf = Vec::new();
        while let Ok(line) = read_line(&mut reader, &mut buf, limit, Overflow::Skip).await {
            match line {
                Line::Full | Line::Last => match std::str::from_utf8(&buf).map(str::trim) {
                    Ok("") => {}
                    Ok(text) => session.routes.lock().expect("not poisoned").route(text, &hub.0),
                    Err(_) => eprintln!("agentwire-relay: the MCP server wrote a line that is not UTF-8; dropped"),
                },
                Line::TooLong(n) => eprintln!("agentwire-relay: the MCP server wrote {n} bytes in one line, over the limit of {limit}; dropped"),
                Line::Eof => break,
            }
        }
    }
    // The process is gone (or closed its output): the session is over, its slot free, what
    // it left behind ended.
    hub.end(&session, "its process exited").await;
}
