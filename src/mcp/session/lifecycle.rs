//! The server's side of the lifecycle, run by the session for each incoming request:
//! answers `initialize` and `server/discover`, and reads the stateless era's per-request
//! `_meta`. A child of the session (it reads the session's state), so that the server role
//! (`server.rs`) depends on the session and not the other way round.

use super::{
    issue, Phase, Role, Session, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_SERVER_INFO,
    META_VERSION,
};
use crate::json::Value;
use crate::json::{Item, View};
use crate::jsonrpc::{codes, object, set_member, Flow, ProtocolError, Request};
use crate::mcp::event::Event;
use crate::mcp::version::{negotiate, Era, Version};
use crate::schema::{codes as issue_codes, Severity};

/// What a stateless-era request names in `_meta`: its version, the client's capabilities and
/// info.
pub(super) struct StatelessMeta(Version, Value, Option<Value>);

/// What the server's lifecycle made of an incoming request.
pub(super) enum Lifecycle {
    /// Answered by the session (initialize, discover, a refusal).
    Handled,
    /// A valid stateless-era request: deliver it, answer it the stateless way.
    Stateless,
    /// Nothing special: the usual checks apply.
    Continue,
}

impl Session {
    pub(super) fn serve_lifecycle(&mut self, r: &Request, events: &mut Vec<Event>) -> Lifecycle {
        match r.method.as_str() {
            "initialize" => {
                self.serve_initialize(r, events);
                return Lifecycle::Handled;
            }
            "server/discover" => {
                self.serve_discover(r, events);
                return Lifecycle::Handled;
            }
            _ => {}
        }
        if self.era == Some(Era::Handshake) {
            return Lifecycle::Continue;
        }
        let stateless = self.stateless_versions();
        let meta = r.params.as_ref().and_then(|p| p.get("_meta"));
        let Some(requested) = meta
            .and_then(|m| m.get(META_VERSION))
            .and_then(Value::as_str)
        else {
            if !stateless.is_empty() && r.method != "ping" {
                let e = ProtocolError::invalid_params(format!(
                    "{} carries no params._meta[\"{META_VERSION}\"], and no initialize came first",
                    r.method
                ));
                self.reply(&r.id, &r.method, Err(e), events);
                return Lifecycle::Handled;
            }
            return Lifecycle::Continue;
        };
        if stateless.is_empty() {
            return Lifecycle::Continue;
        }
        let version = Version::parse(requested);
        if !stateless.contains(&version) {
            let supported: Vec<&str> = stateless.iter().map(Version::as_str).collect();
            let e = ProtocolError::new(
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
            )
            .with_data(object! { "supported": &supported[..], "requested": requested });
            self.reply(&r.id, &r.method, Err(e), events);
            return Lifecycle::Handled;
        }
        let Some(caps) = meta
            .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
            .filter(|c| c.is_object())
            .cloned()
        else {
            let e = ProtocolError::invalid_params(format!(
                "params._meta[\"{META_CLIENT_CAPABILITIES}\"] is required"
            ));
            self.reply(&r.id, &r.method, Err(e), events);
            return Lifecycle::Handled;
        };
        let info = meta.and_then(|m| m.get(META_CLIENT_INFO)).cloned();
        self.enter_stateless(StatelessMeta(version, caps, info));
        Lifecycle::Stateless
    }

    /// What a stateless-era request (not `ping`) names in `_meta`, when the lifecycle takes it
    /// as it is (a version this server speaks statelessly, capabilities): read from its parse.
    /// `None` for anything the lifecycle answers or leaves to the usual checks.
    pub(super) fn named_in_meta(&self, params: Option<Item>) -> Option<StatelessMeta> {
        let meta = params?.get("_meta")?;
        let version = Version::parse(&meta.get(META_VERSION)?.text()?);
        if !self.stateless_versions().contains(&version) {
            return None;
        }
        let caps = meta.get(META_CLIENT_CAPABILITIES).filter(Item::is_object)?;
        let info = meta.get(META_CLIENT_INFO).map(|i| i.value());
        Some(StatelessMeta(version, caps.value(), info))
    }

    /// A stateless-era request taken: its version agreed and its capabilities the peer's, for
    /// this request alone (never inferred from earlier ones).
    pub(super) fn enter_stateless(&mut self, StatelessMeta(version, caps, info): StatelessMeta) {
        self.agree(version, Era::Stateless);
        self.phase = Phase::Ready;
        self.peer_caps = Some(caps);
        self.peer_info = info;
    }

    fn serve_initialize(&mut self, r: &Request, events: &mut Vec<Event>) {
        // Stateless requests before it do not count: each stood alone, and a client may turn
        // to the handshake era after them (the automatic fallback does).
        if self.era == Some(Era::Handshake) || self.phase == Phase::Closed {
            let e = ProtocolError::new(
                codes::INVALID_REQUEST,
                "initialize was already received on this connection",
            )
            .with_data(object! { "method": "initialize" });
            return self.reply(&r.id, &r.method, Err(e), events);
        }
        let params = r.params.as_ref();
        let Some(requested) = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
        else {
            let e =
                ProtocolError::invalid_params("initialize needs params.protocolVersion, a string");
            return self.reply(&r.id, &r.method, Err(e), events);
        };
        let ours = self.handshake_versions();
        let offer_latest = !matches!(
            self.role,
            Role::Server {
                reject_unsupported: true,
                ..
            }
        );
        match negotiate(requested, &ours, offer_latest) {
            Ok(version) => {
                self.agree(version.clone(), Era::Handshake);
                self.phase = Phase::Initializing;
                self.peer_caps = Some(
                    params
                        .and_then(|p| p.get("capabilities"))
                        .filter(|c| c.is_object())
                        .cloned()
                        .unwrap_or_else(|| object! {}),
                );
                self.peer_info = params.and_then(|p| p.get("clientInfo")).cloned();
                let mut result = object! {
                    "protocolVersion": version.as_str(),
                    "capabilities": self.own_capabilities(),
                    "serverInfo": self.info_for(&version, Era::Handshake),
                };
                if let Role::Server {
                    instructions: Some(i),
                    ..
                } = &self.role
                {
                    set_member(&mut result, "instructions", i.as_str());
                }
                self.reply(&r.id, &r.method, Ok(result), events);
            }
            Err(_) => {
                let supported: Vec<&str> = ours.iter().map(Version::as_str).collect();
                let e = ProtocolError::new(codes::INVALID_PARAMS, "Unsupported protocol version")
                    .with_data(object! { "supported": &supported[..], "requested": requested });
                self.reply(&r.id, &r.method, Err(e), events);
            }
        }
    }

    fn serve_discover(&mut self, r: &Request, events: &mut Vec<Event>) {
        let Some(latest) = self.stateless_versions().first().cloned() else {
            // A handshake-only server does not know the method; clients fall back on this.
            return self.reply(
                &r.id,
                &r.method,
                Err(ProtocolError::method_not_found(&r.method)),
                events,
            );
        };
        let saved = self.offered.replace((latest.clone(), Era::Stateless));
        let mut result = object! {
            "resultType": "complete",
            "supportedVersions": &self.supported_versions()[..],
            "capabilities": self.own_capabilities(),
            "cacheScope": "private",
            "ttlMs": 0u64,
            "_meta": object! { META_SERVER_INFO: self.info_for(&latest, Era::Stateless) },
        };
        if let Role::Server {
            instructions: Some(i),
            ..
        } = &self.role
        {
            set_member(&mut result, "instructions", i.as_str());
        }
        // Offered while answering, so the answer is judged as that version's.
        self.reply(&r.id, &r.method, Ok(result), events);
        self.offered = saved;
    }

    pub(super) fn on_initialized(&mut self, events: &mut Vec<Event>) {
        if self.phase != Phase::Initializing {
            let early = issue(
                issue_codes::LIFECYCLE,
                Severity::Warning,
                "notifications/initialized arrived without an initialize before it".into(),
            );
            events.push(Event::violation(
                None,
                Some("notifications/initialized"),
                Flow::In,
                vec![early],
            ));
            return;
        }
        self.phase = Phase::Ready;
        self.announce(events);
    }
}
