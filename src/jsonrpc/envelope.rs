//! The envelope of one JSON-RPC 2.0 message, read on the tape by one routine: the endpoint
//! builds the message from what it finds, the validator reports what breaks it.

use crate::json::tape::{Kind, Tape};

/// What a message is, by its envelope (node indices; the last of a repeated name counts).
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// A request (with `id`) or a notification.
    Call {
        method: usize,
        params: Option<usize>,
    },
    /// A response (it has an `id`): its `result` (`Ok`) or its `error` (`Err`).
    Response { outcome: Result<usize, usize> },
}

/// What breaks an envelope: the member it is about (`None`: the message as a whole) and why.
#[derive(Debug)]
pub struct Breach {
    pub at: Option<&'static str>,
    pub why: String,
}

/// One message's envelope, read.
#[derive(Debug)]
pub struct Envelope {
    /// The `id`: there even when the envelope breaks, so that the breach can be answered to it.
    pub id: Option<usize>,
    /// No `method`, and a `result` or an `error`: a response, if a broken one (which is never
    /// answered: an answer to an answer could go back and forth).
    pub response: bool,
    /// What the message is, or the first breach in this order: not an object; `jsonrpc`; then
    /// a call (`method` a string, no `result` or `error`, `params` structured) or a response
    /// (an `id`, one of `result` and `error`). What the members hold beyond that (the id's
    /// type, the error object, the params) is each reader's own: the endpoint's rules and the
    /// schemas'.
    pub shape: Result<Shape, Breach>,
}

/// Reads the envelope of the message at node `n`.
pub fn read(tape: &Tape, n: usize) -> Envelope {
    if tape.node(n).kind != Kind::Obj {
        let why = format!(
            "a message must be a JSON object, not {}",
            kind_name(tape, n)
        );
        let shape = Err(Breach { at: None, why });
        return Envelope {
            id: None,
            response: false,
            shape,
        };
    }
    let mut members = [None; 6];
    for (k, v) in tape.members(n) {
        // Byte-string patterns are matched byte by byte (no `memcmp` call).
        let slot = tape.with_bytes(tape.node(k), |key| match key {
            b"jsonrpc" => Some(0),
            b"id" => Some(1),
            b"method" => Some(2),
            b"params" => Some(3),
            b"result" => Some(4),
            b"error" => Some(5),
            _ => None,
        });
        if let Some(i) = slot {
            members[i] = Some(v);
        }
    }
    let [jsonrpc, id, method, params, result, error] = members;
    Envelope {
        id,
        response: method.is_none() && (result.is_some() || error.is_some()),
        shape: shape(tape, jsonrpc, id, method, params, result, error),
    }
}

fn shape(
    tape: &Tape,
    jsonrpc: Option<usize>,
    id: Option<usize>,
    method: Option<usize>,
    params: Option<usize>,
    result: Option<usize>,
    error: Option<usize>,
) -> Result<Shape, Breach> {
    let breach = |at, why: String| Err(Breach { at, why });
    match jsonrpc {
        Some(v) if tape.node(v).kind == Kind::Str && tape.reads(tape.node(v), b"2.0") => {}
        Some(v) => {
            let shown = match tape.node(v).kind {
                Kind::Str => crate::json::text(&tape.str(tape.node(v))),
                _ => kind_name(tape, v).into(),
            };
            return breach(
                Some("jsonrpc"),
                format!("\"jsonrpc\" must be \"2.0\", not {shown}"),
            );
        }
        None => return breach(Some("jsonrpc"), "\"jsonrpc\": \"2.0\" is missing".into()),
    }
    let Some(method) = method else {
        if id.is_none() {
            return breach(
                None,
                "neither a request (no \"method\") nor a response (no \"id\")".into(),
            );
        }
        return match (result, error) {
            (Some(r), None) => Ok(Shape::Response { outcome: Ok(r) }),
            (None, Some(e)) => Ok(Shape::Response { outcome: Err(e) }),
            (Some(_), Some(_)) => breach(
                None,
                "a response must not carry both \"result\" and \"error\"".into(),
            ),
            (None, None) => breach(None, "a response needs \"result\" or \"error\"".into()),
        };
    };
    if tape.node(method).kind != Kind::Str {
        let why = format!(
            "\"method\" must be a string, not {}",
            kind_name(tape, method)
        );
        return breach(Some("method"), why);
    }
    if result.is_some() || error.is_some() {
        return breach(
            None,
            "a request or notification must not carry \"result\" or \"error\"".into(),
        );
    }
    if let Some(p) = params.filter(|&p| !matches!(tape.node(p).kind, Kind::Obj | Kind::Arr)) {
        let why = format!(
            "\"params\" must be an object or an array, not {}",
            kind_name(tape, p)
        );
        return breach(Some("params"), why);
    }
    Ok(Shape::Call { method, params })
}

/// The JSON type of node `n` as the messages name it.
pub fn kind_name(tape: &Tape, n: usize) -> &'static str {
    let node = tape.node(n);
    match node.kind {
        Kind::Null => "null",
        Kind::Bool => "a boolean",
        Kind::Num if node.flag => "a fractional number",
        Kind::Num => "an integer",
        Kind::Str => "a string",
        Kind::Arr => "an array",
        Kind::Obj => "an object",
    }
}
