//! `AppsValidator`: the frames of an MCP Apps bridge (View ↔ Host), each judged as it
//! crosses: `new AppsValidator({ mcpVersion }).validateFrame(frame, { from: "view" })` is
//! `null` or the JSON-RPC error to answer with (`{ code, message, data: { issues }, id? }`).

use super::convert::to_js_error;
use crate::json::Value;
use crate::jsonrpc::ProtocolError;
use crate::schema::apps::{Bridge, Refusal, Side, PARSE_ERROR, VERSION};
use crate::schema::{codes, Issue, Limits, Severity};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct AppsValidator {
    bridge: Bridge,
    mcp_version: String,
}

fn invalid(message: String) -> JsValue {
    to_js_error(&ProtocolError::invalid_params(message))
}

/// An option of a plain options object (`undefined` where there is none).
fn option(options: &JsValue, name: &str) -> JsValue {
    if options.is_object() {
        js_sys::Reflect::get(options, &name.into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

fn count(options: &JsValue, name: &str, default: usize) -> Result<usize, JsValue> {
    let v = option(options, name);
    if v.is_undefined() {
        return Ok(default);
    }
    match v.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(n.min(usize::MAX as f64) as usize),
        _ => Err(invalid(format!(
            "{name} must be a whole number of at least 0"
        ))),
    }
}

fn side(options: &JsValue) -> Result<Side, JsValue> {
    match option(options, "from").as_string().as_deref() {
        Some("view") => Ok(Side::View),
        Some("host") => Ok(Side::Host),
        _ => Err(invalid(
            "validateFrame(frame, { from }): from must be \"view\" or \"host\"".into(),
        )),
    }
}

fn to_js(r: &Refusal) -> JsValue {
    // Written as JSON text and parsed once on the JS side: the issues and the message by the
    // serializer to text the Validator uses already, the id as it came (no value serializer).
    let issues = crate::json::text(&r.issues);
    let message = crate::json::text(&r.message);
    let id =
        r.id.as_ref()
            .map(|v| format!(",\"id\":{}", crate::json::text(v)))
            .unwrap_or_default();
    let text = format!(
        "{{\"code\":{},\"message\":{message},\"data\":{{\"issues\":{issues}}}{id}}}",
        r.code
    );
    super::convert::parsed(&text)
}

#[wasm_bindgen]
impl AppsValidator {
    /// `{ mcpVersion, maxBytes?, maxDepth? }`: the MCP version the host speaks with the
    /// View's server (its proxied messages are judged by it), and the bounds of a frame.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<AppsValidator, JsValue> {
        let Some(mcp_version) = option(&options, "mcpVersion").as_string() else {
            return Err(invalid(
                "new AppsValidator({ mcpVersion }): mcpVersion is required, the MCP version the host speaks with the server (\"2025-11-25\")".into(),
            ));
        };
        let d = Limits::default();
        let limits = Limits {
            max_bytes: count(&options, "maxBytes", d.max_bytes)?,
            max_depth: count(&options, "maxDepth", d.max_depth)?,
        };
        let known = crate::schema::versions(crate::schema::Protocol::Mcp);
        let bridge = Bridge::new(&mcp_version, limits)
            .filter(|_| known.contains(&mcp_version.as_str()))
            .ok_or_else(|| {
                invalid(format!(
                    "no MCP rules for version {}; known: {}",
                    crate::json::text(&mcp_version),
                    crate::text::join(known, ", ")
                ))
            })?;
        Ok(AppsValidator {
            bridge,
            mcp_version,
        })
    }

    /// Judges one frame (JSON text, or the message object postMessage delivered) sent by
    /// `from` ("view" or "host"): `null` when it may pass, else the JSON-RPC error for it.
    #[wasm_bindgen(js_name = validateFrame)]
    pub fn validate_frame(&mut self, frame: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let from = side(&options)?;
        let text = match frame.as_string() {
            Some(t) => t,
            // A structured-clone message: written as JSON (a cycle, a BigInt, `undefined`
            // or a function is no JSON-RPC message).
            None => match js_sys::JSON::stringify(&frame)
                .ok()
                .and_then(|s| s.as_string())
            {
                Some(t) if frame.is_object() => t,
                _ => {
                    let r = Refusal {
                        code: PARSE_ERROR,
                        message: "Parse error: the frame cannot be written as JSON".into(),
                        issues: vec![Issue {
                            path: String::new(),
                            code: codes::INVALID_JSON,
                            message: "the frame cannot be written as JSON".into(),
                            severity: Severity::Error,
                        }],
                        id: Some(Value::Null),
                    };
                    return Ok(to_js(&r));
                }
            },
        };
        Ok(match self.bridge.check(&text, from) {
            None => JsValue::NULL,
            Some(r) => to_js(&r),
        })
    }

    /// How many requests `from` ("view" or "host") sent that are not answered yet.
    #[wasm_bindgen(js_name = inFlight)]
    pub fn in_flight(&self, from: JsValue) -> Result<u32, JsValue> {
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"from".into(), &from)?;
        Ok(self.bridge.in_flight(side(&options)?) as u32)
    }

    /// Forgets the requests in flight (the View was reloaded or torn down).
    pub fn reset(&mut self) {
        self.bridge.reset();
    }

    /// The MCP Apps version the rules describe ("2026-01-26").
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> String {
        VERSION.into()
    }

    /// The MCP version proxied messages are judged by.
    #[wasm_bindgen(getter, js_name = mcpVersion)]
    pub fn mcp_version(&self) -> String {
        self.mcp_version.clone()
    }
}
