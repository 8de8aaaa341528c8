//! Command-line options. Agents are fixed here, at start: the browser can only pick one by name.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Parser};

use crate::words;

/// One agent the page may start: a name and a command already split into words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
}

/// Where the token came from, so a generated one can be said to be generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenSource {
    Flag,
    Env,
    Random,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub agents: Vec<Agent>,
    pub host: IpAddr,
    pub port: u16,
    pub allow_remote: bool,
    pub token: String,
    pub token_source: TokenSource,
    pub allow_origins: Vec<String>,
    pub allow_missing_origin: bool,
    pub static_dir: PathBuf,
    pub pkg_dir: PathBuf,
    pub max_message_bytes: usize,
    pub max_connections: usize,
    pub grace: Duration,
    pub request_timeout: Duration,
    pub max_pending: usize,
    pub session_idle: Duration,
}

/// What the command line asked for.
#[derive(Debug)]
pub enum Parsed {
    Run(Box<Config>),
    /// `--help`: the text to print.
    Help(String),
    /// `--version`: the text to print.
    Version(String),
}

/// The command line, read by clap. Checks clap cannot express (an agent at least, the token's
/// alphabet, a remote host needing `--allow-remote`) follow in `parse`.
#[derive(Parser, Debug)]
#[command(
    name = "agentwire-relay",
    version,
    // An option given twice takes its last value, as before clap.
    args_override_self = true,
    about = "Bridges a browser WebSocket to a stdio agent (ACP or MCP), serves stdio MCP servers over \
             Streamable HTTP and stdio ACP agents over ACP's HTTP transport, and serves the playground",
    after_help = "On start the relay prints one line on stdout: the URL to open, with the token in it. \
                  Everything else (logs, warnings) goes to stderr."
)]
struct Args {
    /// An agent the page may start by NAME ([A-Za-z0-9._-], at most 64); repeatable, the
    /// first is the default. `--agent COMMAND` alone names it `default`. COMMAND is split into
    /// words like a shell would, but without one: quotes and backslashes work, nothing is
    /// expanded, and unquoted | & ; < > ( ) $ ` are refused (use sh -c '...' for a shell)
    #[arg(long = "agent", value_name = "NAME=COMMAND")]
    agents: Vec<String>,
    /// Port to listen on; 0 picks a free one
    #[arg(long, value_name = "N", default_value_t = 8765)]
    port: u16,
    /// Address to listen on (an IP address)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1", value_parser = parse_host)]
    host: IpAddr,
    /// Required for a --host that is not a loopback address
    #[arg(long)]
    allow_remote: bool,
    /// The secret every client needs; better in AGENTWIRE_TOKEN, since arguments are visible to
    /// every local user (ps). Characters [A-Za-z0-9._~-], at least 128 bits [default: 32 random
    /// bytes, hex]
    #[arg(
        long,
        value_name = "TOKEN",
        env = "AGENTWIRE_TOKEN",
        hide_env_values = true
    )]
    token: Option<String>,
    /// Another page origin allowed to connect, e.g. http://localhost:5173 (repeatable; the
    /// relay's own origin is always allowed)
    #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = parse_origin)]
    allow_origins: Vec<String>,
    /// Accept WebSocket upgrades without an Origin header (non-browser clients); browsers
    /// always send one
    #[arg(long)]
    allow_missing_origin: bool,
    /// The playground files served at / [default: www/ of the repository]
    #[arg(long = "static", value_name = "DIR")]
    static_dir: Option<PathBuf>,
    /// The built npm package served at /pkg/ [default: pkg/ of the repository]
    #[arg(long = "pkg", value_name = "DIR")]
    pkg_dir: Option<PathBuf>,
    /// Largest message, each way, in bytes (at least 1024); also the largest HTTP body
    #[arg(long, value_name = "N", default_value_t = 4 << 20)]
    max_message_bytes: usize,
    /// Concurrent agents: WebSocket connections, MCP sessions and ACP connections over HTTP
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_connections: usize,
    /// Wait after closing an agent's stdin, and again after SIGTERM
    #[arg(long, value_name = "N", default_value_t = 2000)]
    grace_ms: u64,
    /// Time a connection has to send a request (its headers too) and get the answer or the
    /// upgrade; also how long an idle connection stays open
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    request_timeout_ms: u64,
    /// Connections idle or being answered at once; a new one past them takes the place of the
    /// one idle longest (fewer when the limit of open files requires)
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_pending: usize,
    /// An MCP session or ACP connection over HTTP with no request and no open stream for this
    /// long ends
    #[arg(long, value_name = "N", default_value_t = 15 * 60 * 1000)]
    session_idle_ms: u64,
}

/// Parses the arguments (without the program name); the token may also come from
/// `AGENTWIRE_TOKEN`, and `random_token` is called only when neither gives one.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    random_token: impl FnOnce() -> std::io::Result<String>,
) -> Result<Parsed, String> {
    parse_with(Args::command(), args, random_token)
}

fn parse_with(
    command: clap::Command,
    args: impl IntoIterator<Item = String>,
    random_token: impl FnOnce() -> std::io::Result<String>,
) -> Result<Parsed, String> {
    use clap::error::ErrorKind;
    let matches = match command
        .try_get_matches_from(std::iter::once("agentwire-relay".to_string()).chain(args))
    {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => {
            return Ok(Parsed::Help(e.render().to_string()))
        }
        Err(e) if e.kind() == ErrorKind::DisplayVersion => {
            return Ok(Parsed::Version(e.render().to_string()))
        }
        Err(e) => return Err(e.render().to_string().trim_end().to_string()),
    };
    let from_env = matches.value_source("token") == Some(clap::parser::ValueSource::EnvVariable);
    let a = Args::from_arg_matches(&matches).map_err(|e| e.render().to_string())?;
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");

    let mut agents: Vec<Agent> = Vec::new();
    for spec in &a.agents {
        let agent = parse_agent(spec)?;
        if agents.iter().any(|x| x.name == agent.name) {
            return Err(format!("two agents are named {:?}", agent.name));
        }
        agents.push(agent);
    }
    if agents.is_empty() {
        return Err("no agent: give at least one --agent NAME=COMMAND".into());
    }
    if !a.host.is_loopback() && !a.allow_remote {
        return Err(format!(
            "--host {} is not a loopback address: add --allow-remote to listen there",
            a.host
        ));
    }
    if a.max_message_bytes < 1024 {
        return Err("--max-message-bytes must be at least 1024".into());
    }
    if a.max_connections == 0 {
        return Err("--max-connections must be at least 1".into());
    }
    let (token, token_source) = match a.token {
        Some(t) => (
            t,
            if from_env {
                TokenSource::Env
            } else {
                TokenSource::Flag
            },
        ),
        None => (
            random_token().map_err(|e| format!("no random token: {e}"))?,
            TokenSource::Random,
        ),
    };
    if token.is_empty() || !token.bytes().all(is_unreserved) {
        return Err("the token must be non-empty and use only A-Z a-z 0-9 . _ ~ -".into());
    }
    Ok(Parsed::Run(Box::new(Config {
        agents,
        host: a.host,
        port: a.port,
        allow_remote: a.allow_remote,
        token,
        token_source,
        allow_origins: a.allow_origins,
        allow_missing_origin: a.allow_missing_origin,
        static_dir: a.static_dir.unwrap_or_else(|| repo.join("www")),
        pkg_dir: a.pkg_dir.unwrap_or_else(|| repo.join("pkg")),
        max_message_bytes: a.max_message_bytes,
        max_connections: a.max_connections,
        grace: Duration::from_millis(a.grace_ms),
        request_timeout: Duration::from_millis(a.request_timeout_ms.max(1)),
        max_pending: a.max_pending.max(1),
        session_idle: Duration::from_millis(a.session_idle_ms.max(1)),
    })))
}

/// `--host`: an IP address, IPv6 with or without brackets.
fn parse_host(v: &str) -> Result<IpAddr, String> {
    let v = v.trim_start_matches('[').trim_end_matches(']');
    v.parse().map_err(|_| format!("{v:?} is not an IP address"))
}

/// `NAME=COMMAND`, or a bare `COMMAND` named `default`. The text before the first `=` is a
/// name whenever it is a valid one, so `--agent "FOO=1 node a.js"` is the agent `FOO` running
/// `1`: such commands need an explicit name (`--agent "default=env FOO=1 node a.js"`).
pub fn parse_agent(spec: &str) -> Result<Agent, String> {
    let (name, command) = match spec.split_once('=') {
        Some((name, command)) if is_agent_name(name) => (name, command),
        _ => ("default", spec),
    };
    let mut words = words::split(command).map_err(|e| format!("--agent {spec:?}: {e}"))?;
    let program = words.remove(0);
    Ok(Agent {
        name: name.to_string(),
        program,
        args: words,
    })
}

pub fn is_agent_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// An origin as browsers send it: `scheme://host[:port]`, no path, lower case.
fn parse_origin(origin: &str) -> Result<String, String> {
    let o = origin.trim_end_matches('/').to_ascii_lowercase();
    let rest = o
        .strip_prefix("http://")
        .or_else(|| o.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains('/') => Ok(o),
        _ => Err(format!(
            "{origin:?} is not an origin like http://localhost:5173"
        )),
    }
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-')
}

/// How many bits of secret a token carries at most, judged by its alphabet: 4 a character
/// for hex digits, 6 for the URL-safe base64 alphabet, log2(66) for the rest of [A-Za-z0-9._~-].
pub fn token_bits(token: &str) -> usize {
    let per_char = if token.bytes().all(|b| b.is_ascii_hexdigit()) {
        4.0
    } else if token
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        6.0
    } else {
        66f64.log2()
    };
    (token.len() as f64 * per_char) as usize
}

/// 32 bytes from the OS random source (`getrandom`), as 64 hex digits.
pub fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses with the token's variable renamed to `env`, which no other test sets.
    fn parse_env(args: &[&str], env: &'static str) -> Result<Parsed, String> {
        let command = Args::command().mut_arg("token", |a| a.env(env));
        parse_with(command, args.iter().map(|s| s.to_string()), || {
            Ok("r".repeat(64))
        })
    }

    fn run(args: &[&str]) -> Result<Config, String> {
        match parse_env(args, "AGENTWIRE_RELAY_TEST_TOKEN_UNSET")? {
            Parsed::Run(c) => Ok(*c),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn agents_are_named_and_split() {
        let c = run(&["--agent", "demo=node 'a b.js' --v", "--agent=cat"]).unwrap();
        assert_eq!(
            c.agents,
            vec![
                Agent {
                    name: "demo".into(),
                    program: "node".into(),
                    args: vec!["a b.js".into(), "--v".into()]
                },
                Agent {
                    name: "default".into(),
                    program: "cat".into(),
                    args: vec![]
                },
            ]
        );
        // The text before `=` is a name when it can be one; a path with `/` cannot.
        assert_eq!(parse_agent("FOO=1 node x").unwrap().program, "1");
        assert_eq!(
            parse_agent("/usr/bin/env A=1 node").unwrap().name,
            "default"
        );
        assert_eq!(parse_agent("my.agent-2=x").unwrap().name, "my.agent-2");
    }

    #[test]
    fn refusals() {
        let cases: &[&[&str]] = &[
            &[],
            &["--agent", "a=x", "--agent", "a=y"],
            &["--agent", "x | y"],
            &["--agent", "x", "--host", "0.0.0.0"],
            &["--agent", "x", "--host", "example.org", "--allow-remote"],
            &["--agent", "x", "--token", "has space"],
            &["--agent", "x", "--token", ""],
            &["--agent", "x", "--port", "70000"],
            &["--agent", "x", "--allow-origin", "localhost:3000"],
            &["--agent", "x", "--max-connections", "0"],
            &["--agent", "x", "--bogus"],
            &["--agent"],
        ];
        for args in cases {
            assert!(run(args).is_err(), "{args:?} should be refused");
        }
    }

    #[test]
    fn defaults_and_token_precedence() {
        let c = run(&["--agent", "cat"]).unwrap();
        assert_eq!(
            (c.host.to_string(), c.port, c.token_source),
            ("127.0.0.1".into(), 8765, TokenSource::Random)
        );
        assert_eq!(c.max_message_bytes, 4 << 20);
        assert_eq!(
            run(&["--agent", "cat", "--port", "1", "--port", "2"])
                .unwrap()
                .port,
            2,
            "the last value counts"
        );
        let c = run(&[
            "--agent",
            "cat",
            "--host",
            "0.0.0.0",
            "--allow-remote",
            "--port",
            "0",
        ])
        .unwrap();
        assert!(c.allow_remote && c.port == 0);
        std::env::set_var("AGENTWIRE_RELAY_TEST_TOKEN", "from-env");
        let Parsed::Run(c) = parse_env(&["--agent", "cat"], "AGENTWIRE_RELAY_TEST_TOKEN").unwrap()
        else {
            unreachable!()
        };
        assert_eq!(
            (c.token.as_str(), c.token_source),
            ("from-env", TokenSource::Env)
        );
        let Parsed::Run(c) = parse_env(
            &["--agent", "cat", "--token", "flag"],
            "AGENTWIRE_RELAY_TEST_TOKEN",
        )
        .unwrap() else {
            unreachable!()
        };
        assert_eq!(
            (c.token.as_str(), c.token_source),
            ("flag", TokenSource::Flag)
        );
        assert_eq!(random_token().unwrap().len(), 64);
        assert_eq!(token_bits(&random_token().unwrap()), 256);
        assert_eq!(token_bits("test-token"), 60);
        assert!(token_bits(&"a".repeat(31)) < 128 && token_bits(&"a".repeat(32)) >= 128);
        assert_ne!(random_token().unwrap(), random_token().unwrap());
    }

    #[test]
    fn help_and_version_come_from_clap_and_hide_the_token() {
        std::env::set_var("AGENTWIRE_RELAY_TEST_SECRET", "very-secret-token");
        let Parsed::Help(help) = parse_env(&["--help"], "AGENTWIRE_RELAY_TEST_SECRET").unwrap()
        else {
            panic!("help")
        };
        for flag in [
            "--agent",
            "--port",
            "--host",
            "--allow-remote",
            "--token",
            "--allow-origin",
            "--allow-missing-origin",
            "--static",
            "--pkg",
            "--max-message-bytes",
            "--max-connections",
            "--grace-ms",
            "--request-timeout-ms",
            "--max-pending",
            "--session-idle-ms",
            "AGENTWIRE_TOKEN",
        ] {
            assert!(help.contains(flag), "--help names {flag}");
        }
        assert!(
            !help.contains("very-secret-token"),
            "the token's value is never shown"
        );
        let Parsed::Version(v) = parse_env(&["-V"], "AGENTWIRE_RELAY_TEST_SECRET").unwrap() else {
            panic!("version")
        };
        assert!(v.contains(env!("CARGO_PKG_VERSION")));
        assert!(matches!(
            parse_env(&["-h"], "AGENTWIRE_RELAY_TEST_SECRET"),
            Ok(Parsed::Help(_))
        ));
    }

    #[test]
    fn origins_are_normalised() {
        let c = run(&["--agent", "cat", "--allow-origin", "HTTP://LocalHost:5173/"]).unwrap();
        assert_eq!(c.allow_origins, vec!["http://localhost:5173".to_string()]);
    }
}
