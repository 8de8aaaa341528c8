//! ACP's own rules on request parameters, beyond what a JSON Schema says: absolute paths,
//! MCP server entries field by field, and which parameters need which capability.

use crate::schema::{Issue, Severity};
use serde_json::Value;

/// Absolute in POSIX (`/home/u`) or Windows form (`C:\x`, `C:/x`, `\\server\share`).
pub fn is_absolute_path(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || p.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

fn issue(path: String, code: &'static str, message: String) -> Issue {
    Issue {
        path,
        code,
        message,
        severity: Severity::Error,
    }
}

/// Structural checks of a request's params. `base` is the JSON pointer of the params
/// within the message (`/params`).
pub fn check_params(method: &str, params: Option<&Value>, base: &str) -> Vec<Issue> {
    let mut out = Vec::new();
    let Some(Value::Object(p)) = params else {
        return out;
    };
    if matches!(
        method,
        "session/new" | "session/load" | "session/resume" | "session/fork"
    ) {
        match p.get("cwd") {
            Some(Value::String(cwd)) if is_absolute_path(cwd) => {}
            Some(Value::String(cwd)) => out.push(issue(
                format!("{base}/cwd"),
                "acp.cwd.notAbsolute",
                format!("cwd must be an absolute path, not {cwd:?}"),
            )),
            Some(_) => out.push(issue(
                format!("{base}/cwd"),
                "acp.cwd.type",
                "cwd must be a string".into(),
            )),
            None if method == "session/fork" => {}
            None => out.push(issue(
                format!("{base}/cwd"),
                crate::schema::codes::MISSING_REQUIRED,
                "cwd is required".into(),
            )),
        }
        if let Some(Value::Array(dirs)) = p.get("additionalDirectories") {
            for (i, d) in dirs.iter().enumerate() {
                if !d.as_str().is_some_and(is_absolute_path) {
                    out.push(issue(
                        format!("{base}/additionalDirectories/{i}"),
                        "acp.additionalDirectories.notAbsolute",
                        "additional directories must be absolute paths".into(),
                    ));
                }
            }
        }
        match p.get("mcpServers") {
            None if method == "session/new" || method == "session/load" => {
                // Required in v1 (`session/new`, `session/load`), optional in the v2 draft:
                // left to the schema validator, which knows the version.
            }
            None => {}
            Some(Value::Array(servers)) => {
                for (i, s) in servers.iter().enumerate() {
                    check_mcp_server(s, &format!("{base}/mcpServers/{i}"), &mut out);
                }
            }
            Some(_) => out.push(issue(
                format!("{base}/mcpServers"),
                "acp.mcpServers.type",
                "mcpServers must be an array".into(),
            )),
        }
    }
    out
}

/// The transport of an MCP server entry: `type` "http"/"sse"/"stdio"/"acp", none = stdio (v1).
pub fn mcp_transport(entry: &Value) -> Option<&str> {
    match entry.get("type") {
        None => Some("stdio"),
        Some(Value::String(t)) => Some(t),
        Some(_) => None,
    }
}

/// An MCP server entry, field by field (seed 002 shapes).
pub fn check_mcp_server(entry: &Value, at: &str, out: &mut Vec<Issue>) {
    let Value::Object(e) = entry else {
        out.push(issue(
            at.into(),
            "acp.mcpServer.type",
            "an MCP server entry must be an object".into(),
        ));
        return;
    };
    let need_string = |key: &str, out: &mut Vec<Issue>| {
        if !matches!(e.get(key), Some(Value::String(s)) if !s.is_empty()) {
            out.push(issue(
                format!("{at}/{key}"),
                "acp.mcpServer.field",
                format!("\"{key}\" must be a non-empty string"),
            ));
        }
    };
    match mcp_transport(entry) {
        Some("stdio") => {
            need_string("name", out);
            need_string("command", out);
            if let Some(Value::String(c)) = e.get("command") {
                // The seed asks for an absolute path; the schema allows any string, and
                // `npx` is how most MCP servers are configured: warned about, and sent.
                if !c.is_empty() && !is_absolute_path(c) {
                    out.push(Issue {
                        path: format!("{at}/command"),
                        code: "acp.mcpServer.command",
                        message: format!(
                            "command should be an absolute path, not {c:?}; the agent resolves it"
                        ),
                        severity: Severity::Warning,
                    });
                }
            }
            match e.get("args") {
                None => {}
                Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
                Some(_) => out.push(issue(
                    format!("{at}/args"),
                    "acp.mcpServer.args",
                    "args must be an array of strings".into(),
                )),
            }
            check_pairs(e.get("env"), &format!("{at}/env"), "env", out);
        }
        Some("http") | Some("sse") => {
            need_string("name", out);
            need_string("url", out);
            check_pairs(e.get("headers"), &format!("{at}/headers"), "headers", out);
        }
        // MCP over ACP (unstable): the server is the client's own, reached by `serverId`.
        Some("acp") => {
            need_string("name", out);
            need_string("serverId", out);
        }
        Some(other) => out.push(Issue {
            path: format!("{at}/type"),
            code: "acp.mcpServer.unknownType",
            message: format!("unknown MCP server transport {other:?}"),
            severity: Severity::Warning,
        }),
        None => out.push(issue(
            format!("{at}/type"),
            "acp.mcpServer.type",
            "\"type\" must be a string".into(),
        )),
    }
}

/// `env` and `headers`: a list of `{name, value}` string pairs (not a map).
fn check_pairs(v: Option<&Value>, at: &str, what: &str, out: &mut Vec<Issue>) {
    let Some(v) = v else { return };
    let Value::Array(items) = v else {
        out.push(issue(
            at.into(),
            "acp.mcpServer.pairs",
            format!("{what} must be an array of {{name, value}} objects"),
        ));
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let ok = item.get("name").is_some_and(Value::is_string)
            && item.get("value").is_some_and(Value::is_string);
        if !ok {
            out.push(issue(
                format!("{at}/{i}"),
                "acp.mcpServer.pair",
                format!("{what} entries need string \"name\" and \"value\""),
            ));
        }
    }
}

/// The agent capability flags a request's params need, with what needs them.
pub fn required_flags(method: &str, params: Option<&Value>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let Some(p) = params else { return out };
    if let Some(Value::Array(servers)) = p.get("mcpServers") {
        for s in servers {
            let flag = match mcp_transport(s) {
                Some("stdio") => "mcp.stdio",
                Some("http") => "mcp.http",
                Some("sse") => "mcp.sse",
                Some("acp") => "mcp.acp",
                _ => continue,
            };
            let name = s.get("name").and_then(Value::as_str).unwrap_or("?");
            out.push((flag, format!("MCP server {name:?} ({})", &flag[4..])));
        }
    }
    if matches!(p.get("additionalDirectories"), Some(Value::Array(a)) if !a.is_empty()) {
        out.push((
            "session.additionalDirectories",
            "additionalDirectories".into(),
        ));
    }
    if method == "session/prompt" {
        if let Some(Value::Array(blocks)) = p.get("prompt") {
            for b in blocks {
                let flag = match b.get("type").and_then(Value::as_str) {
                    Some("image") => "prompt.image",
                    Some("audio") => "prompt.audio",
                    Some("resource") => "prompt.embeddedContext",
                    _ => continue,
                };
                out.push((
                    flag,
                    format!("{} prompt content", b["type"].as_str().unwrap_or("")),
                ));
            }
        }
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        }
        for p in ["", "home", "./x", "C:", "C:x", "~/x", "1:\\x"] {
            assert!(!is_absolute_path(p), "{p}");
        }
    }

    #[test]
    fn params_of_session_new() {
        let codes = |p: Value| -> Vec<&'static str> {
            check_params("session/new", Some(&p), "/params")
                .into_iter()
                .map(|i| i.code)
                .collect()
        };
        assert!(codes(json!({"cwd": "/p", "mcpServers": []})).is_empty());
        assert_eq!(
            codes(json!({"cwd": "p", "mcpServers": []})),
            ["acp.cwd.notAbsolute"]
        );
        assert_eq!(codes(json!({"mcpServers": []})), ["missing_required"]);
        assert_eq!(
            codes(json!({"cwd": "/p", "mcpServers": {}})),
            ["acp.mcpServers.type"]
        );
        assert_eq!(
            codes(
                json!({"cwd": "/p", "mcpServers": [{"name": "a", "command": "npx", "args": [1], "env": {"A": "b"}}]})
            ),
            [
                "acp.mcpServer.command",
                "acp.mcpServer.args",
                "acp.mcpServer.pairs"
            ]
        );
        assert_eq!(
            codes(
                json!({"cwd": "/p", "mcpServers": [{"type": "http", "name": "", "url": "u", "headers": [{"name": "x"}]}]})
            ),
            ["acp.mcpServer.field", "acp.mcpServer.pair"]
        );
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
}
