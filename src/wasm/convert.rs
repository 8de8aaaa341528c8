//! Crossing the boundary. Structured values cross as JSON text and `JSON.parse` builds
//! the objects on the JS side: one native call instead of one per field, no
//! prototype setters (`__proto__` becomes an own key), and no refusal of large numbers.

use crate::json::Value;
use crate::jsonrpc::ProtocolError;
use wasm_bindgen::prelude::*;

/// A plain JS value built from JSON.
pub fn to_js(value: &Value) -> JsValue {
    parsed(&crate::json::text(value))
}

/// JSON text as the JS value it writes.
pub fn parsed(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap_or(JsValue::NULL)
}

/// Past 2^53 a JS number is not exact: a request id there crosses as a BigInt, so that it
/// can be answered (`respond` takes the BigInt back).
const MAX_SAFE: u64 = (1 << 53) - 1;

/// As `to_js`, with the `id` of the value (an event, an outbound) or of each element (a
/// list of events) exact: a BigInt where a number would round.
pub fn to_js_exact_ids(value: &Value) -> JsValue {
    let js = to_js(value);
    let fix = |v: &Value, target: &JsValue| {
        if let Some(n) = v
            .get("id")
            .and_then(Value::as_i64)
            .filter(|n| n.unsigned_abs() > MAX_SAFE)
        {
            let _ = js_sys::Reflect::set(target, &"id".into(), &JsValue::from(n));
        }
    };
    match value {
        Value::Array(items) => {
            let array: &js_sys::Array = js.unchecked_ref();
            for (i, item) in items.iter().enumerate() {
                fix(item, &array.get(i as u32));
            }
        }
        other => fix(other, &js),
    }
    js
}

/// A request id from JS: a string, a number, `null`, or a BigInt (an id past 2^53).
pub fn id_value(value: &JsValue) -> Result<Value, JsValue> {
    if value.is_bigint() {
        return i64::try_from(value.clone()).map(Value::from).map_err(|_| {
            to_js_error(&ProtocolError::invalid_params(
                "id is an integer out of the signed 64-bit range",
            ))
        });
    }
    Ok(from_js(value)?.unwrap_or(Value::Null))
}

/// Reads a plain JS value (options, params) as JSON. `undefined` reads as `None`.
pub fn from_js(value: &JsValue) -> Result<Option<Value>, JsValue> {
    let Some(text) = json_of(value)? else {
        return Ok(None);
    };
    crate::json::parse_value(&text)
        .map(Some)
        .map_err(|e| to_js_error(&ProtocolError::invalid_params(e.to_string())))
}

/// A plain JS value (params, a result) as the JSON text `JSON.stringify` writes: what goes
/// into a message as it is. `undefined` and `null` read as `None`.
pub fn json_of(value: &JsValue) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|t| t.as_string());
    text.map(Some).ok_or_else(|| {
        to_js_error(&ProtocolError::invalid_params(
            "value cannot be converted to JSON",
        ))
    })
}

/// A real JS `Error` carrying `code` and `data`, never a bare string.
pub fn to_js_error(error: &ProtocolError) -> JsValue {
    let js = js_sys::Error::new(&error.message);
    js.set_name("ProtocolError");
    let obj: &JsValue = js.as_ref();
    let _ = js_sys::Reflect::set(obj, &"code".into(), &JsValue::from_f64(error.code as f64));
    let data = error.data.as_ref().map(to_js).unwrap_or(JsValue::UNDEFINED);
    let _ = js_sys::Reflect::set(obj, &"data".into(), &data);
    js.into()
}
