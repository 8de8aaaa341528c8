//! What the JSON-RPC endpoint settles by itself, reported alike by both protocols' sessions:
//! one vocabulary (`send`, `protocolError`, `stray`, `violation`), written once.

use crate::jsonrpc::{Id, ProtocolError, Received};
use crate::schema::{codes, Issue, Severity};

/// The events of a session's own vocabulary that report what the endpoint settled.
pub(crate) trait SettledEvents: Sized {
    /// Text to send: the endpoint's answer (-32700, -32600).
    fn send(text: String) -> Self;
    /// A breach the endpoint answered or ignored.
    fn protocol_error(error: ProtocolError) -> Self;
    /// A response to no request of ours.
    fn stray(id: Id, already_answered: bool, error: Option<ProtocolError>) -> Self;
    /// Issues of an incoming message no method is known for.
    fn violation(id: Option<Id>, issues: Vec<Issue>) -> Self;
}

/// `SettledEvents` for a session's event enum, whose variants `Send`, `ProtocolError`, `Stray`
/// and `Violation` are the same in both protocols.
macro_rules! settled_events {
    ($event:ty) => {
        impl $crate::settled::SettledEvents for $event {
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
                issues: Vec<$crate::schema::Issue>,
            ) -> Self {
                Self::Violation {
                    id,
                    method: None,
                    direction: $crate::jsonrpc::Flow::In,
                    issues,
                }
            }
        }
    };
}
pub(crate) use settled_events;

/// Reports what the endpoint settled by itself: a malformed frame or a duplicate request id
/// (answered), a malformed response, a stray response. Requests, notifications and responses
/// to ours are the session's to handle, not passed here.
pub(crate) fn report<E: SettledEvents>(received: Received, events: &mut Vec<E>) {
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
