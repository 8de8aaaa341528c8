//! agentwire-relay: bridges a browser WebSocket to a stdio agent (ACP or MCP) and serves the
//! playground. See docs/relay.md.
#![cfg(unix)]

pub mod accept;
pub mod cli;
pub mod files;
pub mod frames;
pub mod lines;
pub mod process;
pub mod server;
pub mod session;
pub mod words;
