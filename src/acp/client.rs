//! The client role: what a web IDE runs.

use super::capabilities::{AgentCapabilities, ClientCapabilities};
use super::config::ClientConfig;
use super::session::{Role, Session};
#[cfg(feature = "transcript")]
use super::transcript::Transcript;
use super::version::NegotiationRule;
use crate::json::Value;
use crate::jsonrpc::{object, Outbound, ProtocolError};

#[derive(Debug)]
pub struct AcpClient {
    session: Session,
}

super::session_common!(AcpClient, client_caps: ClientCapabilities, agent_caps: AgentCapabilities);

type Sent = Result<Outbound, ProtocolError>;

impl AcpClient {
    pub fn new(config: ClientConfig) -> Self {
        let session = Session::new(
            Role::Client,
            config.common,
            config.capabilities,
            AgentCapabilities::default(),
            Vec::new(),
            NegotiationRule::default(),
        );
        AcpClient { session }
    }

    /// `initialize` with the latest supported version and our capabilities.
    pub fn initialize(&mut self, now_ms: u64) -> Sent {
        let params = self.session.initialize_params();
        self.session.request("initialize", Some(params), now_ms)
    }

    /// `session/new` (`cwd` absolute, `mcpServers` checked and gated by transport).
    pub fn new_session(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session.request("session/new", Some(params), now_ms)
    }

    /// `session/load`: the transcript of that session starts afresh and fills with the replay.
    pub fn load_session(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session.request("session/load", Some(params), now_ms)
    }

    pub fn resume_session(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session.request("session/resume", Some(params), now_ms)
    }

    pub fn list_sessions(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session.request("session/list", Some(params), now_ms)
    }

    pub fn close_session(&mut self, session_id: &str, now_ms: u64) -> Sent {
        self.session.request(
            "session/close",
            Some(object! { "sessionId": session_id }),
            now_ms,
        )
    }

    pub fn delete_session(&mut self, session_id: &str, now_ms: u64) -> Sent {
        self.session.request(
            "session/delete",
            Some(object! { "sessionId": session_id }),
            now_ms,
        )
    }

    /// `session/prompt`; image, audio and embedded resources only if advertised.
    pub fn prompt(&mut self, session_id: &str, prompt: Value, now_ms: u64) -> Sent {
        self.session.request(
            "session/prompt",
            Some(object! { "sessionId": session_id, "prompt": prompt }),
            now_ms,
        )
    }

    /// `session/cancel`, then the `cancelled` outcome for every permission request of that
    /// session still waiting for an answer, as the protocol requires of the client.
    pub fn cancel(&mut self, session_id: &str) -> Result<Vec<Outbound>, ProtocolError> {
        let mut out = vec![self
            .session
            .notify("session/cancel", Some(object! { "sessionId": session_id }))?];
        for id in self
            .session
            .serving_ids("session/request_permission", session_id)
        {
            out.push(self.session.respond(
                &id,
                Ok(object! { "outcome": object! { "outcome": "cancelled" } }),
            )?);
        }
        Ok(out)
    }

    pub fn set_mode(&mut self, session_id: &str, mode_id: &str, now_ms: u64) -> Sent {
        self.session.request(
            "session/set_mode",
            Some(object! { "sessionId": session_id, "modeId": mode_id }),
            now_ms,
        )
    }

    pub fn set_config_option(&mut self, params: Value, now_ms: u64) -> Sent {
        self.session
            .request("session/set_config_option", Some(params), now_ms)
    }

    /// `authenticate` (v1) or `auth/login` (v2), with one of the advertised method ids.
    pub fn authenticate(&mut self, method_id: &str, now_ms: u64) -> Sent {
        let method = if self.session.version.unwrap_or(1) >= 2 {
            "auth/login"
        } else {
            "authenticate"
        };
        self.session
            .request(method, Some(object! { "methodId": method_id }), now_ms)
    }

    /// The v2 name of `authenticate`.
    pub fn login(&mut self, method_id: &str, now_ms: u64) -> Sent {
        self.authenticate(method_id, now_ms)
    }

    /// `logout` (v1) or `auth/logout` (v2), only when advertised.
    pub fn logout(&mut self, now_ms: u64) -> Sent {
        let method = if self.session.version.unwrap_or(1) >= 2 {
            "auth/logout"
        } else {
            "logout"
        };
        self.session.request(method, Some(object! {}), now_ms)
    }

    /// The conversation of one session as built from its updates.
    #[cfg(feature = "transcript")]
    pub fn transcript(&self, session_id: &str) -> Option<&Transcript> {
        self.session.transcripts.get(session_id)
    }

    #[cfg(feature = "transcript")]
    pub fn session_ids(&self) -> Vec<&str> {
        self.session
            .transcripts
            .keys()
            .map(String::as_str)
            .collect()
    }
}
