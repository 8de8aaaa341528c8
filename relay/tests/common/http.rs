//! Raw HTTP/1.1 for the tests of the relay's Streamable HTTP endpoints: one request, read to
//! the end, with chunked bodies undone and event streams decoded.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;

use agentwire::mcp::http::{SseDecoder, SseEvent};
use serde_json::Value;

use super::{header, repo, FRAME_TIMEOUT, TOKEN};

/// What Streamable HTTP requests carry, and the small stdio server the endpoint tests run.
pub const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
pub const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");
pub const JSON: (&str, &str) = ("content-type", "application/json");

/// `--agent` for fixtures/mini-mcp.mjs as `mini`, with `extra` arguments.
pub fn mini(extra: &str) -> String {
    format!(
        "mini=node {} {extra}",
        repo().join("relay/tests/fixtures/mini-mcp.mjs").display()
    )
}

/// The endpoint of `mini`, with the token in the query.
pub fn mini_path() -> String {
    format!("/mcp/mini?token={TOKEN}")
}

pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }
    pub fn events(&self) -> Vec<SseEvent> {
        SseDecoder::new(1 << 20)
            .feed(&self.body)
            .expect("an event stream")
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("JSON body: {}", self.body))
    }
}

/// One request; reads until the server closes (streams end once everything is answered).
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(FRAME_TIMEOUT)).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    // The server may answer (413) and close before reading all of an oversized body.
    let _ = s.write_all(format!("{head}\r\n{body}").as_bytes());
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("the answer ends");
    parse(&raw)
}

pub fn parse(raw: &[u8]) -> Answer {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a full HTTP response");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if header(&headers, "transfer-encoding") == Some("chunked") {
        body = dechunk(&body);
    }
    Answer {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

pub fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&raw[..eol]).unwrap().trim(), 16)
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + size]);
        raw = &raw[eol + 2 + size + 2..];
    }
    out
}
