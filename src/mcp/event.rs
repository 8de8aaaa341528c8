//! What a session reports: text to send and things that happened, in order.

use super::version::Era;
use crate::json::Value;
use crate::json::{Json, Members};
use crate::jsonrpc::{Flow, Id, ProtocolError, RawJson};
use crate::schema::Issue;
use serde::Serialize;

impl Event {
    /// Issues with one message, saying which (`id`, `method`) and which way it went.
    pub(crate) fn violation(
        id: Option<&Id>,
        method: Option<&str>,
        direction: Flow,
        issues: Vec<Issue>,
    ) -> Event {
        Event::Violation {
            id: id.filter(|i| **i != Id::Null).cloned(),
            method: method.map(str::to_owned),
            direction,
            issues,
        }
    }
}

crate::inbound::inbound_events!(Event);

impl Event {
    /// The event as JSON text, as `Serialize` writes it, but a response's `result` and a
    /// request's or a notification's `params` (and progress' token and params) are spliced in
    /// as the text they came in, never parsed and written again.
    pub fn write_json(&self, out: &mut String) {
        if self.write_shared(out) {
            return;
        }
        match self {
            Event::Initialized {
                protocol_version,
                era,
                peer_capabilities,
                peer_info,
                instructions,
            } => Members::tagged(out, "initialized")
                .member("protocolVersion", protocol_version)
                .member("era", era)
                .member("peerCapabilities", peer_capabilities)
                .some("peerInfo", peer_info)
                .some("instructions", instructions)
                .close(),
            Event::EraFallback { from, to, reason } => Members::tagged(out, "eraFallback")
                .member("from", from)
                .member("to", to)
                .member("reason", reason)
                .close(),
            Event::Progress {
                id,
                progress_token,
                params,
            } => Members::tagged(out, "progress")
                .some("id", id)
                .member("progressToken", progress_token)
                .member("params", params)
                .close(),
            Event::Cancelled { request_id, reason } => Members::tagged(out, "cancelled")
                .member("requestId", request_id)
                .some("reason", reason)
                .close(),
            Event::Closed { pending } => Members::tagged(out, "closed")
                .member("pending", pending)
                .close(),
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

/// A request still in flight when the connection closed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PendingCall {
    pub id: Id,
    pub method: String,
}

impl Json for PendingCall {
    fn write_json(&self, out: &mut String) {
        Members::open(out)
            .member("id", &self.id)
            .member("method", &self.method)
            .close();
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// Text the session answers by itself: ping replies, error replies, the
    /// `notifications/initialized` after the handshake, `notifications/cancelled`.
    Send { text: String },
    /// The connection is ready: version and era agreed, the peer's capabilities known.
    Initialized {
        protocol_version: String,
        era: Era,
        /// Exactly as the peer advertised them.
        peer_capabilities: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        peer_info: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        instructions: Option<String>,
    },
    /// `era: "auto"` leaves the stateless era: `server/discover` was refused (`reason`) or
    /// offered no version in common, and `initialize` with `to` follows.
    EraFallback {
        from: String,
        to: String,
        reason: ProtocolError,
    },
    /// The answer to one of our requests: `result` is the JSON text it came in.
    Response {
        id: Id,
        method: String,
        result: RawJson,
    },
    /// The error answer to one of our requests (or its failure when the connection closed).
    Error {
        id: Id,
        method: String,
        error: ProtocolError,
    },
    /// One of our requests ran past its deadline (a `notifications/cancelled` was sent
    /// unless it was `initialize`).
    Timeout {
        id: Id,
        method: String,
        error: ProtocolError,
    },
    /// A request for the application; answer it with `respond`. Its params are the JSON
    /// text they came in.
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
    /// `notifications/progress`; `id` is our request it belongs to, when known. The token and
    /// the params are the JSON text they came in.
    Progress {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        progress_token: RawJson,
        params: RawJson,
    },
    /// The peer cancelled one of its requests: stop the work; no answer will be sent.
    Cancelled {
        request_id: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// What was wrong with an incoming message (it is still delivered when it could be read).
    Violation {
        /// The id of the message, when it has one that could be read.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// The method of the message, or for a response the method it answers.
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        /// `in` (received) or `out` (sent by the session itself all the same).
        direction: Flow,
        issues: Vec<Issue>,
    },
    /// A response to no request of ours (unknown id, or answered before). An error with
    /// `id: null` (the peer could not read one of our messages) is one too: it settles
    /// nothing, and `error` says what the peer answered.
    Stray {
        id: Id,
        already_answered: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ProtocolError>,
    },
    /// Input that is not JSON-RPC, or a breach the session answered or ignored; or why the
    /// session cannot go on (unsupported version, failed handshake), `closed` then follows.
    ProtocolError { error: ProtocolError },
    /// The session ended; what was still pending has failed with `error` events.
    Closed { pending: Vec<PendingCall> },
}
