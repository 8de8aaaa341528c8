//! HTTP: the guards (Host, token, Origin), the WebSocket upgrade, the agent list and the files.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use tokio::sync::{watch, Semaphore};

use crate::accept::Lasting;
use crate::address::{host_port, ip_literal_with_port};
use crate::cli::{Agent, Config};
use crate::files::{self, Refusal};
use crate::frames;
use crate::hosting::Hosts;
use crate::mcp_http::{Bounds, Hub, Target};
use crate::permits::Permits;
use crate::refusal::Refused;
use crate::secret::constant_time_eq;
use crate::session::{self, Limits};

/// Everything a request handler needs, shared by all connections.
pub struct Relay {
    agents: Vec<Agent>,
    token: String,
    /// `Host` header values accepted (lower case, with port); empty means any IP literal.
    hosts: Vec<String>,
    port: u16,
    origins: Vec<String>,
    allow_missing_origin: bool,
    static_dir: Option<PathBuf>,
    pkg_dir: Option<PathBuf>,
    csp: String,
    pub limits: Limits,
    /// One permit per allowed concurrent connection.
    pub slots: Arc<Semaphore>,
    pub max_connections: usize,
    pub shutdown: watch::Sender<bool>,
    /// The MCP sessions of `/mcp/<agent>` and `/hosted/<id>` (Streamable HTTP).
    pub mcp: Hub,
    /// What the accept loop may hold (main.rs shares the open files out).
    pub accept: crate::accept::Limits,
    /// The MCP servers pages host for their agents.
    pub hosted: Arc<Hosts>,
    /// The ACP connections of `/acp/<agent>` over HTTP.
    pub acp: crate::acp_http::Hub,
    /// The MCP Apps sandbox origin (`http://HOST:PORT`), told to pages in `/api/agents`.
    pub sandbox: std::sync::OnceLock<String>,
}

/// Bytes read from a page's socket at once (a read takes what has arrived, up to this).
const READ_BUFFER: usize = 16 * 1024;

impl Relay {
    /// The state for a relay bound to `addr` (the real port, after binding).
    pub fn new(config: &Config, addr: SocketAddr) -> Self {
        Self::with_files(config, addr, u64::MAX)
    }

    /// The same, sharing out `files` open files (the limit in force) between pending
    /// connections, event streams and agents, with room kept for the relay's own.
    pub fn with_files(config: &Config, addr: SocketAddr, files: u64) -> Self {
        let port = addr.port();
        let mut hosts = Vec::new();
        if !addr.ip().is_unspecified() {
            hosts.push(host_port(addr.ip(), port));
            if addr.ip().is_loopback() {
                hosts.push(format!("localhost:{port}"));
            }
        }
        let mut origins: Vec<String> = hosts.iter().map(|h| format!("http://{h}")).collect();
        origins.extend(config.allow_origins.iter().cloned());
        // The page reaches the relay's WebSocket, and MCP servers anywhere over HTTP (the
        // playground inspects remote Streamable HTTP servers; scripts stay 'self' only).
        let mut connect: Vec<String> = hosts.iter().map(|h| format!("ws://{h}")).collect();
        connect.extend(["http:".to_string(), "https:".to_string()]);
        let csp = format!(
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self' {}; object-src 'none'; base-uri 'none'; \
             form-action 'self'; frame-ancestors 'none'",
            connect.join(" ")
        );
        let (shutdown, _) = watch::channel(false);
        let (max_pending, max_open, streams) = crate::accept::share_files(
            files,
            config.max_pending,
            config.max_connections,
            crate::permits::STREAMS_TOTAL,
        );
        // ACP's event streams count toward the same cap as MCP's, its bodies likewise.
        let permits = Permits::new(streams);
        let mcp = Hub::new(
            Bounds::new(config.max_message_bytes, config.session_idle, config.grace),
            permits.clone(),
        );
        let acp = crate::acp_http::Hub::new(
            crate::acp_http::Bounds::new(
                config.max_message_bytes,
                config.session_idle,
                config.request_timeout,
                config.grace,
            ),
            permits,
        );
        Self {
            agents: config.agents.clone(),
            token: config.token.clone(),
            hosts,
            port,
            origins,
            allow_missing_origin: config.allow_missing_origin,
            static_dir: config.static_dir.canonicalize().ok(),
            pkg_dir: config.pkg_dir.canonicalize().ok(),
            csp,
            limits: Limits {
                max_message_bytes: config.max_message_bytes,
                grace: config.grace,
            },
            slots: Arc::new(Semaphore::new(config.max_connections)),
            max_connections: config.max_connections,
            shutdown,
            mcp,
            accept: crate::accept::Limits {
                request_timeout: config.request_timeout,
                max_pending,
                max_open,
            },
            hosted: Arc::default(),
            acp,
            sandbox: std::sync::OnceLock::new(),
        }
    }

    /// `http://HOST:PORT` as the relay's own processes reach it.
    pub fn base_url(&self) -> String {
        match self.hosts.first() {
            Some(host) => format!("http://{host}"),
            None => format!("http://127.0.0.1:{}", self.port),
        }
    }

    pub fn static_dir(&self) -> Option<&PathBuf> {
        self.static_dir.as_ref()
    }

    pub fn pkg_dir(&self) -> Option<&PathBuf> {
        self.pkg_dir.as_ref()
    }

    /// Against DNS rebinding: a page on another name that resolves to us must not get in.
    /// Bound to all interfaces, any IP literal with our port is fine (rebinding needs a name).
    fn host_ok(&self, headers: &HeaderMap) -> bool {
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        if self.hosts.is_empty() {
            return ip_literal_with_port(&host, self.port);
        }
        self.hosts.contains(&host)
            || self
                .origins
                .iter()
                .any(|o| o.split_once("://").map(|(_, h)| h) == Some(host.as_str()))
    }

    fn token_ok(&self, given: Option<&str>) -> bool {
        given.is_some_and(|t| constant_time_eq(t.as_bytes(), self.token.as_bytes()))
    }

    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        match headers.get(header::ORIGIN) {
            None => self.allow_missing_origin,
            Some(origin) => {
                let Ok(origin) = origin.to_str() else {
                    return false;
                };
                let origin = origin.to_ascii_lowercase();
                let same_origin = headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .is_some_and(|h| origin == format!("http://{}", h.to_ascii_lowercase()));
                same_origin || self.origins.contains(&origin)
            }
        }
    }

    fn agent(&self, name: Option<&str>) -> Option<&Agent> {
        match name {
            None | Some("") => self.agents.first(),
            Some(name) => self.agents.iter().find(|a| a.name == name),
        }
    }
}

pub fn router(relay: Arc<Relay>) -> Router {
    Router::new()
        .route("/ws", get(upgrade))
        // The MCP handlers take the body unread: it is read (bounded) only after the guards.
        .route("/mcp/{agent}", any(mcp))
        .route("/hosted/{id}", any(hosted))
        .route("/acp", any(acp))
        .route("/acp/{agent}", any(acp))
        .fallback(serve)
        // On every response, also those axum makes itself (405 on /ws, a refused upgrade).
        .layer(axum::middleware::map_response_with_state(
            relay.clone(),
            safety_headers,
        ))
        .with_state(relay)
}

/// `GET /ws?token=T&agent=NAME[&frames=binary]`: all checks pass before the upgrade, or
/// nothing is spawned.
async fn upgrade(
    State(relay): State<Arc<Relay>>,
    headers: HeaderMap,
    params: QueryPairs,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let query = Params::from(params);
    if let Some(why) = ambiguous(&headers) {
        return refuse(StatusCode::BAD_REQUEST, why);
    }
    if !relay.host_ok(&headers) {
        return refuse(StatusCode::FORBIDDEN, "Host is not the relay's address");
    }
    if !relay.token_ok(query.token.as_deref()) {
        return refuse(StatusCode::UNAUTHORIZED, "missing or wrong token");
    }
    if !relay.origin_ok(&headers) {
        return refuse(StatusCode::FORBIDDEN, "Origin not allowed");
    }
    let Some(agent) = relay.agent(query.agent.as_deref()).cloned() else {
        return refuse(StatusCode::NOT_FOUND, "no agent of that name");
    };
    // The agent's lines as text frames (the default) or as binary frames of their bytes.
    let binary = match query.frames.as_deref() {
        None | Some("text") => false,
        Some("binary") => true,
        Some(_) => return refuse(StatusCode::BAD_REQUEST, "frames must be text or binary"),
    };
    // Only now, so that nothing about the endpoint is told before the guards pass.
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => return refuse(rejection.status(), "not a WebSocket upgrade"),
    };
    bridge(relay, agent, ws, &headers, binary)
}

/// Upgrades to a WebSocket bridged to a new process of `agent` (the guards passed).
fn bridge(
    relay: Arc<Relay>,
    agent: Agent,
    ws: WebSocketUpgrade,
    headers: &HeaderMap,
    binary: bool,
) -> Response {
    let Ok(slot) = relay.slots.clone().try_acquire_owned() else {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, "too many connections");
    };
    let offered = offered_subprotocols(headers);
    let events = offered.contains(&frames::SUBPROTOCOL);
    let chosen = if events {
        Some(frames::SUBPROTOCOL)
    } else {
        frames::PASSTHROUGH_SUBPROTOCOLS
            .into_iter()
            .find(|p| offered.contains(p))
    };
    let ws = match chosen {
        Some(p) => ws.protocols([p]),
        None => ws,
    };
    let limits = relay.limits;
    let shutdown = relay.shutdown.subscribe();
    let context = session::Context {
        limits,
        hosted: relay.hosted.clone(),
        mcp: relay.mcp.clone(),
        base_url: relay.base_url(),
    };
    ws.max_message_size(limits.max_message_bytes)
        .max_frame_size(limits.max_message_bytes)
        // Each read zeroes the part of this buffer it may fill (tungstenite): the default
        // 128 KiB cost a 128 KiB memset per read, 7 % of the relay's time under load.
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| {
            session::run(socket, agent, binary, events, context, shutdown, slot)
        })
        .into_response()
}

/// The subprotocols a WebSocket upgrade offers (`Sec-WebSocket-Protocol`, comma-separated,
/// possibly over several headers).
fn offered_subprotocols(headers: &HeaderMap) -> Vec<&str> {
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// `/mcp/<agent>`: the agent, a stdio MCP server, over Streamable HTTP (see mcp_http.rs).
/// The token comes as `Authorization: Bearer` (or `?token=` for clients that cannot set
/// headers); an `Origin`, when sent, must be one the relay allows (a client that is not a
/// browser sends none). Nothing is spawned before every guard passed.
async fn mcp(
    State(relay): State<Arc<Relay>>,
    Path(agent): Path<String>,
    method: Method,
    headers: HeaderMap,
    params: QueryPairs,
    lasting: Option<Extension<Lasting>>,
    body: Body,
) -> Response {
    let (agent, cors) = match admit(&relay, &method, &headers, params, Some(&agent), &MCP_CORS) {
        Ok(admitted) => admitted,
        Err(answer) => return answer,
    };
    // Authorized: the body is read (bounded) and an event stream may last as long as the call
    // it answers.
    let lasting = lasting.map(|Extension(l)| l);
    let mut r = relay
        .mcp
        .serve(
            Target::Agent {
                agent: &agent,
                slots: &relay.slots,
            },
            method,
            headers,
            body,
            lasting,
        )
        .await;
    r.headers_mut().extend(cors);
    r
}

/// `/hosted/<id>`: an MCP server a page hosts for its agent (see hosting.rs). Only the agent
/// holds the secret; a browser (any `Origin`) never gets in, and once the page's connection
/// ended the id is unknown (404). Nothing is spawned here, ever.
async fn hosted(
    State(relay): State<Arc<Relay>>,
    Path(id): Path<String>,
    method: Method,
    headers: HeaderMap,
    lasting: Option<Extension<Lasting>>,
    body: Body,
) -> Response {
    if let Err(refused) = mcp_guards(&relay, &headers) {
        return refused;
    }
    if headers.contains_key(header::ORIGIN) {
        return deny(
            StatusCode::FORBIDDEN,
            "Forbidden: a hosted server is for the agent, not for pages",
        );
    }
    let Some(host) = relay.hosted.get(&id) else {
        return deny(
            StatusCode::NOT_FOUND,
            "Not Found: no hosted server of that id (its page has left)",
        );
    };
    if !host.secret_ok(bearer(&headers)) {
        return unauthorized("Unauthorized: missing or wrong secret");
    }
    relay
        .mcp
        .serve(
            Target::Hosted(host),
            method,
            headers,
            body,
            lasting.map(|Extension(l)| l),
        )
        .await
}

/// `/acp/<agent>` (`/acp`: the default agent): the agent over ACP's HTTP transport (see
/// acp_http.rs), or with `Upgrade: websocket` over a WebSocket, on the same guards as
/// `/mcp/<agent>`: the token as `Authorization: Bearer` (or `?token=`), an `Origin`, when
/// sent, one the relay allows.
/// Nothing is spawned, and no body byte read, before every guard passed.
// The request's parts, each used: bundling them would only rename them.
#[allow(clippy::too_many_arguments)]
async fn acp(
    State(relay): State<Arc<Relay>>,
    agent: Option<Path<String>>,
    method: Method,
    headers: HeaderMap,
    params: QueryPairs,
    lasting: Option<Extension<Lasting>>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    body: Body,
) -> Response {
    // `/acp` alone is the default agent, as `/ws` without `agent=`.
    let name = agent.as_ref().map(|Path(a)| a.as_str());
    let (agent, cors) = match admit(&relay, &method, &headers, params, name, &ACP_CORS) {
        Ok(admitted) => admitted,
        Err(answer) => return answer,
    };
    let upgrade = headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let mut r = if method == Method::GET && upgrade {
        match ws {
            // The 101 names the connection, as the RFD asks (it is the WebSocket's alone).
            Ok(ws) => {
                let mut r = bridge(relay.clone(), agent, ws, &headers, false);
                let id = crate::cli::random_token()
                    .ok()
                    .and_then(|id| HeaderValue::from_str(&id).ok());
                if let (StatusCode::SWITCHING_PROTOCOLS, Some(id)) = (r.status(), id) {
                    r.headers_mut()
                        .insert(crate::acp_http::CONNECTION_HEADER, id);
                }
                r
            }
            Err(rejection) => deny(rejection.status(), "Bad Request: not a WebSocket upgrade"),
        }
    } else {
        relay
            .acp
            .serve(
                &agent,
                &relay.slots,
                method,
                headers,
                body,
                lasting.map(|Extension(l)| l),
            )
            .await
    };
    r.headers_mut().extend(cors);
    r
}

/// A JSON-RPC error body (id null) with an HTTP status: how the MCP endpoints refuse.
fn deny(status: StatusCode, why: &str) -> Response {
    Refused(status, -32600, why.to_string()).into_response()
}

/// A 401 that asks for `Authorization: Bearer`.
fn unauthorized(why: &str) -> Response {
    let mut r = deny(StatusCode::UNAUTHORIZED, why);
    r.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    r
}

/// The credential of `Authorization: Bearer …`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

/// What `/mcp/<agent>` and `/acp/<agent>` check before anything else, in order: `mcp_guards`,
/// an `Origin` (when sent) the relay allows, a preflight (answered 204), the token (as
/// `Authorization: Bearer`, or `?token=` for clients that cannot set headers), and the agent
/// `name` names. `Ok`: that agent and the CORS headers for the answer; `Err`: the answer.
#[allow(clippy::result_large_err)] // a refusal is a whole response
fn admit(
    relay: &Relay,
    method: &Method,
    headers: &HeaderMap,
    params: QueryPairs,
    name: Option<&str>,
    cors: &Cors,
) -> Result<(Agent, HeaderMap), Response> {
    mcp_guards(relay, headers)?;
    if headers.contains_key(header::ORIGIN) && !relay.origin_ok(headers) {
        return Err(deny(StatusCode::FORBIDDEN, "Forbidden: Origin not allowed"));
    }
    let cors = cors_headers(relay, headers, cors);
    if *method == Method::OPTIONS {
        let mut r = StatusCode::NO_CONTENT.into_response();
        r.headers_mut().extend(cors);
        return Err(r);
    }
    if !relay.token_ok(bearer(headers).or(Params::from(params).token.as_deref())) {
        return Err(unauthorized("Unauthorized: missing or wrong token"));
    }
    let agent = relay
        .agent(name)
        .cloned()
        .ok_or_else(|| deny(StatusCode::NOT_FOUND, "Not Found: no agent of that name"))?;
    Ok((agent, cors))
}

/// What every MCP endpoint checks first: one `Host` and `Origin` each, and the `Host` ours.
#[allow(clippy::result_large_err)] // a refusal is a whole response
fn mcp_guards(relay: &Relay, headers: &HeaderMap) -> Result<(), Response> {
    if let Some(why) = ambiguous(headers) {
        return Err(deny(StatusCode::BAD_REQUEST, why));
    }
    if !relay.host_ok(headers) {
        return Err(deny(
            StatusCode::FORBIDDEN,
            "Forbidden: Host is not the relay's address",
        ));
    }
    Ok(())
}

/// The request headers a page may send to an endpoint, the response headers it may read, and
/// whether its answers may be read by a fetch that sends credentials.
struct Cors {
    allow: &'static str,
    expose: &'static str,
    credentials: bool,
}
const MCP_CORS: Cors = Cors {
    allow:
        "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
    expose: "mcp-session-id",
    credentials: false,
};
// ACP's clients send credentials (the RFD has them keep cookies; the official SDK's fetches
// `credentials: "include"`), which a browser lets a page read answers to only with
// `Access-Control-Allow-Credentials`. The relay reads no cookie, so it grants nothing ambient
// to the allowed pages.
const ACP_CORS: Cors = Cors {
    allow: "content-type, accept, authorization, acp-connection-id, acp-session-id, acp-protocol-version",
    expose: "acp-connection-id",
    credentials: true,
};

/// CORS for a page on another origin the relay was told to allow (`--allow-origin`); a page
/// of the relay's own origin needs none.
fn cors_headers(relay: &Relay, headers: &HeaderMap, cors: &Cors) -> HeaderMap {
    let mut out = HeaderMap::new();
    let Some(origin) = headers.get(header::ORIGIN).filter(|o| {
        o.to_str()
            .is_ok_and(|o| relay.origins.contains(&o.to_ascii_lowercase()))
    }) else {
        return out;
    };
    out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    out.insert(header::VARY, HeaderValue::from_static("origin"));
    out.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, DELETE"),
    );
    out.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(cors.allow),
    );
    out.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(cors.expose),
    );
    if cors.credentials {
        out.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
    }
    out
}

/// A request that names its `Host` or `Origin` twice: the checks would judge one value
/// and something else might act on the other, so it is refused (400).
fn ambiguous(headers: &HeaderMap) -> Option<&'static str> {
    let twice = |name| headers.get_all(name).iter().nth(1).is_some();
    if twice(header::HOST) {
        Some("more than one Host header")
    } else if twice(header::ORIGIN) {
        Some("more than one Origin header")
    } else {
        None
    }
}

fn refuse(status: StatusCode, why: &'static str) -> Response {
    eprintln!("agentwire-relay: refused a WebSocket: {why}");
    respond(status, "text/plain; charset=utf-8", why.into())
}

/// Everything but `/ws`: the agent list, `/pkg/…`, and the static files.
async fn serve(
    State(relay): State<Arc<Relay>>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    params: QueryPairs,
) -> Response {
    let text = "text/plain; charset=utf-8";
    if let Some(why) = ambiguous(&headers) {
        return respond(StatusCode::BAD_REQUEST, text, why.into());
    }
    if !relay.host_ok(&headers) {
        return respond(
            StatusCode::FORBIDDEN,
            text,
            "Host is not the relay's address".into(),
        );
    }
    if method != Method::GET && method != Method::HEAD {
        return respond(StatusCode::METHOD_NOT_ALLOWED, text, "GET only".into());
    }
    let path = uri.path();
    if path == "/api/agents" {
        let query = Params::from(params);
        if !relay.token_ok(query.token.as_deref().or(bearer(&headers))) {
            return respond(
                StatusCode::UNAUTHORIZED,
                text,
                "missing or wrong token".into(),
            );
        }
        let agents: Vec<_> = relay
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| serde_json::json!({ "name": a.name, "default": i == 0 }))
            .collect();
        let body =
            serde_json::json!({ "agents": agents, "sandbox": relay.sandbox.get() }).to_string();
        return respond(StatusCode::OK, "application/json", body.into());
    }
    let (root, rest) = match path.strip_prefix("/pkg/") {
        Some(rest) => (relay.pkg_dir.as_ref(), rest),
        None => (relay.static_dir.as_ref(), path),
    };
    let Some(root) = root else {
        return respond(
            StatusCode::NOT_FOUND,
            text,
            "this folder is not served".into(),
        );
    };
    match files::resolve(root, rest) {
        Ok(file) => match tokio::fs::read(&file).await {
            Ok(bytes) => respond(StatusCode::OK, files::content_type(&file), bytes.into()),
            Err(_) => respond(StatusCode::NOT_FOUND, text, "not found".into()),
        },
        Err(Refusal::BadPath) => respond(StatusCode::BAD_REQUEST, text, "bad path".into()),
        Err(Refusal::Forbidden) => respond(StatusCode::FORBIDDEN, text, "forbidden".into()),
        Err(Refusal::NotFound) => respond(StatusCode::NOT_FOUND, text, "not found".into()),
    }
}

fn respond(status: StatusCode, content_type: &'static str, body: Body) -> Response {
    let mut response = (status, body).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// Every response carries the same safety headers; none carries CORS headers.
async fn safety_headers(State(relay): State<Arc<Relay>>, mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    // Pages may frame the MCP Apps sandbox origin, and nothing else.
    let csp = match relay.sandbox.get() {
        Some(sandbox) => format!("{}; frame-src {sandbox}", relay.csp),
        None => relay.csp.clone(),
    };
    if let Ok(csp) = HeaderValue::from_str(&csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    response
}

/// `token`, `agent` and `frames` of a query string (axum's `Query`, decoded as a form);
/// other parameters are ignored, and of a parameter given twice the last counts.
#[derive(Debug, Default, PartialEq, Eq)]
struct Params {
    token: Option<String>,
    agent: Option<String>,
    frames: Option<String>,
}

/// The query's pairs, in order (a query that cannot be read counts as empty).
type QueryPairs = Result<Query<Vec<(String, String)>>, QueryRejection>;

impl From<QueryPairs> for Params {
    fn from(query: QueryPairs) -> Self {
        let mut out = Self::default();
        for (key, value) in query.map(|Query(pairs)| pairs).unwrap_or_default() {
            match key.as_str() {
                "token" => out.token = Some(value),
                "agent" => out.agent = Some(value),
                "frames" => out.frames = Some(value),
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    fn relay(host: &str, extra_origins: &[&str], allow_missing: bool) -> Relay {
        let mut args: Vec<String> = [
            "--agent",
            "a=cat",
            "--agent",
            "b=cat",
            "--token",
            "tok",
            "--host",
            host,
            "--allow-remote",
        ]
        .map(String::from)
        .to_vec();
        for o in extra_origins {
            args.extend(["--allow-origin".to_string(), o.to_string()]);
        }
        if allow_missing {
            args.push("--allow-missing-origin".into());
        }
        let crate::cli::Parsed::Run(config) = crate::cli::parse(args, || unreachable!()).unwrap()
        else {
            unreachable!()
        };
        let ip: IpAddr = host.parse().unwrap();
        Relay::new(&config, SocketAddr::new(ip, 4000))
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn host_header_must_name_the_relay() {
        let r = relay("127.0.0.1", &["http://ide.example:5173"], false);
        let cases = [
            (Some("127.0.0.1:4000"), true),
            (Some("LOCALHOST:4000"), true),
            (Some("ide.example:5173"), true),
            (Some("127.0.0.1:4001"), false),
            (Some("evil.example:4000"), false),
            (Some("127.0.0.1"), false),
            (None, false),
        ];
        for (host, want) in cases {
            let h = host.map(|v| headers(&[("host", v)])).unwrap_or_default();
            assert_eq!(r.host_ok(&h), want, "{host:?}");
        }
        let any = relay("0.0.0.0", &[], false);
        assert!(any.host_ok(&headers(&[("host", "192.168.1.5:4000")])));
        assert!(any.host_ok(&headers(&[("host", "[fe80::1]:4000")])));
        assert!(!any.host_ok(&headers(&[("host", "rebind.example:4000")])));
        assert!(!any.host_ok(&headers(&[("host", "192.168.1.5:80")])));
    }

    #[test]
    fn origin_must_be_the_relay_or_allowed() {
        let r = relay("127.0.0.1", &["http://localhost:5173"], false);
        let h = |origin: Option<&str>| {
            let mut pairs = vec![("host", "127.0.0.1:4000")];
            pairs.extend(origin.map(|o| ("origin", o)));
            headers(&pairs)
        };
        let cases = [
            (Some("http://127.0.0.1:4000"), true),
            (Some("http://localhost:4000"), true),
            (Some("http://localhost:5173"), true),
            (Some("https://127.0.0.1:4000"), false),
            (Some("http://evil.example"), false),
            (Some("null"), false),
            (None, false),
        ];
        for (origin, want) in cases {
            assert_eq!(r.origin_ok(&h(origin)), want, "{origin:?}");
        }
        assert!(relay("127.0.0.1", &[], true).origin_ok(&h(None)));
    }

    #[test]
    fn token_agent_and_query() {
        let r = relay("127.0.0.1", &[], false);
        assert!(r.token_ok(Some("tok")));
        assert!(!r.token_ok(Some("tok2")) && !r.token_ok(Some("to")) && !r.token_ok(None));
        assert_eq!(r.agent(None).map(|a| a.name.as_str()), Some("a"));
        assert_eq!(r.agent(Some("b")).map(|a| a.name.as_str()), Some("b"));
        assert!(r.agent(Some("cat")).is_none());
        let parse = |q: &str| {
            let uri: Uri = format!("/ws?{q}").parse().unwrap();
            Params::from(Query::try_from_uri(&uri))
        };
        assert_eq!(
            parse("x=1&token=a%2Db&agent=demo"),
            Params {
                token: Some("a-b".into()),
                agent: Some("demo".into()),
                frames: None
            }
        );
        assert_eq!(
            parse("agent=a&frames=binary").frames.as_deref(),
            Some("binary")
        );
        assert_eq!(
            parse("token=x&token=y").token.as_deref(),
            Some("y"),
            "the last counts"
        );
        assert_eq!(parse(""), Params::default());
        assert!(
            constant_time_eq(b"abc", b"abc")
                && !constant_time_eq(b"abc", b"abd")
                && !constant_time_eq(b"abc", b"ab")
        );
    }
}
