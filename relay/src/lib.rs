//! agentwire-relay: bridges a browser WebSocket to a stdio agent (ACP or MCP), serves stdio
//! MCP servers over Streamable HTTP, and serves the playground. See docs/relay.md.
#![cfg(unix)]

pub mod accept;
pub mod acp_http;
pub mod address;
pub mod cli;
pub mod event_stream;
pub mod files;
pub mod frames;
pub mod hosting;
pub mod hub;
pub mod lines;
pub mod mcp_http;
pub mod origin;
pub mod permits;
pub mod pipes;
pub mod process;
pub mod refusal;
pub mod request;
pub mod sandbox;
pub mod secret;
pub mod server;
pub mod session;
pub mod words;
