//! agentwire-demo-agent: a deterministic, offline ACP agent (v1 and v2) and MCP server,
//! built on agentwire's sessions. Newline-delimited JSON-RPC on stdin/stdout, logs on
//! stderr; exits with 0 when stdin closes.

mod acp_mode;
mod conformance;
mod mcp_link;
mod mcp_mode;
mod mcp_use;
mod runner;
mod script;
mod store;
mod updates;

use agentwire::acp::{AcpAgent, AgentConfig, NegotiationRule};
use serde_json::json;
use std::path::PathBuf;

#[derive(Debug, PartialEq)]
struct Options {
    mcp: bool,
    versions: Vec<u16>,
    negotiation: NegotiationRule,
    /// `None`: the per-user default (`store::default_dir`).
    data_dir: Option<PathBuf>,
    mcp_versions: Option<Vec<String>>,
    /// MCP mode also carries the conformance suite's catalogue.
    conformance: bool,
}

fn help() -> String {
    let mut h = String::from(
        "agentwire-demo-agent: a deterministic, offline ACP agent and MCP server (no API key).
One JSON-RPC message per line on stdin/stdout; logs on stderr; exits when stdin closes.

USAGE: agentwire-demo-agent [--versions 1,2] [--negotiation seed|draft] [--data-dir DIR]
       agentwire-demo-agent --mcp [--mcp-versions V,V,...] [--conformance]

OPTIONS
  --versions LIST      ACP versions to support (default 1,2); e.g. 1 to show a v2 client
                       negotiating down, or refusing
  --negotiation RULE   seed (default): answer the requested version if supported, else our
                       latest; draft: the highest supported at or below the request, else
                       error -32022
  --data-dir DIR       where sessions are kept across restarts, one JSON file each, private
                       to this user (default $XDG_STATE_HOME/agentwire-demo-agent, else
                       ~/.local/state/agentwire-demo-agent); at most 1000 are kept
  --mcp                be an MCP server instead (every version 2024-11-05 ... 2026-07-28)
  --mcp-versions LIST  MCP versions to support (a set: an unsupported request gets the newest)
  --conformance        MCP mode also carries the official conformance suite's test_* tools,
                       test:// resources and test_* prompts
  -h, --help           this text

ACP PROMPT KEYWORDS (case-insensitive; the first keyword in the prompt decides)
",
    );
    for (k, what) in script::KEYWORDS {
        h.push_str(&format!("  {k:<16} {what}\n"));
    }
    h.push_str(&format!("  (none)           {}\n", script::DEFAULT_BEHAVIOUR));
    h.push_str(
        "
MCP SERVER
  tools      echo {message}, add {a, b}, slow {steps, delayMs} (progress with a
             progressToken; stops on notifications/cancelled), fail (isError result)
  resources  demo://readme, demo://counter (counts tool calls; subscribe for
             notifications/resources/updated), template demo://echo/{text}
  prompts    greet {name} (completion/complete offers names)
  logging    logging/setLevel; notifications/message for tool calls
",
    );
    h
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        mcp: false,
        versions: vec![2, 1],
        negotiation: NegotiationRule::Seed,
        data_dir: None,
        mcp_versions: None,
        conformance: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--mcp" => o.mcp = true,
            "--conformance" => o.conformance = true,
            "--versions" => {
                let list = value("--versions")?;
                let mut versions = list
                    .split(',')
                    .map(|v| v.trim().parse::<u16>().ok().filter(|v| (1..=2).contains(v)).ok_or_else(|| format!("--versions: {v:?} is not 1 or 2")))
                    .collect::<Result<Vec<u16>, String>>()?;
                versions.sort_unstable_by(|a, b| b.cmp(a));
                versions.dedup();
                o.versions = versions;
            }
            "--negotiation" => {
                o.negotiation = match value("--negotiation")?.as_str() {
                    "seed" => NegotiationRule::Seed,
                    "draft" => NegotiationRule::Draft,
                    other => return Err(format!("--negotiation: {other:?} is not seed or draft")),
                }
            }
            "--data-dir" => o.data_dir = Some(PathBuf::from(value("--data-dir")?)),
            "--mcp-versions" => o.mcp_versions = Some(value("--mcp-versions")?.split(',').map(|v| v.trim().to_owned()).collect()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Some(o))
}

fn info() -> serde_json::Value {
    json!({ "name": "agentwire-demo-agent", "title": "agentwire demo agent", "version": env!("CARGO_PKG_VERSION") })
}

fn acp_agent(o: &Options) -> AcpAgent {
    let config = json!({
        "protocolVersions": o.versions,
        "info": info(),
        "capabilities": {
            "session": { "new": true, "load": true, "list": true, "resume": true, "close": true },
            "prompt": { "image": true, "audio": true, "embeddedContext": true },
            "mcp": { "stdio": true, "http": true, "sse": true, "acp": true },
        },
        "authMethods": [],
        // MCP over ACP (`mcp/connect`, `mcp/message`) is in ACP's unstable schema.
        "allowUnstable": true,
    });
    let mut config: AgentConfig = match serde_json::from_value(config) {
        Ok(c) => c,
        Err(e) => {
            runner::log(&format!("agent configuration: {e}"));
            AgentConfig::default()
        }
    };
    config.negotiation = o.negotiation;
    AcpAgent::new(config)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{}", help());
            return;
        }
        Err(e) => {
            eprintln!("agentwire-demo-agent: {e}\n\n{}", help());
            std::process::exit(2);
        }
    };
    let mut out = runner::Out::stdout();
    if options.mcp {
        let mut server = mcp_mode::McpDemo::new(options.mcp_versions.clone(), info(), options.conformance);
        runner::run(&mut server, &mut out);
        return;
    }
    let opened = options.data_dir.clone().map_or_else(store::default_dir, Ok).and_then(|dir| Ok((store::Store::open(&dir)?, dir)));
    let (store, dir) = match opened {
        Ok(s) => s,
        Err(e) => {
            eprintln!("agentwire-demo-agent: cannot keep sessions: {e}");
            std::process::exit(1);
        }
    };
    runner::log(&format!("ACP v{:?}, sessions in {}", options.versions, dir.display()));
    let mut agent = acp_mode::AcpDemo::new(acp_agent(&options), store);
    runner::run(&mut agent, &mut out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn flags_parse_or_say_what_is_wrong() {
        let o = parse(&args("--versions 1 --negotiation draft --data-dir /d")).unwrap().unwrap();
        assert_eq!((o.versions, o.negotiation, o.data_dir), (vec![1], NegotiationRule::Draft, Some(PathBuf::from("/d"))));
        assert_eq!(parse(&args("--versions 1,2")).unwrap().unwrap().versions, vec![2, 1]);
        assert!(parse(&args("--mcp")).unwrap().unwrap().mcp);
        assert_eq!(parse(&args("--help")).unwrap(), None);
        for bad in ["--versions 3", "--versions", "--negotiation x", "--what"] {
            assert!(parse(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_agent_configuration_is_accepted() {
        let o = parse(&[]).unwrap().unwrap();
        let agent = acp_agent(&o);
        let caps = agent.own_capabilities();
        assert!(caps.session.load && caps.prompt.image && caps.prompt.audio && caps.prompt.embedded_context && caps.mcp.http && caps.mcp.sse);
    }

    #[test]
    fn help_names_every_keyword() {
        let h = help();
        for (k, _) in script::KEYWORDS {
            assert!(h.contains(k), "{k}");
        }
    }
}
