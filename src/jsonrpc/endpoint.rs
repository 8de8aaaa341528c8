//! One side of a JSON-RPC connection, without I/O: it numbers and tracks outgoing
//! requests, classifies incoming text, matches responses, answers malformed input
//! with the error JSON-RPC names, and reports expired deadlines. The ACP and MCP
//! sessions are built on it and add lifecycle, negotiation, gating and validation.

use super::{
    parse, Id, Incoming, Matched, Message, Notification, Outgoing, ParseFailure, ParseOptions,
    PendingTable, ProtocolError, Request, Timeout,
};
use crate::json::Value;
use serde::Serialize;

/// A frame for the transport: the text to send, and for a request its id and method.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outbound {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub text: String,
}

/// What one incoming frame turned out to hold, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Received {
    /// A request to serve; answer it with [`Endpoint::respond`].
    Request(Request),
    Notification(Notification),
    /// The response to a request of ours, with what we sent.
    Response {
        request: Outgoing,
        outcome: Result<Value, ProtocolError>,
    },
    /// A response to an id we never sent, or already saw answered (or gave up on).
    Stray {
        id: Id,
        outcome: Result<Value, ProtocolError>,
        already_answered: bool,
    },
    /// A request whose id is already being served: refused with `reply`.
    DuplicateRequest {
        request: Request,
        reply: String,
    },
    /// Not a valid message: `reply` is the error response to send back (-32700, -32600),
    /// absent when answering would be wrong (an invalid error response, for one).
    Invalid {
        failure: ParseFailure,
        reply: Option<String>,
    },
}

/// One incoming frame, read.
#[derive(Debug)]
pub struct Frame<'a> {
    /// The frame's text when it held one message: what that message is validated from, as it
    /// came (a batch's members are validated as they were read).
    pub text: Option<&'a str>,
    /// Its messages in order, or why one is not a message.
    pub messages: Vec<Result<Message, ParseFailure>>,
}

#[derive(Debug)]
pub struct Endpoint {
    pending: PendingTable,
    options: ParseOptions,
}

impl Endpoint {
    pub fn new(options: ParseOptions) -> Self {
        Endpoint {
            pending: PendingTable::new(),
            options,
        }
    }

    pub fn options(&self) -> ParseOptions {
        self.options
    }

    /// Changes what is accepted, e.g. once a version with batches was negotiated.
    pub fn set_options(&mut self, options: ParseOptions) {
        self.options = options;
    }

    /// Builds and registers an outgoing request with a fresh id.
    pub fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        now_ms: u64,
        timeout: Timeout,
    ) -> (Id, String) {
        let id = self.pending.next_id();
        let text = Message::request(id.clone(), method, params).to_text();
        // A fresh id is never in flight, so registering cannot fail.
        let _ = self.pending.register(id.clone(), method, now_ms, timeout);
        (id, text)
    }

    /// Builds a notification (nothing to track).
    pub fn notify(&self, method: &str, params: Option<Value>) -> String {
        Message::notification(method, params).to_text()
    }

    /// Answers an incoming request. Refuses an id that is not being served, so a request
    /// is answered exactly once.
    pub fn respond(
        &mut self,
        id: &Id,
        outcome: Result<Value, ProtocolError>,
    ) -> Result<String, ProtocolError> {
        if !self.pending.finish_incoming(id) {
            return Err(ProtocolError::local_refusal(format!(
                "no incoming request {id} is waiting for an answer"
            )));
        }
        Ok(match outcome {
            Ok(v) => Message::response(id.clone(), v),
            Err(e) => Message::error(id.clone(), e),
        }
        .to_text())
    }

    /// Classifies one incoming frame.
    pub fn receive(&mut self, text: &str) -> Vec<Received> {
        self.read(Ok(text))
            .messages
            .into_iter()
            .map(|m| match m {
                Ok(m) => self.accept(m),
                Err(f) => Received::invalid(f),
            })
            .collect()
    }

    /// Reads one incoming frame (or bytes that were not UTF-8) into its messages, not yet
    /// classified: a session validates each before it is taken with [`Endpoint::accept`].
    pub fn read<'a>(&self, frame: Result<&'a str, ParseFailure>) -> Frame<'a> {
        let (text, messages) = match frame.map(|t| (t, parse(t, &self.options))) {
            Ok((text, Ok(Incoming::Single(m)))) => (Some(text), vec![Ok(m)]),
            Ok((_, Ok(Incoming::Batch(items)))) => (None, items),
            Ok((_, Err(f))) | Err(f) => (None, vec![Err(f)]),
        };
        Frame { text, messages }
    }

    /// Takes an already classified message (from a batch, a test, another layer).
    pub fn accept(&mut self, message: Message) -> Received {
        match message {
            Message::Request(r) => {
                if self.pending.begin_incoming(&r.id).is_err() {
                    let e = ProtocolError::invalid_request(format!(
                        "request id {} is already in use by a request being served",
                        r.id
                    ));
                    let reply = Message::error(r.id.clone(), e).to_text();
                    return Received::DuplicateRequest { request: r, reply };
                }
                Received::Request(r)
            }
            Message::Notification(n) => Received::Notification(n),
            // An error with `id: null` (the peer could not read a request's id) settles
            // nothing: guessing which request it meant could answer the wrong one.
            Message::Response(r) => match self.pending.resolve(&r.id) {
                Matched::Answered(request) => Received::Response {
                    request,
                    outcome: r.outcome,
                },
                Matched::AlreadyAnswered => Received::Stray {
                    id: r.id,
                    outcome: r.outcome,
                    already_answered: true,
                },
                Matched::Unknown => Received::Stray {
                    id: r.id,
                    outcome: r.outcome,
                    already_answered: false,
                },
            },
        }
    }

    /// Requests past their deadline, removed from the table.
    pub fn expire(&mut self, now_ms: u64) -> Vec<Outgoing> {
        self.pending.expire(now_ms)
    }

    /// Withdraws one of our requests; a late answer becomes a `Stray`.
    pub fn cancel(&mut self, id: &Id) -> Option<Outgoing> {
        self.pending.cancel(id)
    }

    /// The connection closed: everything still pending, which will never be answered.
    pub fn close(&mut self) -> Vec<Outgoing> {
        self.pending.drain()
    }

    pub fn pending(&self) -> &PendingTable {
        &self.pending
    }

    pub fn pending_mut(&mut self) -> &mut PendingTable {
        &mut self.pending
    }
}

impl Received {
    /// A frame that could not be read, with the error response to send back when one may go.
    pub fn invalid(failure: ParseFailure) -> Received {
        let reply = failure
            .answerable
            .then(|| Message::Response(failure.to_response()).to_text());
        Received::Invalid { failure, reply }
    }
}

impl crate::json::Json for Outbound {
    fn write_json(&self, out: &mut String) {
        let mut m = crate::json::Members::open(out);
        m.some("id", &self.id)
            .some("method", &self.method)
            .member("text", &self.text)
            .close();
    }
}
