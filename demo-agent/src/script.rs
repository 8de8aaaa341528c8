//! What a prompt makes the agent do, chosen by a keyword in its text. Pure: a prompt
//! becomes a list of steps; an answer from the client becomes the steps that follow it.

use crate::updates::{PlanEntry, ToolContent, Update};
use agentwire::jsonrpc::ProtocolError;
use serde_json::Value;

/// The keywords, in the order they are looked for, with what each does (for `--help`).
pub const KEYWORDS: &[(&str, &str)] = &[
    ("help", "list these keywords"),
    ("plan", "a plan of three entries that progress to completed"),
    ("tool", "a tool call: pending -> in_progress -> completed, with text and a diff"),
    ("permission", "a tool call and session/request_permission; goes on if allowed, stops if rejected"),
    ("read PATH", "fs/read_text_file on the client (if it advertised fs.readTextFile), then quotes it"),
    ("write PATH TEXT", "fs/write_text_file of TEXT to PATH (if the client advertised fs.writeTextFile)"),
    ("slow", "50 message chunks, 100 ms apart: session/cancel stops it (stopReason cancelled)"),
    ("fail", "an error response to session/prompt (-32603)"),
    ("usage", "a usage_update with the words of the conversation so far"),
    ("tools", "lists the tools of the MCP servers (type http, or acp: MCP over ACP) the client gave in session/new"),
    ("use NAME JSON", "calls tool NAME of those servers with the JSON arguments and quotes its result"),
];

/// The default, without a keyword: a thought, then the prompt echoed in a few chunks.
pub const DEFAULT_BEHAVIOUR: &str =
    "a thought, then an answer echoing the prompt in several chunks, 40 ms apart";

const CHUNK_DELAY_MS: u64 = 40;
const SLOW_CHUNKS: usize = 50;
const SLOW_DELAY_MS: u64 = 100;

#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Sent as `session/update` and recorded.
    Update(Update),
    /// Wait before the next step.
    Pause(u64),
    /// A request to the client; the turn waits for its answer.
    Ask(Ask),
    /// Answers the prompt with this stop reason.
    End(&'static str),
    /// Answers the prompt with this error.
    Fail(ProtocolError),
    /// Asks the session's MCP servers; the agent does it at once and the turn goes on with `after_mcp`.
    Mcp(McpAsk),
}

#[derive(Clone, Debug, PartialEq)]
pub enum McpAsk {
    List,
    Call {
        tool: String,
        name: String,
        arguments: Value,
    },
}

/// Per server its tools `(name, description)`, or why they could not be listed.
pub type ServerTools = Vec<(String, Result<Vec<(String, String)>, String>)>;

/// What the servers answered: per server its tools `(name, description)`, or the tool's result text.
pub enum McpAnswer {
    Tools(ServerTools),
    Result(Result<String, String>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    Permission {
        tool: String,
        title: String,
    },
    Read {
        tool: String,
        path: String,
    },
    Write {
        tool: String,
        path: String,
        text: String,
    },
}

/// What a turn knows when it starts.
pub struct Context<'a> {
    pub text: &'a str,
    pub cwd: &'a str,
    /// Numbers message and tool-call ids, unique in the session.
    pub turn: usize,
    pub can_read: bool,
    pub can_write: bool,
    /// Words in the conversation so far, this prompt included.
    pub words: u64,
}

impl Context<'_> {
    fn agent_id(&self) -> String {
        format!("msg_{}_agent", self.turn)
    }
    fn tool_id(&self) -> String {
        format!("tool_{}", self.turn)
    }
    fn say(&self, text: impl Into<String>) -> Step {
        Step::Update(Update::Agent {
            message_id: self.agent_id(),
            text: text.into(),
        })
    }
    fn absolute(&self, path: &str) -> String {
        if path.starts_with('/') || path.get(1..3) == Some(":\\") || path.get(1..3) == Some(":/") {
            path.to_owned()
        } else {
            format!("{}/{}", self.cwd.trim_end_matches('/'), path)
        }
    }
    /// The path made absolute and normalized (`.` and `..` resolved as text), when it lies
    /// inside `cwd`: the session's `cwd` bounds its file operations.
    fn inside_cwd(&self, path: &str) -> Result<String, Step> {
        let full = normalize(&self.absolute(path));
        let root = normalize(self.cwd);
        let inside = full == root || full.starts_with(&format!("{}/", root.trim_end_matches('/')));
        if inside {
            Ok(full)
        } else {
            Err(self.say(format!(
                "{full} is outside this session's folder {root}; I only touch files inside it."
            )))
        }
    }
}

/// `/a/./b/../c` → `/a/c`, without touching the file system; `..` never climbs above `/`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The keyword a prompt asks for and the words after it.
fn keyword(text: &str) -> Option<(&'static str, Vec<&str>)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if let Some((k, _)) = KEYWORDS
            .iter()
            .find(|(k, _)| k.split(' ').next() == Some(w.as_str()))
        {
            let name = k.split(' ').next().unwrap_or(k);
            return Some((name, words[i + 1..].to_vec()));
        }
    }
    None
}

/// The steps of a turn.
pub fn steps(cx: &Context) -> Vec<Step> {
    let mut steps = match keyword(cx.text) {
        Some(("help", _)) => help(cx),
        Some(("plan", _)) => plan(cx),
        Some(("tool", _)) => tool(cx),
        Some(("permission", _)) => permission(cx),
        Some(("read", rest)) => read(cx, rest.first().copied()),
        Some(("write", rest)) => write(
            cx,
            rest.first().copied(),
            &rest.get(1..).unwrap_or_default().join(" "),
        ),
        Some(("slow", _)) => slow(cx),
        Some(("fail", _)) => {
            return vec![Step::Fail(ProtocolError::internal_error(
                "the demo agent fails when asked to (keyword \"fail\")",
            ))]
        }
        Some(("usage", _)) => usage(cx),
        Some(("tools", _)) => vec![Step::Mcp(McpAsk::List)],
        Some(("use", rest)) => use_tool(cx, &rest),
        _ => echo(cx),
    };
    if !matches!(
        steps.last(),
        Some(Step::End(_) | Step::Ask(_) | Step::Mcp(_))
    ) {
        steps.push(Step::End("end_turn"));
    }
    steps
}

/// `use NAME {json}`: a tool call shown as pending, then the call itself.
fn use_tool(cx: &Context, rest: &[&str]) -> Vec<Step> {
    let Some(name) = rest.first() else {
        return vec![cx.say("Which tool? Write `use NAME {\"arg\": …}`.")];
    };
    let text = rest[1..].join(" ");
    let arguments = if text.trim().is_empty() {
        Ok(Value::Object(Default::default()))
    } else {
        serde_json::from_str::<Value>(&text)
    };
    match arguments {
        Ok(arguments @ Value::Object(_)) => {
            let tool = cx.tool_id();
            vec![
                Step::Update(Update::ToolCall {
                    id: tool.clone(),
                    title: format!("{name} (MCP)"),
                    kind: "other".into(),
                    status: "pending".into(),
                    content: vec![],
                }),
                Step::Mcp(McpAsk::Call {
                    tool,
                    name: (*name).to_owned(),
                    arguments,
                }),
            ]
        }
        _ => vec![cx.say(format!(
            "The arguments of {name} must be a JSON object, not {text:?}."
        ))],
    }
}

/// The steps after the session's MCP servers answered.
pub fn after_mcp(ask: &McpAsk, turn: usize, answer: McpAnswer) -> Vec<Step> {
    let say = |t: String| {
        Step::Update(Update::Agent {
            message_id: format!("msg_{turn}_agent"),
            text: t,
        })
    };
    let mut steps = match (ask, answer) {
        (McpAsk::List, McpAnswer::Tools(servers)) if servers.is_empty() => vec![say(
            "No MCP server of type http or acp was given in session/new.".into(),
        )],
        (McpAsk::List, McpAnswer::Tools(servers)) => {
            let mut text = String::from("The MCP servers of this session offer:");
            for (server, tools) in servers {
                match tools {
                    Ok(tools) if tools.is_empty() => {
                        text.push_str(&format!("\n- {server}: no tools"))
                    }
                    Ok(tools) => tools.iter().for_each(|(name, description)| {
                        text.push_str(&format!("\n- {server}: {name} — {description}"))
                    }),
                    Err(why) => text.push_str(&format!("\n- {server}: unreachable ({why})")),
                }
            }
            vec![say(text)]
        }
        (McpAsk::Call { tool, name, .. }, McpAnswer::Result(Ok(text))) => vec![
            Step::Update(Update::ToolStatus {
                id: tool.clone(),
                status: "completed".into(),
                content: vec![ToolContent::Text { text: text.clone() }],
            }),
            say(format!("{name} answered: {text}")),
        ],
        (McpAsk::Call { tool, name, .. }, McpAnswer::Result(Err(why))) => vec![
            Step::Update(Update::ToolStatus {
                id: tool.clone(),
                status: "failed".into(),
                content: vec![ToolContent::Text { text: why.clone() }],
            }),
            say(format!("{name} failed: {why}")),
        ],
        _ => vec![],
    };
    steps.push(Step::End("end_turn"));
    steps
}

fn echo(cx: &Context) -> Vec<Step> {
    let thought = Update::Thought {
        message_id: format!("msg_{}_thought", cx.turn),
        text: "No keyword in this prompt, so I will echo it.".into(),
    };
    let mut steps = vec![Step::Update(thought), Step::Pause(CHUNK_DELAY_MS)];
    let answer = format!("You said: {}", cx.text.trim());
    for piece in split_in(&answer, 4) {
        steps.push(cx.say(piece));
        steps.push(Step::Pause(CHUNK_DELAY_MS));
    }
    steps
}

fn help(cx: &Context) -> Vec<Step> {
    let mut text =
        String::from("Keywords (case-insensitive; the first one in the prompt counts):\n");
    for (k, what) in KEYWORDS {
        text.push_str(&format!("- {k}: {what}\n"));
    }
    text.push_str(&format!("Anything else: {DEFAULT_BEHAVIOUR}."));
    vec![cx.say(text)]
}

fn plan(cx: &Context) -> Vec<Step> {
    let names = ["Read the prompt", "Think it over", "Answer"];
    let at = |done: usize, running: Option<usize>| Update::Plan {
        entries: names
            .iter()
            .enumerate()
            .map(|(i, n)| PlanEntry {
                content: (*n).into(),
                status: if i < done {
                    "completed"
                } else if Some(i) == running {
                    "in_progress"
                } else {
                    "pending"
                }
                .into(),
            })
            .collect(),
    };
    let mut steps = vec![Step::Update(at(0, None)), Step::Pause(CHUNK_DELAY_MS)];
    for (i, name) in names.iter().enumerate() {
        steps.extend([
            Step::Update(at(i, Some(i))),
            Step::Pause(CHUNK_DELAY_MS),
            cx.say(format!("{name}. ")),
            Step::Pause(CHUNK_DELAY_MS),
        ]);
    }
    steps.push(Step::Update(at(names.len(), None)));
    steps.push(cx.say("The plan is done."));
    steps
}

fn tool(cx: &Context) -> Vec<Step> {
    let path = cx.absolute("demo.txt");
    let id = cx.tool_id();
    let diff = ToolContent::Diff {
        path: path.clone(),
        old_text: Some("hello\n".into()),
        new_text: "hello, world\n".into(),
    };
    vec![
        Step::Update(Update::ToolCall {
            id: id.clone(),
            title: format!("Edit {path}"),
            kind: "edit".into(),
            status: "pending".into(),
            content: vec![],
        }),
        Step::Pause(CHUNK_DELAY_MS),
        Step::Update(Update::ToolStatus {
            id: id.clone(),
            status: "in_progress".into(),
            content: vec![],
        }),
        Step::Pause(CHUNK_DELAY_MS),
        Step::Update(Update::ToolStatus {
            id,
            status: "completed".into(),
            content: vec![
                ToolContent::Text {
                    text: "Replaced one line.".into(),
                },
                diff,
            ],
        }),
        cx.say(format!(
            "I edited {path} (a demonstration: nothing was written)."
        )),
    ]
}

fn permission(cx: &Context) -> Vec<Step> {
    let id = cx.tool_id();
    let title = "Run `make clean`".to_string();
    vec![
        Step::Update(Update::ToolCall {
            id: id.clone(),
            title: title.clone(),
            kind: "execute".into(),
            status: "pending".into(),
            content: vec![],
        }),
        Step::Ask(Ask::Permission { tool: id, title }),
    ]
}

fn read(cx: &Context, path: Option<&str>) -> Vec<Step> {
    let Some(path) = path else {
        return vec![cx.say("Which file? Write `read PATH`.")];
    };
    let path = match cx.inside_cwd(path) {
        Ok(p) => p,
        Err(refusal) => return vec![refusal],
    };
    if !cx.can_read {
        return vec![cx.say(format!(
            "The client did not advertise fs.readTextFile, so I cannot read {path}."
        ))];
    }
    let tool = cx.tool_id();
    vec![
        Step::Update(Update::ToolCall {
            id: tool.clone(),
            title: format!("Read {path}"),
            kind: "read".into(),
            status: "in_progress".into(),
            content: vec![],
        }),
        Step::Ask(Ask::Read { tool, path }),
    ]
}

fn write(cx: &Context, path: Option<&str>, text: &str) -> Vec<Step> {
    let Some(path) = path else {
        return vec![cx.say("Which file? Write `write PATH TEXT`.")];
    };
    let path = match cx.inside_cwd(path) {
        Ok(p) => p,
        Err(refusal) => return vec![refusal],
    };
    if !cx.can_write {
        return vec![cx.say(format!(
            "The client did not advertise fs.writeTextFile, so I cannot write {path}."
        ))];
    }
    let tool = cx.tool_id();
    vec![
        Step::Update(Update::ToolCall {
            id: tool.clone(),
            title: format!("Write {path}"),
            kind: "edit".into(),
            status: "in_progress".into(),
            content: vec![],
        }),
        Step::Ask(Ask::Write {
            tool,
            path,
            text: text.to_owned(),
        }),
    ]
}

fn slow(cx: &Context) -> Vec<Step> {
    (1..=SLOW_CHUNKS)
        .flat_map(|i| {
            [
                cx.say(format!("chunk {i} of {SLOW_CHUNKS}. ")),
                Step::Pause(SLOW_DELAY_MS),
            ]
        })
        .collect()
}

fn usage(cx: &Context) -> Vec<Step> {
    vec![
        Step::Update(Update::Usage {
            used: cx.words,
            size: 200_000,
        }),
        cx.say(format!("This conversation has {} words so far.", cx.words)),
    ]
}

/// The steps after the client answered an `Ask`. `turn` as in `Context`.
pub fn after(ask: &Ask, turn: usize, outcome: Result<Value, ProtocolError>) -> Vec<Step> {
    let say = |t: String| {
        Step::Update(Update::Agent {
            message_id: format!("msg_{turn}_agent"),
            text: t,
        })
    };
    let tool_status = |tool: &str, status: &str, content: Vec<ToolContent>| {
        Step::Update(Update::ToolStatus {
            id: tool.to_owned(),
            status: status.into(),
            content,
        })
    };
    let mut steps = match (ask, outcome) {
        (Ask::Permission { tool, .. }, Ok(result)) => {
            let outcome = &result["outcome"];
            match (outcome["outcome"].as_str(), outcome["optionId"].as_str()) {
                (Some("selected"), Some(id)) if id.starts_with("allow") => vec![
                    tool_status(tool, "in_progress", vec![]),
                    Step::Pause(CHUNK_DELAY_MS),
                    tool_status(
                        tool,
                        "completed",
                        vec![ToolContent::Text {
                            text: "Cleaned (a demonstration: nothing ran).".into(),
                        }],
                    ),
                    say(format!("Permission granted ({id}); the command ran.")),
                ],
                (Some("selected"), Some(id)) => {
                    vec![
                        tool_status(tool, "failed", vec![]),
                        say(format!("Permission refused ({id}); I stopped.")),
                    ]
                }
                _ => vec![
                    tool_status(tool, "cancelled", vec![]),
                    Step::End("cancelled"),
                ],
            }
        }
        (Ask::Read { tool, path }, Ok(result)) => {
            let content = result["content"].as_str().unwrap_or_default().to_owned();
            let quoted: Vec<String> = content.lines().map(|l| format!("> {l}")).collect();
            vec![
                tool_status(
                    tool,
                    "completed",
                    vec![ToolContent::Text {
                        text: content.clone(),
                    }],
                ),
                say(format!("{path} says:\n{}", quoted.join("\n"))),
            ]
        }
        (Ask::Write { tool, path, text }, Ok(_)) => vec![
            tool_status(
                tool,
                "completed",
                vec![ToolContent::Diff {
                    path: path.clone(),
                    old_text: None,
                    new_text: text.clone(),
                }],
            ),
            say(format!("I wrote {} bytes to {path}.", text.len())),
        ],
        (
            Ask::Permission { tool, .. } | Ask::Read { tool, .. } | Ask::Write { tool, .. },
            Err(e),
        ) => {
            vec![
                tool_status(tool, "failed", vec![]),
                say(format!(
                    "The client answered with an error: {} ({}).",
                    e.message, e.code
                )),
            ]
        }
    };
    if !matches!(steps.last(), Some(Step::End(_))) {
        steps.push(Step::End("end_turn"));
    }
    steps
}

/// `text` in about `n` pieces, split after spaces so words stay whole.
fn split_in(text: &str, n: usize) -> Vec<String> {
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    let size = words.len().div_ceil(n.max(1)).max(1);
    words.chunks(size).map(|w| w.concat()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cx(text: &str) -> Context<'_> {
        Context {
            text,
            cwd: "/work",
            turn: 3,
            can_read: true,
            can_write: false,
            words: 7,
        }
    }

    #[test]
    fn keywords_are_found_anywhere_and_in_any_case() {
        let cases = [
            ("hello there", None),
            ("Make a PLAN please", Some("plan")),
            ("please read /etc/hosts", Some("read")),
            ("tool, then plan", Some("tool")),
            ("slow!", Some("slow")),
            ("toolbox", None),
        ];
        for (text, want) in cases {
            assert_eq!(keyword(text).map(|k| k.0), want, "{text:?}");
        }
    }

    #[test]
    fn every_turn_ends_or_waits_for_the_client() {
        for text in [
            "hi",
            "help",
            "plan",
            "tool",
            "permission",
            "read a.txt",
            "read",
            "write /x y z",
            "slow",
            "fail",
            "usage",
            "tools",
            "use x {}",
            "use",
        ] {
            let steps = steps(&cx(text));
            assert!(
                matches!(
                    steps.last(),
                    Some(Step::End(_) | Step::Ask(_) | Step::Fail(_) | Step::Mcp(_))
                ),
                "{text}: {steps:?}"
            );
        }
    }

    #[test]
    fn use_names_a_tool_and_its_json_arguments_and_the_answer_is_quoted() {
        let asked = steps(&cx(r#"use open_editors {"limit": 2}"#));
        assert!(
            matches!(&asked[0], Step::Update(Update::ToolCall { title, status, .. }) if title == "open_editors (MCP)" && status == "pending")
        );
        let Step::Mcp(
            ask @ McpAsk::Call {
                name, arguments, ..
            },
        ) = &asked[1]
        else {
            panic!("{asked:?}")
        };
        assert_eq!(
            (name.as_str(), arguments),
            ("open_editors", &serde_json::json!({ "limit": 2 }))
        );
        let done = after_mcp(ask, 1, McpAnswer::Result(Ok("main.rs".into())));
        assert!(
            matches!(&done[0], Step::Update(Update::ToolStatus { status, .. }) if status == "completed")
        );
        assert!(
            matches!(&done[1], Step::Update(Update::Agent { text, .. }) if text == "open_editors answered: main.rs")
        );
        assert_eq!(done.last(), Some(&Step::End("end_turn")));
        let failed = after_mcp(ask, 1, McpAnswer::Result(Err("no such tool".into())));
        assert!(
            matches!(&failed[0], Step::Update(Update::ToolStatus { status, .. }) if status == "failed")
        );
        // Arguments that are not a JSON object are refused before anything is called.
        for bad in ["use x [1]", "use x {oops", "use x 3"] {
            assert!(
                steps(&cx(bad)).iter().all(|s| !matches!(s, Step::Mcp(_))),
                "{bad}"
            );
        }
        let listed = after_mcp(
            &McpAsk::List,
            1,
            McpAnswer::Tools(vec![
                (
                    "ide".into(),
                    Ok(vec![("open_editors".into(), "The open files".into())]),
                ),
                ("down".into(), Err("refused".into())),
            ]),
        );
        assert!(
            matches!(&listed[0], Step::Update(Update::Agent { text, .. }) if text.contains("ide: open_editors — The open files") && text.contains("down: unreachable (refused)")),
            "{listed:?}"
        );
    }

    #[test]
    fn the_echo_streams_the_prompt_in_chunks_after_a_thought() {
        let steps = steps(&cx("hello agent"));
        assert!(matches!(&steps[0], Step::Update(Update::Thought { .. })));
        let said: String = steps
            .iter()
            .filter_map(|s| match s {
                Step::Update(Update::Agent { text, .. }) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(said, "You said: hello agent");
        assert!(
            steps
                .iter()
                .filter(|s| matches!(s, Step::Update(Update::Agent { .. })))
                .count()
                >= 3
        );
    }

    #[test]
    fn paths_are_made_absolute_and_capabilities_respected() {
        assert_eq!(
            steps(&cx("read notes.md"))[1],
            Step::Ask(Ask::Read {
                tool: "tool_3".into(),
                path: "/work/notes.md".into()
            })
        );
        assert_eq!(
            steps(&cx("read ./a/../notes.md"))[1],
            Step::Ask(Ask::Read {
                tool: "tool_3".into(),
                path: "/work/notes.md".into()
            })
        );
        for outside in [
            "read ../../../etc/passwd",
            "read /etc/passwd",
            "read /workshop/x",
        ] {
            let s = steps(&cx(outside));
            assert!(
                !s.iter().any(|st| matches!(st, Step::Ask(_))),
                "{outside}: nothing is asked of the client: {s:?}"
            );
            assert!(
                matches!(&s[0], Step::Update(Update::Agent { text, .. }) if text.contains("outside")),
                "{outside}: {s:?}"
            );
        }
        let refused = steps(&cx("write /tmp/x hello"));
        assert!(
            !refused.iter().any(|s| matches!(s, Step::Ask(_))),
            "{refused:?}"
        );
    }

    #[test]
    fn a_permission_answer_decides_how_the_turn_goes_on() {
        let ask = Ask::Permission {
            tool: "t".into(),
            title: "T".into(),
        };
        let cases = [
            (
                json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}}),
                "completed",
                "end_turn",
            ),
            (
                json!({"outcome": {"outcome": "selected", "optionId": "reject_once"}}),
                "failed",
                "end_turn",
            ),
            (
                json!({"outcome": {"outcome": "cancelled"}}),
                "cancelled",
                "cancelled",
            ),
        ];
        for (answer, status, end) in cases {
            let steps = after(&ask, 1, Ok(answer.clone()));
            let last_status = steps.iter().rev().find_map(|s| match s {
                Step::Update(Update::ToolStatus { status, .. }) => Some(status.clone()),
                _ => None,
            });
            assert_eq!(last_status.as_deref(), Some(status), "{answer}");
            assert_eq!(steps.last(), Some(&Step::End(end)), "{answer}");
        }
    }

    #[test]
    fn a_read_answer_is_quoted() {
        let ask = Ask::Read {
            tool: "t".into(),
            path: "/a".into(),
        };
        let steps = after(&ask, 1, Ok(json!({"content": "one\ntwo"})));
        assert!(steps.contains(&Step::Update(Update::Agent {
            message_id: "msg_1_agent".into(),
            text: "/a says:\n> one\n> two".into()
        })));
    }
}
