//! Every ACP method of v1 and v2: who serves it, request or notification, in which
//! versions (stable, unstable, or only in the seed 001 shape of v2), and the capability
//! that gates it. Derived from `schema/v1/meta*.json`, `schema/v2/meta*.json` and the
//! `x-method`/`x-side` keys of the npm SDK 2.4.0 schemas; `tests/acp_methods.rs` checks
//! it against them. `proxy/*` (x-side "proxy") belongs to proxy chains, not to a
//! client–agent connection, and is left out.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// Who serves (receives) a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Server {
    Agent,
    Client,
    /// Either side (`$/cancel_request`, unstable `mcp/message`).
    Both,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    Request,
    Notification,
    /// Unstable `mcp/message`: a request one way, a notification the other.
    Either,
}

/// Whether a version has a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Availability {
    No,
    Stable,
    /// In the unstable schema only; gated by `allowUnstable`.
    Unstable,
    /// v2 as seed 001 describes it, no longer in the newest draft (`session/load`).
    Seed,
}

/// What must hold for a method to be usable. Serialized as `{ type, name? }` (`name`: the
/// flag, or both flags of `anyFlag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// `initialize` itself: only before initialization.
    Lifecycle,
    /// Always, once initialized.
    Baseline,
    /// A capability flag of the side that serves the method.
    Flag(&'static str),
    /// Any of two flags of the serving side.
    AnyFlag(&'static str, &'static str),
    /// The agent listed at least one auth method.
    AuthMethods,
    /// The `auth.logout` flag, or (newest v2 draft) a non-empty auth method list.
    FlagOrAuthMethods(&'static str),
}

/// By hand: serde's adjacently tagged enum costs several times this in WebAssembly.
impl Serialize for Gate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (kind, names): (&str, &[&str]) = match self {
            Gate::Lifecycle => ("lifecycle", &[]),
            Gate::Baseline => ("baseline", &[]),
            Gate::Flag(f) => ("flag", std::slice::from_ref(f)),
            Gate::AnyFlag(a, b) => ("anyFlag", &[*a, *b][..]),
            Gate::AuthMethods => ("authMethods", &[]),
            Gate::FlagOrAuthMethods(f) => ("flagOrAuthMethods", std::slice::from_ref(f)),
        };
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", kind)?;
        match names {
            [] => {}
            [one] => m.serialize_entry("name", one)?,
            all => m.serialize_entry("name", all)?,
        }
        m.end()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodSpec {
    pub name: &'static str,
    pub server: Server,
    pub kind: Kind,
    pub v1: Availability,
    pub v2: Availability,
    pub gate: Gate,
}

impl MethodSpec {
    pub fn availability(&self, version: u16) -> Availability {
        if version >= 2 {
            self.v2
        } else {
            self.v1
        }
    }
}

use Availability::{No, Seed, Stable, Unstable};
use Gate::*;
use Kind::{Either, Notification as Notif, Request as Req};

const fn m(
    name: &'static str,
    server: Server,
    kind: Kind,
    v1: Availability,
    v2: Availability,
    gate: Gate,
) -> MethodSpec {
    MethodSpec {
        name,
        server,
        kind,
        v1,
        v2,
        gate,
    }
}

const A: Server = Server::Agent;
const C: Server = Server::Client;

pub const METHODS: &[MethodSpec] = &[
    m("initialize", A, Req, Stable, Stable, Lifecycle),
    m("authenticate", A, Req, Stable, No, AuthMethods),
    m("logout", A, Req, Stable, No, Flag("auth.logout")),
    m("auth/login", A, Req, No, Stable, AuthMethods),
    m(
        "auth/logout",
        A,
        Req,
        No,
        Stable,
        FlagOrAuthMethods("auth.logout"),
    ),
    m("auth/status", A, Req, Unstable, Unstable, Baseline),
    m("session/new", A, Req, Stable, Stable, Flag("session.new")),
    m("session/load", A, Req, Stable, Seed, Flag("session.load")),
    m("session/set_mode", A, Req, Stable, No, Flag("session.new")),
    m(
        "session/set_config_option",
        A,
        Req,
        Stable,
        Stable,
        Flag("session.new"),
    ),
    m(
        "session/prompt",
        A,
        Req,
        Stable,
        Stable,
        Flag("session.new"),
    ),
    m(
        "session/cancel",
        A,
        Notif,
        Stable,
        Stable,
        Flag("session.new"),
    ),
    m("session/list", A, Req, Stable, Stable, Flag("session.list")),
    m(
        "session/delete",
        A,
        Req,
        Stable,
        Stable,
        Flag("session.delete"),
    ),
    m(
        "session/resume",
        A,
        Req,
        Stable,
        Stable,
        Flag("session.resume"),
    ),
    m(
        "session/close",
        A,
        Req,
        Stable,
        Stable,
        Flag("session.close"),
    ),
    m(
        "session/fork",
        A,
        Req,
        Unstable,
        Unstable,
        Flag("session.fork"),
    ),
    m("session/archive", A, Req, Unstable, Unstable, Baseline),
    m("session/unarchive", A, Req, Unstable, Unstable, Baseline),
    m("session/status", A, Req, Unstable, Unstable, Baseline),
    m("session/set_title", A, Req, Unstable, Unstable, Baseline),
    m("tool_call/cancel", A, Req, No, Stable, Flag("session.new")),
    m("terminal/cancel", A, Req, No, Stable, Flag("session.new")),
    m("providers/list", A, Req, Unstable, Unstable, Baseline),
    m("providers/set", A, Req, Unstable, Unstable, Baseline),
    m("providers/disable", A, Req, Unstable, Unstable, Baseline),
    m("nes/start", A, Req, Unstable, Unstable, Baseline),
    m("nes/suggest", A, Req, Unstable, Unstable, Baseline),
    m("nes/accept", A, Notif, Unstable, Unstable, Baseline),
    m("nes/reject", A, Notif, Unstable, Unstable, Baseline),
    m("nes/close", A, Req, Unstable, Unstable, Baseline),
    m("document/didOpen", A, Notif, Unstable, Unstable, Baseline),
    m("document/didChange", A, Notif, Unstable, Unstable, Baseline),
    m("document/didClose", A, Notif, Unstable, Unstable, Baseline),
    m("document/didSave", A, Notif, Unstable, Unstable, Baseline),
    m("document/didFocus", A, Notif, Unstable, Unstable, Baseline),
    m(
        "session/request_permission",
        C,
        Req,
        Stable,
        Stable,
        Baseline,
    ),
    m("session/update", C, Notif, Stable, Stable, Baseline),
    m(
        "fs/read_text_file",
        C,
        Req,
        Stable,
        No,
        Flag("fs.readTextFile"),
    ),
    m(
        "fs/write_text_file",
        C,
        Req,
        Stable,
        No,
        Flag("fs.writeTextFile"),
    ),
    m("terminal/create", C, Req, Stable, No, Flag("terminal")),
    m("terminal/output", C, Req, Stable, No, Flag("terminal")),
    m("terminal/release", C, Req, Stable, No, Flag("terminal")),
    m(
        "terminal/wait_for_exit",
        C,
        Req,
        Stable,
        No,
        Flag("terminal"),
    ),
    m("terminal/kill", C, Req, Stable, No, Flag("terminal")),
    m(
        "elicitation/create",
        C,
        Req,
        Stable,
        Stable,
        AnyFlag("elicitation.form", "elicitation.url"),
    ),
    m(
        "elicitation/complete",
        C,
        Notif,
        Stable,
        Stable,
        Flag("elicitation.url"),
    ),
    m("auth/status_update", C, Notif, Unstable, Unstable, Baseline),
    m("mcp/connect", C, Req, Unstable, Unstable, Baseline),
    m("mcp/disconnect", C, Req, Unstable, Unstable, Baseline),
    m(
        "mcp/message",
        Server::Both,
        Either,
        Unstable,
        Unstable,
        Baseline,
    ),
    m(
        "$/cancel_request",
        Server::Both,
        Notif,
        Stable,
        Stable,
        Baseline,
    ),
];

/// The table entry for a method name.
pub fn lookup(name: &str) -> Option<&'static MethodSpec> {
    METHODS.iter().find(|m| m.name == name)
}

/// Whether a method name is an extension (`_`-prefixed): passed through, never gated.
pub fn is_extension(name: &str) -> bool {
    name.starts_with('_')
}

/// One row of the capability matrix: a method and whether it may be used now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodStatus {
    pub method: &'static str,
    /// "clientToAgent", "agentToClient" or "both".
    pub direction: &'static str,
    pub kind: Kind,
    pub availability: Availability,
    pub gate: Gate,
    pub enabled: bool,
    /// Why not, when not enabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

pub fn direction(server: Server) -> &'static str {
    match server {
        Server::Agent => "clientToAgent",
        Server::Client => "agentToClient",
        Server::Both => "both",
    }
}
