//! The conversation of one session, built from `session/update` notifications (v1 and
//! v2 kinds), identical whether the updates came live or from a load/resume replay.
//! Unknown kinds are kept as they came.

use crate::json::{Map, Value};
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    pub session_id: String,
    pub entries: Vec<Entry>,
    /// The latest plan (v1 `plan`, `plan_update`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_mode_id: Option<String>,
    /// `modes` from the session/new or session/load result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modes: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_options: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_commands: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// `session_info_update` fields merged (title, updatedAt, …).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub info: Map<String, Value>,
    /// v2 `state_update`: the latest foreground state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
    /// v2 terminals by id: `terminal_update` fields merged, `output` grown by chunks.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub terminals: Map<String, Value>,
    /// Where the messages and tool calls with an id are in `entries` (the newest of each kind
    /// and id), sorted: a long conversation finds them without walking every entry.
    #[serde(skip)]
    index: Vec<(Slot, String, usize)>,
}

/// What an indexed entry is: a tool call, or a message of a role (`None`: a thought).
type Slot = (bool, Option<Role>);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    User,
    Agent,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Entry {
    /// A message, its chunks merged (adjacent text concatenated).
    Message {
        role: Role,
        #[serde(skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        content: Vec<Value>,
    },
    Thought {
        #[serde(skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        content: Vec<Value>,
    },
    /// A tool call: its latest fields (`title`, `kind`, `status`, `content`, …) and every
    /// update as it came.
    ToolCall {
        tool_call_id: String,
        call: Map<String, Value>,
        updates: Vec<Value>,
    },
    Notice {
        notice: Value,
    },
    /// `compaction_update` fields merged, `summary` grown by `compaction_summary_chunk`.
    Compaction {
        compaction_id: String,
        compaction: Map<String, Value>,
        summary: Vec<Value>,
    },
    /// A prompt turn ended (prompt response, or v2 idle `state_update` with a reason).
    TurnEnded {
        stop_reason: Value,
    },
    /// An update of a kind agentwire does not model, as it came.
    Other {
        update: Value,
    },
}

const CHUNK_KINDS: &[(&str, Option<Role>)] = &[
    ("user_message_chunk", Some(Role::User)),
    ("agent_message_chunk", Some(Role::Agent)),
    ("agent_thought_chunk", None),
];

impl Transcript {
    pub fn new(session_id: &str) -> Self {
        Transcript {
            session_id: session_id.to_owned(),
            ..Default::default()
        }
    }

    /// Applies one `update` object (the `update` member of `session/update` params).
    pub fn apply(&mut self, update: &Value) {
        let kind = update
            .get("sessionUpdate")
            .and_then(Value::as_str)
            .unwrap_or("");
        let message_id = update
            .get("messageId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let field = |k: &str| update.get(k).cloned();
        if let Some((_, role)) = CHUNK_KINDS.iter().find(|(k, _)| *k == kind) {
            let content = update.get("content").cloned().unwrap_or(Value::Null);
            if let Some(list) = content_of(self.message_entry(*role, message_id, false)) {
                append_chunk(list, content);
            }
            return;
        }
        match kind {
            // v2: whole messages, by id; content, when present, replaces what chunks built.
            "user_message" | "agent_message" | "agent_thought" => {
                let role = match kind {
                    "user_message" => Some(Role::User),
                    "agent_message" => Some(Role::Agent),
                    _ => None,
                };
                let entry = self.message_entry(role, message_id, true);
                if let (Some(c), Some(list)) = (
                    update.get("content").filter(|c| !c.is_null()),
                    content_of(entry),
                ) {
                    *list = as_blocks(c);
                }
            }
            "tool_call" | "tool_call_update" => {
                let Some(id) = update.get("toolCallId").and_then(Value::as_str) else {
                    return self.entries.push(Entry::Other {
                        update: update.clone(),
                    });
                };
                let Some((call, updates)) = self.tool_call(id) else {
                    return;
                };
                for (k, v) in update.as_object().into_iter().flatten() {
                    if k != "sessionUpdate" && k != "toolCallId" {
                        call.insert(k.clone(), v.clone());
                    }
                }
                updates.push(update.clone());
            }
            "tool_call_content_chunk" => {
                let Some(id) = update.get("toolCallId").and_then(Value::as_str) else {
                    return;
                };
                let Some((call, updates)) = self.tool_call(id) else {
                    return;
                };
                let content = call
                    .entry("content")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let (Value::Array(list), Some(c)) = (content, update.get("content")) {
                    list.push(c.clone());
                }
                updates.push(update.clone());
            }
            "plan" => self.plan = Some(without_kind(update)),
            "plan_update" => self.plan = field("plan"),
            "plan_removed" => {
                let same = self.plan.as_ref().and_then(|p| p.get("planId")) == update.get("planId");
                if same {
                    self.plan = None;
                }
            }
            "current_mode_update" => {
                self.current_mode_id = update
                    .get("currentModeId")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }
            "config_option_update" => self.config_options = field("configOptions"),
            "available_commands_update" => self.available_commands = field("availableCommands"),
            "usage_update" => self.usage = Some(without_kind(update)),
            "session_info_update" => {
                if let Value::Object(m) = without_kind(update) {
                    self.info.extend(m);
                }
            }
            "state_update" => {
                if update.get("state").and_then(Value::as_str) == Some("idle") {
                    if let Some(reason) = update.get("stopReason").filter(|r| !r.is_null()) {
                        self.entries.push(Entry::TurnEnded {
                            stop_reason: reason.clone(),
                        });
                    }
                }
                self.state = Some(without_kind(update));
            }
            "terminal_update" | "terminal_output_chunk" => {
                let Some(id) = update.get("terminalId").and_then(Value::as_str) else {
                    return;
                };
                let term = self
                    .terminals
                    .entry(id.to_owned())
                    .or_insert_with(|| Value::Object(Map::new()));
                let Value::Object(t) = term else { return };
                if kind == "terminal_update" {
                    if let Value::Object(m) = without_kind(update) {
                        t.extend(m);
                    }
                } else if let Some(data) = update.get("data").and_then(Value::as_str) {
                    let old = t
                        .get("outputText")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    t.insert("outputText".into(), Value::String(old + data));
                }
            }
            "notice" => self.entries.push(Entry::Notice {
                notice: without_kind(update),
            }),
            "compaction_update" | "compaction_summary_chunk" => {
                let id = update
                    .get("compactionId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let pos = self.entries.iter().rposition(|e| matches!(e, Entry::Compaction { compaction_id, .. } if *compaction_id == id));
                let pos = pos.unwrap_or_else(|| {
                    self.entries.push(Entry::Compaction {
                        compaction_id: id,
                        compaction: Map::new(),
                        summary: Vec::new(),
                    });
                    self.entries.len() - 1
                });
                if let Some(Entry::Compaction {
                    compaction,
                    summary,
                    ..
                }) = self.entries.get_mut(pos)
                {
                    if kind == "compaction_update" {
                        if let Value::Object(m) = without_kind(update) {
                            compaction.extend(m);
                        }
                    } else if let Some(c) = update.get("content") {
                        append_chunk(summary, c.clone());
                    }
                }
            }
            _ => self.entries.push(Entry::Other {
                update: update.clone(),
            }),
        }
    }

    /// Takes in what a session/new, session/load or session/resume result says about
    /// the session (modes, config options, commands).
    pub fn apply_session_result(&mut self, result: &Value) {
        if let Some(modes) = result.get("modes").filter(|m| !m.is_null()) {
            self.current_mode_id = modes
                .get("currentModeId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            self.modes = Some(modes.clone());
        }
        if let Some(c) = result.get("configOptions").filter(|c| !c.is_null()) {
            self.config_options = Some(c.clone());
        }
        if let Some(c) = result.get("availableCommands").filter(|c| !c.is_null()) {
            self.available_commands = Some(c.clone());
        }
    }

    /// A prompt turn ended with this stop reason (v1 and seed-shaped prompt responses).
    pub fn end_turn(&mut self, stop_reason: &Value) {
        self.entries.push(Entry::TurnEnded {
            stop_reason: stop_reason.clone(),
        });
    }

    /// The message (or thought, `role: None`) entry that a chunk or message belongs to:
    /// the last one with the same id, or without ids the last entry if it is of the
    /// same kind; otherwise a new one.
    fn message_entry(
        &mut self,
        role: Option<Role>,
        message_id: Option<String>,
        by_id_anywhere: bool,
    ) -> &mut Entry {
        let same_kind = |e: &Entry| match (e, role) {
            (Entry::Message { role: r, .. }, Some(want)) => *r == want,
            (Entry::Thought { .. }, None) => true,
            _ => false,
        };
        let slot = (false, role);
        let found = match &message_id {
            Some(id) if by_id_anywhere => self.find(slot, id),
            _ => self
                .entries
                .last()
                .filter(|e| same_kind(e) && id_of(e) == message_id.as_deref())
                .map(|_| self.entries.len() - 1),
        };
        let pos = match found {
            Some(pos) => pos,
            None => {
                if let Some(id) = &message_id {
                    self.remember(slot, id);
                }
                self.entries.push(match role {
                    Some(role) => Entry::Message {
                        role,
                        message_id,
                        content: Vec::new(),
                    },
                    None => Entry::Thought {
                        message_id,
                        content: Vec::new(),
                    },
                });
                self.entries.len() - 1
            }
        };
        &mut self.entries[pos]
    }

    fn tool_call(&mut self, id: &str) -> Option<(&mut Map<String, Value>, &mut Vec<Value>)> {
        let pos = self.find((true, None), id).unwrap_or_else(|| {
            self.remember((true, None), id);
            self.entries.push(Entry::ToolCall {
                tool_call_id: id.to_owned(),
                call: Map::new(),
                updates: Vec::new(),
            });
            self.entries.len() - 1
        });
        match self.entries.get_mut(pos) {
            Some(Entry::ToolCall { call, updates, .. }) => Some((call, updates)),
            _ => None,
        }
    }

    fn search(&self, slot: Slot, id: &str) -> Result<usize, usize> {
        self.index
            .binary_search_by(|(s, i, _)| (*s, i.as_str()).cmp(&(slot, id)))
    }

    fn find(&self, slot: Slot, id: &str) -> Option<usize> {
        self.search(slot, id).ok().map(|at| self.index[at].2)
    }

    /// The entry about to be pushed is now the newest of its kind with this id.
    fn remember(&mut self, slot: Slot, id: &str) {
        let pos = self.entries.len();
        match self.search(slot, id) {
            Ok(at) => self.index[at].2 = pos,
            Err(at) => self.index.insert(at, (slot, id.to_owned(), pos)),
        }
    }
}

fn id_of(entry: &Entry) -> Option<&str> {
    match entry {
        Entry::Message { message_id, .. } | Entry::Thought { message_id, .. } => {
            message_id.as_deref()
        }
        _ => None,
    }
}

fn content_of(entry: &mut Entry) -> Option<&mut Vec<Value>> {
    match entry {
        Entry::Message { content, .. } | Entry::Thought { content, .. } => Some(content),
        _ => None,
    }
}

fn as_blocks(c: &Value) -> Vec<Value> {
    match c {
        Value::Array(a) => a.clone(),
        other => vec![other.clone()],
    }
}

/// Appends a content block, concatenating text onto a preceding text block.
fn append_chunk(content: &mut Vec<Value>, block: Value) {
    if let (Some(last), Some(text)) = (
        content.last_mut(),
        block.get("text").and_then(Value::as_str),
    ) {
        if last.get("type").and_then(Value::as_str) == Some("text")
            && block.get("type").and_then(Value::as_str) == Some("text")
        {
            if let Some(Value::String(prev)) = last.get_mut("text") {
                prev.push_str(text);
                return;
            }
        }
    }
    content.push(block);
}

fn without_kind(update: &Value) -> Value {
    let mut u = update.clone();
    if let Value::Object(m) = &mut u {
        m.remove("sessionUpdate");
    }
    u
}
