//! Message validation, method-aware and version-aware.
//!
//! What a message may hold is written in `rules/acp.rules` and `rules/mcp.rules` (a compact
//! description of every message type of every version), compiled into tables at build time
//! (`compile.rs`, run by build.rs, emits `rules.rs` values), and checked by a small
//! interpreter (`engine`) over a flat parse of the text (`tape`). See docs/validation.md.

#[cfg(feature = "apps")]
pub mod apps;
mod engine;
mod frame;
mod pattern;
mod rules;

use crate::json::tape::{self, Kind, Tape, TapeError};
pub use crate::json::utf8;
use crate::json::Value;
use crate::jsonrpc::envelope::{self, Shape};
use crate::jsonrpc::{object, serialized, Message, ProtocolError};
pub use engine::is_absolute_path;
use engine::Walker;
pub use frame::{has_errors, read_outgoing, validate_and_read};
use rules::{Method, Profile, Rules, NONE};
use serde::Serialize;
use std::cell::Cell;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Acp,
    Mcp,
    /// MCP Apps (the `io.modelcontextprotocol/ui` extension): the View ↔ Host bridge's `ui/*`
    /// messages. The View is the client (`ClientToServer`: View → Host).
    #[serde(rename = "mcp-apps")]
    Apps,
}

impl Protocol {
    /// The protocol a binding names (`"acp"`, `"mcp"`, `"mcp-apps"`, as it serializes).
    pub fn of(id: &str) -> Option<Protocol> {
        match id {
            "acp" => Some(Protocol::Acp),
            "mcp" => Some(Protocol::Mcp),
            "mcp-apps" => Some(Protocol::Apps),
            _ => None,
        }
    }

    /// The protocol's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Acp => "ACP",
            Protocol::Mcp => "MCP",
            Protocol::Apps => "MCP Apps",
        }
    }
}

/// Who sends the message. ACP: client → agent is `ClientToServer`; MCP: client → server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Direction {
    #[serde(rename = "clientToServer")]
    ClientToServer,
    #[serde(rename = "serverToClient")]
    ServerToClient,
}
crate::json::json_names!(Direction {
    Direction::ClientToServer => "clientToServer",
    Direction::ServerToClient => "serverToClient",
});

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}
crate::json::json_names!(Severity { Severity::Error => "error", Severity::Warning => "warning" });

/// One finding: where (a JSON pointer into the whole message), what (a stable code),
/// a sentence for people, and how bad.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Issue {
    pub path: String,
    pub code: &'static str,
    pub message: String,
    pub severity: Severity,
}

impl crate::json::Json for Issue {
    fn write_json(&self, out: &mut String) {
        let mut m = crate::json::Members::open(out);
        m.member("path", &self.path)
            .member("code", &self.code)
            .member("message", &self.message)
            .member("severity", &self.severity)
            .close();
    }
}

/// What the validator needs to know besides the message.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    pub protocol: Protocol,
    /// ACP: "1" or "2"; MCP: the date string ("2025-11-25").
    pub version: &'a str,
    pub direction: Direction,
    /// For a response: the method of the request it answers.
    pub in_reply_to: Option<&'a str>,
}

/// The stable issue codes.
pub mod codes {
    pub const MISSING_REQUIRED: &str = "missing_required";
    pub const WRONG_TYPE: &str = "wrong_type";
    pub const UNKNOWN_ENUM_VALUE: &str = "unknown_enum_value";
    pub const NOT_ALLOWED_HERE: &str = "not_allowed_here";
    pub const UNKNOWN_METHOD: &str = "unknown_method";
    /// The sessions', which know what was negotiated: a message of a capability the peer did
    /// not advertise.
    pub const CAPABILITY_NOT_NEGOTIATED: &str = "capability_not_negotiated";
    pub const TOO_LARGE: &str = "too_large";
    pub const TOO_DEEP: &str = "too_deep";
    pub const INVALID_JSON: &str = "invalid_json";
    pub const INVALID_ENVELOPE: &str = "invalid_envelope";
    pub const OUT_OF_RANGE: &str = "out_of_range";
    pub const PATTERN: &str = "pattern";
    pub const FORMAT: &str = "format";
    /// Matches several alternatives where exactly one is allowed.
    pub const AMBIGUOUS: &str = "ambiguous";
    /// A deviation real peers send, accepted (always a warning).
    pub const TOLERATED: &str = "tolerated";
    pub const UNKNOWN_VERSION: &str = "unknown_version";
    /// The sessions': a message before the handshake that allows it completed.
    pub const LIFECYCLE: &str = "lifecycle";
    /// ACP's lenient reading (always a warning): a member set to its default, an invalid list
    /// item left out.
    pub const DEFAULTED: &str = "defaulted";
    pub const SKIPPED_INVALID_ITEM: &str = "skipped_invalid_item";

    /// Every issue code the module reports, in one spelling (`js/index.d.ts` lists them as
    /// `IssueCode`, docs/validation.md says what each means; a test keeps the three agreeing).
    pub const ALL: [&str; 19] = [
        MISSING_REQUIRED,
        WRONG_TYPE,
        UNKNOWN_ENUM_VALUE,
        NOT_ALLOWED_HERE,
        UNKNOWN_METHOD,
        CAPABILITY_NOT_NEGOTIATED,
        TOO_LARGE,
        TOO_DEEP,
        INVALID_JSON,
        INVALID_ENVELOPE,
        OUT_OF_RANGE,
        PATTERN,
        FORMAT,
        AMBIGUOUS,
        TOLERATED,
        UNKNOWN_VERSION,
        LIFECYCLE,
        DEFAULTED,
        SKIPPED_INVALID_ITEM,
    ];
}

/// Bounds that protect the caller; the defaults are far above real traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_bytes: usize,
    /// Nested arrays/objects; values above `MAX_DEPTH_CAP` count as that.
    pub max_depth: usize,
}

/// The deepest nesting ever walked, whatever `Limits` says: the walk recurses per level.
pub const MAX_DEPTH_CAP: usize = 512;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 16 << 20,
            max_depth: 256,
        }
    }
}

/// The verdict on one message: `ok` when no issue is an error.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub ok: bool,
    pub issues: Vec<Issue>,
}

impl Report {
    #[inline(always)]
    fn of(issues: Vec<Issue>) -> Report {
        Report {
            ok: !issues.iter().any(|i| i.severity == Severity::Error),
            issues,
        }
    }
}

fn too_large(len: usize, limits: &Limits) -> Report {
    one(
        codes::TOO_LARGE,
        "",
        format!(
            "the message is {len} bytes; the limit is {}",
            limits.max_bytes
        ),
    )
}

fn one(code: &'static str, path: &str, message: String) -> Report {
    Report::of(vec![Issue {
        path: path.into(),
        code,
        message,
        severity: Severity::Error,
    }])
}

/// Validates one message given as text (a batch, where the version allows batches).
pub fn validate_text(text: &str, ctx: &Context, limits: &Limits) -> Report {
    validate_text_by(text, ctx, Rulebook::of(ctx.protocol, ctx.version), limits)
}

/// Validates one message given as bytes, as transports hand them over: UTF-8 JSON text, or
/// one `invalid_json` issue that says where the UTF-8 breaks. Inlined into the `Validator`'s
/// entry, as the rest of its path: wasm-opt leaves functions of one caller out of line
/// (`wasm-pack.toml`).
#[inline(always)]
pub fn validate_bytes_by(
    bytes: &[u8],
    ctx: &Context,
    book: Option<Rulebook>,
    limits: &Limits,
) -> Report {
    match tape::utf8(bytes) {
        Ok(text) => validate_text_by(text, ctx, book, limits),
        // The size limit is reported first, as for text.
        Err(_) if bytes.len() > limits.max_bytes => too_large(bytes.len(), limits),
        Err(at) => one(codes::INVALID_JSON, "", format!("not UTF-8 at byte {at}")),
    }
}

/// The rules of one protocol version, found once: `validate_text` looks them up for each
/// message; a caller validating many messages of one version keeps them.
#[derive(Clone, Copy)]
pub struct Rulebook {
    rules: &'static Rules,
    chain: Chain,
    /// JSON-RPC batches are allowed (MCP 2025-03-26 only).
    batches: bool,
}

impl Rulebook {
    /// `None` for a version there are no rules for.
    pub fn of(protocol: Protocol, version: &str) -> Option<Rulebook> {
        let batches = protocol == Protocol::Mcp && version == "2025-03-26";
        Some(Rulebook {
            rules: rules(protocol)?,
            chain: profiles(protocol, version)?,
            batches,
        })
    }
}

/// As `validate_text`, with the rules of `ctx`'s version already found (`None`: there are
/// none, which is told once the text is known to be JSON).
pub fn validate_text_by(
    text: &str,
    ctx: &Context,
    book: Option<Rulebook>,
    limits: &Limits,
) -> Report {
    if text.len() > limits.max_bytes {
        return too_large(text.len(), limits);
    }
    let depth = limits.max_depth.min(MAX_DEPTH_CAP);
    // No rules: told once the text is known to be JSON.
    let checked = parse(text, depth).map(|parsed| match book {
        Some(book) => Some(parsed.issues(book, ctx)),
        None => {
            parsed.keep();
            None
        }
    });
    match checked {
        Ok(Some(issues)) => Report::of(issues),
        Ok(None) => one(
            codes::UNKNOWN_VERSION,
            "",
            format!(
                "no rules for {} version {}",
                ctx.protocol.name(),
                crate::json::text(&ctx.version)
            ),
        ),
        Err(TapeError::TooDeep { offset }) => one(
            codes::TOO_DEEP,
            "",
            format!("nesting deeper than {depth} levels (at byte {offset})"),
        ),
        Err(TapeError::Syntax { offset, what }) => one(
            codes::INVALID_JSON,
            "",
            format!("not JSON: {what} at byte {offset}"),
        ),
    }
}

/// A message parsed into the buffers kept from the last one: the one parse of every
/// validation and of a session's read of a frame (`frame::validate_and_read`).
pub(crate) struct Parsed<'a> {
    tape: Tape<'a>,
    found: Vec<u32>,
}

#[inline(always)]
fn parse(text: &str, depth: usize) -> Result<Parsed<'_>, TapeError> {
    let scratch = SCRATCH.with(Cell::take).unwrap_or_default();
    let tape = Tape::parse_in(text, depth, scratch.nodes)?;
    Ok(Parsed {
        tape,
        found: scratch.found,
    })
}

impl Parsed<'_> {
    /// Its issues by `book` and `ctx`. One function for both callers, so that the engine it
    /// inlines is built once.
    #[inline(never)]
    fn issues(mut self, book: Rulebook, ctx: &Context) -> Vec<Issue> {
        let found = std::mem::take(&mut self.found);
        let (issues, found) = issues_of(&self.tape, book, ctx, found);
        self.found = found;
        self.keep();
        issues
    }

    /// The buffers kept for the next message, unless a huge one grew them.
    fn keep(self) {
        if self.tape.nodes.capacity() <= 1 << 16 {
            let kept = Scratch {
                nodes: self.tape.nodes,
                found: self.found,
            };
            SCRATCH.with(|c| c.set(Some(kept)));
        }
    }
}

/// Every issue of a parsed message: the schema's, then the overlay's checks. Inlined into its
/// one caller: left a call, validating in Node took 1.8 % more CPU per MCP message
/// (bench/validate/ab.mjs).
#[inline(always)]
fn issues_of(
    tape: &Tape,
    book: Rulebook,
    ctx: &Context,
    found: Vec<u32>,
) -> (Vec<Issue>, Vec<u32>) {
    let (mut issues, found) = check_tape(tape, book, ctx, found);
    // Only ACP's rules have checks: the common case costs one test, the checks a call.
    if book.chain.any(|p| !p.checks.is_empty()) {
        overlay_checks(tape, book, ctx, &mut issues);
    }
    (issues, found)
}

/// The overlay's checks of a request's params (a `+Check` on its method line: ACP's absolute
/// paths and MCP server entries, which the schemas do not state), told after the schema's
/// issues, one issue a place: where the schema or an earlier check told one, the check's is
/// left out. Whatever else the message gets wrong (its envelope, its kind), they are told.
#[inline(never)]
fn overlay_checks(tape: &Tape, book: Rulebook, ctx: &Context, issues: &mut Vec<Issue>) {
    let (chain, rules) = (book.chain, book.rules);
    let dir = match ctx.direction {
        Direction::ClientToServer => rules::DIR_CLIENT,
        Direction::ServerToClient => rules::DIR_SERVER,
    };
    let applies = |c: &rules::Check| c.dir == dir || c.dir == rules::DIR_BOTH;
    // Most messages travel where no check does (ACP: every agent's message).
    if !chain.any(|p| p.checks.iter().any(applies)) || tape.node(0).kind != Kind::Obj {
        return;
    }
    // One pass over the envelope (the last of duplicates counts), as `check_message` reads it.
    let (mut method, mut params) = (None, None);
    for (k, v) in tape.members(0) {
        let slot = tape.with_bytes(tape.node(k), |key| match key {
            b"method" => Some(&mut method),
            b"params" => Some(&mut params),
            _ => None,
        });
        if let Some(slot) = slot {
            *slot = Some(v);
        }
    }
    let Some(method) = method.filter(|&m| tape.node(m).kind == Kind::Str) else {
        return;
    };
    // A plain search: a few checks, and compared names are code in the module.
    let name = tape.str(tape.node(method));
    let mut check = None;
    for p in chain.iter() {
        for c in p.checks {
            if check.is_none() && applies(c) && rules.name(c.method) == name.as_bytes() {
                check = Some((p, c.ty));
            }
        }
    }
    let (Some((prof, ty)), Some(params)) = (check, params) else {
        return;
    };
    if tape.node(params).kind != Kind::Obj {
        return;
    }
    let mut w = Walker::new(rules, prof, tape, Vec::new());
    w.check(ty, params);
    for i in w.issues {
        if !issues.iter().any(|j| j.path == i.path) {
            issues.push(i);
        }
    }
}

/// Buffers kept from one message to the next, so that validating costs no allocation
/// once they have grown (but for the issues of an invalid message). They are moved, not
/// swapped with empty ones: dropping even an empty buffer is a call.
#[derive(Default)]
struct Scratch {
    nodes: Vec<tape::Node>,
    found: Vec<u32>,
}

thread_local! {
    static SCRATCH: Cell<Option<Scratch>> = const { Cell::new(None) };
}

/// Validates one message given as a JSON value.
pub fn validate_value(value: &Value, ctx: &Context, limits: &Limits) -> Report {
    // Serializing recurses, so the depth is measured first, without recursion.
    let depth = limits.max_depth.min(MAX_DEPTH_CAP);
    if nesting(value) > depth {
        return one(
            codes::TOO_DEEP,
            "",
            format!("nesting deeper than {depth} levels"),
        );
    }
    validate_text(&crate::json::text(value), ctx, limits)
}

/// Validates a value against one named definition of a version's rules (`"ContentBlock"`,
/// `"McpServer"`, `"ServerCapabilities"`, …): for parts of messages. Not in the
/// WebAssembly build, which leaves the definitions' names out of its rules.
#[cfg(not(target_arch = "wasm32"))]
pub fn validate_definition(
    value: &Value,
    protocol: Protocol,
    version: &str,
    name: &str,
    limits: &Limits,
) -> Report {
    let depth = limits.max_depth.min(MAX_DEPTH_CAP);
    if nesting(value) > depth {
        return one(
            codes::TOO_DEEP,
            "",
            format!("nesting deeper than {depth} levels"),
        );
    }
    let text = crate::json::text(value);
    let Ok(tape) = Tape::parse(&text, depth) else {
        return one(codes::INVALID_JSON, "", "not JSON".into());
    };
    let (Some(chain), Some(r)) = (profiles(protocol, version), rules(protocol)) else {
        return one(
            codes::UNKNOWN_VERSION,
            "",
            format!(
                "no rules for {} version {}",
                protocol.name(),
                crate::json::text(&version)
            ),
        );
    };
    let def = r
        .sym(name)
        .and_then(|s| chain.find_map(|p| p.def(s).map(|t| (p, t))));
    let Some((prof, ty)) = def else {
        return one(
            codes::UNKNOWN_METHOD,
            "",
            format!(
                "no definition `{name}` in {} version {version}",
                protocol.name()
            ),
        );
    };
    let mut w = Walker::new(r, prof, &tape, Vec::new());
    w.check(ty, 0);
    Report::of(w.issues)
}

/// Refuses an outgoing message its issues hold errors in (`what`: its method, or the method it
/// answers): the first error in the text, every issue in `data`.
pub fn refuse_errors(what: &str, issues: &[Issue]) -> Result<(), ProtocolError> {
    let Some(first) = issues.iter().find(|i| i.severity == Severity::Error) else {
        return Ok(());
    };
    let text = format!("refusing to send an invalid {what}: {}", first.message);
    Err(ProtocolError::local_refusal(text)
        .with_data(object! { "method": what, "issues": serialized(&issues) }))
}

/// Validates a message from its text when that is at hand (the frame it came in, the text that
/// goes out: one parse, nothing written again), else as `validate_message`. An empty list means
/// valid.
pub fn validate_as(wire: Option<&str>, message: &Message, ctx: &Context) -> Vec<Issue> {
    match wire {
        Some(text) => validate_text(text, ctx, &Limits::default()).issues,
        None => validate_message(message, ctx),
    }
}

/// Validates one parsed message. An empty list means valid.
pub fn validate_message(message: &Message, ctx: &Context) -> Vec<Issue> {
    validate_text(&message.to_text(), ctx, &Limits::default()).issues
}

/// Nesting depth of a value, measured with an explicit stack.
fn nesting(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(a) => {
                max = max.max(d + 1);
                stack.extend(a.iter().map(|x| (x, d + 1)));
            }
            Value::Object(o) => {
                max = max.max(d + 1);
                stack.extend(o.values().map(|x| (x, d + 1)));
            }
            _ => {}
        }
    }
    max
}

// A build carries the rules of the protocols it was built for (features `acp`, `mcp`).
#[cfg(feature = "acp")]
static ACP: Rules = {
    use rules::*;
    include!(concat!(env!("OUT_DIR"), "/acp.rs"))
};
#[cfg(feature = "mcp")]
static MCP: Rules = {
    use rules::*;
    include!(concat!(env!("OUT_DIR"), "/mcp.rs"))
};
#[cfg(feature = "apps")]
static APPS: Rules = {
    use rules::*;
    include!(concat!(env!("OUT_DIR"), "/apps.rs"))
};

fn rules(protocol: Protocol) -> Option<&'static Rules> {
    match protocol {
        #[cfg(feature = "acp")]
        Protocol::Acp => Some(&ACP),
        #[cfg(feature = "mcp")]
        Protocol::Mcp => Some(&MCP),
        #[cfg(feature = "apps")]
        Protocol::Apps => Some(&APPS),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The profiles that make up a version, newest first: a method is looked up in each in
/// turn (ACP: the newest published schema, then the repository snapshot for the unstable
/// methods the newest dropped).
#[derive(Clone, Copy)]
struct Chain(&'static Profile, Option<&'static Profile>);

impl Chain {
    fn iter(self) -> impl Iterator<Item = &'static Profile> {
        std::iter::once(self.0).chain(self.1)
    }

    /// What `f` finds in the first profile, else in the next. Written out rather than
    /// `iter().find_map`: the chained iterator's `try_fold` would stay a call of its own on
    /// every message (wasm-opt leaves functions of one caller out of line, `wasm-pack.toml`).
    #[inline(always)]
    fn find_map<T>(self, mut f: impl FnMut(&'static Profile) -> Option<T>) -> Option<T> {
        f(self.0).or_else(|| self.1.and_then(f))
    }

    /// Whether `f` holds for a profile of the chain (as `find_map`).
    #[inline(always)]
    fn any(self, mut f: impl FnMut(&'static Profile) -> bool) -> bool {
        f(self.0) || self.1.is_some_and(f)
    }
}

fn profiles(protocol: Protocol, version: &str) -> Option<Chain> {
    let (first, then) = match (protocol, version) {
        (Protocol::Acp, "1") => ("1", Some("1r")),
        (Protocol::Acp, "2") => ("2", Some("2r")),
        (Protocol::Acp, _) => return None,
        (Protocol::Mcp, "draft") => ("2026-07-28", None),
        (Protocol::Mcp, v) => (v, None),
        (Protocol::Apps, v) => (v, None),
    };
    let r = rules(protocol)?;
    Some(Chain(r.profile(first)?, then.and_then(|n| r.profile(n))))
}

/// The protocol versions there are rules for (none for a protocol this build leaves out).
pub fn versions(protocol: Protocol) -> &'static [&'static str] {
    if rules(protocol).is_none() {
        return &[];
    }
    match protocol {
        Protocol::Acp => &["1", "2"],
        Protocol::Mcp => &[
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
        ],
        Protocol::Apps => &["2026-01-26"],
    }
}

/// The issues of a message by its schema, and the member scratch (`found`) back.
#[inline(always)]
fn check_tape(
    tape: &Tape,
    book: Rulebook,
    ctx: &Context,
    found: Vec<u32>,
) -> (Vec<Issue>, Vec<u32>) {
    let (chain, batch_ok) = (book.chain, book.batches);
    let mut w = Walker::new(book.rules, chain.0, tape, found);
    match tape.node(0).kind {
        Kind::Arr if batch_ok && tape.node(0).start > 0 => {
            for n in tape.items(0) {
                check_message(&mut w, chain, ctx, n);
            }
        }
        Kind::Arr => {
            let why = if batch_ok {
                "a batch must not be empty"
            } else {
                "batches are not allowed in this version"
            };
            w.report(0, Severity::Error, codes::INVALID_ENVELOPE, None, || {
                why.into()
            });
        }
        _ => check_message(&mut w, chain, ctx, 0),
    }
    let Walker {
        issues, mut found, ..
    } = w;
    found.clear();
    (issues, found)
}

/// Extension methods (`_`-prefixed) carry whatever they like.
fn is_extension(method: &str) -> bool {
    // A byte compared: `starts_with('_')` encodes the char first, and an `Option`'s `==` is
    // a call at `opt-level = "z"`.
    matches!(method.as_bytes().first(), Some(b'_'))
}

/// One JSON-RPC message: the envelope (read as the endpoint reads it), then the method's
/// params, result or error.
fn check_message(w: &mut Walker, chain: Chain, ctx: &Context, n: usize) {
    let tape = w.tape;
    let envelope::Envelope { id, shape, .. } = envelope::read(tape, n);
    let (method, params) = match shape {
        Err(b) => return w.report(n, Severity::Error, codes::INVALID_ENVELOPE, b.at, || b.why),
        Ok(Shape::Response { outcome }) => {
            // A null id (JSON-RPC's answer to an unreadable request) is valid where the
            // protocol's RequestId allows it (ACP v1), and an issue where it does not (MCP).
            if let Some(id) = id {
                check_def(w, w.rules.request_id, id);
            }
            return match outcome {
                Err(e) => check_def(w, w.rules.error, e),
                Ok(r) => check_result(w, chain, ctx, n, r),
            };
        }
        Ok(Shape::Call { method, params }) => (method, params),
    };
    if let Some(id) = id {
        check_def(w, w.rules.request_id, id);
    }
    let name = tape.str(tape.node(method));
    // Dereferenced once, not at every use.
    let name: &str = &name;
    if is_extension(name) {
        return; // extension methods carry whatever they like
    }
    let Some((prof, rule)) = find(w, n, chain, name, Some(id.is_some()), ctx.direction, false)
    else {
        return;
    };
    w.prof = prof;
    let ty = rule.params;
    if ty == NONE {
        return;
    }
    match params {
        Some(p) => {
            w.check(ty, p);
        }
        None if rule.flags & rules::PARAMS_OPTIONAL != 0 => {}
        None => {
            let empty = Tape::parse("{}", 1);
            let fine = rule.flags & rules::PARAMS_EMPTY_OK != 0
                && empty.is_ok_and(|t| Walker::new(w.rules, prof, &t, Vec::new()).check(ty, 0));
            if !fine {
                w.report(
                    n,
                    Severity::Error,
                    codes::MISSING_REQUIRED,
                    Some("params"),
                    || "`params` is required".into(),
                );
            }
        }
    }
}

/// The result `r` of the response `n`.
fn check_result(w: &mut Walker, chain: Chain, ctx: &Context, n: usize, r: usize) {
    let Some(method) = ctx.in_reply_to else {
        return;
    };
    if is_extension(method) {
        return;
    }
    let Some((prof, rule)) = find(w, n, chain, method, Some(true), ctx.direction, true) else {
        return;
    };
    w.prof = prof;
    if rule.result != NONE {
        w.check(rule.result, r);
    }
}

/// Checks a member of the message against definition `sym` of the profile.
fn check_def(w: &mut Walker, sym: u16, n: usize) {
    if let Some(ty) = w.prof.def(sym) {
        w.check(ty, n);
    }
}

/// The rule for `method` in the first profile of the chain that knows it, checked against
/// the kind of message (request or notification) and the direction it travels.
fn find(
    w: &mut Walker,
    n: usize,
    chain: Chain,
    method: &str,
    request: Option<bool>,
    dir: Direction,
    response: bool,
) -> Option<(&'static Profile, &'static Method)> {
    let at = if response { None } else { Some("method") };
    let rules = w.rules;
    let Some((prof, all)) = chain.find_map(|p| {
        let m = rules.methods(p, method);
        (!m.is_empty()).then_some((p, m))
    }) else {
        let m = method.to_string();
        w.report(n, Severity::Error, codes::UNKNOWN_METHOD, at, || {
            format!("`{m}` is not a method of this protocol version")
        });
        return None;
    };
    let of_kind = |r: &&Method| request.is_none_or(|q| (r.result != NONE) == q);
    let Some(first) = all.iter().find(of_kind) else {
        let m = method.to_string();
        let what = if request == Some(true) {
            "a notification; it takes no id"
        } else {
            "a request; it needs an id"
        };
        w.report(n, Severity::Error, codes::NOT_ALLOWED_HERE, at, || {
            format!("`{m}` is {what}")
        });
        return None;
    };
    // A response travels against its request.
    let sender = match (dir, response) {
        (d, false) => d,
        (Direction::ClientToServer, true) => Direction::ServerToClient,
        (Direction::ServerToClient, true) => Direction::ClientToServer,
    };
    let Some(rule) = all.iter().filter(of_kind).find(|r| match r.dir {
        rules::DIR_CLIENT => sender == Direction::ClientToServer,
        rules::DIR_SERVER => sender == Direction::ServerToClient,
        _ => true,
    }) else {
        let m = method.to_string();
        let who = if first.dir == rules::DIR_CLIENT {
            "the client"
        } else {
            "the server (agent)"
        };
        let what = if response { "answered" } else { "sent" };
        w.report(n, Severity::Error, codes::NOT_ALLOWED_HERE, at, || {
            format!("`{m}` is only {what} by {who}")
        });
        return None;
    };
    if rule.warning != NONE {
        let text = rules.str(rule.warning);
        w.report(n, Severity::Warning, codes::TOLERATED, at, || {
            text.to_string()
        });
    }
    Some((prof, rule))
}
