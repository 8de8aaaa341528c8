//! What crosses the WebSocket besides the agent's own messages: the side channel, and the
//! rules that keep one frame equal to one line.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Every side-channel frame starts with these bytes, and no agent line is let through with them.
/// JSON-RPC messages always carry a `"jsonrpc"` member, so a one-member `{"relay":…}` object is
/// never one.
pub const PREFIX: &str = r#"{"relay":"#;

/// The WebSocket subprotocol with which a page asks for the side channel (the relay's events
/// and its hosting commands). A client that does not offer it gets the agent's messages only.
pub const SUBPROTOCOL: &str = "agentwire.relay";

/// Subprotocols of clients that speak one protocol over a plain WebSocket (the official MCP
/// SDK's WebSocket client offers `mcp`): the relay accepts them and stays transparent, since
/// such a client refuses a handshake that picks none.
pub const PASSTHROUGH_SUBPROTOCOLS: [&str; 1] = ["mcp"];

/// A side-channel event, sent as `{"relay":{"event":…,…}}`.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum Event<'a> {
    /// The agent process started.
    Spawned { agent: &'a str, pid: u32 },
    /// One line (or a chunk of a long line) the agent wrote on stderr.
    Stderr { text: &'a str },
    /// The agent process ended: an exit code, or the name of the signal that ended it.
    Exit {
        code: Option<i32>,
        signal: Option<&'a str>,
    },
    /// Something the relay refused or could not do; the session goes on unless a close follows.
    Error { message: &'a str },
    /// The page's MCP server `name` is hosted: the agent reaches it at `url` with this
    /// `Authorization` header.
    Hosted {
        name: &'a str,
        url: &'a str,
        authorization: &'a str,
    },
    /// The page's MCP server `name` could not be hosted, and why.
    HostRefused { name: &'a str, message: &'a str },
}

/// A relay command of the page: a frame that starts with `{"relay":`.
#[derive(Debug, PartialEq)]
pub enum Command<'a> {
    /// `{"relay":{"host":"NAME"}}`: host an MCP server of the page for its agent.
    Host { name: Cow<'a, str> },
    /// `{"relay":{"mcp":"SESSION","message":…}}`: what the page's server sends in that MCP session.
    Mcp {
        session: Cow<'a, str>,
        message: &'a str,
    },
}

/// Reads a relay command of the page, or says why it is none.
pub fn page_command(text: &str) -> Result<Command<'_>, &'static str> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Frame<'a> {
        #[serde(borrow)]
        relay: Inner<'a>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner<'a> {
        #[serde(borrow, default)]
        host: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        mcp: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        message: Option<&'a RawValue>,
    }
    let frame: Frame = serde_json::from_str(text).map_err(|_| "a relay command must be {\"relay\":{\"host\":NAME}} or {\"relay\":{\"mcp\":SESSION,\"message\":…}}; not carried out")?;
    match frame.relay {
        Inner { host: Some(name), mcp: None, message: None } => Ok(Command::Host { name }),
        Inner { host: None, mcp: Some(session), message: Some(message) } => Ok(Command::Mcp { session, message: message.get() }),
        _ => Err("a relay command must be {\"relay\":{\"host\":NAME}} or {\"relay\":{\"mcp\":SESSION,\"message\":…}}; not carried out"),
    }
}

impl Event<'_> {
    pub fn to_frame(&self) -> String {
        #[derive(Serialize)]
        struct Frame<'e, 'a> {
            relay: &'e Event<'a>,
        }
        // Serializing these plain fields cannot fail.
        serde_json::to_string(&Frame { relay: self }).unwrap_or_default()
    }
}

/// Turns a text frame from the page into one stdin line (without the final `\n`).
///
/// A raw line break is only legal in JSON as whitespace between tokens, so one outside a string
/// is replaced by a space, which leaves the message unchanged. One inside a string is invalid
/// JSON that would split into two lines: the frame is refused.
pub fn page_text_to_line(text: &str) -> Result<Cow<'_, str>, &'static str> {
    if !text.bytes().any(|b| b == b'\n' || b == b'\r') {
        return Ok(Cow::Borrowed(text));
    }
    let mut line = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        match c {
            '\n' | '\r' if in_string => {
                return Err(
                    "a raw line break inside a JSON string (write it as \\n); frame not sent",
                );
            }
            '\n' | '\r' => line.push(' '),
            _ if escaped => {
                escaped = false;
                line.push(c);
            }
            '\\' if in_string => {
                escaped = true;
                line.push(c);
            }
            '"' => {
                in_string = !in_string;
                line.push(c);
            }
            _ => line.push(c),
        }
    }
    Ok(Cow::Owned(line))
}

/// Why a line of agent output is not forwarded as a frame, if it is not.
pub fn refuse_agent_line(line: &[u8]) -> Option<&'static str> {
    if line.trim_ascii_start().starts_with(PREFIX.as_bytes()) {
        Some("the agent wrote a line that starts like a relay frame; dropped")
    } else {
        None
    }
}

/// `SIGTERM` and friends, as Node names them; other numbers as `SIG<n>`.
pub fn signal_name(signal: i32) -> Cow<'static, str> {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        n => return Cow::Owned(format!("SIG{n}")),
    };
    Cow::Borrowed(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_are_one_member_relay_objects_with_the_event_first() {
        let cases = [
            (
                Event::Spawned {
                    agent: "demo",
                    pid: 12,
                },
                json!({"relay": {"event": "spawned", "agent": "demo", "pid": 12}}),
            ),
            (
                Event::Stderr { text: "a \"b\"" },
                json!({"relay": {"event": "stderr", "text": "a \"b\""}}),
            ),
            (
                Event::Exit {
                    code: Some(1),
                    signal: None,
                },
                json!({"relay": {"event": "exit", "code": 1, "signal": null}}),
            ),
            (
                Event::Exit {
                    code: None,
                    signal: Some("SIGKILL"),
                },
                json!({"relay": {"event": "exit", "code": null, "signal": "SIGKILL"}}),
            ),
            (
                Event::Error { message: "no" },
                json!({"relay": {"event": "error", "message": "no"}}),
            ),
        ];
        for (event, want) in cases {
            let frame = event.to_frame();
            assert!(frame.starts_with(r#"{"relay":{"event":"#), "{frame}");
            assert!(!frame.contains('\n'));
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&frame).unwrap(),
                want
            );
        }
    }

    #[test]
    fn page_frames_become_exactly_one_line() {
        let ok = [
            (r#"{"a":1}"#, r#"{"a":1}"#),
            ("{\n  \"a\": 1\r\n}", "{   \"a\": 1  }"),
            ("{\"a\":\"x\\\"\"\n}", "{\"a\":\"x\\\"\" }"),
            ("{\"a\":\"\\\\\"\n}", "{\"a\":\"\\\\\" }"),
            ("{\"a\":\"\\n\"}\n", "{\"a\":\"\\n\"} "),
        ];
        for (text, want) in ok {
            assert_eq!(page_text_to_line(text).as_deref(), Ok(want), "{text:?}");
        }
        for text in ["{\"a\":\"x\ny\"}", "{\"a\":\"\\\"\r\"}", "\"\n"] {
            assert!(page_text_to_line(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn agent_lines_cannot_pose_as_the_relay() {
        assert!(refuse_agent_line(br#"{"relay":{"event":"exit","code":0}}"#).is_some());
        assert!(refuse_agent_line(br#"  {"relay":1}"#).is_some());
        assert!(refuse_agent_line(br#"{"jsonrpc":"2.0","relay":1}"#).is_none());
        assert!(refuse_agent_line(br#"{ "relay":1}"#).is_none());
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(libc::SIGKILL), "SIGKILL");
        assert_eq!(signal_name(libc::SIGTERM), "SIGTERM");
        assert_eq!(signal_name(99), "SIG99");
    }
}
