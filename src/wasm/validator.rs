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

    /// Validates one message's text. `server_to_client` is its direction; `in_reply_to`, for a
    /// response, the method it answers. Returns nothing when there is no issue (the common
    /// case costs no allocation on the JS side), else the issues as JSON text. The public
    /// `validate` (js/api.js) builds the report from that.
    #[wasm_bindgen(js_name = validateText)]
    pub fn validate_text(&self, text: &str, server_to_client: bool, in_reply_to: Option<String>) -> Option<String> {
        let direction = if server_to_client { Direction::ServerToClient } else { Direction::ClientToServer };
        let ctx = Context { protocol: self.protocol, version: &self.version, direction, in_reply_to: in_reply_to.as_deref() };
        let report = schema::validate_text(text, &ctx, &self.limits);
        (!report.issues.is_empty()).then(|| serde_json::to_string(&report.issues).unwrap_or_default())
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
