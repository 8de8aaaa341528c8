//! `parseMessage` and `serializeMessage`: the JSON-RPC envelope for JS.

use super::convert::{from_js, to_js, to_js_error, to_js_exact_ids};
use crate::json::{Map, Value};
use crate::jsonrpc::{
    self, object, Id, Incoming, Message, ParseFailure, ParseOptions, ProtocolError,
};
use wasm_bindgen::prelude::*;

/// Classifies one frame of text as a JSON-RPC 2.0 message.
///
/// Returns `{ kind, id?, method?, params?, result?, error? }` with `kind` one of
/// `"request" | "notification" | "response" | "error" | "batch"` (a batch has `items`,
/// each a message or `{ kind: "invalid", id, error }`). Throws an `Error` with `code`
/// (-32700 or -32600), `data` (the reason) and `id` (when it could be read).
#[wasm_bindgen(js_name = parseMessage)]
pub fn parse_message(text: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let opts = parse_options(&options)?;
    match jsonrpc::parse(text, &opts) {
        Ok(Incoming::Single(m)) => Ok(to_js_exact_ids(&view(&m))),
        Ok(Incoming::Batch(items)) => {
            let items: Vec<Value> = items
                .iter()
                .map(|r| match r {
                    Ok(m) => view(m),
                    Err(f) => object! { "kind": "invalid", "id": &f.id, "error": &f.error },
                })
                .collect();
            Ok(to_js(&object! { "kind": "batch", "items": items }))
        }
        Err(failure) => Err(failure_to_js(&failure)),
    }
}

/// Builds the exact JSON-RPC 2.0 text for a message given as `{ id?, method?, params?,
/// result?, error? }` (the same shape `parseMessage` returns). Throws -32600 when the
/// object is not a valid message.
#[wasm_bindgen(js_name = serializeMessage)]
pub fn serialize_message(message: JsValue) -> Result<String, JsValue> {
    let Some(Value::Object(mut obj)) = from_js(&message)? else {
        return Err(to_js_error(&ProtocolError::invalid_request(
            "a message must be an object",
        )));
    };
    obj.remove("kind");
    obj.insert("jsonrpc".into(), Value::from("2.0"));
    match jsonrpc::message_from_value(Value::Object(obj), &ParseOptions::default()) {
        Ok(m) => Ok(m.to_text()),
        Err(f) => Err(failure_to_js(&f)),
    }
}

fn parse_options(options: &JsValue) -> Result<ParseOptions, JsValue> {
    let mut opts = ParseOptions::default();
    if let Some(Value::Object(o)) = from_js(options)? {
        if let Some(b) = o.get("allowBatch").and_then(Value::as_bool) {
            opts.allow_batch = b;
        }
        if let Some(b) = o.get("allowNullId").and_then(Value::as_bool) {
            opts.allow_null_id = b;
        }
    }
    Ok(opts)
}

fn failure_to_js(f: &ParseFailure) -> JsValue {
    let err = to_js_error(&f.error);
    let id = if f.id == Id::Null {
        JsValue::NULL
    } else {
        to_js(&f.id.to_value())
    };
    let _ = js_sys::Reflect::set(&err, &"id".into(), &id);
    err
}

/// The JS view of a message: its kind and its fields.
fn view(m: &Message) -> Value {
    let mut o = Map::new();
    match m {
        Message::Request(r) => {
            o.insert("kind".into(), "request".into());
            o.insert("id".into(), r.id.to_value());
            o.insert("method".into(), r.method.as_str().into());
            if let Some(p) = &r.params {
                o.insert("params".into(), p.clone());
            }
        }
        Message::Notification(n) => {
            o.insert("kind".into(), "notification".into());
            o.insert("method".into(), n.method.as_str().into());
            if let Some(p) = &n.params {
                o.insert("params".into(), p.clone());
            }
        }
        Message::Response(r) => {
            o.insert("id".into(), r.id.to_value());
            match &r.outcome {
                Ok(result) => {
                    o.insert("kind".into(), "response".into());
                    o.insert("result".into(), result.clone());
                }
                Err(e) => {
                    o.insert("kind".into(), "error".into());
                    o.insert("error".into(), e.to_value());
                }
            }
        }
    }
    Value::Object(o)
}
