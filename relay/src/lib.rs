//! agentwire-relay: bridges a browser WebSocket to a stdio agent (ACP or MCP), serves stdio
//! MCP servers over Streamable HTTP, and serves the playground. See docs/relay.md.
#![cfg(unix)]

pub mod accept;
pub mod acp_http;
pub mod cli;
pub mod files;
pub mod frames;
pub mod hosting;
pub mod lines;
pub mod mcp_http;
pub mod process;
pub mod sandbox;
pub mod server;
pub mod session;
pub mod words;
