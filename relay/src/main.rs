use std::io::Write;
use std::sync::Arc;

use agentwire_relay::cli::{self, Parsed, TokenSource};
use agentwire_relay::server::{self, Relay};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // Orphans of the agents come to the relay, which ends them with their session.
    agentwire_relay::process::become_subreaper();
    let files = agentwire_relay::accept::raise_file_limit().unwrap_or(1024);
    let args = std::env::args().skip(1);
    let config = match cli::parse(args, cli::random_token) {
        Ok(Parsed::Run(config)) => config,
        Ok(Parsed::Help(text) | Parsed::Version(text)) => return print!("{text}"),
        Err(e) => {
            eprintln!("agentwire-relay: {e}");
            std::process::exit(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind((config.host, config.port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "agentwire-relay: cannot listen on {}:{}: {e}",
                config.host, config.port
            );
            std::process::exit(1);
        }
    };
    let Ok(addr) = listener.local_addr() else {
        std::process::exit(1)
    };
    let relay = Arc::new(Relay::with_files(&config, addr, files));
    if relay.accept.max_pending < config.max_pending {
        eprintln!(
            "agentwire-relay: warning: {files} open files allow {} connections at once, {} of them pending (not {})",
            relay.accept.max_open, relay.accept.max_pending, config.max_pending
        );
    }

    if !config.host.is_loopback() {
        eprintln!(
            "agentwire-relay: WARNING: listening on {} — anyone who can reach it and knows the \
             token can start the agents on this machine",
            config.host
        );
    }
    for (what, dir, given) in [
        ("--static", relay.static_dir(), &config.static_dir),
        ("--pkg", relay.pkg_dir(), &config.pkg_dir),
    ] {
        if dir.is_none() {
            eprintln!(
                "agentwire-relay: {what} {} does not exist; it is not served",
                given.display()
            );
        }
    }
    let names: Vec<&str> = config.agents.iter().map(|a| a.name.as_str()).collect();
    eprintln!("agentwire-relay: agents: {}", names.join(", "));
    if config.token_source == TokenSource::Env {
        eprintln!("agentwire-relay: token from AGENTWIRE_TOKEN");
    }
    if config.token_source == TokenSource::Flag {
        eprintln!("agentwire-relay: warning: --token is visible to every local user (ps); pass it in AGENTWIRE_TOKEN instead");
    }
    let bits = cli::token_bits(&config.token);
    if bits < 128 {
        eprintln!("agentwire-relay: warning: the token carries about {bits} bits; use at least 128 (32 hex digits, or leave it out for a random one)");
    }
    // The MCP Apps sandbox origin: another port on the same address, framed only by our pages.
    match tokio::net::TcpListener::bind((config.host, 0)).await {
        Ok(sandbox) => {
            let port = sandbox.local_addr().map(|a| a.port()).unwrap_or(0);
            let origin = format!(
                "http://{}",
                agentwire_relay::address::host_port(config.host, port)
            );
            let mut ancestors = vec![relay.base_url()];
            if config.host.is_loopback() {
                ancestors.push(format!("http://localhost:{}", addr.port()));
            }
            ancestors.extend(config.allow_origins.iter().cloned());
            let state = Arc::new(agentwire_relay::sandbox::Sandbox::new(
                config.host,
                port,
                ancestors,
            ));
            eprintln!("agentwire-relay: MCP Apps sandbox at {origin}/sandbox.html");
            let _ = relay.sandbox.set(origin);
            tokio::spawn(agentwire_relay::accept::serve(
                sandbox,
                agentwire_relay::sandbox::router(state),
                relay.accept,
            ));
        }
        Err(e) => eprintln!("agentwire-relay: no MCP Apps sandbox origin: {e}"),
    }
    let url_host = agentwire_relay::address::host_port(config.host, addr.port());
    println!("http://{url_host}/?token={}", config.token);
    let _ = std::io::stdout().flush();

    let app = server::router(relay.clone());
    tokio::spawn(agentwire_relay::accept::serve(listener, app, relay.accept));
    // Orphans handed to the relay (it is their subreaper) are reaped as they exit.
    tokio::spawn(agentwire_relay::process::reap_orphans());

    shutdown_signal().await;
    eprintln!("agentwire-relay: shutting down; stopping the agents");
    let _ = relay.shutdown.send(true);
    relay.mcp.end_all().await;
    relay.acp.end_all().await;
    // Every session holds a slot until its agent is gone: wait for all of them to come back.
    let all = u32::try_from(relay.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(config.grace * 3, relay.slots.acquire_many(all)).await;
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
