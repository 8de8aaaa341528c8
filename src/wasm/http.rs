//! The Streamable HTTP client state for js/http.js, which makes the requests. Plans and
//! outcomes cross as plain objects; the decisions are the core's (`mcp::http`).

use super::convert::{id_value, to_js};
use crate::jsonrpc::{object, Id};
use crate::mcp::http::{End, HttpClient, Item, Plan, Reply};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

/// The most bytes one body or one event may have, unless the driver says otherwise.
const DEFAULT_LIMIT: usize = 16 << 20;

#[wasm_bindgen(js_name = McpHttp)]
pub struct McpHttp {
    inner: HttpClient,
}

fn plan(p: Plan) -> JsValue {
    let headers: Map<String, Value> = p
        .headers
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::from(v)))
        .collect();
    to_js(
        &object! { "stream": u64::from(p.stream), "method": p.method, "url": p.url, "headers": Value::Object(headers), "thenListen": p.then_listen },
    )
}

fn texts(list: Vec<String>) -> JsValue {
    to_js(&Value::from(list))
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
    #[wasm_bindgen(js_name = protocolVersion)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version().map(str::to_string)
    }
    pub fn legacy(&self) -> bool {
        self.inner.legacy()
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
        let value = match self.inner.chunk(stream, text) {
            Ok(items) => {
                let items: Vec<Value> = items
                    .into_iter()
                    .map(|i| match i {
                        Item::Message { text, event_id } => {
                            object! { "text": text, "eventId": event_id }
                        }
                        Item::Endpoint(url) => object! { "endpoint": url },
                    })
                    .collect();
                object! { "items": items }
            }
            Err(failed) => object! { "failed": Value::from(failed) },
        };
        to_js(&value)
    }
    #[wasm_bindgen(js_name = takeReplay)]
    pub fn take_replay(&mut self) -> JsValue {
        texts(self.inner.take_replay())
    }
    /// `{}` when done, `{ resumeAfterMs }`, or `{ failed: [answers] }`.
    pub fn end(&mut self, stream: u32, broken: bool) -> JsValue {
        to_js(&match self.inner.end(stream, broken) {
            End::Done => object! {},
            End::Resume { after_ms } => object! { "resumeAfterMs": after_ms },
            End::Failed(answers) => object! { "failed": Value::from(answers) },
        })
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
