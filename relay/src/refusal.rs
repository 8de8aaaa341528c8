//! How the HTTP endpoints refuse: an HTTP status with a JSON-RPC error (no id) as the body.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Why a request is refused: the status and a JSON-RPC error (id null) as the body.
pub struct Refused(pub StatusCode, pub i64, pub String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        // No `id`: MCP's RequestId is never null; an error about no request in particular has none.
        let body = json!({ "jsonrpc": "2.0", "error": { "code": self.1, "message": self.2 } });
        let mut r = (self.0, body.to_string()).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        r
    }
}

/// A refusal with Invalid Request (-32600), the code of most.
pub fn refused(status: StatusCode, message: impl Into<String>) -> Response {
    Refused(status, -32600, message.into()).into_response()
}
