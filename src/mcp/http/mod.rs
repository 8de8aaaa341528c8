//! MCP over HTTP: Server-Sent Events and the client's state machine for Streamable HTTP
//! (with the 2024-11-05 HTTP+SSE fallback). Sans-IO like the rest of the core: the driver
//! makes the requests, this decides what they carry and what their answers mean.

pub mod client;
pub mod headers;
/// Server-Sent Events live at the crate root (ACP over HTTP reads them too).
pub use crate::sse;

pub use client::{End, HttpClient, Item, Plan, Reply, HTTP_ERROR};
pub use sse::{encode_event, SseDecoder, SseError, SseEvent};
