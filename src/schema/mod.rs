//! Message validation, method-aware and version-aware. (Interface; the rules engine
//! lands with the validation work.)

use crate::jsonrpc::Message;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Acp,
    Mcp,
}

/// Who sends the message. ACP: client → agent is `ClientToServer`; MCP: client → server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Direction {
    #[serde(rename = "clientToServer")]
    ClientToServer,
    #[serde(rename = "serverToClient")]
    ServerToClient,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One finding: where (a JSON pointer into the whole message), what (a stable code),
/// a sentence for people, and how bad.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Issue {
    pub path: String,
    pub code: &'static str,
    pub message: String,
    pub severity: Severity,
}

/// What the validator needs to know besides the message.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    pub protocol: Protocol,
    /// ACP: "1" or "2"; MCP: the date string ("2025-11-25").
    pub version: &'a str,
    pub direction: Direction,
    /// For a response: the method of the request it answers.
    pub in_reply_to: Option<&'a str>,
}

/// Validates one parsed message. An empty list means valid.
pub fn validate_message(_message: &Message, _ctx: &Context) -> Vec<Issue> {
    Vec::new()
}
