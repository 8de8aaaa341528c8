//! MCP's classes: `McpClient` and `McpServer`.

use super::session::*;
use crate::mcp;
use wasm_bindgen::prelude::*;

fn note_close_mcp(events: &[mcp::Event], close_error: &mut Option<ProtocolError>) {
    for e in events {
        if let mcp::Event::ProtocolError { error } = e {
            *close_error = Some(error.clone());
        }
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
        "ownCapabilities": s.own_capability_model().to_value(),
        "peerCapabilities": s.peer_capability_model().to_value(),
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
            pub fn request(
                &mut self,
                method: &str,
                params: JsValue,
                options: JsValue,
            ) -> Result<JsValue, JsValue> {
                let params = json_of(&params)?;
                let opts: mcp::RequestOptions = self::options(&options, "request")?;
                outbound(self.inner.request_text(method, params, opts, now()))
            }
            /// Withdraws one of our requests and tells the peer (`notifications/cancelled`).
            #[wasm_bindgen(js_name = cancelRequest)]
            pub fn cancel_request(
                &mut self,
                id: JsValue,
                reason: Option<String>,
            ) -> Result<JsValue, JsValue> {
                let out = self
                    .inner
                    .cancel(&id_from(&id)?, reason.as_deref())
                    .map_err(fail)?;
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
        Ok(McpClient {
            inner: mcp::McpClient::new(config),
            close_error: None,
        })
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
        Ok(McpServer {
            inner: mcp::McpServer::new(config),
            close_error: None,
        })
    }
}

impl WriteEvent for mcp::Event {
    fn write(&self, out: &mut String) {
        self.write_json(out)
    }
}

session_class!(McpClient, "McpClient", note_close_mcp);
session_class!(McpServer, "McpServer", note_close_mcp);
mcp_class!(McpClient, "McpClient");
mcp_class!(McpServer, "McpServer");
