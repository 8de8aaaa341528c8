//! MCP Apps: the frames across the View ↔ Host bridge (postMessage JSON-RPC between a tool's
//! UI in a sandboxed iframe and the page that hosts it), judged one by one.
//!
//! `ui/*` messages are checked by the rules generated from the schema the ext-apps package
//! publishes (`rules/apps.rules`); the MCP messages a View may send or receive across the
//! bridge (a proxied `tools/call`, `resources/read`, logging, …) by the MCP rules of the
//! version the host speaks with the server; a `ui/notifications/tool-result` both ways (its
//! params are a `CallToolResult`). A response is checked against the request it answers,
//! which the bridge remembers per side. A frame that fails gets the JSON-RPC error to answer
//! it with: -32700 (not JSON), -32600 (not a request of this bridge: envelope, ids), -32601
//! (a method this side may not send), -32602 (invalid params, or an invalid result).

use super::engine::Walker;
use super::rules::NONE;
use super::{
    check_tape, codes, Context, Direction, Issue, Limits, Protocol, Rulebook, Severity,
    MAX_DEPTH_CAP,
};
use crate::json::tape::{Kind, Tape, TapeError};
use crate::json::Value;
use serde::Serialize;

/// The MCP Apps version the rules describe.
pub const VERSION: &str = "2026-01-26";

/// Who sent a frame: the View (the app in the iframe) or the Host (the page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    View,
    Host,
}

impl Side {
    fn index(self) -> usize {
        self as usize
    }
    fn other(self) -> Side {
        match self {
            Side::View => Side::Host,
            Side::Host => Side::View,
        }
    }
    /// The View is the client of the bridge (it sends `ui/initialize`).
    fn direction(self) -> Direction {
        match self {
            Side::View => Direction::ClientToServer,
            Side::Host => Direction::ServerToClient,
        }
    }
}

/// The MCP methods that cross the bridge, who may send each, and the MCP direction its
/// rules know it by. The schema lists only `ui/*` messages; these are the ones the package's
/// App and AppBridge exchange besides (the View proxies calls and reads to the server through
/// the host and logs to it; the host calls the View's own tools and passes the server's list
/// changes on). `ping`, cancellation and progress go either way.
const MCP_METHODS: &[(&str, Side, Direction)] = {
    use Direction::{ClientToServer as C, ServerToClient as S};
    use Side::{Host as H, View as V};
    &[
        ("tools/call", V, C),
        ("resources/read", V, C),
        ("resources/list", V, C),
        ("resources/templates/list", V, C),
        ("prompts/list", V, C),
        ("sampling/createMessage", V, S),
        ("notifications/message", V, S),
        ("notifications/tools/list_changed", V, S),
        ("tools/call", H, C),
        ("tools/list", H, C),
        ("notifications/tools/list_changed", H, S),
        ("notifications/resources/list_changed", H, S),
        ("notifications/prompts/list_changed", H, S),
        ("ping", V, C),
        ("ping", H, S),
        ("notifications/cancelled", V, C),
        ("notifications/cancelled", H, S),
        ("notifications/progress", V, C),
        ("notifications/progress", H, S),
    ]
};

/// How many requests each side may have unanswered at once: a View that never answers, or
/// floods requests it never waits for, holds at most this much memory here.
pub const MAX_PENDING: usize = 1024;

/// The longest request id remembered (its JSON text): with `MAX_PENDING`, what requests in
/// flight can hold is bounded (about 1 MiB a side), whatever size a frame may have. Real ids
/// are numbers or short strings.
pub const MAX_ID_BYTES: usize = 256;

/// One row of the bridge's method table.
#[derive(Clone, Debug, PartialEq)]
pub struct BridgeMethod {
    pub method: &'static str,
    /// `"view"`, `"host"` or `"both"`.
    pub from: &'static str,
    pub request: bool,
    /// Whose rules judge it: `"mcp-apps"` or `"mcp"` (the version in use).
    pub rules: &'static str,
}

/// The JSON-RPC error for a refused frame.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Refusal {
    pub code: i64,
    pub message: String,
    /// The issues found (`data.issues` of the error).
    pub issues: Vec<Issue>,
    /// The id to answer with: `Some` for a request (null where its id is unreadable) and for
    /// a frame that is not a message at all; `None` for a notification or a response, which
    /// are never answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
}

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

struct Pending {
    id: String,
    method: String,
    direction: Direction,
}

/// One bridge: the MCP version its proxied messages are judged by, and the requests in flight
/// each way.
pub struct Bridge {
    apps: Rulebook,
    mcp: Rulebook,
    mcp_version: String,
    limits: Limits,
    /// Per side: the requests it sent that the other side has not answered (raw id text,
    /// the method, and the MCP direction it travelled as). A list: at most `MAX_PENDING`
    /// entries, usually a handful, scanned faster than hashed, and no hash map in the module.
    pending: [Vec<Pending>; 2],
}

impl Bridge {
    /// A bridge whose MCP messages are judged as `mcp_version` (`None` when there are no rules
    /// for it).
    pub fn new(mcp_version: &str, limits: Limits) -> Option<Bridge> {
        Some(Bridge {
            apps: Rulebook::of(Protocol::Apps, VERSION)?,
            mcp: Rulebook::of(Protocol::Mcp, mcp_version)?,
            mcp_version: mcp_version.to_string(),
            limits,
            pending: Default::default(),
        })
    }

    /// The bridge's method table: every `ui/*` message of the rules (as generated from the
    /// schema, with the overlay's sides) and the MCP messages that cross it, each with who
    /// sends it and whether it is a request.
    pub fn methods(&self) -> Vec<BridgeMethod> {
        let rules = self.apps.rules;
        let mut out: Vec<BridgeMethod> = self
            .apps
            .chain
            .iter()
            .flat_map(|p| p.methods.iter())
            .map(|m| BridgeMethod {
                method: rules.str(m.name),
                from: match m.dir {
                    super::rules::DIR_CLIENT => "view",
                    super::rules::DIR_SERVER => "host",
                    _ => "both",
                },
                request: m.result != NONE,
                rules: "mcp-apps",
            })
            .collect();
        for &(method, side, _) in MCP_METHODS {
            let from = if side == Side::View { "view" } else { "host" };
            match out
                .iter_mut()
                .find(|m| m.method == method && m.rules == "mcp")
            {
                Some(m) => m.from = "both",
                None => out.push(BridgeMethod {
                    method,
                    from,
                    request: !method.starts_with("notifications/"),
                    rules: "mcp",
                }),
            }
        }
        out
    }

    /// How many requests `side` sent that are not answered yet.
    pub fn in_flight(&self, side: Side) -> usize {
        self.pending[side.index()].len()
    }

    /// Forgets every request in flight (the View was torn down or reloaded).
    pub fn reset(&mut self) {
        self.pending = Default::default();
    }

    /// Judges one frame sent by `from`: `None` when it may pass, else the error to answer.
    pub fn check(&mut self, text: &str, from: Side) -> Option<Refusal> {
        if text.len() > self.limits.max_bytes {
            let why = format!(
                "the frame is {} bytes; the limit is {}",
                text.len(),
                self.limits.max_bytes
            );
            return Some(refuse(
                INVALID_REQUEST,
                codes::TOO_LARGE,
                "",
                why,
                Some(Value::Null),
            ));
        }
        let depth = self.limits.max_depth.min(MAX_DEPTH_CAP);
        let tape = match Tape::parse(text, depth) {
            Ok(t) => t,
            Err(TapeError::Syntax { offset, what }) => {
                let why = format!("not JSON: {what} at byte {offset}");
                return Some(refuse(
                    PARSE_ERROR,
                    codes::INVALID_JSON,
                    "",
                    why,
                    Some(Value::Null),
                ));
            }
            Err(TapeError::TooDeep { offset }) => {
                let why = format!("nesting deeper than {depth} levels (at byte {offset})");
                return Some(refuse(
                    INVALID_REQUEST,
                    codes::TOO_DEEP,
                    "",
                    why,
                    Some(Value::Null),
                ));
            }
        };
        if tape.node(0).kind != Kind::Obj {
            let why = "a frame must be one JSON-RPC message, a JSON object (no batches)";
            return Some(refuse(
                INVALID_REQUEST,
                codes::INVALID_ENVELOPE,
                "",
                why.into(),
                Some(Value::Null),
            ));
        }
        let method = tape
            .get(0, b"method")
            .filter(|&m| tape.node(m).kind == Kind::Str)
            .map(|m| tape.str(tape.node(m)).into_owned());
        let id = tape.get(0, b"id");
        let id_key = id.map(|i| id_text(&tape, i));
        // What an error answers: a request's id (null where it is not a valid id).
        let answer_id = |i: Option<usize>| -> Option<Value> {
            let i = i?;
            let node = tape.node(i);
            let valid = node.kind == Kind::Str || node.kind == Kind::Num && tape.is_integer(node);
            Some(if valid {
                crate::json::value_of(id_text(&tape, i).as_str()).unwrap_or(Value::Null)
            } else {
                Value::Null
            })
        };
        let has_method = tape.get(0, b"method").is_some();

        let (book, direction, in_reply_to, protocol) = match (&method, has_method) {
            (Some(m), _) => {
                let reply = if id.is_some() { answer_id(id) } else { None };
                match self.route(m, from) {
                    Some((book, dir, protocol)) => (book, dir, None, protocol),
                    None if m.starts_with('_') => return self.passed(id_key, m, from, C2S),
                    None => {
                        let why = match MCP_METHODS.iter().find(|(n, ..)| n == m) {
                            Some((_, side, _)) => format!(
                                "`{m}` is sent by the {} only",
                                if *side == Side::View { "View" } else { "Host" }
                            ),
                            None => format!("`{m}` is not a method of the MCP Apps bridge"),
                        };
                        let code =
                            if m.starts_with("ui/") || MCP_METHODS.iter().any(|(n, ..)| n == m) {
                                codes::NOT_ALLOWED_HERE
                            } else {
                                codes::UNKNOWN_METHOD
                            };
                        return Some(refuse(METHOD_NOT_FOUND, code, "/method", why, reply));
                    }
                }
            }
            // A method that is not a string: the envelope check says so.
            (None, true) => (self.apps, from.direction(), None, Protocol::Apps),
            (None, false) => {
                let Some(key) = &id_key else {
                    let why = "neither a request (no \"method\") nor a response (no \"id\")";
                    return Some(refuse(
                        INVALID_REQUEST,
                        codes::INVALID_ENVELOPE,
                        "",
                        why.into(),
                        Some(Value::Null),
                    ));
                };
                let asked = &mut self.pending[from.other().index()];
                let Some(Pending {
                    method: m,
                    direction: request_dir,
                    ..
                }) = asked
                    .iter()
                    .position(|p| p.id == *key)
                    .map(|i| asked.swap_remove(i))
                else {
                    let why = format!("answers no request in flight (id {key})");
                    return Some(refuse(
                        INVALID_REQUEST,
                        codes::INVALID_ENVELOPE,
                        "/id",
                        why,
                        None,
                    ));
                };
                let (book, protocol) = if m.starts_with("ui/") {
                    (self.apps, Protocol::Apps)
                } else {
                    (self.mcp, Protocol::Mcp)
                };
                (book, opposite(request_dir), Some(m), protocol)
            }
        };
        let ctx = Context {
            protocol,
            version: if protocol == Protocol::Apps {
                VERSION
            } else {
                &self.mcp_version
            },
            direction,
            in_reply_to: in_reply_to.as_deref(),
        };
        let (mut issues, found) = check_tape(&tape, book, &ctx, Vec::new());
        // A tool's result shown to the View is the server's `CallToolResult`: judged as
        // MCP's too, as the version in use writes it.
        if method.as_deref() == Some("ui/notifications/tool-result") {
            if let Some(params) = tape.get(0, b"params") {
                self.tool_result(&tape, params, found, &mut issues);
            }
        }
        issues.retain(|i| i.severity == Severity::Error);
        let is_response = !has_method;
        if issues.is_empty() {
            return match &method {
                Some(m) if id.is_some() => self.passed(id_key, m, from, direction),
                _ => None,
            };
        }
        let reply = if is_response || id.is_none() {
            None
        } else {
            answer_id(id)
        };
        let code = if issues
            .iter()
            .any(|i| i.code == codes::INVALID_ENVELOPE || i.path == "/id" || i.path == "/jsonrpc")
        {
            INVALID_REQUEST
        } else if issues.iter().any(|i| {
            i.path == "/method" && matches!(i.code, codes::UNKNOWN_METHOD | codes::NOT_ALLOWED_HERE)
        }) {
            METHOD_NOT_FOUND
        } else {
            INVALID_PARAMS
        };
        Some(refusal(code, issues, reply, is_response))
    }

    /// The rules for `method` sent by `from`: the bridge's own, or MCP's where it crosses.
    fn route(&self, method: &str, from: Side) -> Option<(Rulebook, Direction, Protocol)> {
        if method.starts_with("ui/") {
            return Some((self.apps, from.direction(), Protocol::Apps));
        }
        MCP_METHODS
            .iter()
            .find(|(m, side, _)| *m == method && *side == from)
            .map(|&(_, _, dir)| (self.mcp, dir, Protocol::Mcp))
    }

    /// A valid request is remembered until it is answered; an id already in flight, or one
    /// request too many, is refused.
    fn passed(
        &mut self,
        id_key: Option<String>,
        method: &str,
        from: Side,
        direction: Direction,
    ) -> Option<Refusal> {
        let key = id_key?;
        let pending = &mut self.pending[from.index()];
        let value = || crate::json::value_of(&key);
        if pending.iter().any(|p| p.id == key) {
            let why = format!("id {key} is already used by a request in flight");
            return Some(refuse(
                INVALID_REQUEST,
                codes::INVALID_ENVELOPE,
                "/id",
                why,
                value(),
            ));
        }
        if key.len() > MAX_ID_BYTES {
            let why = format!(
                "a request id of {} bytes; at most {MAX_ID_BYTES} are kept in flight",
                key.len()
            );
            return Some(refuse(
                INVALID_REQUEST,
                codes::TOO_LARGE,
                "/id",
                why,
                Some(Value::Null),
            ));
        }
        if pending.len() >= MAX_PENDING {
            let why = format!("{MAX_PENDING} requests are already in flight from this side");
            return Some(refuse(
                INVALID_REQUEST,
                codes::TOO_LARGE,
                "/id",
                why,
                value(),
            ));
        }
        // An extension method's answer is not checked: its name (any length) is not kept.
        let method = if method.starts_with('_') { "_" } else { method };
        pending.push(Pending {
            id: key,
            method: method.to_string(),
            direction,
        });
        None
    }

    /// A `ui/notifications/tool-result`'s params judged as MCP's `tools/call` result.
    fn tool_result(&self, tape: &Tape, params: usize, found: Vec<u32>, issues: &mut Vec<Issue>) {
        let book = self.mcp;
        let Some((prof, rule)) = book.chain.find_map(|p| {
            book.rules
                .methods(p, "tools/call")
                .iter()
                .find(|r| r.result != NONE)
                .map(|r| (p, r))
        }) else {
            return;
        };
        let mut w = Walker::new(book.rules, prof, tape, found);
        w.check(rule.result, params);
        for i in w.issues {
            if !issues.iter().any(|j| j.path == i.path) {
                issues.push(i);
            }
        }
    }
}

const C2S: Direction = Direction::ClientToServer;

fn opposite(d: Direction) -> Direction {
    match d {
        Direction::ClientToServer => Direction::ServerToClient,
        Direction::ServerToClient => Direction::ClientToServer,
    }
}

/// An id as the text that identifies it: a string as its JSON text, a number as written.
fn id_text(tape: &Tape, i: usize) -> String {
    let node = tape.node(i);
    match node.kind {
        Kind::Str => crate::json::text(&tape.str(node)),
        Kind::Num => tape.raw(node).to_string(),
        Kind::Null => "null".into(),
        Kind::Bool => node.flag.to_string(),
        _ => "{}".into(),
    }
}

fn refuse(code: i64, issue: &'static str, path: &str, why: String, id: Option<Value>) -> Refusal {
    let issues = vec![Issue {
        path: path.into(),
        code: issue,
        message: why,
        severity: Severity::Error,
    }];
    refusal(code, issues, id, false)
}

fn refusal(code: i64, issues: Vec<Issue>, id: Option<Value>, response: bool) -> Refusal {
    let what = match code {
        PARSE_ERROR => "Parse error",
        INVALID_REQUEST => "Invalid request",
        METHOD_NOT_FOUND => "Method not found",
        _ if response => "Invalid result",
        _ => "Invalid params",
    };
    let first = &issues[0];
    let at = if first.path.is_empty() {
        String::new()
    } else {
        format!(" at {}", first.path)
    };
    let more = match issues.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Refusal {
        code,
        message: format!("{what}{at}: {}{more}", first.message),
        issues,
        id,
    }
}
