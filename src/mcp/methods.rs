//! The method table: every MCP method, which way it goes, since (and until) which
//! version, and the capability that gates it. Checked against the official schemas by
//! `tests/mcp_tables.rs`.

use super::capabilities::{Capabilities, Side};
use super::version::{Era, Version};
use crate::schema::Direction;
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    Request,
    Notification,
}

/// What a method needs besides being defined in the version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Always allowed once the lifecycle permits.
    Open,
    /// The capability at this path, advertised by this side.
    Cap(Side, &'static str),
    /// `elicitation/create`: `elicitation.url` for `mode: "url"`, else `elicitation.form`.
    ElicitationMode,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodSpec {
    pub method: &'static str,
    pub direction: Direction,
    pub kind: Kind,
    pub since: Version,
    pub until: Option<Version>,
    pub gate: Gate,
}

use Direction::{ClientToServer as CS, ServerToClient as SC};
use Gate::{Cap, ElicitationMode, Open};
use Kind::{Notification as N, Request as R};
use Side::{Client as C, Server as S};
use Version::{V2024_11_05 as V1, V2025_06_18 as V3, V2025_11_25 as V4, V2026_07_28 as V5};

const fn m(
    method: &'static str,
    direction: Direction,
    kind: Kind,
    since: Version,
    until: Option<Version>,
    gate: Gate,
) -> MethodSpec {
    MethodSpec {
        method,
        direction,
        kind,
        since,
        until,
        gate,
    }
}

pub const METHODS: &[MethodSpec] = &[
    // Lifecycle and utilities.
    m("initialize", CS, R, V1, Some(V4), Open),
    m("notifications/initialized", CS, N, V1, Some(V4), Open),
    m("server/discover", CS, R, V5, None, Open),
    m("ping", CS, R, V1, Some(V4), Open),
    m("ping", SC, R, V1, Some(V4), Open),
    m("notifications/cancelled", CS, N, V1, None, Open),
    m("notifications/cancelled", SC, N, V1, None, Open),
    m("notifications/progress", CS, N, V1, Some(V4), Open),
    m("notifications/progress", SC, N, V1, None, Open),
    // Server features.
    m("resources/list", CS, R, V1, None, Cap(S, "resources")),
    m(
        "resources/templates/list",
        CS,
        R,
        V1,
        None,
        Cap(S, "resources"),
    ),
    m("resources/read", CS, R, V1, None, Cap(S, "resources")),
    m(
        "resources/subscribe",
        CS,
        R,
        V1,
        Some(V4),
        Cap(S, "resources.subscribe"),
    ),
    m(
        "resources/unsubscribe",
        CS,
        R,
        V1,
        Some(V4),
        Cap(S, "resources.subscribe"),
    ),
    m(
        "notifications/resources/list_changed",
        SC,
        N,
        V1,
        None,
        Cap(S, "resources.listChanged"),
    ),
    m(
        "notifications/resources/updated",
        SC,
        N,
        V1,
        None,
        Cap(S, "resources.subscribe"),
    ),
    m("prompts/list", CS, R, V1, None, Cap(S, "prompts")),
    m("prompts/get", CS, R, V1, None, Cap(S, "prompts")),
    m(
        "notifications/prompts/list_changed",
        SC,
        N,
        V1,
        None,
        Cap(S, "prompts.listChanged"),
    ),
    m("tools/list", CS, R, V1, None, Cap(S, "tools")),
    m("tools/call", CS, R, V1, None, Cap(S, "tools")),
    m(
        "notifications/tools/list_changed",
        SC,
        N,
        V1,
        None,
        Cap(S, "tools.listChanged"),
    ),
    m("logging/setLevel", CS, R, V1, Some(V4), Cap(S, "logging")),
    m("notifications/message", SC, N, V1, None, Cap(S, "logging")),
    m(
        "completion/complete",
        CS,
        R,
        V1,
        None,
        Cap(S, "completions"),
    ),
    m("subscriptions/listen", CS, R, V5, None, Open),
    m(
        "notifications/subscriptions/acknowledged",
        SC,
        N,
        V5,
        None,
        Open,
    ),
    // Client features.
    m(
        "sampling/createMessage",
        SC,
        R,
        V1,
        Some(V4),
        Cap(C, "sampling"),
    ),
    m("roots/list", SC, R, V1, Some(V4), Cap(C, "roots")),
    m(
        "notifications/roots/list_changed",
        CS,
        N,
        V1,
        Some(V4),
        Cap(C, "roots.listChanged"),
    ),
    m("elicitation/create", SC, R, V3, Some(V4), ElicitationMode),
    m(
        "notifications/elicitation/complete",
        SC,
        N,
        V4,
        Some(V4),
        Cap(C, "elicitation.url"),
    ),
    // Tasks (2025-11-25), both ways: the receiver advertises what it runs as tasks.
    m("tasks/get", CS, R, V4, Some(V4), Cap(S, "tasks")),
    m("tasks/result", CS, R, V4, Some(V4), Cap(S, "tasks")),
    m("tasks/list", CS, R, V4, Some(V4), Cap(S, "tasks.list")),
    m("tasks/cancel", CS, R, V4, Some(V4), Cap(S, "tasks.cancel")),
    m(
        "notifications/tasks/status",
        SC,
        N,
        V4,
        Some(V4),
        Cap(S, "tasks"),
    ),
    m("tasks/get", SC, R, V4, Some(V4), Cap(C, "tasks")),
    m("tasks/result", SC, R, V4, Some(V4), Cap(C, "tasks")),
    m("tasks/list", SC, R, V4, Some(V4), Cap(C, "tasks.list")),
    m("tasks/cancel", SC, R, V4, Some(V4), Cap(C, "tasks.cancel")),
    m(
        "notifications/tasks/status",
        CS,
        N,
        V4,
        Some(V4),
        Cap(C, "tasks"),
    ),
];

/// The capability a task-augmented request (`params.task` present) needs.
pub fn task_gate(method: &str, direction: Direction) -> Option<(Side, &'static str)> {
    match (method, direction) {
        ("tools/call", CS) => Some((S, "tasks.requests.tools.call")),
        ("sampling/createMessage", SC) => Some((C, "tasks.requests.sampling.createMessage")),
        ("elicitation/create", SC) => Some((C, "tasks.requests.elicitation.create")),
        _ => None,
    }
}

/// The table row for a method going one way.
pub fn find(method: &str, direction: Direction) -> Option<&'static MethodSpec> {
    METHODS
        .iter()
        .find(|s| s.method == method && s.direction == direction)
}

/// Whether MCP knows this method at all (any direction, any version).
pub fn is_known(method: &str) -> bool {
    METHODS.iter().any(|s| s.method == method)
}

impl MethodSpec {
    pub fn defined_in(&self, version: &Version, era: Era) -> bool {
        version.within(era, &self.since, self.until.as_ref())
    }
}

/// Why a call may not go (or come) now: the message and the capability it lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub reason: String,
    pub capability: Option<String>,
}

/// Checks a known or unknown method against the version and both parties' capabilities.
/// Unknown methods (extensions) pass: MCP leaves them to the peers.
pub fn check(
    method: &str,
    direction: Direction,
    params: Option<&Value>,
    version: &Version,
    era: Era,
    client: &Capabilities,
    server: &Capabilities,
) -> Result<(), Blocked> {
    let Some(spec) = find(method, direction) else {
        if is_known(method) {
            let (from, to) = sides(direction);
            return Err(blocked(
                format!("{method} is not sent from {from} to {to}"),
                None,
            ));
        }
        return Ok(());
    };
    if !spec.defined_in(version, era) {
        return Err(blocked(
            format!("{method} is not defined in MCP {version}"),
            None,
        ));
    }
    let caps = |side: Side| if side == Side::Client { client } else { server };
    let need = |side: Side, path: &str| -> Result<(), Blocked> {
        if caps(side).has(path, version, era) {
            Ok(())
        } else {
            let who = if side == Side::Client {
                "client"
            } else {
                "server"
            };
            Err(blocked(
                format!("{method} needs the {who} capability {path}, which was not advertised"),
                Some(path),
            ))
        }
    };
    match spec.gate {
        Open => {}
        Cap(side, path) => {
            // A version that defines the method but not its capability leaves it open
            // (completion/complete in 2024-11-05).
            if super::capabilities::is_defined(side, path, version, era) {
                need(side, path)?;
            }
        }
        ElicitationMode => {
            let url = params.and_then(|p| p.get("mode")).and_then(Value::as_str) == Some("url");
            need(
                Side::Client,
                if url {
                    "elicitation.url"
                } else {
                    "elicitation.form"
                },
            )?;
        }
    }
    if params.is_some_and(|p| p.get("task").is_some_and(|t| !t.is_null())) {
        if let Some((side, path)) = task_gate(method, direction) {
            need(side, path)?;
        }
    }
    Ok(())
}

fn sides(direction: Direction) -> (&'static str, &'static str) {
    match direction {
        CS => ("client", "server"),
        SC => ("server", "client"),
    }
}

fn blocked(reason: String, capability: Option<&str>) -> Blocked {
    Blocked {
        reason,
        capability: capability.map(str::to_owned),
    }
}
