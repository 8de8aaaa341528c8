//! `Validator`: message validation on its own, for any protocol version.

use super::convert::{from_js, to_js, to_js_error};
use crate::jsonrpc::ProtocolError;
use crate::schema::{self, Context, Direction, Limits, Protocol};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Validates messages of one protocol version:
/// `new Validator({ protocol: "acp", version: "1" }).validate(text, { direction, inReplyTo })`.
#[wasm_bindgen]
pub struct Validator {
    protocol: Protocol,
    version: String,
    limits: Limits,
}

fn invalid(message: String) -> JsValue {
    to_js_error(&ProtocolError::invalid_params(message))
}

#[wasm_bindgen]
impl Validator {
    /// Options: `{ protocol: "acp" | "mcp", version, maxBytes?, maxDepth? }`. The version of ACP
    /// may be given as a number or a string.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Validator, JsValue> {
        let o = from_js(&options)?.unwrap_or(Value::Null);
        let protocol = match o.get("protocol").and_then(Value::as_str) {
            Some("acp") => Protocol::Acp,
            Some("mcp") => Protocol::Mcp,
            other => return Err(invalid(format!("protocol must be \"acp\" or \"mcp\", not {other:?}"))),
        };
        let version = match o.get("version") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(invalid("version is required (ACP: 1 or 2; MCP: a date such as \"2025-11-25\")".into())),
        };
        if !schema::versions(protocol).iter().any(|v| *v == version) {
            let known = schema::versions(protocol).join(", ");
            return Err(invalid(format!("no rules for version {version:?}; known: {known}")));
        }
        let mut limits = Limits::default();
        if let Some(n) = o.get("maxBytes").and_then(Value::as_u64) {
            limits.max_bytes = n as usize;
        }
        if let Some(n) = o.get("maxDepth").and_then(Value::as_u64) {
            limits.max_depth = n as usize;
        }
        Ok(Validator { protocol, version, limits })
    }

    /// Validates one message (text, or an already parsed object) sent in `direction`
    /// (`"clientToServer"` | `"serverToClient"`); a response needs `inReplyTo`, the method
    /// it answers. Returns `{ ok, issues: [{ path, code, message, severity }] }`.
    pub fn validate(&self, message: JsValue, context: JsValue) -> Result<JsValue, JsValue> {
        // Read the two context fields directly: this runs once per message, so no JSON round trip.
        let field = |name: &str| js_sys::Reflect::get(&context, &name.into()).ok().and_then(|v| v.as_string());
        let direction = match field("direction").as_deref() {
            Some("clientToServer") | Some("clientToAgent") => Direction::ClientToServer,
            Some("serverToClient") | Some("agentToClient") => Direction::ServerToClient,
            other => return Err(invalid(format!("direction must be \"clientToServer\" or \"serverToClient\", not {other:?}"))),
        };
        let in_reply_to = field("inReplyTo");
        let ctx = Context { protocol: self.protocol, version: &self.version, direction, in_reply_to: in_reply_to.as_deref() };
        let report = match message.as_string() {
            Some(text) => schema::validate_text(&text, &ctx, &self.limits),
            None => match from_js(&message)? {
                Some(v) => schema::validate_value(&v, &ctx, &self.limits),
                None => return Err(invalid("nothing to validate".into())),
            },
        };
        if report.issues.is_empty() {
            // The common case, built without serializing.
            let out = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&out, &"ok".into(), &JsValue::TRUE);
            let _ = js_sys::Reflect::set(&out, &"issues".into(), &js_sys::Array::new());
            return Ok(out.into());
        }
        Ok(to_js(&serde_json::to_value(&report).unwrap_or(Value::Null)))
    }

    /// The versions this build has rules for.
    pub fn versions(protocol: &str) -> Result<JsValue, JsValue> {
        let p = match protocol {
            "acp" => Protocol::Acp,
            "mcp" => Protocol::Mcp,
            _ => return Err(invalid(format!("unknown protocol {protocol:?}"))),
        };
        Ok(to_js(&Value::from(schema::versions(p).to_vec())))
    }
}
