//! The server role: its configuration and the calls of the client's features. The session
//! answers `initialize` and `server/discover` and reads the stateless era's per-request
//! `_meta` (`session/lifecycle.rs`).

use super::config::{RequestOptions, ServerConfig};
use super::session::{Role, Session};
use crate::json::Value;
use crate::jsonrpc::{object, set_member, Outbound, ProtocolError};
use std::ops::{Deref, DerefMut};

/// An MCP server session (sans-IO).
#[derive(Debug)]
pub struct McpServer {
    session: Session,
}

impl Deref for McpServer {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl DerefMut for McpServer {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

impl McpServer {
    pub fn new(config: ServerConfig) -> Self {
        let role = Role::Server {
            instructions: config.instructions,
            reject_unsupported: config.reject_unsupported_versions,
        };
        McpServer {
            session: Session::new(role, config.common, config.server_info),
        }
    }

    pub fn ping(&mut self, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.session
            .request("ping", None, RequestOptions::default(), now_ms)
    }

    /// `sampling/createMessage` with the params as given.
    pub fn create_message(
        &mut self,
        params: Value,
        options: RequestOptions,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.session
            .request("sampling/createMessage", Some(params), options, now_ms)
    }

    pub fn list_roots(&mut self, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.session
            .request("roots/list", None, RequestOptions::default(), now_ms)
    }

    /// `elicitation/create`; `params.mode` (`"form"` or `"url"`) picks the capability needed.
    pub fn elicit(
        &mut self,
        params: Value,
        options: RequestOptions,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.session
            .request("elicitation/create", Some(params), options, now_ms)
    }

    pub fn notify_tools_list_changed(&mut self) -> Result<Outbound, ProtocolError> {
        self.session
            .notify("notifications/tools/list_changed", None)
    }

    pub fn notify_prompts_list_changed(&mut self) -> Result<Outbound, ProtocolError> {
        self.session
            .notify("notifications/prompts/list_changed", None)
    }

    pub fn notify_resources_list_changed(&mut self) -> Result<Outbound, ProtocolError> {
        self.session
            .notify("notifications/resources/list_changed", None)
    }

    pub fn notify_resource_updated(&mut self, uri: &str) -> Result<Outbound, ProtocolError> {
        self.session.notify(
            "notifications/resources/updated",
            Some(object! { "uri": uri }),
        )
    }

    /// `notifications/message` (needs our `logging` capability).
    pub fn log(
        &mut self,
        level: &str,
        logger: Option<&str>,
        data: Value,
    ) -> Result<Outbound, ProtocolError> {
        let mut params = object! { "level": level, "data": data };
        if let Some(l) = logger {
            set_member(&mut params, "logger", l);
        }
        self.session.notify("notifications/message", Some(params))
    }

    /// `notifications/progress` for a request the client sent with a `progressToken`.
    pub fn progress(
        &mut self,
        token: Value,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<Outbound, ProtocolError> {
        let mut params = object! { "progressToken": token, "progress": progress };
        if let Some(t) = total {
            set_member(&mut params, "total", t);
        }
        if let Some(m) = message {
            set_member(&mut params, "message", m);
        }
        self.session.notify("notifications/progress", Some(params))
    }
}
