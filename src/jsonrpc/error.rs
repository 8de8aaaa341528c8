//! `ProtocolError`: the one error value of the core. Every failure, local or remote,
//! is a code, a message and optional data, exactly as JSON-RPC 2.0 carries it.

use super::{codes, object};
use crate::json::Value;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A JSON-RPC error: what goes on the wire in `"error"`, and what the JS binding throws.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProtocolError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ProtocolError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ProtocolError {
            code,
            message: message.into(),
            data: None,
        }
    }
    /// As it is serialized: `code`, `message`, and `data` when there is some.
    pub fn to_value(&self) -> Value {
        let mut m = crate::json::Map::new();
        m.insert("code".into(), self.code.into());
        m.insert("message".into(), self.message.as_str().into());
        if let Some(data) = &self.data {
            m.insert("data".into(), data.clone());
        }
        Value::Object(m)
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, "Parse error").with_data(Value::String(detail.to_string()))
    }
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, "Invalid Request").with_data(Value::String(detail.into()))
    }
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
        .with_data(object! { "method": method })
    }
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(
            codes::INVALID_PARAMS,
            format!("Invalid params: {}", detail.into()),
        )
    }
    pub fn internal_error(detail: impl Into<String>) -> Self {
        Self::new(
            codes::INTERNAL_ERROR,
            format!("Internal error: {}", detail.into()),
        )
    }
    pub fn timeout(method: &str, after_ms: u64) -> Self {
        Self::new(
            codes::TIMEOUT,
            format!("Request {method} timed out after {after_ms} ms"),
        )
        .with_data(object! { "method": method, "timeoutMs": after_ms })
    }
    pub fn local_refusal(message: impl Into<String>) -> Self {
        Self::new(codes::LOCAL_REFUSAL, message)
    }
    pub fn connection_closed(method: &str) -> Self {
        Self::new(
            codes::CONNECTION_CLOSED,
            format!("Connection closed before {method} was answered"),
        )
        .with_data(object! { "method": method })
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ProtocolError {}

impl crate::json::Json for ProtocolError {
    fn write_json(&self, out: &mut String) {
        let mut m = crate::json::Members::open(out);
        m.member("code", &self.code)
            .member("message", &self.message)
            .some("data", &self.data)
            .close();
    }
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn to_value_is_what_serde_writes() {
        let plain = ProtocolError::new(-32601, "Method not found: x");
        let data = plain
            .clone()
            .with_data(serde_json::json!({"a": [1.5, null]}));
        let null = plain.clone().with_data(Value::Null);
        for e in [plain, data, null] {
            assert_eq!(e.to_value(), serde_json::to_value(&e).unwrap());
            let text = |v: &Value| v.to_string();
            assert_eq!(text(&e.to_value()), serde_json::to_string(&e).unwrap());
        }
    }
}
