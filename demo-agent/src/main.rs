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
use clap::{CommandFactory, Parser};
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

/// The command line, read by clap.
#[derive(Parser, Debug)]
#[command(
    name = "agentwire-demo-agent",
    about = "A deterministic, offline ACP agent and MCP server (no API key). One JSON-RPC message per \
             line on stdin/stdout; logs on stderr; exits when stdin closes.",
    after_long_help = after_help()
)]
struct Cli {
    /// ACP versions to support; e.g. 1 to show a v2 client negotiating down, or refusing
    #[arg(long, value_name = "LIST", default_value = "1,2", value_parser = parse_versions)]
    versions: Versions,
    /// seed: answer the requested version if supported, else our latest; draft: the highest
    /// supported at or below the request, else error -32022
    #[arg(long, value_name = "RULE", default_value = "seed", value_parser = ["seed", "draft"])]
    negotiation: String,
    /// Where sessions are kept across restarts, one JSON file each, private to this user
    /// (default $XDG_STATE_HOME/agentwire-demo-agent, else ~/.local/state/agentwire-demo-agent);
    /// at most 1000 are kept
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Be an MCP server instead (every version 2024-11-05 ... 2026-07-28)
    #[arg(long)]
    mcp: bool,
    /// MCP versions to support (a set: an unsupported request gets the newest)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    mcp_versions: Option<Vec<String>>,
    /// MCP mode also carries the official conformance suite's test_* tools, test://
    /// resources and test_* prompts
    #[arg(long)]
    conformance: bool,
}

/// ACP versions, newest first, each once.
#[derive(Clone, Debug)]
struct Versions(Vec<u16>);

fn parse_versions(list: &str) -> Result<Versions, String> {
    let mut versions = list
        .split(',')
        .map(|v| {
            v.trim()
                .parse::<u16>()
                .ok()
                .filter(|v| (1..=2).contains(v))
                .ok_or_else(|| format!("{v:?} is not 1 or 2"))
        })
        .collect::<Result<Vec<u16>, String>>()?;
    versions.sort_unstable_by(|a, b| b.cmp(a));
    versions.dedup();
    Ok(Versions(versions))
}

/// The prompt keywords and the MCP server's catalogue, after the options in `--help`.
fn after_help() -> String {
    let mut h = String::from(
        "ACP PROMPT KEYWORDS (case-insensitive; the first keyword in the prompt decides)\n",
    );
    for (k, what) in script::KEYWORDS {
        h.push_str(&format!("  {k:<16} {what}\n"));
    }
    h.push_str(&format!(
        "  (none)           {}\n",
        script::DEFAULT_BEHAVIOUR
    ));
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

/// The whole `--help` text.
fn help() -> String {
    Cli::command().render_long_help().to_string()
}

/// The options, or `None` for `--help`; a bad command line says what is wrong (clap's words).
fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let cli = match Cli::try_parse_from(
        std::iter::once("agentwire-demo-agent").chain(args.iter().map(String::as_str)),
    ) {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => return Ok(None),
        Err(e) => return Err(e.render().to_string().trim_end().to_string()),
    };
    let negotiation = if cli.negotiation == "draft" {
        NegotiationRule::Draft
    } else {
        NegotiationRule::Seed
    };
    Ok(Some(Options {
        mcp: cli.mcp,
        versions: cli.versions.0,
        negotiation,
        data_dir: cli.data_dir,
        mcp_versions: cli
            .mcp_versions
            .map(|v| v.into_iter().map(|s| s.trim().to_owned()).collect()),
        conformance: cli.conformance,
    }))
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
            eprintln!("agentwire-demo-agent: {e}");
            std::process::exit(2);
        }
    };
    let mut out = runner::Out::stdout();
    if options.mcp {
        let mut server =
            mcp_mode::McpDemo::new(options.mcp_versions.clone(), info(), options.conformance);
        runner::run(&mut server, &mut out);
        return;
    }
    let opened = options
        .data_dir
        .clone()
        .map_or_else(store::default_dir, Ok)
        .and_then(|dir| Ok((store::Store::open(&dir)?, dir)));
    let (store, dir) = match opened {
        Ok(s) => s,
        Err(e) => {
            eprintln!("agentwire-demo-agent: cannot keep sessions: {e}");
            std::process::exit(1);
        }
    };
    runner::log(&format!(
        "ACP v{:?}, sessions in {}",
        options.versions,
        dir.display()
    ));
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
        let o = parse(&args("--versions 1 --negotiation draft --data-dir /d"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (o.versions, o.negotiation, o.data_dir),
            (vec![1], NegotiationRule::Draft, Some(PathBuf::from("/d")))
        );
        assert_eq!(
            parse(&args("--versions 1,2")).unwrap().unwrap().versions,
            vec![2, 1]
        );
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
        assert!(
            caps.session.load
                && caps.prompt.image
                && caps.prompt.audio
                && caps.prompt.embedded_context
                && caps.mcp.http
                && caps.mcp.sse
        );
    }

    #[test]
    fn help_names_every_keyword() {
        let h = help();
        for (k, _) in script::KEYWORDS {
            assert!(h.contains(k), "{k}");
        }
    }
}
