//! The JSON-RPC 2.0 envelope: classify any text as request, notification, response or
//! batch, or say precisely why it is not one. `params` and `result` stay raw JSON values
//! so the protocol layers validate them lazily, by method.
// A ParseFailure carries the error response to send back (an id and a ProtocolError), so
// it is large; it is built only on the cold path, where boxing would add an allocation for no gain.
#![allow(clippy::result_large_err)]

use super::envelope::{self, Shape};
use super::{Id, ProtocolError};
use crate::json::tape::{Kind, Tape};
use crate::json::{Map, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub id: Id,
    pub method: String,
    pub params: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    pub method: String,
    pub params: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub id: Id,
    pub outcome: Result<Value, ProtocolError>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
}

/// What one frame of text holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    Single(Message),
    /// Each element judged on its own, as JSON-RPC 2.0 §6 asks.
    Batch(Vec<Result<Message, ParseFailure>>),
}

/// Why a text or value is not a JSON-RPC message, with the id when one could be read
/// (the error response must carry it, JSON-RPC 2.0 §5).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseFailure {
    pub error: ProtocolError,
    pub id: Id,
    /// Whether an error response may go back. Never to something shaped as a response
    /// (no `method`, a `result` or an `error`): a response is never answered.
    pub answerable: bool,
}

/// What the protocol layer allows; the envelope layer knows no protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Batches are legal only in MCP 2025-03-26; elsewhere they get -32600.
    pub allow_batch: bool,
    /// MCP forbids `null` request ids; ACP follows JSON-RPC, which allows them.
    pub allow_null_id: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            allow_batch: true,
            allow_null_id: true,
        }
    }
}

impl ParseFailure {
    fn invalid(detail: impl Into<String>, id: Id) -> Self {
        ParseFailure {
            error: ProtocolError::invalid_request(detail),
            id,
            answerable: true,
        }
    }
    /// The error response a server sends back for this failure.
    pub fn to_response(&self) -> Response {
        Response {
            id: self.id.clone(),
            outcome: Err(self.error.clone()),
        }
    }
}

/// A frame that arrived as bytes, as text. JSON-RPC text is UTF-8: anything else is a parse
/// error (-32700), answered as malformed JSON is.
pub fn frame_text(bytes: &[u8]) -> Result<&str, ParseFailure> {
    crate::json::utf8(bytes).map_err(|at| ParseFailure {
        error: ProtocolError::parse_error(format_args!("the frame is not UTF-8 (at byte {at})")),
        id: Id::Null,
        answerable: true,
    })
}

/// Parses one frame of text: the tape, then each message's envelope read on it
/// (`envelope::read`, the validator's reader too), and values built for what it carries.
pub fn parse(text: &str, opts: &ParseOptions) -> Result<Incoming, ParseFailure> {
    let tape = tape_of(text)?;
    if tape.node(0).kind != Kind::Arr {
        return message_at(&tape, 0, opts).map(Incoming::Single);
    }
    if !opts.allow_batch {
        return Err(ParseFailure::invalid(
            "batches are not allowed by this protocol version",
            Id::Null,
        ));
    }
    if tape.node(0).start == 0 {
        return Err(ParseFailure::invalid("a batch must not be empty", Id::Null));
    }
    Ok(Incoming::Batch(
        tape.items(0).map(|i| message_at(&tape, i, opts)).collect(),
    ))
}

/// Classifies an already parsed JSON value (written out and read as a frame).
pub fn parse_value(value: Value, opts: &ParseOptions) -> Result<Incoming, ParseFailure> {
    parse(&crate::json::text(&value), opts)
}

/// Classifies a value that must be a single message (an array is not one).
pub fn message_from_value(value: Value, opts: &ParseOptions) -> Result<Message, ParseFailure> {
    let text = crate::json::text(&value);
    message_at(&tape_of(&text)?, 0, opts)
}

/// The tape of a frame, or the -32700 that answers text that is not JSON.
fn tape_of(text: &str) -> Result<Tape<'_>, ParseFailure> {
    crate::json::tape_of(text).map_err(|e| ParseFailure {
        error: ProtocolError::parse_error(e),
        id: Id::Null,
        answerable: true,
    })
}

/// The message at node `n`, or why it is not one, with the id to answer to when one could be
/// read (a broken response is not answered).
fn message_at(tape: &Tape, n: usize, opts: &ParseOptions) -> Result<Message, ParseFailure> {
    let envelope::Envelope {
        id,
        response,
        shape,
    } = envelope::read(tape, n);
    let value = |i| crate::json::value_at(tape, i);
    let fail = |why: String, id: Id| ParseFailure {
        answerable: !response,
        ..ParseFailure::invalid(why, id)
    };
    // The id first, so that every later failure is answered to the right request.
    let id = match id.map(|i| Id::from_value(&value(i))).transpose() {
        Ok(id) => id,
        Err(why) => return Err(fail(why.into(), Id::Null)),
    };
    let shape = shape.map_err(|b| fail(b.why, id.clone().unwrap_or(Id::Null)))?;
    match (shape, id) {
        (Shape::Call { method, params }, id) => {
            let method = tape.str(tape.node(method)).into_owned();
            let params = params.map(value);
            Ok(match id {
                None => Message::Notification(Notification { method, params }),
                Some(Id::Null) if !opts.allow_null_id => {
                    return Err(fail(
                        "a request id must not be null in this protocol".into(),
                        Id::Null,
                    ))
                }
                Some(id) => Message::Request(Request { id, method, params }),
            })
        }
        (Shape::Response { outcome }, id) => {
            let id = id.unwrap_or(Id::Null);
            let outcome = match outcome {
                Ok(r) => Ok(value(r)),
                Err(e) => Err(error_object(value(e)).map_err(|why| fail(why, id.clone()))?),
            };
            Ok(Message::Response(Response { id, outcome }))
        }
    }
}

/// Reads a JSON-RPC error object (`code`, `message`, `data`).
pub fn error_object(error: Value) -> Result<ProtocolError, String> {
    let Value::Object(mut e) = error else {
        return Err(format!(
            "\"error\" must be an object, not {}",
            type_name(&error)
        ));
    };
    let code = match e.get("code") {
        Some(Value::Number(n)) => n.as_i64().ok_or("\"error.code\" must be an integer")?,
        Some(other) => {
            return Err(format!(
                "\"error.code\" must be an integer, not {}",
                type_name(other)
            ))
        }
        None => return Err("\"error.code\" is missing".into()),
    };
    let message = match e.remove("message") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(format!(
                "\"error.message\" must be a string, not {}",
                type_name(&other)
            ))
        }
        None => return Err("\"error.message\" is missing".into()),
    };
    Ok(ProtocolError {
        code,
        message,
        data: e.remove("data"),
    })
}

/// The JSON type name used in error messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Message {
    pub fn request(id: impl Into<Id>, method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Request(Request {
            id: id.into(),
            method: method.into(),
            params,
        })
    }
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Notification(Notification {
            method: method.into(),
            params,
        })
    }
    pub fn response(id: Id, result: Value) -> Self {
        Message::Response(Response {
            id,
            outcome: Ok(result),
        })
    }
    pub fn error(id: Id, error: ProtocolError) -> Self {
        Message::Response(Response {
            id,
            outcome: Err(error),
        })
    }

    /// The method name, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }

    /// The id, for requests and responses.
    pub fn id(&self) -> Option<&Id> {
        match self {
            Message::Request(r) => Some(&r.id),
            Message::Response(r) => Some(&r.id),
            Message::Notification(_) => None,
        }
    }

    /// Exactly valid JSON-RPC 2.0, members in the conventional order.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("jsonrpc".into(), Value::from("2.0"));
        match self {
            Message::Request(r) => {
                m.insert("id".into(), r.id.to_value());
                m.insert("method".into(), Value::from(r.method.as_str()));
                if let Some(p) = &r.params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Notification(n) => {
                m.insert("method".into(), Value::from(n.method.as_str()));
                if let Some(p) = &n.params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Response(r) => {
                m.insert("id".into(), r.id.to_value());
                match &r.outcome {
                    Ok(result) => m.insert("result".into(), result.clone()),
                    Err(e) => m.insert("error".into(), e.to_value()),
                };
            }
        }
        Value::Object(m)
    }

    /// The text of `to_value`, written from the message as it stands: its params or result
    /// are not copied into a tree of their own first.
    pub fn to_text(&self) -> String {
        let json = |v: &Value| crate::json::text(v);
        match self {
            Message::Request(Request { id, method, params }) => {
                call_text(Some(id), method, params.as_ref().map(json).as_deref())
            }
            Message::Notification(Notification { method, params }) => {
                call_text(None, method, params.as_ref().map(json).as_deref())
            }
            Message::Response(Response { id, outcome }) => match outcome {
                Ok(r) => response_text(id, "result", &json(r)),
                Err(e) => response_text(id, "error", &crate::json::text(e)),
            },
        }
    }
}

/// The start of a message's text: `jsonrpc`, and its id when it has one.
fn head(id: Option<&Id>) -> String {
    let mut out = String::from("{\"jsonrpc\":\"2.0\"");
    if let Some(id) = id {
        member(&mut out, "id", &crate::json::text(&id.to_value()));
    }
    out
}

/// A member whose value is JSON text already.
fn member(out: &mut String, name: &str, json: &str) {
    out.push_str(",\"");
    out.push_str(name);
    out.push_str("\":");
    out.push_str(json);
}

/// The text of a request (with an id) or a notification, its params JSON text already: put
/// in as they are, not read and written again.
pub fn call_text(id: Option<&Id>, method: &str, params: Option<&str>) -> String {
    let mut out = head(id);
    member(&mut out, "method", &crate::json::text(&method));
    if let Some(p) = params {
        member(&mut out, "params", p);
    }
    out.push('}');
    out
}

/// The text of a response, its `result` (or `error`) JSON text already.
pub fn response_text(id: &Id, name: &str, json: &str) -> String {
    let mut out = head(Some(id));
    member(&mut out, name, json);
    out.push('}');
    out
}

/// Serializes a batch (an array of messages).
pub fn batch_to_text(messages: &[Message]) -> String {
    let mut out = String::from("[");
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&m.to_text());
    }
    out.push(']');
    out
}
