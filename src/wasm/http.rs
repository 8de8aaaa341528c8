//! The Streamable HTTP client state for js/http.js, which makes the requests. Plans and
//! outcomes cross as JSON text that JS parses once, written here directly (no tree of values
//! on the way out); the decisions are the core's (`mcp::http`).

use super::convert::{id_value, parsed};
use crate::json::text;
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
fn plan(p: Plan) -> JsValue {
    let mut out = String::from("{\"stream\":");
    out.push_str(&text(&p.stream));
    out.push_str(",\"method\":");
    out.push_str(&text(p.method));
    out.push_str(",\"url\":");
    out.push_str(&text(&p.url));
    out.push_str(",\"headers\":{");
    for (i, (name, value)) in p.headers.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&text(name));
        out.push(':');
        out.push_str(&text(value));
    }
    out.push_str(if p.then_listen {
        "},\"thenListen\":true}"
    } else {
        "},\"thenListen\":false}"
    });
    parsed(&out)
}

fn texts(list: Vec<String>) -> JsValue {
    parsed(&text(&list))
}

/// `{ failed: [answers] }`.
fn failed(answers: &[String]) -> JsValue {
    parsed(&format!("{{\"failed\":{}}}", text(answers)))
}

#[wasm_bindgen(js_class = McpHttp)]
impl McpHttp {
    #[wasm_bindgen(constructor)]
    pub fn new(limit: Option<u32>) -> McpHttp {
        McpHttp {
            inner: HttpClient::new(limit.map_or(DEFAULT_LIMIT, |l| l as usize)),
        }
    }
    #[wasm_bindgen(js_name = sessionId)]
    pub fn session_id(&self) -> Option<String> {
        self.inner.session_id().map(str::to_string)
    }
    pub fn skips(&self, text: &str) -> bool {
        self.inner.skips(text)
    }
    pub fn post(&mut self, text: &str) -> JsValue {
        plan(self.inner.post(text))
    }
    pub fn listen(&mut self) -> JsValue {
        plan(self.inner.listen())
    }
    pub fn resume(&mut self, stream: u32) -> JsValue {
        self.inner.resume(stream).map_or(JsValue::NULL, plan)
    }
    #[wasm_bindgen(js_name = legacyOpen)]
    pub fn legacy_open(&mut self, stream: u32) -> JsValue {
        plan(self.inner.legacy_open(stream))
    }
    #[wasm_bindgen(js_name = endSession)]
    pub fn end_session(&mut self) -> JsValue {
        self.inner.end_session().map_or(JsValue::NULL, plan)
    }
    /// "json", "events", "empty", "failed" or "legacy".
    pub fn response(
        &mut self,
        stream: u32,
        status: u16,
        content_type: Option<String>,
        session_id: Option<String>,
    ) -> String {
        match self.inner.response(
            stream,
            status,
            content_type.as_deref(),
            session_id.as_deref(),
        ) {
            Reply::Json => "json",
            Reply::Events => "events",
            Reply::Empty => "empty",
            Reply::Failed => "failed",
            Reply::Legacy => "legacy",
        }
        .to_string()
    }
    pub fn body(&mut self, stream: u32, text: &str) -> JsValue {
        texts(self.inner.body(stream, text))
    }
    /// `{ items: [{ text, eventId } | { endpoint }] }`, or `{ failed: [answers] }`.
    pub fn chunk(&mut self, stream: u32, text: &str) -> JsValue {
        match self.inner.chunk(stream, text) {
            Ok(items) => {
                let mut out = String::from("{\"items\":[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    match item {
                        Item::Message { text: t, event_id } => {
                            out.push_str("{\"text\":");
                            out.push_str(&crate::json::text(t));
                            out.push_str(",\"eventId\":");
                            out.push_str(&crate::json::text(event_id));
                        }
                        Item::Endpoint(url) => {
                            out.push_str("{\"endpoint\":");
                            out.push_str(&crate::json::text(url));
                        }
                    }
                    out.push('}');
                }
                out.push_str("]}");
                parsed(&out)
            }
            Err(answers) => failed(&answers),
        }
    }
    #[wasm_bindgen(js_name = takeReplay)]
    pub fn take_replay(&mut self) -> JsValue {
        texts(self.inner.take_replay())
    }
    /// `{}` when done, `{ resumeAfterMs }`, or `{ failed: [answers] }`.
    pub fn end(&mut self, stream: u32, broken: bool) -> JsValue {
        match self.inner.end(stream, broken) {
            End::Done => parsed("{}"),
            End::Resume { after_ms } => parsed(&format!("{{\"resumeAfterMs\":{after_ms}}}")),
            End::Failed(answers) => failed(&answers),
        }
    }
    /// The app gave up on request `id`; true when its stream's HTTP request may be aborted.
    pub fn abandon(&mut self, stream: u32, id: JsValue) -> bool {
        let id = id_value(&id).ok().and_then(|v| Id::from_value(&v).ok());
        id.is_some_and(|id| self.inner.abandon(stream, &id))
    }
    /// Warnings since the last call (tools left out of a `tools/list` answer, and why).
    #[wasm_bindgen(js_name = takeWarnings)]
    pub fn take_warnings(&mut self) -> JsValue {
        texts(self.inner.take_warnings())
    }
    pub fn failed(&mut self, stream: u32, status: u16, body: &str) -> JsValue {
        texts(self.inner.failed(stream, status, body))
    }
}
