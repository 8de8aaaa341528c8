//! The ACP agent: the core's `AcpAgent` does the protocol (framing, negotiation, gating,
//! validation); this decides what to answer, runs prompt turns step by step, and keeps
//! sessions in the store.

use crate::mcp_use::{Action, McpUse};
use crate::runner::{log, Driver, Out};
use crate::script::{self, Ask, Step};
use crate::store::{Record, Store};
use crate::updates::Update;
use agentwire::acp::{AcpAgent, Event};
use agentwire::jsonrpc::{codes, Id, ProtocolError};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};

/// A prompt being answered.
struct Turn {
    prompt: Id,
    number: usize,
    steps: VecDeque<Step>,
    /// When the next step is due.
    due: u64,
    /// A request to the client the turn waits for.
    waiting: Option<(Id, Waiting)>,
}

/// What a turn waits for: the client's answer to a step's request, or to an MCP job's.
enum Waiting {
    Client(Ask),
    Mcp,
}

pub struct AcpDemo {
    agent: AcpAgent,
    store: Store,
    /// Sessions created or loaded on this connection.
    sessions: HashMap<String, Record>,
    turns: HashMap<String, Turn>,
    /// The MCP servers each session was given, as turns use them.
    mcp: McpUse,
}

type Answer = Result<Value, ProtocolError>;

impl AcpDemo {
    pub fn new(agent: AcpAgent, store: Store) -> Self {
        AcpDemo {
            agent,
            store,
            sessions: HashMap::new(),
            turns: HashMap::new(),
            mcp: McpUse::default(),
        }
    }

    fn version(&self) -> u16 {
        self.agent.protocol_version().unwrap_or(1)
    }

    fn handle(&mut self, events: Vec<Event>, now_ms: u64, out: &mut Out) {
        for event in events {
            match event {
                Event::Send { text } => out.line(&text),
                Event::Initialized {
                    protocol_version, ..
                } => log(&format!("initialized: ACP v{protocol_version}")),
                Event::Request { id, method, .. } if method == "mcp/message" => {
                    // The MCP server asks the agent (sampling, elicitation, roots): none is offered.
                    let refusal = ProtocolError::method_not_found(
                        "the demo agent's MCP client offers no client features",
                    );
                    out.send(self.agent.respond(&id, Err(refusal)));
                }
                Event::Request { id, method, params } => {
                    let params = params.map_or(Value::Null, |p| p.value());
                    if method == "session/prompt" {
                        self.start_turn(id, &params, now_ms, out);
                        continue;
                    }
                    let answer = self.serve(&method, &params, out);
                    out.send(self.agent.respond(&id, answer));
                }
                Event::Notification { method, params } if method == "session/cancel" => {
                    let params = params.as_ref().map(|p| p.value());
                    let session = params
                        .as_ref()
                        .and_then(|p| p["sessionId"].as_str())
                        .unwrap_or_default()
                        .to_owned();
                    // v1: the pending prompt; v2: the acknowledged turn still running.
                    if self.turns.contains_key(&session) {
                        self.cancel(&session, out);
                    }
                }
                Event::CancelRequested { id } => {
                    let session = self
                        .turns
                        .iter()
                        .find(|(_, t)| t.prompt == id)
                        .map(|(s, _)| s.clone());
                    if let Some(s) = session {
                        self.cancel(&s, out);
                    }
                }
                Event::Response { id, result, .. } => {
                    self.answered(&id, Ok(result.value()), now_ms, out)
                }
                Event::Error { id, error, .. } | Event::Timeout { id, error, .. } => {
                    self.answered(&id, Err(error), now_ms, out)
                }
                other => log(&format!("{other:?}")),
            }
        }
    }

    /// Every request but `session/prompt`.
    fn serve(&mut self, method: &str, params: &Value, out: &mut Out) -> Answer {
        let session = match method {
            "session/new" | "session/list" => String::new(),
            _ => session_id(params)?,
        };
        match method {
            "session/new" => {
                let cwd = absolute_cwd(params)?;
                let record = Record {
                    session_id: self.store.fresh_id(),
                    cwd,
                    title: None,
                    history: Vec::new(),
                };
                self.save(&record);
                let id = record.session_id.clone();
                self.sessions.insert(id.clone(), record);
                self.mcp.set_servers(&id, params);
                Ok(json!({ "sessionId": id }))
            }
            "session/load" => {
                let record = self.find(&session)?;
                let v = self.version();
                for update in &record.history {
                    out.send(self.agent.send_update(&session, update.wire(v)));
                }
                self.mcp.set_servers(&session, params);
                self.sessions.insert(session, record);
                // Seed 002: the answer after the replay is `null`.
                Ok(Value::Null)
            }
            "session/resume" => {
                let record = self.find(&session)?;
                self.sessions.insert(session, record);
                Ok(json!({}))
            }
            "session/list" => {
                let sessions: Vec<Value> = self
                    .store
                    .list()
                    .into_iter()
                    .map(|r| json!({ "sessionId": r.session_id, "cwd": r.cwd, "title": r.title }))
                    .collect();
                Ok(json!({ "sessions": sessions }))
            }
            "session/close" => {
                self.cancel(&session, out);
                self.sessions.remove(&session);
                Ok(json!({}))
            }
            _ => Err(ProtocolError::method_not_found(method)),
        }
    }

    /// A session of this connection, else one from the store.
    fn find(&self, session: &str) -> Result<Record, ProtocolError> {
        self.sessions
            .get(session)
            .cloned()
            .or_else(|| self.store.load(session))
            .ok_or_else(|| {
                ProtocolError::new(
                    codes::RESOURCE_NOT_FOUND,
                    format!("no session {session:?} is known to this agent"),
                )
                .with_data(json!({ "sessionId": session }))
            })
    }

    fn save(&self, record: &Record) {
        if let Err(e) = self.store.save(record) {
            log(&format!(
                "could not save session {}: {e}",
                record.session_id
            ));
        }
    }

    fn start_turn(&mut self, id: Id, params: &Value, now_ms: u64, out: &mut Out) {
        let session = match session_id(params) {
            Ok(s) => s,
            Err(e) => return out.send(self.agent.respond(&id, Err(e))),
        };
        let refusal = match (
            self.sessions.get(&session),
            self.turns.contains_key(&session),
        ) {
            (None, _) => Some(ProtocolError::new(
                codes::RESOURCE_NOT_FOUND,
                format!("no session {session:?} on this connection; create or load it first"),
            )),
            (_, true) => Some(ProtocolError::invalid_request(format!(
                "session {session:?} is already answering a prompt"
            ))),
            _ => None,
        };
        if let Some(e) = refusal {
            return out.send(self.agent.respond(&id, Err(e)));
        }
        let text = prompt_text(&params["prompt"]);
        let can_read = self.agent.peer_capabilities().fs.read_text_file;
        let can_write = self.agent.peer_capabilities().fs.write_text_file;
        let Some(record) = self.sessions.get_mut(&session) else {
            return;
        };
        let number = 1 + record
            .history
            .iter()
            .filter(|u| matches!(u, Update::User { .. }))
            .count();
        let user = Update::User {
            message_id: format!("msg_{number}_user"),
            text: text.clone(),
        };
        record
            .title
            .get_or_insert_with(|| text.chars().take(60).collect());
        Update::push_merged(&mut record.history, user.clone());
        let words = record.history.iter().map(words_of).sum();
        let cx = script::Context {
            text: &text,
            cwd: &record.cwd,
            turn: number,
            can_read,
            can_write,
            words,
        };
        let steps: VecDeque<Step> = script::steps(&cx).into();
        let user_message = format!("msg_{number}_user");
        if self.version() >= 2 {
            // v2: a prompt the agent refuses outright is answered with the error; any other
            // is acknowledged as soon as it is inserted, and the turn ends with `idle`.
            if let Some(Step::Fail(e)) = steps.front() {
                return out.send(self.agent.respond(&id, Err(e.clone())));
            }
            out.send(self.agent.send_update(&session, user.wire(2)));
            out.send(self.agent.send_update(
                &session,
                json!({ "sessionUpdate": "state_update", "state": "running" }),
            ));
            out.send(
                self.agent
                    .respond(&id, Ok(json!({ "messageId": user_message }))),
            );
        }
        self.turns.insert(
            session,
            Turn {
                prompt: id,
                number,
                steps,
                due: now_ms,
                waiting: None,
            },
        );
    }

    /// The client answered (or failed to answer) one of our requests.
    fn answered(&mut self, id: &Id, outcome: Answer, now_ms: u64, out: &mut Out) {
        let mcp_job = self
            .turns
            .iter()
            .find(|(_, t)| matches!(&t.waiting, Some((w, Waiting::Mcp)) if w == id))
            .map(|(s, _)| s.clone());
        if let Some(session) = mcp_job {
            if let Some(turn) = self.turns.get_mut(&session) {
                turn.waiting = None;
                turn.due = now_ms;
            }
            let actions = self.mcp.answered(&session, outcome, now_ms);
            return self.act(&session, actions, now_ms, out);
        }
        for turn in self.turns.values_mut() {
            if turn.waiting.as_ref().is_some_and(|(w, _)| w == id) {
                let Some((_, Waiting::Client(ask))) = turn.waiting.take() else {
                    return;
                };
                for step in script::after(&ask, turn.number, outcome).into_iter().rev() {
                    turn.steps.push_front(step);
                }
                turn.due = now_ms;
                return;
            }
        }
    }

    /// Runs the due steps of every turn.
    fn advance(&mut self, now_ms: u64, out: &mut Out) {
        let due: Vec<String> = self
            .turns
            .iter()
            .filter(|(_, t)| t.waiting.is_none() && t.due <= now_ms)
            .map(|(s, _)| s.clone())
            .collect();
        for session in due {
            while let Some(step) = self
                .turns
                .get_mut(&session)
                .and_then(|t| t.steps.pop_front())
            {
                match step {
                    Step::Update(u) => self.report(&session, u, out),
                    Step::Pause(ms) => {
                        if let Some(t) = self.turns.get_mut(&session) {
                            t.due = now_ms.saturating_add(ms);
                        }
                        break;
                    }
                    Step::Ask(ask) => {
                        let sent = self.ask(&session, &ask, out);
                        let Some(turn) = self.turns.get_mut(&session) else {
                            break;
                        };
                        match sent {
                            Ok(id) => {
                                turn.waiting = Some((id, Waiting::Client(ask)));
                                break;
                            }
                            // The core refused to send it: go on as if the client had refused.
                            Err(e) => {
                                for step in
                                    script::after(&ask, turn.number, Err(e)).into_iter().rev()
                                {
                                    turn.steps.push_front(step);
                                }
                            }
                        }
                    }
                    Step::Mcp(ask) => {
                        let actions = self.mcp.start(&session, ask, now_ms);
                        self.act(&session, actions, now_ms, out);
                        if self
                            .turns
                            .get(&session)
                            .is_some_and(|t| t.waiting.is_some())
                        {
                            break;
                        }
                    }
                    Step::End(reason) => self.finish(&session, Ok(reason), out),
                    Step::Fail(e) => self.finish(&session, Err(e), out),
                }
            }
        }
    }

    /// Carries out what an MCP job asks: notifications, a request the turn waits for, or its end.
    fn act(&mut self, session: &str, actions: Vec<Action>, now_ms: u64, out: &mut Out) {
        for action in actions {
            match action {
                Action::Tell(method, params) => {
                    out.send(self.agent.request(method, Some(params), now_ms))
                }
                Action::Request(method, params) => {
                    match self.agent.request(method, Some(params), now_ms) {
                        Ok(sent) => {
                            out.line(&sent.text);
                            if let (Some(turn), Some(id)) = (self.turns.get_mut(session), sent.id) {
                                turn.waiting = Some((id, Waiting::Mcp));
                            }
                        }
                        // The core refused to send it: the job hears it as the client's refusal.
                        Err(e) => {
                            log(&format!("{method} not sent: {}", e.message));
                            let more = self.mcp.answered(session, Err(e), now_ms);
                            self.act(session, more, now_ms, out);
                        }
                    }
                }
                Action::Done(ask, answer) => {
                    let Some(turn) = self.turns.get_mut(session) else {
                        continue;
                    };
                    for step in script::after_mcp(&ask, turn.number, answer)
                        .into_iter()
                        .rev()
                    {
                        turn.steps.push_front(step);
                    }
                    turn.due = now_ms;
                }
            }
        }
    }

    fn report(&mut self, session: &str, update: Update, out: &mut Out) {
        out.send(self.agent.send_update(session, update.wire(self.version())));
        if let Some(record) = self.sessions.get_mut(session) {
            Update::push_merged(&mut record.history, update);
        }
    }

    fn ask(&mut self, session: &str, ask: &Ask, out: &mut Out) -> Result<Id, ProtocolError> {
        let v = self.version();
        let sent = match ask {
            Ask::Permission { tool, title } => {
                let options = json!([
                    { "optionId": "allow_once", "name": "Allow once", "kind": "allow_once" },
                    { "optionId": "reject_once", "name": "Reject", "kind": "reject_once" },
                ]);
                let params = if v >= 2 {
                    json!({ "sessionId": session, "title": title, "subject": { "type": "tool_call", "toolCall": { "toolCallId": tool } }, "options": options })
                } else {
                    json!({ "sessionId": session, "toolCall": { "toolCallId": tool, "title": title, "kind": "execute", "status": "pending" }, "options": options })
                };
                self.agent.request_permission(params, 0)
            }
            Ask::Read { path, .. } => self
                .agent
                .read_text_file(json!({ "sessionId": session, "path": path }), 0),
            Ask::Write { path, text, .. } => self.agent.write_text_file(
                json!({ "sessionId": session, "path": path, "content": text }),
                0,
            ),
        }?;
        let id = sent
            .id
            .clone()
            .ok_or_else(|| ProtocolError::internal_error("a request without an id"))?;
        out.line(&sent.text);
        Ok(id)
    }

    /// Stops the turn of a session now: `session/cancel` or `$/cancel_request`.
    fn cancel(&mut self, session: &str, out: &mut Out) {
        let Some(turn) = self.turns.get_mut(session) else {
            return;
        };
        if let Some((
            _,
            Waiting::Client(
                Ask::Permission { tool, .. } | Ask::Read { tool, .. } | Ask::Write { tool, .. },
            ),
        )) = turn.waiting.take()
        {
            self.report(
                session,
                Update::ToolStatus {
                    id: tool,
                    status: "cancelled".into(),
                    content: Vec::new(),
                },
                out,
            );
        }
        self.finish(session, Ok("cancelled"), out);
    }

    /// Ends the turn (v1: the prompt's answer; v2: the `idle` state, the prompt having been
    /// acknowledged) and saves the conversation.
    fn finish(
        &mut self,
        session: &str,
        outcome: Result<&'static str, ProtocolError>,
        out: &mut Out,
    ) {
        let Some(turn) = self.turns.remove(session) else {
            return;
        };
        self.mcp.drop_job(session);
        if self.version() >= 2 {
            // After the acknowledgement an error can only be told as the turn's stop reason.
            let reason = outcome.unwrap_or("error");
            out.send(self.agent.send_update(
                session,
                json!({ "sessionUpdate": "state_update", "state": "idle", "stopReason": reason }),
            ));
        } else {
            out.send(self.agent.respond(
                &turn.prompt,
                outcome.map(|reason| json!({ "stopReason": reason })),
            ));
        }
        if let Some(record) = self.sessions.get(session) {
            self.save(record);
        }
    }
}

impl Driver for AcpDemo {
    fn on_line(&mut self, line: &str, now_ms: u64, out: &mut Out) {
        let events = self.agent.receive(line, now_ms);
        self.handle(events, now_ms, out);
    }

    fn on_time(&mut self, now_ms: u64, out: &mut Out) {
        let events = self.agent.tick(now_ms);
        self.handle(events, now_ms, out);
        self.advance(now_ms, out);
    }

    fn next_wake(&self) -> Option<u64> {
        let turns = self
            .turns
            .values()
            .filter(|t| t.waiting.is_none())
            .map(|t| t.due);
        turns.chain(self.agent.next_deadline()).min()
    }

    fn on_close(&mut self, out: &mut Out) {
        let events = self.agent.close();
        self.handle(events, u64::MAX, out);
        for record in self.sessions.values() {
            self.save(record);
        }
    }
}

/// `sessionId`, which must be a string (-32602 otherwise, before any lookup).
fn session_id(params: &Value) -> Result<String, ProtocolError> {
    match params.get("sessionId") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(ProtocolError::invalid_params(format!(
            "sessionId must be a string, not {other}"
        ))),
        None => Err(ProtocolError::invalid_params("sessionId is required")),
    }
}

/// `cwd` of `session/new`: an absolute path (it bounds the session's file operations).
fn absolute_cwd(params: &Value) -> Result<String, ProtocolError> {
    match params.get("cwd") {
        Some(Value::String(c)) if agentwire::acp::checks::is_absolute_path(c) => Ok(c.clone()),
        Some(Value::String(c)) => Err(ProtocolError::invalid_params(format!(
            "cwd must be an absolute path, not {c:?}"
        ))),
        _ => Err(ProtocolError::invalid_params(
            "cwd must be an absolute path (a string)",
        )),
    }
}

/// The prompt as text: text blocks as they are, other blocks named.
fn prompt_text(prompt: &Value) -> String {
    let blocks = prompt.as_array().map(Vec::as_slice).unwrap_or_default();
    let parts: Vec<String> = blocks
        .iter()
        .map(|b| match b["type"].as_str() {
            Some("text") => b["text"].as_str().unwrap_or_default().to_owned(),
            Some("resource_link") => format!("[link {}]", b["uri"].as_str().unwrap_or("?")),
            Some("resource") => b["resource"]["text"]
                .as_str()
                .map_or_else(|| "[resource]".to_owned(), str::to_owned),
            Some(kind) => format!("[{kind} {}]", b["mimeType"].as_str().unwrap_or("")),
            None => "[?]".to_owned(),
        })
        .collect();
    parts.join(" ")
}

fn words_of(update: &Update) -> u64 {
    match update {
        Update::User { text, .. } | Update::Agent { text, .. } => {
            text.split_whitespace().count() as u64
        }
        _ => 0,
    }
}
