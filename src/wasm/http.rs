//! The Streamable HTTP client state for js/http.js, which makes the requests. Plans and
//! outcomes cross as JSON text that JS parses once, written here directly (no tree of values
//! on the way out); the decisions are the core's (`mcp::http`).

use crate::json::{append, text};
use crate::jsonrpc::Id;
use crate::mcp::http::{End, HttpClient, Item, Plan, Reply};
use wasm_bindgen::prelude::*;

/// The most bytes one body or one event may have, unless the driver says otherwise.
const DEFAULT_LIMIT: usize = 16 << 20;

#[wasm_bindgen(js_name = McpHttp)]
pub struct McpHttp {
    inner: HttpClient,
}

/// `{ stream, method, url, headers: { name: value }, thenListen }`.
fn plan(p: Plan) -> String {
    let mut out = String::from("{\"stream\":");
    append(&mut out, &p.stream);
    out.push_str(",\"method\":");
    append(&mut out, &p.method);
    out.push_str(",\"url\":");
    append(&mut out, &p.url);
    out.push_str(",\"headers\":{");
    for (i, (name, value)) in p.headers.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        append(&mut out, name);
        out.push(':');
        append(&mut out, value);
    }
    out.push_str(if p.then_listen {
        "},\"thenListen\":true}"
    } else {
        "},\"thenListen\":false}"
    });
    out
}

/// A body's messages, as a JSON array of their texts; one that is the body as JS gave it, the
/// common case, is told by `0` instead: written back, it would be escaped into a JSON string
/// here and unescaped by `JSON.parse` there, most of a large body's time.
fn body(messages: &[String], given: &str) -> String {
    let mut out = String::from("[");
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if m == given {
            out.push('0');
        } else {
            append(&mut out, m);
        }
    }
    out.push(']');
    out
}

fn maybe_plan(p: Option<Plan>) -> String {
    p.map_or_else(|| "null".into(), plan)
}

/// `{ failed: [answers] }`.
fn failed(answers: &[String]) -> String {
    format!("{{\"failed\":{}}}", text(&answers))
}

/// `{ items: [{ eventId } | { endpoint }] }`, or `{ failed: [answers] }`. A message's text is
/// not written into the JSON (escaped here and unescaped by `JSON.parse` there, it was most of
/// a large event's time): the texts follow the JSON, each after a CR, which neither ever holds
/// (CR ends an event's line, so no `data` has one, and the JSON writer escapes it), and
/// js/http.js gives them to the messages in order.
fn items(read: Result<Vec<Item>, Vec<String>>) -> String {
    let items = match read {
        Ok(items) => items,
        Err(answers) => return failed(&answers),
    };
    let mut out = String::from("{\"items\":[");
    let mut texts = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match item {
            Item::Message { text: t, event_id } => {
                out.push_str("{\"eventId\":");
                append(&mut out, event_id);
                texts.push('\r');
                texts.push_str(t);
            }
            Item::Endpoint(url) => {
                out.push_str("{\"endpoint\":");
                append(&mut out, url);
            }
        }
        out.push('}');
    }
    out.push_str("]}");
    out.push_str(&texts);
    out
}

/// `{}` when done, `{ resumeAfterMs }`, or `{ failed: [answers] }`.
fn end(end: End) -> String {
    match end {
        End::Done => "{}".into(),
        End::Resume { after_ms } => format!("{{\"resumeAfterMs\":{after_ms}}}"),
        End::Failed(answers) => failed(&answers),
    }
}

#[wasm_bindgen(js_class = McpHttp)]
impl McpHttp {
    #[wasm_bindgen(constructor)]
    pub fn new(limit: Option<u32>) -> McpHttp {
        McpHttp {
            inner: HttpClient::new(limit.map_or(DEFAULT_LIMIT, |l| l as usize)),
        }
    }

    /// Step `op` of the driver (js/http.js names them: `steps`), with what it takes of
    /// `stream`, `status` and the texts `a` and `b`; its outcome as JSON text. One entry for
    /// all: an export each cost the module and the glue a shim apiece.
    pub fn step(
        &mut self,
        op: u8,
        stream: u32,
        status: u16,
        a: Option<String>,
        b: Option<String>,
    ) -> String {
        let h = &mut self.inner;
        let a = a.as_deref();
        let t = a.unwrap_or("");
        match op {
            0 => text(&h.session_id()),
            1 => text(&h.skips(t)),
            2 => plan(h.post(t)),
            3 => plan(h.listen()),
            4 => maybe_plan(h.resume(stream)),
            5 => plan(h.legacy_open(stream)),
            6 => maybe_plan(h.end_session()),
            // "json", "events", "empty", "failed" or "legacy".
            7 => text(&match h.response(stream, status, a, b.as_deref()) {
                Reply::Json => "json",
                Reply::Events => "events",
                Reply::Empty => "empty",
                Reply::Failed => "failed",
                Reply::Legacy => "legacy",
            }),
            8 => body(&h.body(stream, t), t),
            9 => items(h.chunk(stream, t)),
            10 => text(&h.take_replay()),
            // `status` 1: the stream broke (a network error rather than its end).
            11 => end(h.end(stream, status == 1)),
            // The app gave up on request `a` (its id as JSON text): true when the stream owes
            // nothing else, so that its HTTP request may be aborted.
            12 => text(
                &crate::json::value_of(t)
                    .and_then(|v| Id::from_value(&v).ok())
                    .is_some_and(|id| h.abandon(stream, &id)),
            ),
            // Tools left out of a `tools/list` answer since the last call, and why.
            13 => text(&h.take_warnings()),
            14 => text(&h.failed(stream, status, t)),
            _ => "null".into(),
        }
    }
}
