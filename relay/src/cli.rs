//! Command-line options. Agents are fixed here, at start: the browser can only pick one by name.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::words;

pub const USAGE: &str = "\
agentwire-relay: bridges a browser WebSocket to a stdio agent (ACP or MCP) and serves the playground

USAGE:
    agentwire-relay --agent NAME=COMMAND [--agent NAME=COMMAND ...] [OPTIONS]

AGENTS:
    --agent NAME=COMMAND     an agent the page may start by NAME ([A-Za-z0-9._-], at most 64);
                             repeatable, the first is the default. `--agent COMMAND` alone names
                             it `default`. COMMAND is split into words like a shell would, but
                             without one: quotes and backslashes work, nothing is expanded, and
                             unquoted | & ; < > ( ) $ ` are refused (use sh -c '...' for a shell).

OPTIONS:
    --port N                 port to listen on; 0 picks a free one            [default: 8765]
    --host ADDR              address to listen on                         [default: 127.0.0.1]
    --allow-remote           required for a --host that is not a loopback address
    --token TOKEN            the secret every WebSocket needs; better in AGENTWIRE_TOKEN, since
                             arguments are visible to every local user (ps). Characters
                             [A-Za-z0-9._~-], at least 128 bits [default: 32 random bytes, hex]
    --allow-origin ORIGIN    another page origin allowed to connect, e.g. http://localhost:5173
                             (repeatable; the relay's own origin is always allowed)
    --allow-missing-origin   accept WebSocket upgrades without an Origin header (non-browser
                             clients); browsers always send one
    --static DIR             the playground files served at /          [default: www/ of the repo]
    --pkg DIR                the built npm package served at /pkg/     [default: pkg/ of the repo]
    --max-message-bytes N    largest message, each way, in bytes              [default: 4194304]
    --max-connections N      concurrent WebSocket connections (agents)              [default: 8]
    --grace-ms N             wait after closing stdin, and again after SIGTERM    [default: 2000]
    --request-timeout-ms N   time a connection has to send its request and get the answer
                             or the upgrade; also the limit for reading the headers
                                                                                [default: 10000]
    --max-pending N          connections not yet upgraded or answered at once; more are
                             closed at once                                       [default: 256]
    -h, --help               print this help
    -V, --version            print the version

On start the relay prints one line on stdout: the URL to open, with the token in it.
Everything else (logs, warnings) goes to stderr.";

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
    Help,
    Version,
}

/// Parses the arguments (without the program name). `env_token` is `AGENTWIRE_TOKEN`, and
/// `random_token` is called only when neither it nor `--token` gives one.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    env_token: Option<String>,
    random_token: impl FnOnce() -> std::io::Result<String>,
) -> Result<Parsed, String> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut agents: Vec<Agent> = Vec::new();
    let mut host: IpAddr = [127, 0, 0, 1].into();
    let mut port: u16 = 8765;
    let mut allow_remote = false;
    let mut token = None;
    let mut allow_origins = Vec::new();
    let mut allow_missing_origin = false;
    let mut static_dir = repo.join("www");
    let mut pkg_dir = repo.join("pkg");
    let mut max_message_bytes: usize = 4 << 20;
    let mut max_connections: usize = 8;
    let mut grace_ms: u64 = 2000;
    let mut request_timeout_ms: u64 = 10_000;
    let mut max_pending: usize = 256;
    let mut session_idle_ms: u64 = 15 * 60 * 1000;

    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg, None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "-V" | "--version" => return Ok(Parsed::Version),
            "--agent" => {
                let agent = parse_agent(&value()?)?;
                if agents.iter().any(|a| a.name == agent.name) {
                    return Err(format!("two agents are named {:?}", agent.name));
                }
                agents.push(agent);
            }
            "--port" => port = number(&flag, &value()?)?,
            "--host" => {
                let v = value()?;
                let v = v.trim_start_matches('[').trim_end_matches(']');
                host = v.parse().map_err(|_| format!("--host {v:?} is not an IP address"))?;
            }
            "--allow-remote" => allow_remote = true,
            "--token" => token = Some((value()?, TokenSource::Flag)),
            "--allow-origin" => allow_origins.push(parse_origin(&value()?)?),
            "--allow-missing-origin" => allow_missing_origin = true,
            "--static" => static_dir = PathBuf::from(value()?),
            "--pkg" => pkg_dir = PathBuf::from(value()?),
            "--max-message-bytes" => max_message_bytes = number(&flag, &value()?)?,
            "--max-connections" => max_connections = number(&flag, &value()?)?,
            "--grace-ms" => grace_ms = number(&flag, &value()?)?,
            "--request-timeout-ms" => request_timeout_ms = number(&flag, &value()?)?,
            "--max-pending" => max_pending = number(&flag, &value()?)?,
            "--session-idle-ms" => session_idle_ms = number(&flag, &value()?)?,
            other => return Err(format!("unknown option {other:?} (see --help)")),
        }
    }

    if agents.is_empty() {
        return Err("no agent: give at least one --agent NAME=COMMAND".into());
    }
    if !host.is_loopback() && !allow_remote {
        return Err(format!(
            "--host {host} is not a loopback address: add --allow-remote to listen there"
        ));
    }
    if max_message_bytes < 1024 {
        return Err("--max-message-bytes must be at least 1024".into());
    }
    if max_connections == 0 {
        return Err("--max-connections must be at least 1".into());
    }
    let (token, token_source) = match token.or(env_token.map(|t| (t, TokenSource::Env))) {
        Some(t) => t,
        None => (random_token().map_err(|e| format!("no random token: {e}"))?, TokenSource::Random),
    };
    if token.is_empty() || !token.bytes().all(is_unreserved) {
        return Err("the token must be non-empty and use only A-Z a-z 0-9 . _ ~ -".into());
    }
    Ok(Parsed::Run(Box::new(Config {
        agents,
        host,
        port,
        allow_remote,
        token,
        token_source,
        allow_origins,
        allow_missing_origin,
        static_dir,
        pkg_dir,
        max_message_bytes,
        max_connections,
        grace: Duration::from_millis(grace_ms),
        request_timeout: Duration::from_millis(request_timeout_ms.max(1)),
        max_pending: max_pending.max(1),
        session_idle: Duration::from_millis(session_idle_ms.max(1)),
    })))
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
    Ok(Agent { name: name.to_string(), program, args: words })
}

pub fn is_agent_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// An origin as browsers send it: `scheme://host[:port]`, no path, lower case.
fn parse_origin(origin: &str) -> Result<String, String> {
    let o = origin.trim_end_matches('/').to_ascii_lowercase();
    let rest = o.strip_prefix("http://").or_else(|| o.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains('/') => Ok(o),
        _ => Err(format!("--allow-origin {origin:?} is not an origin like http://localhost:5173")),
    }
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("{flag} {v:?} is not a valid number"))
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-')
}

/// How many bits of secret a token carries at most, judged by its alphabet: 4 a character
/// for hex digits, 6 for the URL-safe base64 alphabet, log2(66) for the rest of [A-Za-z0-9._~-].
pub fn token_bits(token: &str) -> usize {
    let per_char = if token.bytes().all(|b| b.is_ascii_hexdigit()) {
        4.0
    } else if token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
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

    fn run(args: &[&str]) -> Result<Config, String> {
        let args = args.iter().map(|s| s.to_string());
        match parse(args, None, || Ok("r".repeat(64)))? {
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
                Agent { name: "demo".into(), program: "node".into(), args: vec!["a b.js".into(), "--v".into()] },
                Agent { name: "default".into(), program: "cat".into(), args: vec![] },
            ]
        );
        // The text before `=` is a name when it can be one; a path with `/` cannot.
        assert_eq!(parse_agent("FOO=1 node x").unwrap().program, "1");
        assert_eq!(parse_agent("/usr/bin/env A=1 node").unwrap().name, "default");
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
        assert_eq!((c.host.to_string(), c.port, c.token_source), ("127.0.0.1".into(), 8765, TokenSource::Random));
        assert_eq!(c.max_message_bytes, 4 << 20);
        let c = run(&["--agent", "cat", "--host", "0.0.0.0", "--allow-remote", "--port", "0"]).unwrap();
        assert!(c.allow_remote && c.port == 0);
        let env = Some("from-env".to_string());
        let c = match parse(["--agent".into(), "cat".into()], env.clone(), || unreachable!()).unwrap() {
            Parsed::Run(c) => c,
            _ => unreachable!(),
        };
        assert_eq!((c.token.as_str(), c.token_source), ("from-env", TokenSource::Env));
        let args = ["--agent", "cat", "--token", "flag"].map(String::from);
        let Parsed::Run(c) = parse(args, env, || unreachable!()).unwrap() else { unreachable!() };
        assert_eq!((c.token.as_str(), c.token_source), ("flag", TokenSource::Flag));
        assert_eq!(random_token().unwrap().len(), 64);
        assert_eq!(token_bits(&random_token().unwrap()), 256);
        assert_eq!(token_bits("test-token"), 60);
        assert!(token_bits(&"a".repeat(31)) < 128 && token_bits(&"a".repeat(32)) >= 128);
        assert_ne!(random_token().unwrap(), random_token().unwrap());
    }

    #[test]
    fn origins_are_normalised() {
        let c = run(&["--agent", "cat", "--allow-origin", "HTTP://LocalHost:5173/"]).unwrap();
        assert_eq!(c.allow_origins, vec!["http://localhost:5173".to_string()]);
    }
}
