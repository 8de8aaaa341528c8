//! ACP's classes: `AcpClient` (what a web IDE runs) and `AcpAgent`.

use super::session::*;
use crate::acp;
use crate::acp::capabilities::CapabilityModel;
use wasm_bindgen::prelude::*;

/// ACP request options: only a per-call timeout is meaningful here (the session's own
/// default applies otherwise).
fn acp_request(
    session: &mut impl FnMut(&str, Option<&str>, u64) -> Result<Outbound, ProtocolError>,
    method: &str,
    params: &JsValue,
) -> Result<JsValue, JsValue> {
    let params = json_of(params)?;
    outbound(session(method, params.as_deref(), now()))
}

/// `state()` of either role (the same accessors on two types): the negotiated version, both
/// sides' capabilities (model and wire), peer info, auth methods, why it closed.
macro_rules! acp_state {
    ($s:expr) => {{
        let i = &$s.inner;
        let phase = i.phase();
        js(&object! {
            "protocolVersion": i.protocol_version(),
            "offered": &$s.offered[..],
            "phase": serialized(&phase),
            "closed": phase == acp::Phase::Closed,
            "closeError": $s.close_error.as_ref(),
            "ownCapabilities": i.own_capabilities_declared().to_model(),
            "peerCapabilities": i.peer_capabilities().to_model(),
            "ownCapabilitiesWire": i.own_capabilities_wire(),
            "peerCapabilitiesWire": i.peer_capabilities_wire(),
            "peerInfo": i.peer_info(),
            "authMethods": i.auth_methods(),
        })
    }};
}

/// Remembers why a session ended, for `state().closeError`.
fn note_close_acp(events: &[acp::Event], close_error: &mut Option<ProtocolError>) {
    for e in events {
        if let acp::Event::Closed { error: Some(error) } = e {
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
        Ok(AcpClient {
            inner: acp::AcpClient::new(config),
            offered,
            close_error: None,
        })
    }
    /// `initialize` with the preferred version and the declared capabilities.
    pub fn initialize(&mut self) -> Result<JsValue, JsValue> {
        outbound(self.inner.initialize(now()))
    }
    /// Any request, gated and validated.
    pub fn request(
        &mut self,
        method: &str,
        params: JsValue,
        _options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let inner = &mut self.inner;
        acp_request(&mut |m, p, t| inner.request_text(m, p, t), method, &params)
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
    /// The negotiated version, both sides' capabilities (model and wire), peer info.
    pub fn state(&self) -> JsValue {
        acp_state!(self)
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
        Ok(AcpAgent {
            inner: acp::AcpAgent::new(config),
            offered,
            close_error: None,
        })
    }
    pub fn request(
        &mut self,
        method: &str,
        params: JsValue,
        _options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let inner = &mut self.inner;
        acp_request(&mut |m, p, t| inner.request_text(m, p, t), method, &params)
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
        acp_state!(self)
    }
}

impl WriteEvent for acp::Event {
    fn write(&self, out: &mut String) {
        self.write_json(out)
    }
    /// A frame that was one session update, read as it came: 1 (live) or 2 (replayed). JS
    /// makes the event from the frame it holds (`params.sessionId`, `params.update`), so the
    /// update's bytes never cross back, and nothing is parsed twice (js/api.js, `fromFrame`).
    fn by_reference(events: &[Self]) -> Option<JsValue> {
        match events {
            [acp::Event::SessionUpdate { update, replay, .. }] if update.in_frame() => {
                Some(JsValue::from(1 + u8::from(*replay)))
            }
            _ => None,
        }
    }
}

session_class!(AcpClient, "AcpClient", note_close_acp);
session_class!(AcpAgent, "AcpAgent", note_close_acp);
