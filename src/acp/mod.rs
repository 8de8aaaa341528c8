//! The Agent Client Protocol: versions, capabilities, methods, negotiation and sessions,
//! both roles, without I/O. See `docs/acp.md` for the method × capability table and the
//! choices made where the seed documents and the newest schemas differ.

mod agent;
pub mod capabilities;
pub mod checks;
mod client;
pub mod config;
mod event;
mod lenient;
#[rustfmt::skip]
mod lenient_table;
pub mod methods;
mod session;
#[cfg(feature = "transcript")]
pub mod transcript;
mod turns;
pub mod version;

pub use agent::AcpAgent;
pub use capabilities::{AgentCapabilities, CapabilityModel, ClientCapabilities};
pub use client::AcpClient;
pub use config::{AgentConfig, ClientConfig, Common, Implementation};
pub use event::Event;
pub use methods::{MethodSpec, MethodStatus, METHODS};
pub use session::{Phase, Role};
#[cfg(feature = "transcript")]
pub use transcript::{Entry, Transcript};
pub use version::NegotiationRule;

/// What both roles offer: sending, receiving, time, and the read-only view.
macro_rules! session_common {
    ($t:ty, $own:ident: $own_ty:ty, $peer:ident: $peer_ty:ty) => {
        impl $t {
            /// A request with the session's gating and validation; a `_`-prefixed method is
            /// an extension and passes the table.
            pub fn request(
                &mut self,
                method: &str,
                params: Option<crate::json::Value>,
                now_ms: u64,
            ) -> Result<crate::jsonrpc::Outbound, crate::jsonrpc::ProtocolError> {
                self.session.request(method, params, now_ms)
            }
            pub fn notify(
                &mut self,
                method: &str,
                params: Option<crate::json::Value>,
            ) -> Result<crate::jsonrpc::Outbound, crate::jsonrpc::ProtocolError> {
                self.session.notify(method, params)
            }
            /// Answers an incoming request delivered as `Event::Request`.
            pub fn respond(
                &mut self,
                id: &crate::jsonrpc::Id,
                outcome: Result<crate::json::Value, crate::jsonrpc::ProtocolError>,
            ) -> Result<crate::jsonrpc::Outbound, crate::jsonrpc::ProtocolError> {
                self.session.respond(id, outcome)
            }
            /// As `request`, with the params as JSON text: put into the message as they are
            /// (text that is not JSON is refused, -32602).
            pub fn request_text(
                &mut self,
                method: &str,
                params: Option<&str>,
                now_ms: u64,
            ) -> Result<crate::jsonrpc::Outbound, crate::jsonrpc::ProtocolError> {
                self.session.request_text(method, params, now_ms)
            }
            /// As `notify`, with the params as JSON text.
            pub fn notify_text(
                &mut self,
                method: &str,
                params: Option<&str>,
            ) -> Result<crate::jsonrpc::Outbound, crate::jsonrpc::ProtocolError> {
                self.session.notify_text(method, params)
            }
            /// As `respond`, with the result as JSON text.
            pub fn respond_text(
                &mut self,
                id: &crate::jsonrpc::Id,
                outcome: Result<String, crate::jsonrpc::ProtocolError>,
            ) -> Result<crate::jsonrpc::Outbound, crate::jsonrpc::ProtocolError> {
                self.session.respond_text(id, outcome)
            }
            /// Asks the peer to stop serving one of our requests (`$/cancel_request`).
            pub fn cancel_request(
                &mut self,
                id: &crate::jsonrpc::Id,
            ) -> Result<crate::jsonrpc::Outbound, crate::jsonrpc::ProtocolError> {
                self.session.notify(
                    "$/cancel_request",
                    Some(crate::jsonrpc::object! { "requestId": id }),
                )
            }
            /// One incoming frame of text.
            pub fn receive(&mut self, text: &str, now_ms: u64) -> Vec<crate::acp::Event> {
                self.session.receive(text, now_ms)
            }
            /// One incoming frame as bytes: UTF-8 text, or a parse error (-32700).
            pub fn receive_bytes(&mut self, bytes: &[u8], now_ms: u64) -> Vec<crate::acp::Event> {
                self.session.receive_bytes(bytes, now_ms)
            }
            /// Reports requests past their deadline (and sends `$/cancel_request` for them).
            pub fn tick(&mut self, now_ms: u64) -> Vec<crate::acp::Event> {
                self.session.tick(now_ms)
            }
            /// When `tick` should next be called, if anything is waiting.
            pub fn next_deadline(&self) -> Option<u64> {
                self.session.next_deadline()
            }
            /// The transport closed: every pending request fails, the session ends.
            pub fn close(&mut self) -> Vec<crate::acp::Event> {
                self.session.close()
            }
            pub fn phase(&self) -> crate::acp::Phase {
                self.session.phase
            }
            /// The negotiated protocol version, once initialized.
            pub fn protocol_version(&self) -> Option<u16> {
                (self.session.phase == crate::acp::Phase::Ready)
                    .then_some(self.session.version)
                    .flatten()
            }
            pub fn own_capabilities(&self) -> &$own_ty {
                &self.session.$own
            }
            /// Our capabilities as the negotiated version can say them (v2 has no `fs` or
            /// `terminal`, so those read as absent there); before that, as configured.
            pub fn own_capabilities_declared(&self) -> $own_ty {
                use crate::acp::capabilities::CapabilityModel;
                match (self.session.own_wire.as_ref(), self.protocol_version()) {
                    (Some(wire), Some(v)) => <$own_ty>::from_wire(wire, v),
                    _ => self.session.$own.clone(),
                }
            }
            pub fn peer_capabilities(&self) -> &$peer_ty {
                &self.session.$peer
            }
            /// Our capabilities exactly as sent in the negotiated version.
            pub fn own_capabilities_wire(&self) -> Option<&crate::json::Value> {
                self.session.own_wire.as_ref()
            }
            /// The peer's capabilities exactly as received.
            pub fn peer_capabilities_wire(&self) -> Option<&crate::json::Value> {
                self.session.peer_wire.as_ref()
            }
            pub fn peer_info(&self) -> Option<&crate::json::Value> {
                self.session.peer_info.as_ref()
            }
            pub fn auth_methods(&self) -> &[crate::json::Value] {
                &self.session.auth_methods
            }
            /// Every method of the negotiated (before that: the preferred) version, and
            /// whether it may be used now, and if not, why.
            pub fn methods(&self) -> Vec<crate::acp::MethodStatus> {
                self.session.method_table()
            }
        }
    };
}
pub(crate) use session_common;
