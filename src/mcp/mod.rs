//! The Model Context Protocol: versions, capabilities, methods, negotiation and the
//! client and server sessions, for the handshake era (2024-11-05 … 2025-11-25) and the
//! stateless era (2026-07-28). Sans-IO: text and `now_ms` in, text and events out.

pub mod capabilities;
mod client;
pub mod config;
pub mod event;
pub mod http;
pub mod methods;
mod server;
mod session;
pub mod version;

pub use capabilities::{Capabilities, CapabilityModel, Side};
pub use client::McpClient;
pub use config::{
    ClientConfig, Common, EraPreference, Implementation, RequestOptions, ServerConfig,
};
pub use event::{Event, PendingCall};
pub use methods::{Kind, MethodSpec};
pub use server::McpServer;
pub use session::{
    MethodStatus, Phase, Session, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_SERVER_INFO,
    META_VERSION,
};
pub use version::{negotiate, Era, Refusal, Version};
