//! An event-stream reader for JS drivers that read Server-Sent Events themselves (ACP over
//! HTTP, js/acp-http.js): the core's decoder, with its limit, and the reconnection floor.

use super::convert::to_js;
use crate::jsonrpc::object;
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
    pub fn feed(&mut self, chunk: &str) -> JsValue {
        to_js(&match self.inner.feed(chunk) {
            Ok(events) => {
                let events: Vec<_> = events
                    .into_iter()
                    .map(|e| object! { "event": e.event, "data": e.data, "id": e.id })
                    .collect();
                object! { "events": events }
            }
            Err(SseError::TooLarge { limit }) => object! { "tooLarge": limit as u64 },
        })
    }
    /// The reconnection time the stream asked for with `retry:` (undefined if none).
    #[wasm_bindgen(js_name = retryMs)]
    pub fn retry_ms(&self) -> Option<f64> {
        self.inner.retry_ms().map(|ms| ms as f64)
    }
    /// The least wait before a reconnection, whatever a server asks: no busy loop.
    #[wasm_bindgen(js_name = minRetryMs)]
    pub fn min_retry_ms() -> f64 {
        MIN_RETRY_MS as f64
    }
}
