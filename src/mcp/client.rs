//! The client (host) role: opens the connection with `initialize` or `server/discover`,
//! then calls the server's features.

use super::config::{ClientConfig, EraPreference, RequestOptions};
use super::event::Event;
use super::session::{merge_meta_text, refusal, Phase, Role, Session, META_SERVER_INFO};
use super::version::{Era, Version};
use crate::json::Value;
use crate::jsonrpc::{codes, object, set_member, Message, Outbound, ProtocolError};
use std::ops::{Deref, DerefMut};

/// An MCP client session (sans-IO): feed it text with `receive`, send what it returns.
#[derive(Debug)]
pub struct McpClient {
    session: Session,
}

impl Deref for McpClient {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl DerefMut for McpClient {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

impl McpClient {
    pub fn new(config: ClientConfig) -> Self {
        let role = Role::Client {
            era: config.era,
            tried: Vec::new(),
        };
        McpClient {
            session: Session::new(role, config.common, config.client_info),
        }
    }

    /// Opens the connection: `server/discover` (stateless or auto era) or `initialize`.
    /// The `initialized` event says when the connection is ready and which era it speaks.
    pub fn initialize(&mut self, now_ms: u64) -> Result<Outbound, ProtocolError> {
        let s = &mut self.session;
        if s.phase != Phase::Idle {
            return Err(refusal(
                "initialize",
                None,
                "the connection was already opened".into(),
            ));
        }
        let preference = match &s.role {
            Role::Client { era, .. } => *era,
            Role::Server { .. } => EraPreference::Handshake,
        };
        let stateless = s.stateless_versions().first().cloned();
        let handshake = s.handshake_versions().first().cloned();
        match (preference, stateless, handshake) {
            (EraPreference::Stateless | EraPreference::Auto, Some(v), _) => s.discover(v, now_ms),
            (EraPreference::Handshake | EraPreference::Auto, _, Some(v)) => s.offer(v, now_ms),
            _ => Err(refusal(
                "initialize",
                None,
                format!(
                    "no configured protocol version belongs to the {} era",
                    preference.name()
                ),
            )),
        }
    }

    pub fn ping(&mut self, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.call("ping", None, now_ms)
    }

    pub fn list_tools(
        &mut self,
        cursor: Option<&str>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.call("tools/list", paged(cursor), now_ms)
    }

    pub fn call_tool(
        &mut self,
        name: &str,
        arguments: Option<Value>,
        options: RequestOptions,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        let mut params = object! { "name": name };
        if let Some(a) = arguments {
            set_member(&mut params, "arguments", a);
        }
        self.session
            .request("tools/call", Some(params), options, now_ms)
    }

    pub fn list_resources(
        &mut self,
        cursor: Option<&str>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.call("resources/list", paged(cursor), now_ms)
    }

    pub fn list_resource_templates(
        &mut self,
        cursor: Option<&str>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.call("resources/templates/list", paged(cursor), now_ms)
    }

    pub fn read_resource(&mut self, uri: &str, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.call("resources/read", Some(object! { "uri": uri }), now_ms)
    }

    pub fn subscribe(&mut self, uri: &str, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.call("resources/subscribe", Some(object! { "uri": uri }), now_ms)
    }

    pub fn unsubscribe(&mut self, uri: &str, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.call(
            "resources/unsubscribe",
            Some(object! { "uri": uri }),
            now_ms,
        )
    }

    pub fn list_prompts(
        &mut self,
        cursor: Option<&str>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.call("prompts/list", paged(cursor), now_ms)
    }

    pub fn get_prompt(
        &mut self,
        name: &str,
        arguments: Option<Value>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        let mut params = object! { "name": name };
        if let Some(a) = arguments {
            set_member(&mut params, "arguments", a);
        }
        self.call("prompts/get", Some(params), now_ms)
    }

    pub fn set_logging_level(
        &mut self,
        level: &str,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.call("logging/setLevel", Some(object! { "level": level }), now_ms)
    }

    /// `completion/complete` with `{ ref, argument, context? }` as given.
    pub fn complete(&mut self, params: Value, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.call("completion/complete", Some(params), now_ms)
    }

    /// Stateless era: opens the notification stream (`subscriptions/listen`).
    pub fn listen(&mut self, notifications: Value, now_ms: u64) -> Result<Outbound, ProtocolError> {
        let params = object! { "notifications": notifications };
        // The stream stays open as long as the server keeps it: no deadline.
        let options = RequestOptions {
            timeout_ms: Some(u64::MAX),
            ..RequestOptions::default()
        };
        self.session
            .request("subscriptions/listen", Some(params), options, now_ms)
    }

    pub fn get_task(&mut self, task_id: &str, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.call("tasks/get", Some(object! { "taskId": task_id }), now_ms)
    }

    pub fn get_task_result(
        &mut self,
        task_id: &str,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.call("tasks/result", Some(object! { "taskId": task_id }), now_ms)
    }

    pub fn list_tasks(
        &mut self,
        cursor: Option<&str>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.call("tasks/list", paged(cursor), now_ms)
    }

    pub fn cancel_task(&mut self, task_id: &str, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.call("tasks/cancel", Some(object! { "taskId": task_id }), now_ms)
    }

    pub fn notify_roots_list_changed(&mut self) -> Result<Outbound, ProtocolError> {
        self.session
            .notify("notifications/roots/list_changed", None)
    }

    fn call(
        &mut self,
        method: &str,
        params: Option<Value>,
        now_ms: u64,
    ) -> Result<Outbound, ProtocolError> {
        self.session
            .request(method, params, RequestOptions::default(), now_ms)
    }
}

fn paged(cursor: Option<&str>) -> Option<Value> {
    cursor.map(|c| object! { "cursor": c })
}

impl Session {
    /// Our versions that can be offered with `initialize`: all but the known stateless
    /// ones (an unknown string is offered as it is).
    pub(super) fn handshake_versions(&self) -> Vec<Version> {
        self.versions
            .iter()
            .filter(|v| *v != &Version::V2026_07_28)
            .cloned()
            .collect()
    }

    pub(super) fn stateless_versions(&self) -> Vec<Version> {
        self.versions
            .iter()
            .filter(|v| v.era() == Era::Stateless)
            .cloned()
            .collect()
    }

    fn offer(&mut self, version: Version, now_ms: u64) -> Result<Outbound, ProtocolError> {
        self.offered = Some((version.clone(), Era::Handshake));
        self.phase = Phase::Initializing;
        if let Role::Client { tried, .. } = &mut self.role {
            tried.push(version.clone());
        }
        let params = object! {
            "protocolVersion": version.as_str(),
            "capabilities": self.own_capabilities(),
            "clientInfo": self.info_for(&version, Era::Handshake),
        };
        // `initialize` waits for its answer however long the server takes to start.
        self.send_request(
            "initialize",
            Some(crate::json::text(&params)),
            RequestOptions::default(),
            now_ms,
            false,
        )
    }

    fn discover(&mut self, version: Version, now_ms: u64) -> Result<Outbound, ProtocolError> {
        if let Role::Client { tried, .. } = &mut self.role {
            tried.push(version.clone());
        }
        self.offered = Some((version, Era::Stateless));
        self.phase = Phase::Discovering;
        let params = merge_meta_text(None, self.stateless_meta());
        self.send_request(
            "server/discover",
            Some(params),
            RequestOptions::default(),
            now_ms,
            false,
        )
    }

    /// The answer to `initialize` or `server/discover` (or their failure).
    pub(super) fn on_handshake_answer(
        &mut self,
        method: &str,
        outcome: Result<Value, ProtocolError>,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        if self.phase == Phase::Closed {
            return;
        }
        if method == "server/discover" {
            return self.on_discovered(outcome, now_ms, events);
        }
        let offered = self
            .offered
            .as_ref()
            .map(|o| o.0.as_str().to_owned())
            .unwrap_or_default();
        match outcome {
            Ok(result) => match result.get("protocolVersion").and_then(Value::as_str) {
                Some(answered)
                    if self
                        .handshake_versions()
                        .contains(&Version::parse(answered)) =>
                {
                    self.agree(Version::parse(answered), Era::Handshake);
                    self.peer_caps = Some(object_or_empty(result.get("capabilities")));
                    self.peer_info = result.get("serverInfo").cloned();
                    self.instructions = result
                        .get("instructions")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    self.phase = Phase::Ready;
                    self.auto(
                        Message::notification("notifications/initialized", None),
                        None,
                        events,
                    );
                    self.announce(events);
                }
                Some(answered) => {
                    let error = self.unsupported(&offered, answered);
                    self.fail(error, events);
                }
                None => {
                    let error = ProtocolError::new(
                        codes::INVALID_PARAMS,
                        "The initialize result has no protocolVersion string",
                    )
                    .with_data(object! { "result": result });
                    self.fail(error, events);
                }
            },
            Err(e) => {
                if let Some(next) = self.retry_version(&e) {
                    return self.fall_back(next, now_ms, events);
                }
                let error = ProtocolError {
                    code: e.code,
                    message: format!("initialize was refused: {} (offered {offered})", e.message),
                    data: e.data,
                };
                self.fail(error, events);
            }
        }
    }

    fn on_discovered(
        &mut self,
        outcome: Result<Value, ProtocolError>,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        let auto = matches!(
            self.role,
            Role::Client {
                era: EraPreference::Auto,
                ..
            }
        );
        let result = match outcome {
            Ok(r) => r,
            Err(e) => {
                // A refused sign-in says nothing of the era: asking again would only ask the user again.
                // A modern server's own refusals: the era is right, the request is not.
                if matches!(
                    e.code,
                    codes::HEADER_MISMATCH | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
                ) {
                    return self.fail(
                        ProtocolError {
                            code: e.code,
                            message: format!("server/discover failed: {}", e.message),
                            data: e.data,
                        },
                        events,
                    );
                }
                if let Some(next) = self.retry_stateless(&e) {
                    return match self.discover(next, now_ms) {
                        Ok(out) => events.push(Event::Send { text: out.text }),
                        Err(error) => self.fail(error, events),
                    };
                }
                return match self.handshake_versions().first().cloned() {
                    Some(v) if auto && e.code != codes::AUTH_FAILED => {
                        let reason = ProtocolError {
                            code: e.code,
                            message: format!("server/discover failed: {}", e.message),
                            data: e.data,
                        };
                        self.fall_back_from_discovery(v, reason, now_ms, events)
                    }
                    _ => self.fail(
                        ProtocolError {
                            code: e.code,
                            message: format!("server/discover failed: {}", e.message),
                            data: e.data,
                        },
                        events,
                    ),
                };
            }
        };
        let theirs: Vec<&str> = result
            .get("supportedVersions")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let common = self
            .stateless_versions()
            .into_iter()
            .find(|v| theirs.contains(&v.as_str()));
        match (common, self.handshake_versions().first().cloned()) {
            (Some(v), _) => {
                self.agree(v, Era::Stateless);
                self.peer_caps = Some(object_or_empty(result.get("capabilities")));
                self.peer_info = result
                    .get("_meta")
                    .and_then(|m| m.get(META_SERVER_INFO))
                    .cloned();
                self.instructions = result
                    .get("instructions")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.phase = Phase::Ready;
                self.announce(events);
            }
            (None, Some(v)) if auto => {
                let reason = ProtocolError::new(
                    codes::INVALID_PARAMS,
                    format!("server/discover offered no version this client speaks in the stateless era (it offered: {})", crate::text::join(&theirs, ", ")),
                )
                .with_data(object! { "supported": &theirs[..] });
                self.fall_back_from_discovery(v, reason, now_ms, events)
            }
            (None, _) => {
                let error = self.unsupported(&crate::text::join(&theirs, ", "), "none of them");
                self.fail(error, events);
            }
        }
    }

    /// Says why the stateless era is left, then offers `version` with `initialize`.
    fn fall_back_from_discovery(
        &mut self,
        version: Version,
        reason: ProtocolError,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        let from = self
            .offered
            .as_ref()
            .map(|o| o.0.as_str().to_owned())
            .unwrap_or_default();
        events.push(Event::EraFallback {
            from,
            to: version.as_str().to_owned(),
            reason,
        });
        self.fall_back(version, now_ms, events);
    }

    fn fall_back(&mut self, version: Version, now_ms: u64, events: &mut Vec<Event>) {
        self.phase = Phase::Idle;
        match self.offer(version, now_ms) {
            Ok(out) => events.push(Event::Send { text: out.text }),
            Err(error) => self.fail(error, events),
        }
    }

    /// After -32022 (UnsupportedProtocolVersion) to `server/discover`: a stateless version
    /// both sides speak that was not tried yet.
    fn retry_stateless(&self, e: &ProtocolError) -> Option<Version> {
        if e.code != codes::UNSUPPORTED_PROTOCOL_VERSION {
            return None;
        }
        let supported = e.data.as_ref()?.get("supported")?.as_array()?;
        let tried = match &self.role {
            Role::Client { tried, .. } => tried.as_slice(),
            Role::Server { .. } => &[],
        };
        self.stateless_versions().into_iter().find(|v| {
            !tried.contains(v) && supported.iter().any(|s| s.as_str() == Some(v.as_str()))
        })
    }

    /// After -32602 with `data.supported` (seed 004): a version both sides speak that
    /// was not tried yet.
    fn retry_version(&self, e: &ProtocolError) -> Option<Version> {
        if e.code != codes::INVALID_PARAMS {
            return None;
        }
        let supported = e.data.as_ref()?.get("supported")?.as_array()?;
        let tried = match &self.role {
            Role::Client { tried, .. } => tried.as_slice(),
            Role::Server { .. } => &[],
        };
        self.handshake_versions().into_iter().find(|v| {
            !tried.contains(v) && supported.iter().any(|s| s.as_str() == Some(v.as_str()))
        })
    }

    fn unsupported(&self, offered: &str, answered: &str) -> ProtocolError {
        let ours: Vec<&str> = self.supported_versions();
        ProtocolError::new(
            codes::INVALID_PARAMS,
            format!("Unsupported protocol version: offered {offered}, the server answered {answered}; this client supports {}", crate::text::join(&ours, ", ")),
        )
        .with_data(object! { "supported": &ours[..], "requested": offered, "answered": answered })
    }
}

fn object_or_empty(v: Option<&Value>) -> Value {
    match v {
        Some(o @ Value::Object(_)) => o.clone(),
        _ => object! {},
    }
}
