//! The four sans-IO session classes. Each wraps one core session; what they share is
//! generated once by `session_class!`. Time comes from `Date.now()`: the core stays
//! clock-free, the binding supplies the clock.

// What the classes of both protocols use (also inside `session_class!`, which names them).
pub(super) use super::convert::{from_js, id_value, json_of, to_js_error, to_js_exact_ids};
pub(super) use crate::json::Value;
pub(super) use crate::jsonrpc::{object, serialized, Id, Outbound, ProtocolError};
use crate::options::FromOptions;
use wasm_bindgen::prelude::*;

pub(super) fn now() -> u64 {
    js_sys::Date::now() as u64
}

/// Events and results as JS values: written straight to text, unless the text holds a number
/// long enough to be an id past 2^53 (then the ids are made exact, see `to_js_exact_ids`).
pub(super) fn js(value: &dyn crate::json::Json) -> JsValue {
    js_text(&crate::json::text(value))
}

/// An event, written as JSON text for JS to parse.
pub(super) trait WriteEvent: crate::json::Json + Sized {
    fn write(&self, out: &mut String) {
        crate::json::append(out, self);
    }
    /// Events JS can make from the frame it passed in, told by a number instead of text.
    fn by_reference(_events: &[Self]) -> Option<JsValue> {
        None
    }
}

/// A session's events as one JS array, parsed by JS from one text.
pub(super) fn events_js<E: WriteEvent>(list: &[E]) -> JsValue {
    if let Some(told) = E::by_reference(list) {
        return told;
    }
    let mut text = String::from("[");
    for (i, e) in list.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        e.write(&mut text);
    }
    text.push(']');
    js_text(&text)
}

/// JSON text as a JS value (ids past 2^53 kept exact).
fn js_text(text: &str) -> JsValue {
    if !may_hold_big_integer(text) {
        return super::convert::parsed(text);
    }
    crate::json::parse_value(text)
        .map(|v| to_js_exact_ids(&v))
        .unwrap_or(JsValue::NULL)
}

/// True when the text has a run of 16 or more digits (2^53 has 16). A loop over the bytes as a
/// slice: `str::bytes()` would call its iterator's `next` for every byte of every event's text.
pub(super) fn may_hold_big_integer(text: &str) -> bool {
    let mut run = 0;
    for &b in text.as_bytes() {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        if run >= 16 {
            return true;
        }
    }
    false
}

pub(super) fn fail(error: ProtocolError) -> JsValue {
    to_js_error(&error)
}

/// Options objects: absent means defaults; unknown or mistyped fields are a -32602 error.
pub(super) fn options<T: FromOptions + Default>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    match from_js(value)? {
        None => Ok(T::default()),
        Some(v) => T::from_options(&v).map_err(|e| {
            fail(ProtocolError::invalid_params(format!(
                "{what} options: {e}"
            )))
        }),
    }
}

pub(super) fn id_from(value: &JsValue) -> Result<Id, JsValue> {
    let v = id_value(value)?;
    Id::from_value(&v).map_err(|why| fail(ProtocolError::invalid_params(why)))
}

pub(super) fn error_from(value: &JsValue) -> Result<ProtocolError, JsValue> {
    let v = from_js(value)?.unwrap_or(Value::Null);
    let mut error = crate::jsonrpc::error_object(v)
        .map_err(|e| fail(ProtocolError::invalid_params(format!("error object: {e}"))))?;
    // `data: null` carries nothing: it is left out when sent.
    error.data = error.data.filter(|d| !d.is_null());
    Ok(error)
}

/// A frame for the transport as `{ id?, method?, text }`: the id and method through JSON (an id
/// past 2^53 exact), the text set as a string, not escaped into JSON to be parsed back (it is
/// nearly all of the object).
pub(super) fn outbound(result: Result<Outbound, ProtocolError>) -> Result<JsValue, JsValue> {
    let Outbound { id, method, text } = result.map_err(fail)?;
    let head = js(&Outbound {
        id,
        method,
        text: String::new(),
    });
    js_sys::Reflect::set(&head, &"text".into(), &JsValue::from_str(&text))?;
    Ok(head)
}

pub(super) fn text(result: Result<Outbound, ProtocolError>) -> Result<String, JsValue> {
    result.map(|o| o.text).map_err(fail)
}

/// What every class shares: answering, receiving, time, the method table.
macro_rules! session_class {
    ($class:ident, $name:literal, $note_close:ident) => {
        #[wasm_bindgen(js_class = $name)]
        impl $class {
            /// Sends a notification (gated and validated like everything else).
            pub fn notify(&mut self, method: &str, params: JsValue) -> Result<JsValue, JsValue> {
                let params = json_of(&params)?;
                outbound(self.inner.notify_text(method, params.as_deref()))
            }
            /// Answers an incoming request with a result; returns the text to send.
            pub fn respond(&mut self, id: JsValue, result: JsValue) -> Result<String, JsValue> {
                let result = json_of(&result)?.unwrap_or_else(|| "null".into());
                text(self.inner.respond_text(&id_from(&id)?, Ok(result)))
            }
            /// Answers an incoming request with an error `{ code, message, data? }`.
            #[wasm_bindgen(js_name = respondError)]
            pub fn respond_error(
                &mut self,
                id: JsValue,
                error: JsValue,
            ) -> Result<String, JsValue> {
                let error = error_from(&error)?;
                text(self.inner.respond(&id_from(&id)?, Err(error)))
            }
            /// Feeds one incoming frame; returns the events, including text to send back.
            pub fn receive(&mut self, text: &str) -> JsValue {
                let events = self.inner.receive(text, now());
                $note_close(&events, &mut self.close_error);
                events_js(&events)
            }
            /// Feeds one incoming frame as bytes (UTF-8; anything else is a parse error, -32700).
            #[wasm_bindgen(js_name = receiveBytes)]
            pub fn receive_bytes(&mut self, bytes: &[u8]) -> JsValue {
                let events = self.inner.receive_bytes(bytes, now());
                $note_close(&events, &mut self.close_error);
                events_js(&events)
            }
            /// Reports requests past their deadline.
            pub fn tick(&mut self) -> JsValue {
                events_js(&self.inner.tick(now()))
            }
            /// The transport closed: every pending request fails.
            pub fn close(&mut self) -> JsValue {
                events_js(&self.inner.close())
            }
            /// When `tick` should next run (ms since the epoch), if anything waits.
            #[wasm_bindgen(js_name = nextDeadline)]
            pub fn next_deadline(&self) -> Option<f64> {
                self.inner.next_deadline().map(|d| d as f64)
            }
            /// Every method of the protocol: enabled now or not, and why.
            pub fn methods(&self) -> JsValue {
                js(&self.inner.methods())
            }
        }
    };
}

/// The events of a call that only produced text to send.
pub(super) fn sent(text: String) -> JsValue {
    js(&[object! { "type": "send", "text": text }])
}

pub(crate) use session_class;
