//! What the agent reports about a conversation, independent of the protocol version, and
//! how each version spells it as a `session/update`. The same values are stored, so a
//! session recorded under v1 can be replayed under v2 and the other way round.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Update {
    User {
        message_id: String,
        text: String,
    },
    Agent {
        message_id: String,
        text: String,
    },
    Thought {
        message_id: String,
        text: String,
    },
    /// A tool call appears.
    ToolCall {
        id: String,
        title: String,
        kind: String,
        status: String,
        content: Vec<ToolContent>,
    },
    /// A tool call changes status (and may gain content).
    ToolStatus {
        id: String,
        status: String,
        content: Vec<ToolContent>,
    },
    Plan {
        entries: Vec<PlanEntry>,
    },
    Usage {
        used: u64,
        size: u64,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ToolContent {
    Text {
        text: String,
    },
    /// A whole-file change of an absolute path.
    Diff {
        path: String,
        old_text: Option<String>,
        new_text: String,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanEntry {
    pub content: String,
    pub status: String,
}

impl Update {
    /// The `update` object of a `session/update` in protocol version `v`.
    pub fn wire(&self, v: u16) -> Value {
        let text = |t: &str| json!({ "type": "text", "text": t });
        match self {
            // v2 has whole user messages; v1 only chunks.
            Update::User {
                message_id,
                text: t,
            } if v >= 2 => {
                json!({ "sessionUpdate": "user_message", "messageId": message_id, "content": [text(t)] })
            }
            Update::User {
                message_id,
                text: t,
            } => chunk("user_message_chunk", message_id, text(t)),
            Update::Agent {
                message_id,
                text: t,
            } => chunk("agent_message_chunk", message_id, text(t)),
            Update::Thought {
                message_id,
                text: t,
            } => chunk("agent_thought_chunk", message_id, text(t)),
            Update::ToolCall {
                id,
                title,
                kind,
                status,
                content,
            } => {
                // v2 has no `tool_call`: a `tool_call_update` with a title creates one.
                let tag = if v >= 2 {
                    "tool_call_update"
                } else {
                    "tool_call"
                };
                json!({
                    "sessionUpdate": tag, "toolCallId": id, "title": title, "kind": kind, "status": status,
                    "content": tool_content(content, v),
                })
            }
            Update::ToolStatus {
                id,
                status,
                content,
            } => {
                let mut u = json!({ "sessionUpdate": "tool_call_update", "toolCallId": id, "status": status });
                if !content.is_empty() {
                    u["content"] = tool_content(content, v);
                }
                u
            }
            Update::Plan { entries } => {
                let entries: Vec<Value> =
                    entries.iter().map(|e| json!({ "content": e.content, "priority": "medium", "status": e.status })).collect();
                if v >= 2 {
                    json!({ "sessionUpdate": "plan_update", "plan": { "type": "items", "planId": "plan", "entries": entries } })
                } else {
                    json!({ "sessionUpdate": "plan", "entries": entries })
                }
            }
            Update::Usage { used, size } => {
                json!({ "sessionUpdate": "usage_update", "used": used, "size": size })
            }
        }
    }

    /// Appends `next` to a stored history, merging a chunk into the message it continues
    /// so a replay sends whole messages.
    pub fn push_merged(history: &mut Vec<Update>, next: Update) {
        if let Some(last) = history.last_mut() {
            if std::mem::discriminant(&*last) == std::mem::discriminant(&next) {
                if let (Some((id, more)), Some((last_id, text))) = (next.chunk(), last.chunk_mut())
                {
                    if *last_id == id {
                        text.push_str(more);
                        return;
                    }
                }
            }
        }
        history.push(next);
    }

    fn chunk(&self) -> Option<(String, &str)> {
        match self {
            Update::User { message_id, text }
            | Update::Agent { message_id, text }
            | Update::Thought { message_id, text } => Some((message_id.clone(), text)),
            _ => None,
        }
    }

    fn chunk_mut(&mut self) -> Option<(&String, &mut String)> {
        match self {
            Update::User { message_id, text }
            | Update::Agent { message_id, text }
            | Update::Thought { message_id, text } => Some((message_id, text)),
            _ => None,
        }
    }
}

fn chunk(tag: &str, message_id: &str, content: Value) -> Value {
    json!({ "sessionUpdate": tag, "messageId": message_id, "content": content })
}

fn tool_content(content: &[ToolContent], v: u16) -> Value {
    content
        .iter()
        .map(|c| match c {
            ToolContent::Text { text } => {
                json!({ "type": "content", "content": { "type": "text", "text": text } })
            }
            // v2 describes a diff as a list of path changes.
            ToolContent::Diff { path, old_text, .. } if v >= 2 => {
                let operation = if old_text.is_some() { "modify" } else { "add" };
                json!({ "type": "diff", "changes": [{ "operation": operation, "path": path }] })
            }
            ToolContent::Diff {
                path,
                old_text,
                new_text,
            } => {
                json!({ "type": "diff", "path": path, "oldText": old_text, "newText": new_text })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_version_spells_updates_its_way() {
        let diff = ToolContent::Diff {
            path: "/p/a.txt".into(),
            old_text: None,
            new_text: "x".into(),
        };
        let call = Update::ToolCall {
            id: "t".into(),
            title: "T".into(),
            kind: "edit".into(),
            status: "pending".into(),
            content: vec![diff],
        };
        let plan = Update::Plan {
            entries: vec![PlanEntry {
                content: "a".into(),
                status: "pending".into(),
            }],
        };
        let user = Update::User {
            message_id: "m".into(),
            text: "hi".into(),
        };
        let cases: Vec<(&Update, u16, Value)> = vec![
            (
                &call,
                1,
                json!({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "T", "kind": "edit", "status": "pending",
                "content": [{"type": "diff", "path": "/p/a.txt", "oldText": null, "newText": "x"}]}),
            ),
            (
                &call,
                2,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": "T", "kind": "edit", "status": "pending",
                "content": [{"type": "diff", "changes": [{"operation": "add", "path": "/p/a.txt"}]}]}),
            ),
            (
                &plan,
                1,
                json!({"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "medium", "status": "pending"}]}),
            ),
            (
                &plan,
                2,
                json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "plan",
                "entries": [{"content": "a", "priority": "medium", "status": "pending"}]}}),
            ),
            (
                &user,
                1,
                json!({"sessionUpdate": "user_message_chunk", "messageId": "m", "content": {"type": "text", "text": "hi"}}),
            ),
            (
                &user,
                2,
                json!({"sessionUpdate": "user_message", "messageId": "m", "content": [{"type": "text", "text": "hi"}]}),
            ),
        ];
        for (u, v, want) in cases {
            assert_eq!(u.wire(v), want, "{u:?} in v{v}");
        }
    }

    #[test]
    fn chunks_of_one_message_merge_in_the_history() {
        let a = |id: &str, t: &str| Update::Agent {
            message_id: id.into(),
            text: t.into(),
        };
        let mut h = Vec::new();
        for u in [
            a("1", "Hel"),
            a("1", "lo"),
            Update::Thought {
                message_id: "1".into(),
                text: "t".into(),
            },
            a("2", "x"),
            a("2", "y"),
        ] {
            Update::push_merged(&mut h, u);
        }
        assert_eq!(
            h,
            vec![
                a("1", "Hello"),
                Update::Thought {
                    message_id: "1".into(),
                    text: "t".into()
                },
                a("2", "xy")
            ]
        );
    }
}
