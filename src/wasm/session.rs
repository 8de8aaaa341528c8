//! The four sans-IO session classes. Each wraps one core session; what they share is
//! generated once by `session_class!`. Time comes from `Date.now()`: the core stays
//! clock-free, the binding supplies the clock.

use super::convert::{from_js, id_value, to_js_error, to_js_exact_ids};
use crate::jsonrpc::{object, serialized, Id, Outbound, ProtocolError};
use crate::options::FromOptions;
use crate::{acp, mcp};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

fn now() -> u64 {
    js_sys::Date::now() as u64
}

/// Events and results as JS values: written straight to text, unless the text holds a number
/// long enough to be an id past 2^53 (then the ids are made exact, see `to_js_exact_ids`).
fn js<T: Serialize>(value: &T) -> JsValue {
    let Ok(text) = serde_json::to_string(value) else { return JsValue::NULL };
    if !may_hold_big_integer(&text) {
        return js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL);
    }
    serde_json::from_str::<Value>(&text).map(|v| to_js_exact_ids(&v)).unwrap_or(JsValue::NULL)
}

/// True when the text has a run of 16 or more digits (2^53 has 16).
fn may_hold_big_integer(text: &str) -> bool {
    let mut run = 0;
    text.bytes().any(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        run >= 16
    })
}

fn fail(error: ProtocolError) -> JsValue {
    to_js_error(&error)
}

/// Options objects: absent means defaults; unknown or mistyped fields are a -32602 error.
fn options<T: FromOptions + Default>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    match from_js(value)? {
        None => Ok(T::default()),
        Some(v) => T::from_options(&v).map_err(|e| fail(ProtocolError::invalid_params(format!("{what} options: {e}")))),
    }
}

fn id_from(value: &JsValue) -> Result<Id, JsValue> {
    let v = id_value(value)?;
    Id::from_value(&v).map_err(|why| fail(ProtocolError::invalid_params(why)))
}

fn error_from(value: &JsValue) -> Result<ProtocolError, JsValue> {
    let v = from_js(value)?.unwrap_or(Value::Null);
    let mut error = crate::jsonrpc::error_object(v).map_err(|e| fail(ProtocolError::invalid_params(format!("error object: {e}"))))?;
    // `data: null` carries nothing: it is left out when sent.
    error.data = error.data.filter(|d| !d.is_null());
    Ok(error)
}

fn outbound(result: Result<Outbound, ProtocolError>) -> Result<JsValue, JsValue> {
    result.map(|o| js(&o)).map_err(fail)
}

fn text(result: Result<Outbound, ProtocolError>) -> Result<String, JsValue> {
    result.map(|o| o.text).map_err(fail)
}

/// What every class shares: answering, receiving, time, the method table.
macro_rules! session_class {
    ($class:ident, $name:literal, $note_close:ident) => {
        #[wasm_bindgen(js_class = $name)]
        impl $class {
            /// Sends a notification (gated and validated like everything else).
            pub fn notify(&mut self, method: &str, params: JsValue) -> Result<JsValue, JsValue> {
                let params = from_js(&params)?;
                outbound(self.inner.notify(method, params))
            }
            /// Answers an incoming request with a result; returns the text to send.
            pub fn respond(&mut self, id: JsValue, result: JsValue) -> Result<String, JsValue> {
                let result = from_js(&result)?.unwrap_or(Value::Null);
                text(self.inner.respond(&id_from(&id)?, Ok(result)))
            }
            /// Answers an incoming request with an error `{ code, message, data? }`.
            #[wasm_bindgen(js_name = respondError)]
            pub fn respond_error(&mut self, id: JsValue, error: JsValue) -> Result<String, JsValue> {
                let error = error_from(&error)?;
                text(self.inner.respond(&id_from(&id)?, Err(error)))
            }
            /// Feeds one incoming frame; returns the events, including text to send back.
            pub fn receive(&mut self, text: &str) -> JsValue {
                let events = self.inner.receive(text, now());
                $note_close(&events, &mut self.close_error);
                js(&events)
            }
            /// Feeds one incoming frame as bytes (UTF-8; anything else is a parse error, -32700).
            #[wasm_bindgen(js_name = receiveBytes)]
            pub fn receive_bytes(&mut self, bytes: &[u8]) -> JsValue {
                let events = self.inner.receive_bytes(bytes, now());
                $note_close(&events, &mut self.close_error);
                js(&events)
            }
            /// Reports requests past their deadline.
            pub fn tick(&mut self) -> JsValue {
                js(&self.inner.tick(now()))
            }
            /// The transport closed: every pending request fails.
            pub fn close(&mut self) -> JsValue {
                js(&self.inner.close())
            }
            /// When `tick` should next run (ms since the epoch), if anything waits.
            #[wasm_bindgen(js_name = nextDeadline)]
            pub fn next_deadline(&self) -> Option<f64> {
                self.inner.next_deadline().map(|d| d as f64)
            }
            /// Every method of the protocol: enabled now or not, and why.
            pub fn methods(&self) -> JsValue {
                js(&self.inner.methods())
            }
        }
    };
}

/// ACP request options: only a per-call timeout is meaningful here (the session's own
/// default applies otherwise).
fn acp_request(
    session: &mut impl FnMut(&str, Option<Value>, u64) -> Result<Outbound, ProtocolError>,
    method: &str,
    params: &JsValue,
) -> Result<JsValue, JsValue> {
    let params = from_js(params)?;
    outbound(session(method, params, now()))
}

fn acp_state(version: Option<u16>, offered: &[u16], phase: acp::Phase, own: Value, peer: Value, own_wire: Option<&Value>, peer_wire: Option<&Value>, peer_info: Option<&Value>, auth: &[Value], close_error: &Option<ProtocolError>) -> JsValue {
    js(&object! {
        "protocolVersion": version,
        "offered": offered,
        "phase": serialized(&phase),
        "closed": phase == acp::Phase::Closed,
        "closeError": close_error.as_ref(),
        "ownCapabilities": own,
        "peerCapabilities": peer,
        "ownCapabilitiesWire": own_wire,
        "peerCapabilitiesWire": peer_wire,
        "peerInfo": peer_info,
        "authMethods": auth,
    })
}

/// The events of a call that only produced text to send.
fn sent(text: String) -> JsValue {
    js(&[object! { "type": "send", "text": text }])
}

/// Remembers why a session ended, for `state().closeError`.
fn note_close_acp(events: &[acp::Event], close_error: &mut Option<ProtocolError>) {
    for e in events {
        if let acp::Event::Closed { error: Some(error) } = e {
            *close_error = Some(error.clone());
        }
    }
}

fn note_close_mcp(events: &[mcp::Event], close_error: &mut Option<ProtocolError>) {
    for e in events {
        if let mcp::Event::ProtocolError { error } = e {
            *close_error = Some(error.clone());
        }
    }
}

/// The client side of ACP: what a web IDE runs.
#[wasm_bindgen]
pub struct AcpClient {
    inner: acp::AcpClient,
    offered: Vec<u16>,
    close_error: Option<ProtocolError>,
}

#[wasm_bindgen]
impl AcpClient {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<AcpClient, JsValue> {
        let config: acp::ClientConfig = self::options(&options, "AcpClient")?;
        let offered = config.common.protocol_versions.clone();
        Ok(AcpClient { inner: acp::AcpClient::new(config), offered, close_error: None })
    }
    /// `initialize` with the preferred version and the declared capabilities.
    pub fn initialize(&mut self) -> Result<JsValue, JsValue> {
        outbound(self.inner.initialize(now()))
    }
    /// Any request, gated and validated.
    pub fn request(&mut self, method: &str, params: JsValue, _options: JsValue) -> Result<JsValue, JsValue> {
        let inner = &mut self.inner;
        acp_request(&mut |m, p, t| inner.request(m, p, t), method, &params)
    }
    /// `session/cancel`, plus the `cancelled` answer to the session's pending permission
    /// requests: every frame to send, in order.
    pub fn cancel(&mut self, session_id: &str) -> Result<JsValue, JsValue> {
        self.inner.cancel(session_id).map(|o| js(&o)).map_err(fail)
    }
    /// Asks the agent to stop serving one of our requests (`$/cancel_request`).
    #[wasm_bindgen(js_name = cancelRequest)]
    pub fn cancel_request(&mut self, id: JsValue) -> Result<JsValue, JsValue> {
        let out = self.inner.cancel_request(&id_from(&id)?).map_err(fail)?;
        Ok(sent(out.text))
    }
    /// The transcript of one session, built from its updates (live or replayed).
    pub fn transcript(&self, session_id: &str) -> JsValue {
        self.inner.transcript(session_id).map(js).unwrap_or(JsValue::UNDEFINED)
    }
    /// Ids of the sessions this client has seen.
    #[wasm_bindgen(js_name = sessionIds)]
    pub fn session_ids(&self) -> JsValue {
        js(&self.inner.session_ids())
    }
    /// The negotiated version, both sides' capabilities (model and wire), peer info.
    pub fn state(&self) -> JsValue {
        let i = &self.inner;
        acp_state(i.protocol_version(), &self.offered, i.phase(), serialized(&i.own_capabilities_declared()), serialized(i.peer_capabilities()), i.own_capabilities_wire(), i.peer_capabilities_wire(), i.peer_info(), i.auth_methods(), &self.close_error)
    }
}

/// The agent side of ACP: what an agent written in JS (or a test) runs.
#[wasm_bindgen]
pub struct AcpAgent {
    inner: acp::AcpAgent,
    offered: Vec<u16>,
    close_error: Option<ProtocolError>,
}

#[wasm_bindgen]
impl AcpAgent {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<AcpAgent, JsValue> {
        let config: acp::AgentConfig = self::options(&options, "AcpAgent")?;
        let offered = config.common.protocol_versions.clone();
        Ok(AcpAgent { inner: acp::AcpAgent::new(config), offered, close_error: None })
    }
    pub fn request(&mut self, method: &str, params: JsValue, _options: JsValue) -> Result<JsValue, JsValue> {
        let inner = &mut self.inner;
        acp_request(&mut |m, p, t| inner.request(m, p, t), method, &params)
    }
    /// A `session/update` notification for a session.
    #[wasm_bindgen(js_name = sendUpdate)]
    pub fn send_update(&mut self, session_id: &str, update: JsValue) -> Result<JsValue, JsValue> {
        let update = from_js(&update)?.unwrap_or(Value::Null);
        outbound(self.inner.send_update(session_id, update))
    }
    /// Ends the pending prompt turn of a session with a stop reason (`cancelled` after a cancel).
    #[wasm_bindgen(js_name = endTurn)]
    pub fn end_turn(&mut self, session_id: &str, stop_reason: &str) -> Result<JsValue, JsValue> {
        outbound(self.inner.end_turn(session_id, stop_reason))
    }
    #[wasm_bindgen(js_name = isCancelled)]
    pub fn is_cancelled(&self, session_id: &str) -> bool {
        self.inner.is_cancelled(session_id)
    }
    #[wasm_bindgen(js_name = cancelRequest)]
    pub fn cancel_request(&mut self, id: JsValue) -> Result<JsValue, JsValue> {
        let out = self.inner.cancel_request(&id_from(&id)?).map_err(fail)?;
        Ok(sent(out.text))
    }
    pub fn state(&self) -> JsValue {
        let i = &self.inner;
        acp_state(i.protocol_version(), &self.offered, i.phase(), serialized(&i.own_capabilities_declared()), serialized(i.peer_capabilities()), i.own_capabilities_wire(), i.peer_capabilities_wire(), i.peer_info(), i.auth_methods(), &self.close_error)
    }
}

fn mcp_state(s: &mcp::Session, close_error: &Option<ProtocolError>) -> JsValue {
    js(&object! {
        "protocolVersion": s.protocol_version(),
        "era": serialized(&s.era()),
        "offered": &s.supported_versions()[..],
        "phase": serialized(&s.phase()),
        "closed": s.phase() == mcp::Phase::Closed,
        "closeError": close_error.as_ref(),
        "ownCapabilities": serialized(&s.own_capability_model()),
        "peerCapabilities": serialized(&s.peer_capability_model()),
        "ownCapabilitiesWire": s.own_capabilities(),
        "peerCapabilitiesWire": s.peer_capabilities(),
        "peerInfo": s.peer_info(),
        "instructions": s.instructions(),
    })
}

/// Generates what the MCP classes add to the shared set: requests with options,
/// cancellation with `notifications/cancelled`, receive and state.
macro_rules! mcp_class {
    ($class:ident, $name:literal) => {
        #[wasm_bindgen(js_class = $name)]
        impl $class {
            /// Any request, gated and validated; options `{ timeoutMs, resetOnProgress, maxTotalMs }`.
            pub fn request(&mut self, method: &str, params: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
                let params = from_js(&params)?;
                let opts: mcp::RequestOptions = self::options(&options, "request")?;
                outbound(self.inner.request(method, params, opts, now()))
            }
            /// Withdraws one of our requests and tells the peer (`notifications/cancelled`).
            #[wasm_bindgen(js_name = cancelRequest)]
            pub fn cancel_request(&mut self, id: JsValue, reason: Option<String>) -> Result<JsValue, JsValue> {
                let out = self.inner.cancel(&id_from(&id)?, reason.as_deref()).map_err(fail)?;
                Ok(sent(out.text))
            }
            pub fn state(&self) -> JsValue {
                mcp_state(&self.inner, &self.close_error)
            }
        }
    };
}

/// The client (host) side of MCP.
#[wasm_bindgen]
pub struct McpClient {
    inner: mcp::McpClient,
    close_error: Option<ProtocolError>,
}

#[wasm_bindgen]
impl McpClient {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<McpClient, JsValue> {
        let config: mcp::ClientConfig = self::options(&options, "McpClient")?;
        Ok(McpClient { inner: mcp::McpClient::new(config), close_error: None })
    }
    /// Opens the connection: `server/discover` or `initialize`, as configured.
    pub fn initialize(&mut self) -> Result<JsValue, JsValue> {
        outbound(self.inner.initialize(now()))
    }
}

/// The server side of MCP.
#[wasm_bindgen]
pub struct McpServer {
    inner: mcp::McpServer,
    close_error: Option<ProtocolError>,
}

#[wasm_bindgen]
impl McpServer {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<McpServer, JsValue> {
        let config: mcp::ServerConfig = self::options(&options, "McpServer")?;
        Ok(McpServer { inner: mcp::McpServer::new(config), close_error: None })
    }
}

session_class!(AcpClient, "AcpClient", note_close_acp);
session_class!(AcpAgent, "AcpAgent", note_close_acp);
session_class!(McpClient, "McpClient", note_close_mcp);
session_class!(McpServer, "McpServer", note_close_mcp);
mcp_class!(McpClient, "McpClient");
mcp_class!(McpServer, "McpServer");
