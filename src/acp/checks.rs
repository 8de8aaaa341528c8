//! ACP's rules on request parameters that are not validation: which parameters need which
//! capability of the agent. What a session's setup must hold beyond the schema (absolute
//! paths, MCP server entries field by field) is in the rules' overlay
//! (`src/schema/rules/acp.overlay.rules`), checked by the validator.

use crate::json::View;
use std::borrow::Cow;

/// Absolute in POSIX (`/home/u`) or Windows form (`C:\x`, `C:/x`, `\\server\share`): the
/// validator's `absolute-path` format.
pub use crate::schema::is_absolute_path;

/// The transport of an MCP server entry: `type` "http"/"sse"/"stdio"/"acp", none = stdio (v1).
pub fn mcp_transport<'a, V: View<'a>>(entry: V) -> Option<Cow<'a, str>> {
    match entry.get("type") {
        None => Some(Cow::Borrowed("stdio")),
        Some(t) => t.text(),
    }
}

/// An MCP server entry, field by field (seed 002 shapes): the overlay's `McpServerCheck`, its
/// issues at `at` (one a place, as the validator tells them).
#[cfg(not(target_arch = "wasm32"))]
pub fn check_mcp_server(entry: &crate::json::Value, at: &str, out: &mut Vec<crate::schema::Issue>) {
    use crate::schema::{validate_definition, Limits, Protocol};
    let report = validate_definition(
        entry,
        Protocol::Acp,
        "1",
        "McpServerCheck",
        &Limits::default(),
    );
    let start = out.len();
    for mut i in report.issues {
        i.path.insert_str(0, at);
        if !out[start..].iter().any(|j| j.path == i.path) {
            out.push(i);
        }
    }
}

/// What an MCP server entry of transport `flag` needs it for (out of the generic reader).
fn server_needs(flag: &str, name: Option<&str>) -> String {
    format!(
        "MCP server {} ({})",
        crate::json::text(&name.unwrap_or("?")),
        crate::text::part(flag, 4..)
    )
}

/// The agent capability flags a request's params need, with what needs them (params as a
/// tree when received, as their parse when sent).
pub fn required_flags<'a, V: View<'a>>(
    method: &str,
    params: Option<V>,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let Some(p) = params else { return out };
    for s in p.get("mcpServers").map(V::elements).unwrap_or_default() {
        let flag = match mcp_transport(s).as_deref() {
            Some("stdio") => "mcp.stdio",
            Some("http") => "mcp.http",
            Some("sse") => "mcp.sse",
            Some("acp") => "mcp.acp",
            _ => continue,
        };
        out.push((
            flag,
            server_needs(flag, s.get("name").and_then(V::text).as_deref()),
        ));
    }
    if p.get("additionalDirectories")
        .is_some_and(|a| !a.elements().is_empty())
    {
        out.push((
            "session.additionalDirectories",
            "additionalDirectories".into(),
        ));
    }
    if method == "session/prompt" {
        for b in p.get("prompt").map(V::elements).unwrap_or_default() {
            let need = match b.get("type").and_then(V::text).as_deref() {
                Some("image") => ("prompt.image", "image prompt content"),
                Some("audio") => ("prompt.audio", "audio prompt content"),
                Some("resource") => ("prompt.embeddedContext", "resource prompt content"),
                _ => continue,
            };
            out.push((need.0, need.1.into()));
        }
    }
    out.dedup();
    out
}

// Natively: `check_mcp_server` (the validator's named definitions) is not in the wasm build.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::schema::{validate_text, Context, Direction, Issue, Limits, Protocol, Severity};
    use serde_json::{json, Value};

    /// The validator's issues for a client's request in ACP `version`.
    fn issues(version: &str, method: &str, params: Value) -> Vec<Issue> {
        let ctx = Context {
            protocol: Protocol::Acp,
            version,
            direction: Direction::ClientToServer,
            in_reply_to: None,
        };
        let text = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        validate_text(&text.to_string(), &ctx, &Limits::default()).issues
    }

    fn acp_codes(version: &str, method: &str, params: Value) -> Vec<&'static str> {
        issues(version, method, params)
            .into_iter()
            .map(|i| i.code)
            .filter(|c| c.starts_with("acp."))
            .collect()
    }

    #[test]
    fn an_mcp_server_over_acp_names_itself_and_needs_the_agents_mcp_acp() {
        let mut issues = Vec::new();
        check_mcp_server(
            &json!({ "type": "acp", "name": "ide", "serverId": "ide-1" }),
            "/s",
            &mut issues,
        );
        assert!(issues.is_empty(), "{issues:?}");
        check_mcp_server(&json!({ "type": "acp", "name": "ide" }), "/s", &mut issues);
        assert_eq!(
            issues.iter().map(|i| i.path.as_str()).collect::<Vec<_>>(),
            ["/s/serverId"]
        );
        let flags = required_flags(
            "session/new",
            Some(&json!({ "mcpServers": [{ "type": "acp", "name": "ide", "serverId": "ide-1" }] })),
        );
        assert_eq!(flags, [("mcp.acp", "MCP server \"ide\" (acp)".to_string())]);
    }

    #[test]
    fn absolute_paths() {
        for p in [
            "/",
            "/home/u",
            "C:\\x",
            "c:/x",
            "\\\\server\\share",
            "\\\\?\\C:\\x",
        ] {
            assert!(is_absolute_path(p), "{p}");
            for v in ["1", "2"] {
                let got = acp_codes(v, "session/new", json!({"cwd": p, "mcpServers": []}));
                assert!(got.is_empty(), "{p}: {got:?}");
            }
        }
        for p in ["", "home", "./x", "C:", "C:x", "~/x", "1:\\x"] {
            assert!(!is_absolute_path(p), "{p}");
            for v in ["1", "2"] {
                let got = issues(v, "session/new", json!({"cwd": p, "mcpServers": []}));
                assert_eq!(got.len(), 1, "{p}: {got:?}");
                assert_eq!(got[0].code, "acp.cwd.not_absolute");
                assert_eq!(got[0].path, "/params/cwd");
                assert_eq!(
                    got[0].message,
                    format!("cwd must be an absolute path, not {p:?}")
                );
            }
        }
    }

    #[test]
    fn a_string_in_a_message_is_quoted_as_json_quotes_it() {
        // Control characters as JSON escapes them (`\u001b`, not Rust's `\u{1b}`); the rest as is.
        let got = issues(
            "1",
            "session/new",
            json!({"cwd": "\u{1b}é\n\"x", "mcpServers": []}),
        );
        assert_eq!(
            got[0].message,
            r#"cwd must be an absolute path, not "\u001bé\n\"x""#
        );
    }

    #[test]
    fn params_of_session_new() {
        let codes = |p: Value| acp_codes("1", "session/new", p);
        assert!(codes(json!({"cwd": "/p", "mcpServers": []})).is_empty());
        assert_eq!(
            codes(json!({"cwd": "p", "mcpServers": []})),
            ["acp.cwd.not_absolute"]
        );
        assert_eq!(
            codes(json!({"cwd": "/p", "additionalDirectories": ["/a", "b"], "mcpServers": []})),
            ["acp.additional_directories.not_absolute"]
        );
        // Where the schema already tells an issue, the check's is left out.
        let all = issues("1", "session/new", json!({"mcpServers": []}));
        assert_eq!(
            all.iter().map(|i| i.code).collect::<Vec<_>>(),
            ["missing_required"]
        );
        assert_eq!(
            codes(
                json!({"cwd": "/p", "mcpServers": [{"name": "a", "command": "npx", "args": [1], "env": {"A": "b"}}]})
            ),
            [
                "acp.mcp_server.command",
                "acp.mcp_server.args",
                "acp.mcp_server.pairs"
            ]
        );
        assert_eq!(
            codes(
                json!({"cwd": "/p", "mcpServers": [{"type": "http", "name": "", "url": "u", "headers": [{"name": "x"}]}]})
            ),
            ["acp.mcp_server.field", "acp.mcp_server.pair"]
        );
        let warned = issues(
            "2",
            "session/new",
            json!({"cwd": "/p", "mcpServers": [{"type": "stdio", "name": "a", "command": "npx"}, {"type": "ws", "name": "b"}]}),
        );
        let warned: Vec<_> = warned
            .iter()
            .filter(|i| i.code.starts_with("acp."))
            .map(|i| (i.path.as_str(), i.code, i.message.as_str(), i.severity))
            .collect();
        assert_eq!(
            warned,
            [
                (
                    "/params/mcpServers/0/command",
                    "acp.mcp_server.command",
                    "command should be an absolute path, not \"npx\"; the agent resolves it",
                    Severity::Warning
                ),
                (
                    "/params/mcpServers/1/type",
                    "acp.mcp_server.unknown_type",
                    "unknown MCP server transport \"ws\"",
                    Severity::Warning
                ),
            ]
        );
    }

    #[test]
    fn the_checks_cover_the_requests_that_set_up_a_session() {
        let bad = json!({"sessionId": "s", "cwd": "rel", "mcpServers": []});
        for m in [
            "session/new",
            "session/load",
            "session/resume",
            "session/fork",
        ] {
            for v in ["1", "2"] {
                assert_eq!(
                    acp_codes(v, m, bad.clone()),
                    ["acp.cwd.not_absolute"],
                    "{m} v{v}"
                );
            }
        }
        assert!(acp_codes(
            "1",
            "session/prompt",
            json!({"sessionId": "s", "cwd": "rel", "prompt": []})
        )
        .is_empty());
        // Only what a client sends: an agent sending it is told that, not the paths.
        let ctx = Context {
            protocol: Protocol::Acp,
            version: "1",
            direction: Direction::ServerToClient,
            in_reply_to: None,
        };
        let text = json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": bad});
        let r = validate_text(&text.to_string(), &ctx, &Limits::default());
        assert!(
            r.issues.iter().all(|i| !i.code.starts_with("acp.")),
            "{r:?}"
        );
    }

    /// A request with thousands of bad MCP server entries: at most as many issues as the
    /// schema's own walk tells (64), told at once (each check's issue was compared with every
    /// earlier one: quadratic, and unbounded).
    #[test]
    fn the_checks_issues_are_bounded() {
        let servers: Vec<Value> = (0..20_000)
            .map(|_| json!({"name": "", "command": ""}))
            .collect();
        let started = std::time::Instant::now();
        let got = issues(
            "1",
            "session/new",
            json!({"cwd": "/p", "mcpServers": servers}),
        );
        assert!(got.len() <= 128, "{} issues", got.len());
        assert!(got.iter().any(|i| i.code == "acp.mcp_server.field"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn flags_needed() {
        let p = json!({"sessionId": "s", "prompt": [{"type": "text", "text": "x"}, {"type": "image"}, {"type": "resource_link"}, {"type": "resource"}]});
        let f: Vec<_> = required_flags("session/prompt", Some(&p))
            .into_iter()
            .map(|x| x.0)
            .collect();
        assert_eq!(f, ["prompt.image", "prompt.embeddedContext"]);
        let p = json!({"cwd": "/", "mcpServers": [{"name": "a"}, {"type": "sse", "name": "b"}], "additionalDirectories": ["/x"]});
        let f: Vec<_> = required_flags("session/new", Some(&p))
            .into_iter()
            .map(|x| x.0)
            .collect();
        assert_eq!(f, ["mcp.stdio", "mcp.sse", "session.additionalDirectories"]);
    }

    /// Params read as a tree (received) and as a parse of their text (sent) need the same.
    #[test]
    fn a_tree_and_a_parse_need_the_same() {
        for (method, p) in [
            (
                "session/prompt",
                json!({"prompt": [{"type": "audio"}, {"type": 1}, "x", {"type": "resource"}]}),
            ),
            (
                "session/new",
                json!({"mcpServers": [{"name": "a\"b"}, {"type": "http"}, {"type": null}, 3], "additionalDirectories": []}),
            ),
            (
                "session/load",
                json!({"mcpServers": {"type": "sse"}, "additionalDirectories": ["/a"]}),
            ),
            ("session/new", json!([])),
        ] {
            let text = p.to_string();
            let tape = crate::json::tape_of(&text).expect("json");
            let by_parse = required_flags(method, Some(crate::json::Item::root(&tape)));
            assert_eq!(by_parse, required_flags(method, Some(&p)), "{p}");
        }
    }
}
