//! The one receive path of both protocols' sessions: a frame the session reads in place (one
//! parse, no tree of values) is taken so; any other is read into its messages; each is validated
//! (from the frame's text when it was the whole frame) and classified by the JSON-RPC endpoint;
//! what the endpoint settles by itself is reported in one vocabulary (`send`, `protocolError`,
//! `stray`, `violation`), written once; requests, notifications and responses to ours go to the
//! session.

use crate::json::Value;
use crate::jsonrpc::{
    Endpoint, Id, Message, Notification, Outgoing, ParseFailure, ProtocolError, Received, Request,
};
use crate::schema::{codes, Issue, Severity};

/// A protocol's session, as the receive path sees it.
pub(crate) trait Inbound {
    type Event: Events;
    /// Takes a frame the session reads from the parse that validates it, with no tree of
    /// values (a request, a result of one of our calls, ACP's session update, MCP's screened
    /// notifications); false leaves it to the general path, which reads anything else and
    /// anything such a read declines.
    fn read_in_place(&mut self, text: &str, now_ms: u64, events: &mut Vec<Self::Event>) -> bool;
    fn endpoint(&mut self) -> &mut Endpoint;
    /// Validates a received message (`wire`: its text, when it was the whole frame); may repair
    /// it, where the protocol reads leniently (the repairs are issues too).
    fn check(
        &self,
        message: &mut Message,
        in_reply_to: Option<&str>,
        wire: Option<&str>,
    ) -> Vec<Issue>;
    /// A request to serve (its id now in the endpoint's table).
    fn take_request(&mut self, request: Request, now_ms: u64, events: &mut Vec<Self::Event>);
    fn take_notification(&mut self, n: Notification, now_ms: u64, events: &mut Vec<Self::Event>);
    /// The answer to a request of ours, with what we sent.
    fn take_response(
        &mut self,
        request: Outgoing,
        outcome: Result<Value, ProtocolError>,
        now_ms: u64,
        events: &mut Vec<Self::Event>,
    );
}

/// Takes one incoming frame (or bytes that were not UTF-8): each message it holds, in order.
pub(crate) fn receive<S: Inbound>(
    session: &mut S,
    frame: Result<&str, ParseFailure>,
    now_ms: u64,
    events: &mut Vec<S::Event>,
) {
    if let Ok(text) = frame {
        if session.read_in_place(text, now_ms, events) {
            return;
        }
    }
    let frame = session.endpoint().read(frame);
    for message in frame.messages {
        let received = match message {
            Ok(mut message) => {
                let in_reply_to = match &message {
                    Message::Response(r) => session
                        .endpoint()
                        .pending()
                        .get(&r.id)
                        .map(|o| o.method.clone()),
                    _ => None,
                };
                let issues = session.check(&mut message, in_reply_to.as_deref(), frame.text);
                if !issues.is_empty() {
                    let method = message.method().or(in_reply_to.as_deref());
                    events.push(S::Event::violation(
                        message.id().cloned(),
                        method.map(str::to_owned),
                        issues,
                    ));
                }
                session.endpoint().accept(message)
            }
            Err(failure) => Received::invalid(failure),
        };
        match received {
            Received::Request(r) => session.take_request(r, now_ms, events),
            Received::Notification(n) => session.take_notification(n, now_ms, events),
            Received::Response { request, outcome } => {
                session.take_response(request, outcome, now_ms, events)
            }
            settled => report(settled, events),
        }
    }
}

/// The events of a session's own vocabulary that report what the endpoint settled.
pub(crate) trait Events: Sized {
    /// Text to send: the endpoint's answer (-32700, -32600).
    fn send(text: String) -> Self;
    /// A breach the endpoint answered or ignored.
    fn protocol_error(error: ProtocolError) -> Self;
    /// A response to no request of ours.
    fn stray(id: Id, already_answered: bool, error: Option<ProtocolError>) -> Self;
    /// Issues of an incoming message.
    fn violation(id: Option<Id>, method: Option<String>, issues: Vec<Issue>) -> Self;
}

/// `Events` for a session's event enum, whose variants `Send`, `ProtocolError`, `Stray`
/// and `Violation` are the same in both protocols; and the writer of the variants the same in
/// both: those, `Error`, `Timeout`, and the events whose payload came as text, `Response`,
/// `Request` and `Notification`.
macro_rules! inbound_events {
    ($event:ty) => {
        impl $event {
            /// An event of a variant both protocols have, as JSON text (a response's,
            /// a request's or a notification's payload spliced in as the text it came in:
            /// `RawJson`'s `Json`); false for any other event.
            fn write_shared(&self, out: &mut String) -> bool {
                use $crate::json::Members;
                match self {
                    Self::Response { id, method, result } => Members::tagged(out, "response")
                        .member("id", id)
                        .member("method", method)
                        .member("result", result)
                        .close(),
                    Self::Request { id, method, params } => Members::tagged(out, "request")
                        .member("id", id)
                        .member("method", method)
                        .some("params", params)
                        .close(),
                    Self::Notification { method, params } => Members::tagged(out, "notification")
                        .member("method", method)
                        .some("params", params)
                        .close(),
                    Self::Send { text } => {
                        Members::tagged(out, "send").member("text", text).close()
                    }
                    Self::Error { id, method, error } | Self::Timeout { id, method, error } => {
                        let tag = match self {
                            Self::Error { .. } => "error",
                            _ => "timeout",
                        };
                        Members::tagged(out, tag)
                            .member("id", id)
                            .member("method", method)
                            .member("error", error)
                            .close()
                    }
                    Self::Violation {
                        id,
                        method,
                        direction,
                        issues,
                    } => Members::tagged(out, "violation")
                        .some("id", id)
                        .some("method", method)
                        .member("direction", direction)
                        .member("issues", issues)
                        .close(),
                    Self::Stray {
                        id,
                        already_answered,
                        error,
                    } => Members::tagged(out, "stray")
                        .member("id", id)
                        .member("alreadyAnswered", already_answered)
                        .some("error", error)
                        .close(),
                    Self::ProtocolError { error } => Members::tagged(out, "protocolError")
                        .member("error", error)
                        .close(),
                    _ => return false,
                }
                true
            }
        }

        impl $crate::inbound::Events for $event {
            fn send(text: String) -> Self {
                Self::Send { text }
            }
            fn protocol_error(error: $crate::jsonrpc::ProtocolError) -> Self {
                Self::ProtocolError { error }
            }
            fn stray(
                id: $crate::jsonrpc::Id,
                already_answered: bool,
                error: Option<$crate::jsonrpc::ProtocolError>,
            ) -> Self {
                Self::Stray {
                    id,
                    already_answered,
                    error,
                }
            }
            fn violation(
                id: Option<$crate::jsonrpc::Id>,
                method: Option<String>,
                issues: Vec<$crate::schema::Issue>,
            ) -> Self {
                Self::Violation {
                    id,
                    method,
                    direction: $crate::jsonrpc::Flow::In,
                    issues,
                }
            }
        }
    };
}
pub(crate) use inbound_events;

/// Reports what the endpoint settled by itself: a malformed frame or a duplicate request id
/// (answered), a malformed response, a stray response. Requests, notifications and responses
/// to ours are the session's to handle, not passed here.
fn report<E: Events>(received: Received, events: &mut Vec<E>) {
    match received {
        Received::Invalid {
            failure,
            reply: Some(text),
        } => {
            events.push(E::send(text));
            events.push(E::protocol_error(failure.error));
        }
        // A malformed response (an error without `id`, say): reported, never answered.
        Received::Invalid {
            failure,
            reply: None,
        } => events.push(E::violation(
            Some(failure.id).filter(|id| *id != Id::Null),
            None,
            vec![Issue {
                path: String::new(),
                code: codes::INVALID_ENVELOPE,
                message: failure.error.message,
                severity: Severity::Error,
            }],
        )),
        Received::DuplicateRequest { request, reply } => {
            events.push(E::send(reply));
            events.push(E::protocol_error(ProtocolError::invalid_request(format!(
                "duplicate request id {} ({})",
                request.id, request.method
            ))));
        }
        // An error with `id: null` (the peer could not read one of our messages) is one too:
        // it settles nothing, since guessing which request it meant could answer the wrong one.
        Received::Stray {
            id,
            already_answered,
            outcome,
        } => events.push(E::stray(id, already_answered, outcome.err())),
        Received::Request(_) | Received::Notification(_) | Received::Response { .. } => {}
    }
}
