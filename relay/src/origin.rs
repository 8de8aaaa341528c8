//! The origin rule of the HTTP endpoints: a connection or session is usable only by requests
//! speaking for the origin that made it.

use axum::http::{header, HeaderMap};

/// What a browser's same-origin request speaks for when it carries no `Origin`.
const SAME_ORIGIN: &str = "\0same-origin";

/// The origin a request speaks for: its `Origin`; none for a client that is not a browser.
/// A browser leaves `Origin` out of a same-origin GET (its event stream) but says
/// `Sec-Fetch-Site: same-origin`, a header no page can set: such a request comes from a page
/// of the endpoint's own origin (the relay's, or a server in front of it).
pub fn asking_origin(headers: &HeaderMap) -> Option<String> {
    match headers.get(header::ORIGIN) {
        Some(o) => o.to_str().ok().map(str::to_ascii_lowercase),
        None => headers
            .get("sec-fetch-site")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"same-origin"))
            .then(|| SAME_ORIGIN.to_string()),
    }
}

/// Whether a request speaking for `asking` may use what a request speaking for `made`
/// started: the same origin, or a browser's same-origin request on what a page made (another
/// page's request always names its origin, so it cannot pass as this one).
pub fn origin_admits(made: Option<&str>, asking: Option<&str>) -> bool {
    made == asking || (asking == Some(SAME_ORIGIN) && made.is_some())
}
