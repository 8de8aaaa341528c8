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

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwire::jsonrpc::{parse, Id, Incoming, Message, ParseOptions};
use agentwire::mcp::http::encode_event;
use agentwire::mcp::Version;
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{mpsc, OwnedSemaphorePermit};
use tokio::time::Instant;

use crate::cli::Agent;
use crate::hosting::{self, Host};
use crate::lines::{read_line, Line, Overflow};
use crate::process;

/// What a client is told to wait before resuming a stream (the `retry` of priming events).
const RETRY_MS: u64 = 1000;
/// Events (and bytes of them) kept per stream for resumption; older ones are dropped first.
const REPLAY_EVENTS: usize = 1024;
const REPLAY_BYTES: usize = 16 << 20;
/// Chunks that may wait for a slow reader before its stream is cut (it may resume).
const LIVE_QUEUE: usize = 256;
/// Finished streams kept for resumption, per session.
const FINISHED_KEPT: usize = 16;
/// A session with no request and no open stream for this long ends.
pub const IDLE_LIMIT: Duration = Duration::from_secs(15 * 60);

/// Every MCP session of the relay, by id.
#[derive(Default)]
pub struct Hub {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

struct Session {
    id: String,
    /// `agent NAME` or `host ID`: a session id is good only at the endpoint that made it.
    owner: String,
    backend: Backend,
    routes: Mutex<Routes>,
    last_active: Mutex<Instant>,
}

/// Where a session's server runs.
enum Backend {
    /// A stdio process of its own, holding one of the relay's connection slots.
    Process { stdin: tokio::sync::Mutex<Option<ChildStdin>>, pgid: u32, mark: String, slot: Mutex<Option<OwnedSemaphorePermit>> },
    /// A page, reached on its WebSocket.
    Page(Arc<Host>),
}

/// The server a request is for.
pub enum Target<'a> {
    Agent { agent: &'a Agent, slots: &'a Arc<tokio::sync::Semaphore> },
    Hosted(Arc<Host>),
}

impl Target<'_> {
    fn owner(&self) -> String {
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
    ended: bool,
}

#[derive(Default)]
struct Stream {
    events: VecDeque<(u64, String)>,
    bytes: usize,
    next_seq: u64,
    live: Option<mpsc::Sender<String>>,
    /// Requests of this stream's POST not answered yet.
    owed: usize,
    post: bool,
}

/// Why a request is refused: the status and a JSON-RPC error (id null) as the body.
pub struct Refused(pub StatusCode, pub i64, pub String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let body = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": self.1, "message": self.2 } });
        let mut r = (self.0, body.to_string()).into_response();
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r
    }
}

fn refused(status: StatusCode, message: impl Into<String>) -> Response {
    Refused(status, -32600, message.into()).into_response()
}

impl Routes {
    fn open(&mut self, post: bool) -> (u64, mpsc::Receiver<String>) {
        let id = self.next;
        self.next += 1;
        let (tx, rx) = mpsc::channel(LIVE_QUEUE);
        let mut stream = Stream { post, next_seq: 1, ..Stream::default() };
        // The priming event: an id to resume from, and how long to wait first (SEP-1699).
        let _ = tx.try_send(format!("id: {id}-0\nretry: {RETRY_MS}\ndata: \n\n"));
        stream.live = Some(tx);
        self.streams.insert(id, stream);
        // Forget the oldest finished streams.
        let finished: Vec<u64> = self.streams.iter().filter(|(_, s)| s.post && s.owed == 0 && s.live.is_none()).map(|(k, _)| *k).collect();
        for k in finished.iter().take(finished.len().saturating_sub(FINISHED_KEPT)) {
            self.streams.remove(k);
        }
        (id, rx)
    }

    fn push(&mut self, stream: u64, text: &str) {
        let Some(s) = self.streams.get_mut(&stream) else { return };
        let seq = s.next_seq;
        s.next_seq += 1;
        s.events.push_back((seq, text.to_string()));
        s.bytes += text.len();
        while s.events.len() > REPLAY_EVENTS || (s.bytes > REPLAY_BYTES && s.events.len() > 1) {
            if let Some((_, old)) = s.events.pop_front() {
                s.bytes -= old.len();
            }
        }
        if let Some(live) = &s.live {
            // A reader that fell this far behind is cut off; it may resume from its last id.
            if live.try_send(encode_event(Some(&format!("{stream}-{seq}")), None, text)).is_err() {
                s.live = None;
            }
        }
    }

    /// The stream for a message related to no known request: the newest POST stream still
    /// owing answers (server requests during a tool call belong there), else the GET stream.
    fn related(&self) -> Option<u64> {
        self.streams.iter().rev().find(|(_, s)| s.post && s.owed > 0).map(|(k, _)| *k).or(self.listen)
    }

    /// Routes one line of the server's output.
    fn route(&mut self, text: &str) {
        let options = ParseOptions { allow_batch: true, allow_null_id: false };
        let first = match parse(text, &options) {
            Ok(Incoming::Single(m)) => Some(m),
            Ok(Incoming::Batch(items)) => items.into_iter().flatten().next(),
            Err(_) => None,
        };
        let target = match &first {
            Some(Message::Response(r)) => self.by_request.remove(&r.id),
            Some(Message::Notification(n)) if n.method == "notifications/progress" => {
                let token = n.params.as_ref().and_then(|p| p.get("progressToken")).map(Value::to_string);
                token.and_then(|t| self.by_token.get(&t).copied())
            }
            _ => None,
        }
        .or_else(|| self.related());
        let Some(target) = target else {
            eprintln!("agentwire-relay: an MCP message with no stream to carry it was dropped");
            return;
        };
        self.push(target, text);
        if let Some(Message::Response(_)) = first {
            if let Some(s) = self.streams.get_mut(&target) {
                s.owed = s.owed.saturating_sub(1);
                if s.post && s.owed == 0 {
                    s.live = None; // every request answered: the stream ends
                    self.by_token.retain(|_, v| *v != target);
                }
            }
        }
    }

    /// The process ended: what is still owed is answered with an error, every stream ends.
    fn end(&mut self) {
        self.ended = true;
        let owed: Vec<(Id, u64)> = self.by_request.drain().collect();
        for (id, stream) in owed {
            let answer = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32603, "message": "the MCP server ended (its process exited, or the page hosting it left)" } });
            self.push(stream, &answer.to_string());
        }
        for s in self.streams.values_mut() {
            s.live = None;
        }
    }
}

fn sse(rx: mpsc::Receiver<String>, session_id: Option<&str>) -> Response {
    let body = Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (Ok::<_, Infallible>(chunk), rx))
    }));
    let mut r = (StatusCode::OK, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(id).ok()) {
        h.insert("mcp-session-id", id);
    }
    r
}

fn accepts(headers: &HeaderMap, kinds: &[&str]) -> bool {
    let accept = headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).collect::<Vec<_>>().join(",").to_ascii_lowercase();
    kinds.iter().all(|k| accept.contains(k) || accept.contains("*/*"))
}

impl Hub {
    /// Serves one request to `/mcp/<agent>` or `/hosted/<id>`; the relay's guards passed.
    pub async fn serve(&self, target: Target<'_>, limit: usize, method: Method, headers: HeaderMap, body: Bytes) -> Response {
        // The version header, when sent, must name a version (2025-03-26 is assumed without).
        if let Some(v) = headers.get("mcp-protocol-version") {
            let known = v.to_str().ok().is_some_and(|v| Version::parse(v).rank().is_some());
            if !known {
                return refused(StatusCode::BAD_REQUEST, "Bad Request: unsupported MCP-Protocol-Version");
            }
        }
        let session = match headers.get("mcp-session-id").map(|v| v.to_str().unwrap_or("")) {
            None => None,
            Some(id) => {
                let mut sessions = self.sessions.lock().expect("not poisoned");
                // A session whose process ended (or that idled out) is forgotten here.
                if sessions.get(id).is_some_and(|s| s.routes.lock().expect("not poisoned").ended) {
                    sessions.remove(id);
                }
                match sessions.get(id) {
                    Some(s) if s.owner == target.owner() => Some(s.clone()),
                    _ => return refused(StatusCode::NOT_FOUND, "Not Found: no such MCP session (it ended or never was)"),
                }
            }
        };
        if let Some(s) = &session {
            *s.last_active.lock().expect("not poisoned") = Instant::now();
        }
        match method {
            Method::POST => self.post(target, limit, session, &headers, &body).await,
            Method::GET => get(session, &headers),
            Method::DELETE => match session {
                Some(s) => {
                    self.end(&s).await;
                    StatusCode::NO_CONTENT.into_response()
                }
                None => refused(StatusCode::BAD_REQUEST, "Bad Request: DELETE needs an Mcp-Session-Id"),
            },
            _ => refused(StatusCode::METHOD_NOT_ALLOWED, "POST, GET or DELETE"),
        }
    }

    async fn post(&self, target: Target<'_>, limit: usize, session: Option<Arc<Session>>, headers: &HeaderMap, body: &Bytes) -> Response {
        if !accepts(headers, &["application/json", "text/event-stream"]) {
            return refused(StatusCode::NOT_ACCEPTABLE, "Not Acceptable: Accept must list application/json and text/event-stream");
        }
        let json_body = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
        if !json_body {
            return refused(StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported Media Type: the body must be application/json");
        }
        let Ok(text) = std::str::from_utf8(body) else {
            return Refused(StatusCode::BAD_REQUEST, -32700, "Parse error: the body is not UTF-8".into()).into_response();
        };
        let messages: Vec<Message> = match parse(text, &ParseOptions { allow_batch: true, allow_null_id: false }) {
            Ok(Incoming::Single(m)) => vec![m],
            Ok(Incoming::Batch(items)) => match items.into_iter().collect::<Result<Vec<_>, _>>() {
                Ok(all) => all,
                Err(f) => return Refused(StatusCode::BAD_REQUEST, f.error.code, f.error.message).into_response(),
            },
            Err(f) => return Refused(StatusCode::BAD_REQUEST, f.error.code, f.error.message).into_response(),
        };
        let initialize = messages.iter().any(|m| m.method() == Some("initialize"));
        let session = match (session, initialize) {
            (Some(_), true) => return refused(StatusCode::BAD_REQUEST, "Bad Request: initialize opens a new session; send it without Mcp-Session-Id"),
            (Some(s), false) => s,
            (None, true) => match target {
                Target::Agent { agent, slots } => match self.start(agent, slots, limit).await {
                    Ok(s) => s,
                    Err(r) => return r,
                },
                Target::Hosted(host) => match self.start_hosted(host) {
                    Ok(s) => s,
                    Err(r) => return r,
                },
            },
            (None, false) => return refused(StatusCode::BAD_REQUEST, "Bad Request: no Mcp-Session-Id; send initialize first"),
        };
        let requests: Vec<(Id, Option<String>)> = messages
            .iter()
            .filter_map(|m| match m {
                Message::Request(r) => Some((r.id.clone(), r.params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get("progressToken")).map(Value::to_string))),
                _ => None,
            })
            .collect();
        let stream = (!requests.is_empty()).then(|| {
            let mut routes = session.routes.lock().expect("not poisoned");
            let (id, rx) = routes.open(true);
            routes.streams.get_mut(&id).expect("just opened").owed = requests.len();
            for (request, token) in &requests {
                routes.by_request.insert(request.clone(), id);
                if let Some(t) = token {
                    routes.by_token.insert(t.clone(), id);
                }
            }
            rx
        });
        if !session.write(text).await {
            if initialize {
                self.end(&session).await;
            }
            return refused(StatusCode::BAD_GATEWAY, "Bad Gateway: the MCP server is not running");
        }
        match stream {
            Some(rx) => sse(rx, initialize.then_some(session.id.as_str())),
            None => StatusCode::ACCEPTED.into_response(),
        }
    }

    /// A new session: its process, its id, its output pump.
    async fn start(&self, agent: &Agent, slots: &Arc<tokio::sync::Semaphore>, limit: usize) -> Result<Arc<Session>, Response> {
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            // Clients often leave without DELETE: when every slot is taken, the session idle
            // longest (no open stream) makes room.
            Err(_) => match self.idlest() {
                Some(victim) => {
                    eprintln!("agentwire-relay: every slot is taken; ending the MCP session idle longest");
                    self.end(&victim).await;
                    slots.clone().try_acquire_owned().map_err(|_| refused(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: too many sessions"))?
                }
                None => return Err(refused(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: too many sessions")),
            },
        };
        let id = crate::cli::random_token().map_err(|_| refused(StatusCode::INTERNAL_SERVER_ERROR, "no randomness for a session id"))?;
        let mark = process::session_mark();
        let mut child = process::spawn(agent, &mark).map_err(|e| {
            eprintln!("agentwire-relay: cannot start MCP server {:?}: {e}", agent.name);
            refused(StatusCode::BAD_GATEWAY, format!("Bad Gateway: cannot start the MCP server {:?}", agent.name))
        })?;
        let pgid = child.id().unwrap_or(0);
        eprintln!("agentwire-relay: started MCP server {:?} (pid {pgid}) for an HTTP session", agent.name);
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let session = Arc::new(Session {
            id: id.clone(),
            owner: Target::Agent { agent, slots }.owner(),
            backend: Backend::Process { stdin: tokio::sync::Mutex::new(stdin), pgid, mark, slot: Mutex::new(Some(slot)) },
            routes: Mutex::new(Routes::default()),
            last_active: Mutex::new(Instant::now()),
        });
        self.sessions.lock().expect("not poisoned").insert(id, session.clone());
        let waiter = process::wait_in_background(child);
        tokio::spawn(pump(session.clone(), stdout, limit));
        tokio::spawn(log_stderr(stderr, agent.name.clone()));
        tokio::spawn(watch_idle(Arc::downgrade(&session)));
        tokio::spawn(async move {
            let status = waiter.await.ok().and_then(Result::ok);
            let (code, signal) = process::describe(status);
            eprintln!("agentwire-relay: MCP server (pid {pgid}) ended: {}", process::ending_words(code, signal.map(crate::frames::signal_name).as_deref()));
        });
        Ok(session)
    }

    /// A new session of a hosted server: the page makes its server when the first message comes.
    fn start_hosted(&self, host: Arc<Host>) -> Result<Arc<Session>, Response> {
        let owner = Target::Hosted(host.clone()).owner();
        let mut sessions = self.sessions.lock().expect("not poisoned");
        if sessions.values().filter(|s| s.owner == owner).count() >= hosting::SESSIONS_PER_HOST {
            return Err(refused(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: too many sessions of this hosted server"));
        }
        let id = crate::cli::random_token().map_err(|_| refused(StatusCode::INTERNAL_SERVER_ERROR, "no randomness for a session id"))?;
        let session = Arc::new(Session { id: id.clone(), owner, backend: Backend::Page(host), routes: Mutex::new(Routes::default()), last_active: Mutex::new(Instant::now()) });
        sessions.insert(id, session.clone());
        drop(sessions);
        tokio::spawn(watch_idle(Arc::downgrade(&session)));
        Ok(session)
    }

    /// A message (or batch) from the page hosting session `id`'s server, routed to the agent's
    /// streams; refused when that session is not one of connection `conn`'s.
    pub fn from_page(&self, conn: u64, id: &str, text: &str) -> Result<(), &'static str> {
        let session = self.sessions.lock().expect("not poisoned").get(id).cloned();
        match session {
            Some(s) if matches!(&s.backend, Backend::Page(h) if h.conn == conn) => {
                let mut routes = s.routes.lock().expect("not poisoned");
                if routes.ended {
                    return Err("that MCP session has ended; message not delivered");
                }
                routes.route(text);
                Ok(())
            }
            _ => Err("no MCP session of this connection has that id; message not delivered"),
        }
    }

    /// The page's connection ended: the sessions of its hosted servers end.
    pub async fn end_hosted(&self, hosts: &[Arc<Host>]) {
        let owners: Vec<String> = hosts.iter().map(|h| Target::Hosted(h.clone()).owner()).collect();
        let gone: Vec<Arc<Session>> = self.sessions.lock().expect("not poisoned").values().filter(|s| owners.contains(&s.owner)).cloned().collect();
        for s in gone {
            self.end(&s).await;
        }
    }

    /// Ends a session: it is forgotten, its process group and everything it started end.
    async fn end(&self, session: &Arc<Session>) {
        self.sessions.lock().expect("not poisoned").remove(&session.id);
        session.finish().await;
    }

    /// The session with no open stream that was used least recently.
    fn idlest(&self) -> Option<Arc<Session>> {
        let sessions = self.sessions.lock().expect("not poisoned");
        sessions.values().filter(|s| !s.streaming() && !s.routes.lock().expect("not poisoned").ended).min_by_key(|s| *s.last_active.lock().expect("not poisoned")).cloned()
    }

    /// Ends every session (the relay shuts down).
    pub async fn end_all(&self) {
        let all: Vec<Arc<Session>> = self.sessions.lock().expect("not poisoned").values().cloned().collect();
        for s in all {
            self.end(&s).await;
        }
    }

    pub fn len(&self) -> usize {
        self.sessions.lock().expect("not poisoned").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `GET`: with `Last-Event-ID` the rest of that stream; without, the session's own stream.
fn get(session: Option<Arc<Session>>, headers: &HeaderMap) -> Response {
    if !accepts(headers, &["text/event-stream"]) {
        return refused(StatusCode::NOT_ACCEPTABLE, "Not Acceptable: Accept must list text/event-stream");
    }
    let Some(session) = session else {
        return refused(StatusCode::BAD_REQUEST, "Bad Request: no Mcp-Session-Id");
    };
    let mut routes = session.routes.lock().expect("not poisoned");
    if routes.ended {
        return refused(StatusCode::NOT_FOUND, "Not Found: the session ended");
    }
    let Some(last) = headers.get("last-event-id") else {
        if routes.listen.is_some_and(|l| routes.streams.get(&l).is_some_and(|s| s.live.as_ref().is_some_and(|t| !t.is_closed()))) {
            return refused(StatusCode::CONFLICT, "Conflict: this session's GET stream is already open");
        }
        let (id, rx) = routes.open(false);
        routes.listen = Some(id);
        return sse(rx, None);
    };
    let parsed = last.to_str().ok().and_then(|v| v.split_once('-')).and_then(|(s, n)| Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
    let Some((stream, after)) = parsed.filter(|(s, n)| routes.streams.get(s).is_some_and(|st| *n < st.next_seq)) else {
        return refused(StatusCode::BAD_REQUEST, "Bad Request: Last-Event-ID names no event of this session");
    };
    let s = routes.streams.get_mut(&stream).expect("checked");
    if s.events.front().is_some_and(|(first, _)| *first > after + 1) {
        return refused(StatusCode::BAD_REQUEST, "Bad Request: the events after Last-Event-ID are no longer kept");
    }
    let (tx, rx) = mpsc::channel(LIVE_QUEUE.max(s.events.len() + 1));
    let _ = tx.try_send(format!("retry: {RETRY_MS}\n\n"));
    for (seq, text) in s.events.iter().filter(|(seq, _)| *seq > after) {
        let _ = tx.try_send(encode_event(Some(&format!("{stream}-{seq}")), None, text));
    }
    // A stream still owing answers goes on live; a finished one ends after the replay.
    s.live = (!s.post || s.owed > 0).then_some(tx);
    sse(rx, None)
}

impl Session {
    /// Ends the process group and everything it started (or tells the page); every stream ends.
    async fn finish(&self) {
        self.routes.lock().expect("not poisoned").end();
        match &self.backend {
            Backend::Process { stdin, pgid, mark, slot } => {
                stdin.lock().await.take();
                process::end_session(*pgid, mark, Duration::from_secs(2)).await;
                slot.lock().expect("not poisoned").take();
            }
            Backend::Page(host) => host.notify(json!({ "relay": { "event": "mcpEnded", "host": host.name, "session": self.id } }).to_string()),
        }
    }

    /// Whether a client is reading one of its streams now.
    fn streaming(&self) -> bool {
        self.routes.lock().expect("not poisoned").streams.values().any(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    /// One message (or batch) to the server: a line on the process's stdin, or a frame to the
    /// page; false when it is gone.
    async fn write(&self, text: &str) -> bool {
        let stdin = match &self.backend {
            Backend::Process { stdin, .. } => stdin,
            Backend::Page(host) => {
                // The text was parsed as JSON-RPC, so it goes in as a JSON value.
                let frame = format!(r#"{{"relay":{{"event":"mcp","host":{},"session":{},"message":{text}}}}}"#, json!(host.name), json!(self.id));
                return host.send(frame).await;
            }
        };
        let mut stdin = stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else { return false };
        // JSON text has no raw newline except as whitespace, which may be dropped.
        let line = if text.contains(['\n', '\r']) { text.replace(['\n', '\r'], " ") } else { text.to_string() };
        let ok = pipe.write_all(line.as_bytes()).await.is_ok() && pipe.write_all(b"\n").await.is_ok() && pipe.flush().await.is_ok();
        if !ok {
            stdin.take();
        }
        ok
    }
}

/// The process's stdout → one routed message per line; at its end every stream ends.
async fn pump(session: Arc<Session>, stdout: Option<ChildStdout>, limit: usize) {
    if let Some(stdout) = stdout {
        let mut reader = BufReader::with_capacity(64 * 1024, stdout);
        let mut buf = Vec::new();
        while let Ok(line) = read_line(&mut reader, &mut buf, limit, Overflow::Skip).await {
            match line {
                Line::Full | Line::Last => match std::str::from_utf8(&buf).map(str::trim) {
                    Ok("") => {}
                    Ok(text) => session.routes.lock().expect("not poisoned").route(text),
                    Err(_) => eprintln!("agentwire-relay: the MCP server wrote a line that is not UTF-8; dropped"),
                },
                Line::TooLong(n) => eprintln!("agentwire-relay: the MCP server wrote {n} bytes in one line, over the limit of {limit}; dropped"),
                Line::Eof => break,
            }
        }
    }
    // The process is gone (or closed its output): the session is over, its slot free.
    session.routes.lock().expect("not poisoned").end();
    if let Backend::Process { slot, .. } = &session.backend {
        slot.lock().expect("not poisoned").take();
    }
}

async fn log_stderr(stderr: Option<tokio::process::ChildStderr>, name: String) {
    let Some(stderr) = stderr else { return };
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    while let Ok(Line::Full | Line::Last) = read_line(&mut reader, &mut buf, 16 * 1024, Overflow::Split).await {
        eprintln!("agentwire-relay: [{name}] {}", String::from_utf8_lossy(&buf).trim_end());
    }
}

/// Ends a session nobody uses: no request for `IDLE_LIMIT` and no stream open.
async fn watch_idle(session: std::sync::Weak<Session>) {
    loop {
        tokio::time::sleep(IDLE_LIMIT / 10).await;
        let Some(session) = session.upgrade() else { return };
        if session.routes.lock().expect("not poisoned").ended {
            return;
        }
        let idle = session.last_active.lock().expect("not poisoned").elapsed() >= IDLE_LIMIT;
        if idle && !session.streaming() {
            eprintln!("agentwire-relay: MCP session idle for {} s; ending it", IDLE_LIMIT.as_secs());
            session.finish().await;
            return;
        }
    }
}
