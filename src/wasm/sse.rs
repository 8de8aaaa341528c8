//! An event-stream reader for JS drivers that read Server-Sent Events themselves (ACP over
//! HTTP, js/acp-http.js): the core's decoder, with its limit, and the reconnection floor.

use super::convert::parsed;
use crate::json::append;
use crate::sse::{SseDecoder, SseError, MIN_RETRY_MS};
use wasm_bindgen::prelude::*;

/// The most bytes one event may have, unless the driver says otherwise.
const DEFAULT_LIMIT: usize = 16 << 20;

#[wasm_bindgen(js_name = SseDecoder)]
pub struct Sse {
    inner: SseDecoder,
}

#[wasm_bindgen(js_class = SseDecoder)]
impl Sse {
    #[wasm_bindgen(constructor)]
    pub fn new(limit: Option<u32>) -> Sse {
        Sse {
            inner: SseDecoder::new(limit.map_or(DEFAULT_LIMIT, |l| l as usize)),
        }
    }
    /// `{ events: [{ event, data, id }] }` for the events the chunk completed, or
    /// `{ tooLarge: limit }` once one event outgrew the limit (the stream is then unreadable).
    /// Written as JSON text, parsed once by JS.
    pub fn feed(&mut self, chunk: &str) -> JsValue {
        let out = match self.inner.feed(chunk) {
            Ok(events) => {
                let mut out = String::from("{\"events\":[");
                for (i, e) in events.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str("{\"event\":");
                    append(&mut out, &e.event);
                    out.push_str(",\"data\":");
                    append(&mut out, &e.data);
                    out.push_str(",\"id\":");
                    append(&mut out, &e.id);
                    out.push('}');
                }
                out.push_str("]}");
                out
            }
            Err(SseError::TooLarge { limit }) => format!("{{\"tooLarge\":{limit}}}"),
        };
        parsed(&out)
    }
    /// The least wait before a reconnection, whatever a server asks: no busy loop.
    #[wasm_bindgen(js_name = minRetryMs)]
    pub fn min_retry_ms() -> f64 {
        MIN_RETRY_MS as f64
    }
}
