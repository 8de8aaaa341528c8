//! An event-stream reader for JS drivers that read Server-Sent Events themselves (ACP over
//! HTTP, js/acp-http.js): the core's decoder, with its limit, and the reconnection floor.

use crate::sse::{SseDecoder, MIN_RETRY_MS};
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
    /// The messages the chunk completed (the data of each `message` event that has data),
    /// each after the one before and a CR, which no data holds (a CR ends an event's line):
    /// given as they came, not escaped into JSON for JS to read back. `undefined` once one
    /// event outgrew the limit (the stream is then unreadable).
    pub fn feed(&mut self, chunk: &str) -> JsValue {
        let Ok(events) = self.inner.feed(chunk) else {
            return JsValue::UNDEFINED;
        };
        let mut texts = String::new();
        for e in events {
            if e.event == "message" && !e.data.is_empty() {
                if !texts.is_empty() {
                    texts.push('\r');
                }
                texts.push_str(&e.data);
            }
        }
        JsValue::from_str(&texts)
    }
    /// The least wait before a reconnection, whatever a server asks: no busy loop.
    #[wasm_bindgen(js_name = minRetryMs)]
    pub fn min_retry_ms() -> f64 {
        MIN_RETRY_MS as f64
    }
}
