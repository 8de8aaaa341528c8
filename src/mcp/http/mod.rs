//! MCP over HTTP: Server-Sent Events and the client's state machine for Streamable HTTP
//! (with the 2024-11-05 HTTP+SSE fallback). Sans-IO like the rest of the core: the driver
//! makes the requests, this decides what they carry and what their answers mean.

pub mod client;
pub mod headers;
pub mod sse;

pub use client::{End, HttpClient, Item, Plan, Reply, HTTP_ERROR};
pub use sse::{encode_event, SseDecoder, SseError, SseEvent};
