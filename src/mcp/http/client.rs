//! The client's side of MCP's Streamable HTTP transport (2025-03-26 and later), and the
//! 2024-11-05 HTTP+SSE transport it falls back to, as a sans-IO state machine. The driver
//! (js/http.js) performs the requests this plans and feeds back what came of them; this
//! decides the headers, keeps the session id and the negotiated version, reads event
//! streams, knows which request each stream still owes an answer, and says when to resume
//! a stream (`retry`, `Last-Event-ID`) and when a request has failed.

use super::headers::{self, Mirrored};
use super::sse::{SseDecoder, SseError};
use crate::json::{Map, Value};
use crate::jsonrpc::{set_member, Id, Message, ProtocolError};
use crate::mcp::META_VERSION;

/// agentwire's own code for a request the HTTP transport could not deliver or get answered.
pub const HTTP_ERROR: i64 = -32097;
pub use super::sse::{DEFAULT_RETRY_MS, MIN_RETRY_MS};
/// Resumptions of one stream in a row that bring no event before it is given up.
pub const MAX_RESUMPTIONS: u32 = 3;
/// The most of an error body kept for the error's `data`.
const BODY_EXCERPT: usize = 512;

/// What the driver must send. `url` is set when it is not the connection's URL (the
/// 2024-11-05 transport posts to the endpoint its stream named).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub stream: u32,
    pub method: &'static str,
    pub url: Option<String>,
    pub headers: Vec<(String, String)>,
    /// Once this is delivered, open the GET stream (`listen`): the session has begun.
    pub then_listen: bool,
}

/// What to do with a response, from its status and headers.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Read the body as one JSON text and pass it to `body`.
    Json,
    /// Read the body as an event stream: `chunk` for each piece, `end` when it stops.
    Events,
    /// Nothing to read: a 202, or a GET stream the server does not offer (405).
    Empty,
    /// Read (a short piece of) the body and pass it to `failed`.
    Failed,
    /// The server refused Streamable HTTP's `initialize` as a 2024-11-05 server would:
    /// open the old transport's stream with `legacy`.
    Legacy,
}

/// What an ended stream leaves to do.
#[derive(Clone, Debug, PartialEq)]
pub enum End {
    Done,
    /// Wait `after_ms`, then send `resume(stream)`.
    Resume {
        after_ms: u64,
    },
    /// Give these answers to the session: the requests the stream owed cannot be answered.
    Failed(Vec<String>),
}

/// One item read from a stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Message {
        text: String,
        event_id: Option<String>,
    },
    /// The 2024-11-05 transport's first event: where to post messages from now on.
    Endpoint(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Post,
    Listen,
    /// The 2024-11-05 transport's one stream, where every answer comes.
    Legacy,
    /// A message posted to the 2024-11-05 endpoint; its answer comes on the stream.
    LegacyPost,
}

#[derive(Debug)]
struct Stream {
    id: u32,
    kind: Kind,
    decoder: Option<SseDecoder>,
    /// Requests sent on this stream whose answer has not come.
    owed: Vec<Id>,
    /// The initialize text posted, kept while a fallback to 2024-11-05 may resend it.
    posted: Option<String>,
    /// Resumptions since the last event.
    resumptions: u32,
    status: u16,
}

#[derive(Debug)]
pub struct HttpClient {
    session_id: Option<String>,
    version: Option<String>,
    /// Set once the 2024-11-05 transport is in use: where to post.
    endpoint: Option<String>,
    streams: Vec<Stream>,
    next: u32,
    limit: usize,
    /// Texts to post once the old transport's endpoint is known.
    replay: Vec<String>,
    /// The initialize request not yet answered: its answer names the version.
    initialize: Option<Id>,
    /// `tools/list` requests not yet answered: their answers say which arguments go in headers.
    tool_lists: Vec<Id>,
    /// Per tool, the arguments its input schema mirrors into `Mcp-Param-*` headers.
    tools: Vec<(String, Mirrored)>,
    /// What the application should hear of (tools left out of a list, and why).
    warnings: Vec<String>,
}

impl HttpClient {
    /// `limit`: the most bytes one body or one event may have.
    pub fn new(limit: usize) -> Self {
        HttpClient {
            session_id: None,
            version: None,
            endpoint: None,
            streams: Vec::new(),
            next: 1,
            limit,
            replay: Vec::new(),
            initialize: None,
            tool_lists: Vec::new(),
            tools: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    pub fn protocol_version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// Whether the 2024-11-05 HTTP+SSE transport is in use.
    pub fn legacy(&self) -> bool {
        self.endpoint.is_some() || self.streams.iter().any(|s| s.kind == Kind::Legacy)
    }

    /// Whether `text` is not to be posted at all: in the stateless era Streamable HTTP has no
    /// `notifications/cancelled` (closing the request's stream is the cancellation, which
    /// `abandon` asks for).
    pub fn skips(&self, text: &str) -> bool {
        const CANCELLED: &[u8] = b"notifications/cancelled";
        let stateless = self
            .version
            .as_deref()
            .is_some_and(|v| crate::mcp::Version::parse(v).era() == crate::mcp::Era::Stateless);
        stateless
            // A scan of the bytes, not `str::contains` (its two-way searcher is half a KB).
            && text
                .as_bytes()
                .windows(CANCELLED.len())
                .any(|w| w == CANCELLED)
            && crate::json::tape_of(text).is_ok_and(|tape| {
                matches!(outgoing(&tape).as_slice(), [Outgoing { id: None, method, .. }] if method == "notifications/cancelled")
            })
    }

    /// Plans the POST of one outgoing text (a message or a batch).
    pub fn post(&mut self, text: &str) -> Plan {
        let tape = crate::json::tape_of(text);
        let messages = tape.as_ref().map(outgoing).unwrap_or_default();
        let mut owed = Vec::new();
        let mut initialize = false;
        let mut initialized = false;
        let mut mirrored = Vec::new();
        for m in &messages {
            let Some(id) = &m.id else {
                initialized |= m.method == "notifications/initialized";
                continue;
            };
            if !m.call {
                continue;
            }
            owed.push(id.clone());
            if m.method == "initialize" {
                initialize = true;
                self.initialize = Some(id.clone());
            }
            if m.method == "tools/list" {
                self.tool_lists.push(id.clone());
            }
            // The stateless era names the version in each request; the header follows it,
            // and the body's method, name and marked arguments are mirrored (SEP-2243).
            if let Some(v) = m
                .params
                .and_then(|p| p.get("_meta"))
                .and_then(|m| m.get(META_VERSION))
                .and_then(|v| v.as_str())
            {
                self.version = Some(v.into_owned());
                if messages.len() == 1 {
                    mirrored = self.mirror(&m.method, m.params);
                }
            }
        }
        let legacy = self.endpoint.clone();
        let id = self.open(if legacy.is_some() {
            Kind::LegacyPost
        } else {
            Kind::Post
        });
        let stream = self.stream_mut(id).expect("just opened");
        stream.owed = owed;
        stream.posted = (initialize && legacy.is_none()).then(|| text.to_string());
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        if legacy.is_none() {
            headers.push((
                "accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ));
            self.session_headers(&mut headers, !initialize);
        }
        headers.extend(mirrored);
        let then_listen = initialized && legacy.is_none();
        Plan {
            stream: id,
            method: "POST",
            url: legacy,
            headers,
            then_listen,
        }
    }

    /// Plans the GET stream for messages the server sends on its own (after initialize).
    pub fn listen(&mut self) -> Plan {
        let id = self.open(Kind::Listen);
        self.stream_plan(id, None)
    }

    /// Plans the GET that resumes a stream after `End::Resume`.
    pub fn resume(&mut self, stream: u32) -> Option<Plan> {
        let last = self
            .stream_mut(stream)?
            .decoder
            .as_ref()
            .and_then(|d| d.last_event_id().map(str::to_string));
        let s = self.stream_mut(stream)?;
        s.resumptions += 1;
        Some(self.stream_plan(stream, last))
    }

    /// Plans the GET that opens the 2024-11-05 transport's stream, after `Reply::Legacy`.
    pub fn legacy_open(&mut self, failed_stream: u32) -> Plan {
        if let Some(i) = self.streams.iter().position(|s| s.id == failed_stream) {
            let s = self.streams.remove(i);
            self.replay.extend(s.posted);
        }
        let id = self.open(Kind::Legacy);
        Plan {
            stream: id,
            method: "GET",
            url: None,
            headers: vec![("accept".to_string(), "text/event-stream".to_string())],
            then_listen: false,
        }
    }

    /// Plans the DELETE that ends the session, when there is one to end.
    pub fn end_session(&mut self) -> Option<Plan> {
        let id = self.session_id.take()?;
        let mut headers = vec![("mcp-session-id".to_string(), id)];
        if let Some(v) = &self.version {
            headers.push(("mcp-protocol-version".to_string(), v.clone()));
        }
        self.streams.clear();
        Some(Plan {
            stream: 0,
            method: "DELETE",
            url: None,
            headers,
            then_listen: false,
        })
    }

    /// Reads a response's status and headers.
    pub fn response(
        &mut self,
        stream: u32,
        status: u16,
        content_type: Option<&str>,
        session_id: Option<&str>,
    ) -> Reply {
        let known_session = self.session_id.is_some();
        let Some(s) = self.stream_mut(stream) else {
            return Reply::Empty;
        };
        s.status = status;
        let kind = s.kind;
        let initialize = s.posted.is_some();
        let media = content_type
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if kind == Kind::Post && initialize && !known_session && matches!(status, 400 | 404 | 405) {
            return Reply::Legacy;
        }
        if !(200..300).contains(&status) {
            // A server that offers no GET stream says 405; that is no failure.
            if kind == Kind::Listen && status == 405 {
                self.close(stream);
                return Reply::Empty;
            }
            return Reply::Failed;
        }
        if initialize && kind == Kind::Post {
            if let Some(id) = session_id {
                // The spec allows visible ASCII only (0x21–0x7E).
                if id.is_empty() || !id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                    return Reply::Failed;
                }
                self.session_id = Some(id.to_string());
            }
        }
        if kind == Kind::LegacyPost {
            // Delivered: the answers come on the stream.
            let owed = std::mem::take(&mut self.stream_mut(stream).expect("checked above").owed);
            if let Some(l) = self.streams.iter_mut().find(|s| s.kind == Kind::Legacy) {
                l.owed.extend(owed);
            }
            self.close(stream);
            return Reply::Empty;
        }
        let limit = self.limit;
        let s = self.stream_mut(stream).expect("checked above");
        match media.as_str() {
            "text/event-stream" => {
                if s.decoder.is_none() {
                    s.decoder = Some(SseDecoder::new(limit));
                }
                Reply::Events
            }
            "application/json" if kind == Kind::Post => Reply::Json,
            _ if status == 202 || s.owed.is_empty() => {
                self.close(stream);
                Reply::Empty
            }
            _ => Reply::Failed,
        }
    }

    /// A whole JSON body (after `Reply::Json`): the messages for the session, then the
    /// answers for requests the body left out.
    pub fn body(&mut self, stream: u32, text: &str) -> Vec<String> {
        if text.len() > self.limit {
            return self.fail(stream, &too_large(self.limit), None);
        }
        let text = self
            .note_answers(stream, text)
            .unwrap_or_else(|| text.to_string());
        let mut out = vec![text];
        out.extend(self.fail(
            stream,
            "the response body did not answer this request",
            None,
        ));
        out
    }

    /// A piece of an event stream (after `Reply::Events`).
    pub fn chunk(&mut self, stream: u32, text: &str) -> Result<Vec<Item>, Vec<String>> {
        let limit = self.limit;
        let Some(s) = self.stream_mut(stream) else {
            return Ok(Vec::new());
        };
        let Some(decoder) = s.decoder.as_mut() else {
            return Ok(Vec::new());
        };
        let events = match decoder.feed(text) {
            Ok(events) => events,
            Err(SseError::TooLarge { .. }) => {
                return Err(self.fail(stream, &too_large(limit), None))
            }
        };
        if !events.is_empty() {
            s.resumptions = 0;
        }
        let legacy = s.kind == Kind::Legacy;
        let mut items = Vec::new();
        for e in events {
            match e.event.as_str() {
                "endpoint" if legacy && self.endpoint.is_none() => {
                    self.endpoint = Some(e.data.clone());
                    items.push(Item::Endpoint(e.data));
                }
                // A priming event (an id, no data) carries nothing for the session.
                "message" if !e.data.is_empty() => {
                    let text = self.note_answers(stream, &e.data).unwrap_or(e.data);
                    items.push(Item::Message {
                        text,
                        event_id: e.id,
                    });
                }
                _ => {}
            }
        }
        Ok(items)
    }

    /// The texts to post once the 2024-11-05 endpoint is known (the refused initialize).
    pub fn take_replay(&mut self) -> Vec<String> {
        std::mem::take(&mut self.replay)
    }

    /// A stream stopped (`broken`: by a network error rather than its end).
    pub fn end(&mut self, stream: u32, broken: bool) -> End {
        let in_session = self.session_id.is_some();
        let Some(s) = self.stream_mut(stream) else {
            return End::Done;
        };
        let resumable = s
            .decoder
            .as_ref()
            .and_then(SseDecoder::last_event_id)
            .is_some();
        let after_ms = s
            .decoder
            .as_ref()
            .and_then(SseDecoder::retry_ms)
            .unwrap_or(DEFAULT_RETRY_MS)
            .max(MIN_RETRY_MS);
        let wanted = match s.kind {
            // SEP-1699: a server may close a stream before the answer; the client resumes.
            Kind::Post => !s.owed.is_empty() && resumable,
            // The server-initiated stream stays open as long as the session.
            Kind::Listen => in_session || resumable,
            Kind::Legacy | Kind::LegacyPost => false,
        };
        if wanted && s.resumptions < MAX_RESUMPTIONS {
            return End::Resume { after_ms };
        }
        let why = if broken {
            "the event stream broke before answering this request"
        } else {
            "the server ended the event stream before answering this request"
        };
        let failed = self.fail(stream, why, None);
        self.close(stream);
        if failed.is_empty() {
            End::Done
        } else {
            End::Failed(failed)
        }
    }

    /// The application gave up on request `id` (a timeout, an abort): it is owed no more. True
    /// when its stream owes nothing else and was closed, so its HTTP request may be aborted.
    pub fn abandon(&mut self, stream: u32, id: &Id) -> bool {
        let Some(s) = self.stream_mut(stream) else {
            return false;
        };
        s.owed.retain(|o| o != id);
        let idle = s.owed.is_empty() && s.kind == Kind::Post;
        if idle {
            self.close(stream);
        }
        idle
    }

    /// An error response (after `Reply::Failed`, or a transport failure with status 0):
    /// an error answer for each request the stream owed, naming the status and the body.
    pub fn failed(&mut self, stream: u32, status: u16, body: &str) -> Vec<String> {
        let excerpt: String = body.chars().take(BODY_EXCERPT).collect();
        let expired = status == 404 && self.session_id.is_some();
        if expired {
            // The server forgot the session: everything that named it is void.
            self.session_id = None;
        }
        let peer_error = crate::json::value_of(body).and_then(|v| v.get("error").cloned());
        let message = match (status, expired) {
            (_, true) => "the MCP session expired (HTTP 404): initialize again".to_string(),
            (0, _) => format!("the HTTP request failed: {excerpt}"),
            (401, _) => "the server requires authorization (HTTP 401)".to_string(),
            _ => format!("the server answered HTTP {status}"),
        };
        let mut data = Map::new();
        data.insert("status".into(), Value::from(status));
        if !excerpt.is_empty() && status != 0 {
            data.insert("body".into(), Value::from(excerpt));
        }
        if expired {
            data.insert("sessionExpired".into(), Value::Bool(true));
        }
        let out = self.fail(stream, &message, Some((Value::Object(data), peer_error)));
        self.close(stream);
        out
    }

    fn fail(
        &mut self,
        stream: u32,
        message: &str,
        data: Option<(Value, Option<Value>)>,
    ) -> Vec<String> {
        let Some(s) = self.stream_mut(stream) else {
            return Vec::new();
        };
        let owed = std::mem::take(&mut s.owed);
        let (mut data, peer) = data.unwrap_or((
            Value::Object(Map::from_iter([("status".into(), s.status.into())])),
            None,
        ));
        // The server's own JSON-RPC error, when the body held one, keeps its code and words.
        let (code, message) = match peer.as_ref().and_then(|e| {
            Some((
                e.get("code")?.as_i64()?,
                e.get("message")?.as_str()?.to_string(),
            ))
        }) {
            Some((code, text)) => {
                set_member(&mut data, "transport", message);
                // Its data too (the fields the transport sets stay the transport's).
                if let (Some(own), Some(Value::Object(theirs))) = (
                    data.as_object_mut(),
                    peer.as_ref().and_then(|e| e.get("data")),
                ) {
                    for (k, v) in theirs {
                        own.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                (code, text)
            }
            None => (HTTP_ERROR, message.to_string()),
        };
        owed.into_iter()
            .map(|id| {
                Message::error(
                    id,
                    ProtocolError::new(code, message.clone()).with_data(data.clone()),
                )
                .to_text()
            })
            .collect()
    }

    /// Notes which owed requests `text` answers; returns it rewritten when a `tools/list`
    /// answer left a tool out. Read where it stands: the text becomes a tree of values only
    /// when it holds a `tools/list` answer, which may have to be written again.
    fn note_answers(&mut self, stream: u32, text: &str) -> Option<String> {
        use crate::json::tape::Kind;
        let tape = crate::json::tape_of(text).ok()?;
        // `json::Item`: this module has an `Item` of its own (what an event stream carries).
        let root = crate::json::Item::root(&tape);
        let batch = root.kind() == Kind::Arr;
        let elements = root.elements();
        let answers = if batch {
            &elements[..]
        } else {
            std::slice::from_ref(&root)
        };
        // Where the answers to `tools/list` are (their place in a batch).
        let mut lists = Vec::new();
        for (at, a) in answers.iter().enumerate() {
            if a.get("method").is_some() {
                continue;
            }
            let Some(id) = a.get("id").and_then(|v| Id::from_value(&v.value()).ok()) else {
                continue;
            };
            if self.initialize.as_ref() == Some(&id) {
                self.initialize = None;
                if let Some(v) = a
                    .get("result")
                    .and_then(|r| r.get("protocolVersion"))
                    .and_then(|v| v.as_str())
                {
                    self.version = Some(v.into_owned());
                }
            }
            if let Some(i) = self.tool_lists.iter().position(|t| *t == id) {
                self.tool_lists.remove(i);
                lists.push(at);
            }
            if let Some(s) = self.stream_mut(stream) {
                s.owed.retain(|o| *o != id);
            }
        }
        if lists.is_empty() {
            return None;
        }
        let mut value = crate::json::value_of(text)?;
        let mut rewritten = false;
        for at in lists {
            let answer = match &mut value {
                Value::Array(items) if batch => items.get_mut(at),
                one => Some(one),
            };
            if let Some(answer) = answer {
                rewritten |= self.read_tools(answer);
            }
        }
        rewritten.then(|| crate::json::text(&value))
    }

    /// The stateless era's request metadata headers for one request.
    fn mirror(&self, method: &str, params: Option<crate::json::Item>) -> Vec<(String, String)> {
        let mut out = headers::standard(method, params);
        if method == "tools/call" {
            let name = params.and_then(|p| p.get("name")).and_then(|n| n.as_str());
            if let Some((_, mirrored)) = self
                .tools
                .iter()
                .find(|(t, _)| Some(t.as_str()) == name.as_deref())
            {
                out.extend(headers::params(
                    mirrored,
                    params.and_then(|p| p.get("arguments")),
                ));
            }
        }
        out
    }

    /// What the application should hear of since the last call (tools left out, and why).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// A `tools/list` answer: remembers each tool's mirrored arguments and, over Streamable
    /// HTTP as the spec says, leaves out a tool whose `x-mcp-header` marks are invalid.
    /// Returns the answer rewritten when a tool was left out.
    fn read_tools(&mut self, answer: &mut Value) -> bool {
        let Some(tools) = answer
            .get_mut("result")
            .and_then(|r| r.get_mut("tools"))
            .and_then(Value::as_array_mut)
        else {
            return false;
        };
        let before = tools.len();
        let mut warnings = Vec::new();
        tools.retain(|tool| {
            let name = tool
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let Some(schema) = tool.get("inputSchema") else {
                return true;
            };
            match headers::mirrored(schema) {
                Ok(mirrored) => {
                    self.tools.retain(|(t, _)| *t != name);
                    if !mirrored.is_empty() {
                        self.tools.push((name, mirrored));
                    }
                    true
                }
                Err(why) => {
                    warnings.push(format!("tool \"{name}\" left out of tools/list: {why}"));
                    false
                }
            }
        });
        self.warnings.extend(warnings);
        tools.len() != before
    }

    fn session_headers(&self, headers: &mut Vec<(String, String)>, with_version: bool) {
        if let Some(id) = &self.session_id {
            headers.push(("mcp-session-id".to_string(), id.clone()));
        }
        // 2025-03-26 had no version header; later versions require it after initialize.
        if let Some(v) = self
            .version
            .as_ref()
            .filter(|v| with_version && v.as_str() > "2025-03-26")
        {
            headers.push(("mcp-protocol-version".to_string(), v.clone()));
        }
    }

    fn stream_plan(&self, stream: u32, last_event_id: Option<String>) -> Plan {
        let mut headers = vec![("accept".to_string(), "text/event-stream".to_string())];
        self.session_headers(&mut headers, true);
        if let Some(last) = last_event_id {
            headers.push(("last-event-id".to_string(), last));
        }
        Plan {
            stream,
            method: "GET",
            url: None,
            headers,
            then_listen: false,
        }
    }

    fn open(&mut self, kind: Kind) -> u32 {
        let id = self.next;
        self.next += 1;
        self.streams.push(Stream {
            id,
            kind,
            decoder: None,
            owed: Vec::new(),
            posted: None,
            resumptions: 0,
            status: 0,
        });
        id
    }

    fn close(&mut self, stream: u32) {
        self.streams.retain(|s| s.id != stream);
    }

    fn stream_mut(&mut self, stream: u32) -> Option<&mut Stream> {
        self.streams.iter_mut().find(|s| s.id == stream)
    }
}

fn too_large(limit: usize) -> String {
    format!("the response is larger than the limit of {limit} bytes")
}

/// One message of an outgoing text, read where it stands in the text's parse.
struct Outgoing<'t, 'a> {
    /// A request or a notification (else a response).
    call: bool,
    /// A request's id (a response's, for a response).
    id: Option<Id>,
    method: std::borrow::Cow<'a, str>,
    params: Option<crate::json::Item<'t, 'a>>,
}

/// The messages of an outgoing text (one, or a batch's) whose envelope `jsonrpc::parse` takes,
/// read by the same envelope reader; what does not parse owes nothing. The params are never
/// made a tree of values: a call's arguments can be large, and only a few members are read.
fn outgoing<'t, 'a>(tape: &'t crate::json::tape::Tape<'a>) -> Vec<Outgoing<'t, 'a>> {
    use crate::json::tape::Kind;
    use crate::jsonrpc::envelope::{read, Shape};
    let root = crate::json::Item::root(tape);
    let messages = if root.kind() == Kind::Arr {
        root.elements()
    } else {
        vec![root]
    };
    let mut out = Vec::new();
    for m in messages {
        let envelope = read(tape, m.node());
        let id = match m.get("id").map(|id| Id::from_value(&id.value())) {
            Some(Err(_)) => continue,
            id => id.and_then(Result::ok),
        };
        let Ok(shape) = envelope.shape else { continue };
        let call = matches!(shape, Shape::Call { .. });
        let method = match m.get("method").and_then(|v| v.as_str()) {
            Some(method) => method,
            None => std::borrow::Cow::Borrowed(""),
        };
        let params = m.get("params").filter(|_| call);
        out.push(Outgoing {
            call,
            id,
            method,
            params,
        });
    }
    out
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use serde_json::json;

    const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;

    fn header<'a>(plan: &'a Plan, name: &str) -> Option<&'a str> {
        plan.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A client past initialize with session "abc" and version 2025-06-18.
    fn ready() -> HttpClient {
        let mut c = HttpClient::new(1 << 20);
        let p = c.post(INIT);
        assert_eq!(
            c.response(
                p.stream,
                200,
                Some("application/json; charset=utf-8"),
                Some("abc")
            ),
            Reply::Json
        );
        assert_eq!(c.body(p.stream, INIT_OK), vec![INIT_OK.to_string()]);
        c
    }

    #[test]
    fn initialize_keeps_the_session_id_and_the_negotiated_version() {
        let mut c = HttpClient::new(1 << 20);
        let p = c.post(INIT);
        assert_eq!(
            (p.method, header(&p, "accept")),
            ("POST", Some("application/json, text/event-stream"))
        );
        assert_eq!(
            (
                header(&p, "mcp-session-id"),
                header(&p, "mcp-protocol-version")
            ),
            (None, None)
        );
        let mut c = ready();
        assert_eq!(
            (c.session_id(), c.protocol_version()),
            (Some("abc"), Some("2025-06-18"))
        );
        let p = c.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(
            (
                header(&p, "mcp-session-id"),
                header(&p, "mcp-protocol-version")
            ),
            (Some("abc"), Some("2025-06-18"))
        );
        assert!(p.then_listen);
        assert_eq!(c.response(p.stream, 202, None, None), Reply::Empty);
        let l = c.listen();
        assert_eq!(
            (l.method, header(&l, "accept"), header(&l, "mcp-session-id")),
            ("GET", Some("text/event-stream"), Some("abc"))
        );
        assert_eq!(
            c.response(l.stream, 405, None, None),
            Reply::Empty,
            "no GET stream offered"
        );
    }

    #[test]
    fn the_stateless_era_names_its_version_per_request() {
        let mut c = HttpClient::new(1 << 20);
        let p = c.post(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#);
        assert_eq!(header(&p, "mcp-protocol-version"), Some("2026-07-28"));
    }

    /// The requests and notifications of an outgoing text are those `jsonrpc::parse` takes,
    /// with the same ids, methods and params, read from the parse alone.
    #[test]
    fn outgoing_calls_are_read_as_the_endpoint_reads_them() {
        use crate::jsonrpc::{parse, Incoming, ParseOptions};
        let texts = [
            CALL,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"a\u0062","method":"tools/\u006cist","params":{"_meta":{"x":[1]}}}"#,
            r#"{"jsonrpc":"2.0","id":{"no":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","method":"b","params":[]},[],3,{"jsonrpc":"2.0","id":5,"result":{}},{"jsonrpc":"2.0","id":6,"method":"c","params":{"d":1}}]"#,
            "[]",
            "not JSON",
        ];
        for text in texts {
            let by_endpoint: Vec<(Option<Id>, String, Option<Value>)> =
                match parse(text, &ParseOptions::default()) {
                    Ok(Incoming::Single(m)) => vec![Ok(m)],
                    Ok(Incoming::Batch(items)) => items,
                    Err(_) => Vec::new(),
                }
                .into_iter()
                .filter_map(|m| match m.ok()? {
                    Message::Request(r) => Some((Some(r.id), r.method, r.params)),
                    Message::Notification(n) => Some((None, n.method, n.params)),
                    Message::Response(_) => None,
                })
                .collect();
            let tape = crate::json::tape_of(text);
            let read: Vec<_> = tape
                .as_ref()
                .map(outgoing)
                .unwrap_or_default()
                .into_iter()
                .filter(|m| m.call)
                .map(|m| (m.id, m.method.into_owned(), m.params.map(|p| p.value())))
                .collect();
            assert_eq!(read, by_endpoint, "{text}");
        }
    }

    #[test]
    fn stateless_requests_mirror_method_name_and_marked_arguments() {
        const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        let mut c = HttpClient::new(1 << 20);
        let list = c.post(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#
        ));
        assert_eq!(
            (header(&list, "mcp-method"), header(&list, "mcp-name")),
            (Some("tools/list"), None)
        );
        assert_eq!(
            c.response(list.stream, 200, Some("application/json"), None),
            Reply::Json
        );
        let tools = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[
            {"name":"sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}},
            {"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}]}}"#;
        let out = c.body(list.stream, tools);
        let answer: Value = serde_json::from_str(&out[0]).unwrap();
        let names: Vec<&str> = answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["sql"],
            "a tool with an invalid x-mcp-header is left out"
        );
        let warnings = c.take_warnings();
        assert!(
            warnings.len() == 1 && warnings[0].contains("\"bad\""),
            "{warnings:?}"
        );
        let call = c.post(&format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"sql","arguments":{{"region":"eu 1 ","query":"x"}},{META}}}}}"#));
        assert_eq!(
            (header(&call, "mcp-method"), header(&call, "mcp-name")),
            (Some("tools/call"), Some("sql"))
        );
        assert_eq!(
            header(&call, "mcp-param-region"),
            Some("=?base64?ZXUgMSA=?=")
        );
        let cancelled =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        assert!(c.skips(cancelled), "closing the stream is the cancellation");
        // The handshake era has none of these headers, and posts its cancellations.
        let mut c = ready();
        let p = c.post(CALL);
        assert_eq!(
            (header(&p, "mcp-method"), header(&p, "mcp-name")),
            (None, None)
        );
        assert!(!c.skips(cancelled));
    }

    #[test]
    fn a_session_id_with_invisible_characters_is_refused() {
        let mut c = HttpClient::new(1 << 20);
        let p = c.post(INIT);
        assert_eq!(
            c.response(p.stream, 200, Some("application/json"), Some("a b")),
            Reply::Failed
        );
        let answers = c.failed(p.stream, 200, "");
        assert_eq!(answers.len(), 1);
        assert!(
            answers[0].contains(r#""id":0"#) && answers[0].contains("-32097"),
            "{}",
            answers[0]
        );
    }

    #[test]
    fn a_stream_carries_requests_and_notifications_then_the_answer() {
        let mut c = ready();
        let p = c.post(CALL);
        assert_eq!(
            c.response(p.stream, 200, Some("text/event-stream"), None),
            Reply::Events
        );
        let items = c.chunk(p.stream, "id: e1\nretry: 20\ndata: \n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\nid: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n").unwrap();
        assert_eq!(items.len(), 2, "the priming event carries nothing");
        assert!(matches!(&items[1], Item::Message { event_id: Some(e), .. } if e == "e2"));
        assert_eq!(
            c.end(p.stream, false),
            End::Done,
            "nothing owed: no resumption"
        );
    }

    #[test]
    fn a_stream_closed_before_the_answer_is_resumed_after_retry_with_the_last_event_id() {
        let mut c = ready();
        let p = c.post(CALL);
        c.response(p.stream, 200, Some("text/event-stream"), None);
        c.chunk(p.stream, "id: e7\nretry: 250\ndata: \n\n").unwrap();
        assert_eq!(c.end(p.stream, false), End::Resume { after_ms: 250 });
        let g = c.resume(p.stream).unwrap();
        assert_eq!(
            (
                g.method,
                header(&g, "last-event-id"),
                header(&g, "mcp-session-id")
            ),
            ("GET", Some("e7"), Some("abc"))
        );
        assert_eq!(
            c.response(g.stream, 200, Some("text/event-stream"), None),
            Reply::Events
        );
        let items = c
            .chunk(
                g.stream,
                "id: e8\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n",
            )
            .unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(c.end(g.stream, false), End::Done);
    }

    #[test]
    fn a_retry_below_the_floor_waits_the_floor() {
        let mut c = ready();
        let p = c.post(CALL);
        c.response(p.stream, 200, Some("text/event-stream"), None);
        c.chunk(p.stream, "id: e1\nretry: 0\ndata: \n\n").unwrap();
        assert_eq!(
            c.end(p.stream, false),
            End::Resume {
                after_ms: MIN_RETRY_MS
            }
        );
    }

    #[test]
    fn a_stream_that_ends_owing_with_no_event_id_fails_its_requests() {
        let mut c = ready();
        let p = c.post(CALL);
        c.response(p.stream, 200, Some("text/event-stream"), None);
        let End::Failed(answers) = c.end(p.stream, true) else {
            panic!("expected failure")
        };
        assert!(
            answers[0].contains(r#""id":1"#) && answers[0].contains("broke"),
            "{}",
            answers[0]
        );
    }

    #[test]
    fn resumption_gives_up_after_attempts_that_bring_nothing() {
        let mut c = ready();
        let p = c.post(CALL);
        c.response(p.stream, 200, Some("text/event-stream"), None);
        c.chunk(p.stream, "id: e1\ndata: \n\n").unwrap();
        for _ in 0..MAX_RESUMPTIONS {
            assert!(matches!(c.end(p.stream, false), End::Resume { .. }));
            c.resume(p.stream).unwrap();
        }
        assert!(matches!(c.end(p.stream, false), End::Failed(a) if a.len() == 1));
    }

    #[test]
    fn http_failures_answer_the_owed_request_with_status_and_body() {
        let mut c = ready();
        let p = c.post(CALL);
        assert_eq!(
            c.response(p.stream, 500, Some("text/plain"), None),
            Reply::Failed
        );
        let a: Value = serde_json::from_str(&c.failed(p.stream, 500, "boom")[0]).unwrap();
        assert_eq!(a["error"]["code"], HTTP_ERROR);
        assert_eq!(a["error"]["data"], json!({ "status": 500, "body": "boom" }));
        // A JSON-RPC error in the body keeps the server's code and message.
        let p = c.post(CALL);
        c.response(p.stream, 400, Some("application/json"), None);
        let a: Value = serde_json::from_str(&c.failed(p.stream, 400, r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: no session"}}"#)[0]).unwrap();
        assert_eq!(
            (
                a["id"].clone(),
                a["error"]["code"].clone(),
                a["error"]["message"].clone()
            ),
            (json!(1), json!(-32000), json!("Bad Request: no session"))
        );
        assert_eq!(a["error"]["data"]["status"], 400);
        // Its data joins the transport's, which keeps its own fields.
        let p = c.post(CALL);
        c.response(p.stream, 401, Some("application/json"), None);
        let body = r#"{"error":{"code":-32096,"message":"authorization failed at token","data":{"step":"token","status":"theirs"}}}"#;
        let a: Value = serde_json::from_str(&c.failed(p.stream, 401, body)[0]).unwrap();
        assert_eq!(
            (
                a["error"]["data"]["step"].clone(),
                a["error"]["data"]["status"].clone()
            ),
            (json!("token"), json!(401))
        );
    }

    #[test]
    fn a_404_for_a_known_session_means_it_expired() {
        let mut c = ready();
        let p = c.post(CALL);
        assert_eq!(c.response(p.stream, 404, None, None), Reply::Failed);
        let a: Value = serde_json::from_str(&c.failed(p.stream, 404, "")[0]).unwrap();
        assert_eq!(a["error"]["data"]["sessionExpired"], true);
        assert_eq!(c.session_id(), None);
        // Initialize again: no stale session id is sent.
        let p = c.post(INIT);
        assert_eq!(header(&p, "mcp-session-id"), None);
    }

    #[test]
    fn a_wrong_content_type_or_an_oversize_body_fails_the_request() {
        let mut c = ready();
        let p = c.post(CALL);
        assert_eq!(
            c.response(p.stream, 200, Some("text/html"), None),
            Reply::Failed
        );
        let mut c = HttpClient::new(64);
        let p = c.post(CALL);
        assert_eq!(
            c.response(p.stream, 200, Some("application/json"), None),
            Reply::Json
        );
        let out = c.body(p.stream, &"x".repeat(65));
        assert!(
            out.len() == 1 && out[0].contains("larger than the limit"),
            "{out:?}"
        );
        let p = c.post(CALL);
        c.response(p.stream, 200, Some("text/event-stream"), None);
        assert!(c.chunk(p.stream, &"data: x".repeat(20)).is_err());
    }

    #[test]
    fn a_json_body_that_leaves_a_request_out_fails_it() {
        let mut c = ready();
        let p = c.post(r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]"#);
        c.response(p.stream, 200, Some("application/json"), None);
        let out = c.body(p.stream, r#"[{"jsonrpc":"2.0","id":5,"result":{}}]"#);
        assert_eq!(out.len(), 2);
        assert!(out[1].contains(r#""id":6"#));
    }

    #[test]
    fn a_request_of_the_server_answers_no_request_of_ours() {
        let mut c = ready();
        let p = c.post(r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]"#);
        c.response(p.stream, 200, Some("application/json"), None);
        // The server's own request 6 (a `method`) is not the answer to ours.
        let out = c.body(p.stream, r#"[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":5,"result":{"protocolVersion":"2025-11-25"}}]"#);
        assert_eq!(out.len(), 2);
        assert!(out[1].contains(r#""id":6"#) && out[1].contains("did not answer"));
        // Only the answer to initialize says the version.
        assert_eq!(c.protocol_version(), Some("2025-06-18"));
    }

    #[test]
    fn a_tools_list_answer_in_a_batch_is_written_again_without_the_tool_left_out() {
        let mut c = ready();
        let p = c.post(r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"tools/list"}]"#);
        c.response(p.stream, 200, Some("application/json"), None);
        let body = r#"[{"jsonrpc":"2.0","id":5,"result":{}},{"jsonrpc":"2.0","id":6,"result":{"tools":[
            {"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}},
            {"name":"ok","inputSchema":{"type":"object"}}]}}]"#;
        let out = c.body(p.stream, body);
        assert_eq!(out.len(), 1, "both answered: {out:?}");
        let answers: Value = serde_json::from_str(&out[0]).unwrap();
        assert_eq!(
            answers,
            json!([{"jsonrpc":"2.0","id":5,"result":{}},{"jsonrpc":"2.0","id":6,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}}]}}])
        );
        assert_eq!(c.take_warnings().len(), 1);
    }

    #[test]
    fn an_old_server_gets_the_2024_11_05_transport() {
        let mut c = HttpClient::new(1 << 20);
        let p = c.post(INIT);
        assert_eq!(c.response(p.stream, 405, None, None), Reply::Legacy);
        let g = c.legacy_open(p.stream);
        assert_eq!(
            (g.method, header(&g, "accept")),
            ("GET", Some("text/event-stream"))
        );
        assert_eq!(
            c.response(g.stream, 200, Some("text/event-stream"), None),
            Reply::Events
        );
        assert_eq!(
            c.chunk(g.stream, "event: endpoint\ndata: /messages?sessionId=9\n\n")
                .unwrap(),
            vec![Item::Endpoint("/messages?sessionId=9".into())]
        );
        let replay = c.take_replay();
        assert_eq!(replay, vec![INIT.to_string()]);
        let p = c.post(&replay[0]);
        assert_eq!(
            (p.url.as_deref(), header(&p, "accept")),
            (Some("/messages?sessionId=9"), None)
        );
        assert_eq!(c.response(p.stream, 202, None, None), Reply::Empty);
        assert!(c.legacy());
        let items = c
            .chunk(g.stream, &format!("event: message\ndata: {INIT_OK}\n\n"))
            .unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(c.protocol_version(), Some("2025-06-18"));
        // The stream ending fails what is still owed; the old transport does not resume.
        let p = c.post(CALL);
        c.response(p.stream, 202, None, None);
        assert!(matches!(c.end(g.stream, false), End::Failed(a) if a.len() == 1));
    }

    #[test]
    fn an_abandoned_request_closes_its_stream_without_an_answer() {
        let mut c = ready();
        let p = c.post(CALL);
        c.response(p.stream, 200, Some("text/event-stream"), None);
        assert!(c.abandon(p.stream, &Id::Number(1)));
        assert_eq!(
            c.end(p.stream, true),
            End::Done,
            "nothing owed, nothing made up"
        );
        let b = c.post(r#"[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"ping"}]"#);
        assert!(
            !c.abandon(b.stream, &Id::Number(7)),
            "the stream still owes 8"
        );
    }

    #[test]
    fn close_deletes_the_session_once() {
        let mut c = ready();
        let d = c.end_session().unwrap();
        assert_eq!(
            (d.method, header(&d, "mcp-session-id")),
            ("DELETE", Some("abc"))
        );
        assert_eq!(c.end_session(), None);
    }
}
