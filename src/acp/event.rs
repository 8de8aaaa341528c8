//! What a session reports: one flat, serializable stream for both roles.

use crate::json::Value;
use crate::json::{Json, Members};
use crate::jsonrpc::{Flow, Id, ProtocolError, RawJson};
use crate::schema::Issue;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// Text the session answers by itself (refusals, -32601, -32600/-32700 replies,
    /// `$/cancel_request` after a timeout): hand it to the transport.
    Send { text: String },
    /// The handshake completed.
    Initialized {
        protocol_version: u16,
        /// The peer's capabilities exactly as received.
        peer_capabilities: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        peer_info: Option<Value>,
        auth_methods: Vec<Value>,
    },
    /// A response to one of our requests; its result is the JSON text it came in.
    Response {
        id: Id,
        method: String,
        result: RawJson,
    },
    /// An error response to one of our requests (or the request failed locally: closed).
    Error {
        id: Id,
        method: String,
        error: ProtocolError,
    },
    /// One of our requests passed its deadline; `$/cancel_request` was sent for it.
    Timeout {
        id: Id,
        method: String,
        error: ProtocolError,
    },
    /// A request for the application to answer with `respond`; its params are the JSON text
    /// they came in.
    Request {
        id: Id,
        method: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<RawJson>,
    },
    /// Its params are the JSON text they came in.
    Notification {
        method: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<RawJson>,
    },
    /// A `session/update` (client side), already applied to the session's transcript.
    /// `replay` is set while a `session/load` or `session/resume` of that session is pending.
    /// `update` is the JSON text it came in (repaired, when read leniently).
    SessionUpdate {
        session_id: String,
        update: RawJson,
        replay: bool,
    },
    /// A prompt turn is over (client side): in v1 with the `session/prompt` response, in v2
    /// with the `idle` state update that follows the acknowledgement. `outcome` is
    /// `{stopReason?, messageId?, usage?, …}`: the v1 response, or the v2 idle update's
    /// fields with the acknowledgement's. An acknowledged turn that never ended (the session
    /// closed) ends with `error` instead.
    TurnEnded {
        id: Id,
        session_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ProtocolError>,
    },
    /// The peer asked to cancel one of the requests we are serving (`$/cancel_request`).
    CancelRequested { id: Id },
    /// Validation issues of an incoming message; it is still delivered.
    Violation {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// The method of the message, or for a response the method it answers.
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        /// `in` (received) or `out` (our own answer, sent all the same).
        direction: Flow,
        issues: Vec<Issue>,
    },
    /// A response to no request of ours (unknown id, or answered before). An error with
    /// `id: null` (the agent could not read one of our messages) is one too: it settles
    /// nothing, and `error` says what the agent answered.
    Stray {
        id: Id,
        already_answered: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ProtocolError>,
    },
    /// Input that is not JSON-RPC, or a protocol breach the session answered or ignored.
    ProtocolError { error: ProtocolError },
    /// The session ended; nothing more is sent or accepted.
    Closed {
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ProtocolError>,
    },
}

crate::inbound::inbound_events!(Event);

impl Event {
    /// The event as JSON text, as `Serialize` writes it, but a session update's `update`, a
    /// request's or a notification's `params` and a response's `result` are spliced in as the
    /// text they came in, never parsed and written again.
    pub fn write_json(&self, out: &mut String) {
        if self.write_shared(out) {
            return;
        }
        match self {
            Event::Initialized {
                protocol_version,
                peer_capabilities,
                peer_info,
                auth_methods,
            } => Members::tagged(out, "initialized")
                .member("protocolVersion", protocol_version)
                .member("peerCapabilities", peer_capabilities)
                .some("peerInfo", peer_info)
                .member("authMethods", auth_methods)
                .close(),
            Event::SessionUpdate {
                session_id,
                update,
                replay,
            } => Members::tagged(out, "sessionUpdate")
                .member("sessionId", session_id)
                .member("update", update)
                .member("replay", replay)
                .close(),
            Event::TurnEnded {
                id,
                session_id,
                outcome,
                error,
            } => Members::tagged(out, "turnEnded")
                .member("id", id)
                .member("sessionId", session_id)
                .some("outcome", outcome)
                .some("error", error)
                .close(),
            Event::CancelRequested { id } => Members::tagged(out, "cancelRequested")
                .member("id", id)
                .close(),
            Event::Closed { error } => Members::tagged(out, "closed").some("error", error).close(),
            // The variants both protocols have: `write_shared`.
            _ => {}
        }
    }
}

impl Json for Event {
    fn write_json(&self, out: &mut String) {
        Event::write_json(self, out);
    }
}
