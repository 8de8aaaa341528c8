#![cfg(not(target_arch = "wasm32"))]
//! Where the demo agent keeps sessions when not told: the user's own state folder, private
//! to the user, never the shared temporary folder.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::process::{Command, Stdio};

#[test]
fn without_data_dir_sessions_go_to_the_users_state_folder_privately() {
    let home = std::env::temp_dir().join(format!("agentwire-demo-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentwire-demo-agent"))
        .env_remove("XDG_STATE_HOME")
        .env("HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}"#,
    ] {
        writeln!(stdin, "{line}").unwrap();
        lines.next().expect("an answer").unwrap();
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let dir = home.join(".local/state/agentwire-demo-agent");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the folder under HOME")
        .filter_map(|e| e.ok())
        .collect();
    assert_eq!(files.len(), 1, "one session file");
    assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    assert_eq!(files[0].metadata().unwrap().mode() & 0o777, 0o600);
    let _ = std::fs::remove_dir_all(&home);
}
