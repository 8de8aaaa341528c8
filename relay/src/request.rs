//! Reading an HTTP endpoint's request: what its `Accept` lists, and its body, bounded.

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::refusal::Refused;

/// Whether `Accept` lists every one of `kinds` (or `*/*`).
pub fn accepts(headers: &HeaderMap, kinds: &[&str]) -> bool {
    let accept = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",")
        .to_ascii_lowercase();
    kinds
        .iter()
        .all(|k| accept.contains(k) || accept.contains("*/*"))
}

/// The refusal of a body over `limit` (413).
pub fn too_big(limit: usize) -> Response {
    Refused(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        format!("Payload Too Large: a body may hold at most {limit} bytes"),
    )
    .into_response()
}

/// Whether the body's announced length is over `limit`.
pub fn too_long(headers: &HeaderMap, limit: usize) -> bool {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n > limit as u64)
}

/// A request body as text, at most `limit` bytes: refused (413) as soon as its announced
/// length or the bytes read pass it, so no more than `limit` is ever held.
pub async fn read_bounded(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
) -> Result<String, Response> {
    if too_long(headers, limit) {
        return Err(too_big(limit));
    }
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| too_big(limit))?;
    String::from_utf8(bytes.into()).map_err(|_| {
        Refused(
            StatusCode::BAD_REQUEST,
            -32700,
            "Parse error: the body is not UTF-8".into(),
        )
        .into_response()
    })
}
