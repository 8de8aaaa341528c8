//! The agent role: what the demo agent and the tests run.

use super::capabilities::{AgentCapabilities, ClientCapabilities};
use super::config::AgentConfig;
use super::session::{Role, Session};
use crate::json::Value;
use crate::jsonrpc::{object, Outbound, ProtocolError};

#[derive(Debug)]
pub struct AcpAgent {
    session: Session,
}

super::session_common!(AcpAgent, agent_caps: AgentCapabilities, client_caps: ClientCapabilities);

type Sent = Result<Outbound, ProtocolError>;

impl AcpAgent {
    /// The session answers `initialize` by itself, from this configuration.
    pub fn new(config: AgentConfig) -> Self {
        let session = Session::new(
            Role::Agent,
            config.common,
            ClientCapabilities::default(),
            config.capabilities,
            config.auth_methods,
            config.negotiation,
        );
        AcpAgent { session }
    }

    /// A `session/update` notification.
    pub fn send_update(&mut self, session_id: &str, update: Value) -> Sent {
        self.session.notify(
            "session/update",
            Some(object! { "sessionId": session_id, "update": update }),
        )
    }

    /// Ends the pending prompt turn of a session: answers its `session/prompt` with
    /// `{stopReason}` (`cancelled` after a `session/cancel`, whatever is given). That is
    /// v1's answer; in v2 `respond` with `{messageId}` and end the turn with an idle
    /// `state_update`.
    pub fn end_turn(&mut self, session_id: &str, stop_reason: &str) -> Sent {
        let Some(id) = self
            .session
            .serving_ids("session/prompt", session_id)
            .into_iter()
            .next()
        else {
            return Err(ProtocolError::local_refusal(format!(
                "no prompt of session {} is waiting for an answer",
                crate::json::text(&session_id)
            )));
        };
        self.session
            .respond(&id, Ok(object! { "stopReason": stop_reason }))
    }

    /// Whether the client cancelled the pending prompt of this session.
    pub fn is_cancelled(&self, session_id: &str) -> bool {
        self.session.cancelled.contains(session_id)
    }

    pub fn request_permission(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session
            .request("session/request_permission", Some(params), now_ms)
    }

    /// `fs/read_text_file`, only if the client advertised `fs.readTextFile`.
    pub fn read_text_file(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session
            .request("fs/read_text_file", Some(params), now_ms)
    }

    pub fn write_text_file(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session
            .request("fs/write_text_file", Some(params), now_ms)
    }

    /// `terminal/create`; the other `terminal/*` calls go through `request`.
    pub fn create_terminal(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session
            .request("terminal/create", Some(params), now_ms)
    }
}
