//! `ProtocolError`: the one error value of the core. Every failure, local or remote,
//! is a code, a message and optional data, exactly as JSON-RPC 2.0 carries it.

use super::object;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Error codes named by JSON-RPC 2.0 and by the protocols built on it.
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// ACP: the session or request was cancelled (`$/cancel_request`, `session/cancel`).
    pub const REQUEST_CANCELLED: i64 = -32800;
    /// ACP: authentication is required before this call.
    pub const AUTH_REQUIRED: i64 = -32000;
    /// ACP: a resource (file, session) was not found.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// MCP 2026-07-28 stateless era.
    pub const HEADER_MISMATCH: i64 = -32020;
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// MCP 2026-07-28 and the newest ACP v2 draft: the requested version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// agentwire's own, never sent on the wire: a request ran past its deadline.
    pub const TIMEOUT: i64 = -32001;
    /// agentwire's own, never sent on the wire: refused locally before sending
    /// (capability not negotiated, lifecycle, invalid outgoing message).
    pub const LOCAL_REFUSAL: i64 = -32099;
    /// agentwire's own: the connection closed while the request was pending.
    pub const CONNECTION_CLOSED: i64 = -32098;
    /// agentwire's own: an OAuth sign-in the server asked for failed (`data.step` names where).
    pub const AUTH_FAILED: i64 = -32096;
}

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
        ProtocolError { code, message: message.into(), data: None }
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, "Parse error")
            .with_data(Value::String(detail.to_string()))
    }
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, "Invalid Request")
            .with_data(Value::String(detail.into()))
    }
    pub fn method_not_found(method: &str) -> Self {
        Self::new(codes::METHOD_NOT_FOUND, format!("Method not found: {method}"))
            .with_data(object! { "method": method })
    }
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, format!("Invalid params: {}", detail.into()))
    }
    pub fn internal_error(detail: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, format!("Internal error: {}", detail.into()))
    }
    pub fn timeout(method: &str, after_ms: u64) -> Self {
        Self::new(codes::TIMEOUT, format!("Request {method} timed out after {after_ms} ms"))
            .with_data(object! { "method": method, "timeoutMs": after_ms })
    }
    pub fn local_refusal(message: impl Into<String>) -> Self {
        Self::new(codes::LOCAL_REFUSAL, message)
    }
    pub fn connection_closed(method: &str) -> Self {
        Self::new(codes::CONNECTION_CLOSED, format!("Connection closed before {method} was answered"))
            .with_data(object! { "method": method })
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ProtocolError {}
