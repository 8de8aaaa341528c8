#![cfg(not(target_arch = "wasm32"))]
//! The official ACP SDK's example client (`@agentclientprotocol/sdk`,
//! `dist/examples/client.js`) against the demo agent. The example spawns its own agent
//! with `npx tsx agent.ts`; a small shim points that `spawn` at the demo agent instead and
//! leaves everything else as published. Skips, saying so, without node or `node_modules`.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SHIM: &str = r#"
import { createRequire, syncBuiltinESMExports } from "node:module";
import { pathToFileURL } from "node:url";
const require = createRequire(import.meta.url);
const cp = require("node:child_process");
const spawn = cp.spawn;
cp.spawn = (_command, _args, options) => spawn(process.env.DEMO_AGENT, JSON.parse(process.env.DEMO_AGENT_ARGS), options);
syncBuiltinESMExports();
await import(pathToFileURL(process.env.EXAMPLE_CLIENT).href);
"#;

#[test]
fn the_official_example_client_completes_a_turn() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let example = root.join("node_modules/@agentclientprotocol/sdk/dist/examples/client.js");
    if !example.is_file() {
        eprintln!(
            "SKIPPED: {} is missing; run `npm install` at the repository root",
            example.display()
        );
        return;
    }
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("SKIPPED: node is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("agentwire-demo-sdk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shim = dir.join("shim.mjs");
    std::fs::write(&shim, SHIM).expect("shim");
    let args = serde_json::json!(["--data-dir", dir.join("sessions")]).to_string();
    let mut child = Command::new("node")
        .arg(&shim)
        .current_dir(&dir)
        .env("DEMO_AGENT", env!("CARGO_BIN_EXE_agentwire-demo-agent"))
        .env("DEMO_AGENT_ARGS", args)
        .env("EXAMPLE_CLIENT", &example)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the example client did not finish in time");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("read");
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read");
    assert!(status.success(), "{stdout}\n{stderr}");
    for expected in [
        "Connected to agent (protocol v1)",
        "Created session: sess_",
        "[agent_thought_chunk]",
        "Agent completed with: end_turn",
    ] {
        assert!(
            stdout.contains(expected),
            "{expected:?} missing from:\n{stdout}\n{stderr}"
        );
    }
    // The answer arrives in several chunks, one line each: joined, it echoes the prompt.
    let joined: String = stdout.lines().collect();
    assert!(joined.contains("You said: Hello, agent!"), "{stdout}");
    assert!(!stderr.contains("[Client] Error"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
