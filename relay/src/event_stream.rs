//! An answer that is an event stream (`text/event-stream`), as both HTTP endpoints send them.

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::accept::Lasting;

/// A 200 streaming `body`, never buffered by a proxy in between. With `lasting`, the
/// request may outlive the accept loop's deadline (the stream lasts as long as what it
/// carries).
pub fn response(body: Body, lasting: Option<&Lasting>) -> Response {
    if let Some(lasting) = lasting {
        lasting.grant();
    }
    let mut r = (StatusCode::OK, body).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}
