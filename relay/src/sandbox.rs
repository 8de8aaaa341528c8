//! The MCP Apps sandbox origin: a second port that serves only the sandbox proxy page
//! (js/sandbox.html). A view (a server's `ui://` HTML) runs inside it, so it must be another
//! origin than the pages the relay serves: another port is one. The page is sent with the view's
//! Content-Security-Policy built from `?csp=` (the resource's `csp` metadata as JSON), which the
//! view's `srcdoc` frame inherits, and may be framed only by the relay's own pages.

use std::net::IpAddr;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

const PAGE: &str = include_str!("../../js/sandbox.html");

/// What the sandbox origin answers to.
pub struct Sandbox {
    /// `Host` values accepted (lower case, with the sandbox port).
    hosts: Vec<String>,
    /// Origins whose pages may frame the proxy (`frame-ancestors`).
    ancestors: Vec<String>,
}

impl Sandbox {
    /// The sandbox on `ip:port`, framed by `ancestors` (the relay's page origins).
    pub fn new(ip: IpAddr, port: u16, ancestors: Vec<String>) -> Self {
        let mut hosts = vec![crate::address::host_port(ip, port)];
        if ip.is_loopback() || ip.is_unspecified() {
            hosts.push(format!("localhost:{port}"));
            hosts.push(format!("127.0.0.1:{port}"));
        }
        Self { hosts, ancestors }
    }
}

pub fn router(sandbox: Arc<Sandbox>) -> Router {
    Router::new()
        .route("/sandbox.html", get(page))
        .fallback(|| async { plain(StatusCode::NOT_FOUND, "not found") })
        .with_state(sandbox)
}

fn plain(status: StatusCode, why: &'static str) -> Response {
    let mut r = (status, why).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

async fn page(
    State(sandbox): State<Arc<Sandbox>>,
    headers: HeaderMap,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    // Against DNS rebinding, as on the relay's own port.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase);
    if !host.is_some_and(|h| sandbox.hosts.contains(&h)) {
        return plain(StatusCode::FORBIDDEN, "Host is not the sandbox's address");
    }
    let csp = query
        .ok()
        .and_then(|Query(pairs)| pairs.into_iter().rev().find(|(k, _)| k == "csp"))
        .and_then(|(_, v)| serde_json::from_str::<serde_json::Value>(&v).ok())
        .unwrap_or_default();
    let policy = format!(
        "{}; frame-ancestors {}",
        build_csp(&csp),
        if sandbox.ancestors.is_empty() {
            "'none'".to_string()
        } else {
            sandbox.ancestors.join(" ")
        }
    );
    let mut r = PAGE.into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&policy) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    } else {
        return plain(StatusCode::INTERNAL_SERVER_ERROR, "no policy");
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Its own agent cluster (a process of its own where the browser can), and nothing of it
    // embeddable elsewhere but as the frame it is.
    h.insert("origin-agent-cluster", HeaderValue::from_static("?1"));
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    r
}

/// A CSP source: scheme, host (optionally a `*.` wildcard) and port; nothing that could end a
/// directive or add a keyword.
fn is_source(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else {
        return false;
    };
    if !matches!(
        scheme.to_ascii_lowercase().as_str(),
        "http" | "https" | "ws" | "wss"
    ) {
        return false;
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (rest, None),
    };
    let host = host.strip_prefix("*.").unwrap_or(host);
    let label_ok =
        |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let port_ok = port.is_none_or(|p| {
        p == "*" || (!p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
    });
    !host.is_empty() && host.split('.').all(label_ok) && port_ok
}

fn list(csp: &serde_json::Value, key: &str) -> String {
    csp.get(key)
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str())
                .filter(|s| is_source(s))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// The view's policy from its resource's `csp` metadata: the MCP Apps default, to which the
/// declared domains only add their sources (the same rules as js/apps.js's `buildCsp`).
pub fn build_csp(csp: &serde_json::Value) -> String {
    let resource = list(csp, "resourceDomains");
    let connect = list(csp, "connectDomains");
    let frame = list(csp, "frameDomains");
    let base = list(csp, "baseUriDomains");
    let r = if resource.is_empty() {
        String::new()
    } else {
        format!(" {resource}")
    };
    let or = |s: String, d: &str| if s.is_empty() { d.to_string() } else { s };
    [
        "default-src 'none'".to_string(),
        format!("script-src 'self' 'unsafe-inline'{r}"),
        format!("style-src 'self' 'unsafe-inline'{r}"),
        format!("img-src 'self' data:{r}"),
        format!("font-src 'self'{r}"),
        format!("media-src 'self' data:{r}"),
        format!("connect-src {}", or(connect, "'none'")),
        format!("frame-src {}", or(frame, "'none'")),
        format!("base-uri {}", or(base, "'self'")),
        "object-src 'none'".to_string(),
        "form-action 'none'".to_string(),
    ]
    .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn default_policy_is_closed() {
        let p = build_csp(&json!({}));
        assert!(p.starts_with("default-src 'none'"));
        assert!(p.contains("connect-src 'none'"));
        assert!(p.contains("frame-src 'none'"));
    }

    #[test]
    fn declared_domains_add_sources_and_nothing_else() {
        let p = build_csp(&json!({
            "connectDomains": ["https://api.example.com", "https://x.com; script-src *", "'unsafe-eval'", "*"],
            "resourceDomains": ["https://*.cdn.example.com:8443"],
        }));
        assert!(p.contains("connect-src https://api.example.com;"));
        assert!(!p.contains("unsafe-eval"));
        assert!(!p.contains("x.com"));
        assert!(p.contains("script-src 'self' 'unsafe-inline' https://*.cdn.example.com:8443;"));
        assert_eq!(p.matches("script-src").count(), 1);
    }
}
