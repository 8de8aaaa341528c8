//! The demo agent as a real process, driven by one of the core's client sessions over its
//! stdin/stdout. Every wait is bounded, so a test fails instead of hanging.
#![allow(dead_code)]

use agentwire::jsonrpc::Outbound;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

pub const WAIT: Duration = Duration::from_secs(10);

/// A client session the process can be driven with.
pub trait Peer {
    type Event: std::fmt::Debug;
    fn feed(&mut self, line: &str, now_ms: u64) -> Vec<Self::Event>;
    fn tick_at(&mut self, now_ms: u64) -> Vec<Self::Event>;
    /// Text the session answers by itself.
    fn sent(event: &Self::Event) -> Option<&str>;
}

impl Peer for agentwire::acp::AcpClient {
    type Event = agentwire::acp::Event;
    fn feed(&mut self, line: &str, now_ms: u64) -> Vec<Self::Event> {
        self.receive(line, now_ms)
    }
    fn tick_at(&mut self, now_ms: u64) -> Vec<Self::Event> {
        self.tick(now_ms)
    }
    fn sent(event: &Self::Event) -> Option<&str> {
        match event {
            agentwire::acp::Event::Send { text } => Some(text),
            _ => None,
        }
    }
}

impl Peer for agentwire::mcp::McpClient {
    type Event = agentwire::mcp::Event;
    fn feed(&mut self, line: &str, now_ms: u64) -> Vec<Self::Event> {
        self.receive(line, now_ms)
    }
    fn tick_at(&mut self, now_ms: u64) -> Vec<Self::Event> {
        self.tick(now_ms)
    }
    fn sent(event: &Self::Event) -> Option<&str> {
        match event {
            agentwire::mcp::Event::Send { text } => Some(text),
            _ => None,
        }
    }
}

pub struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    started: Instant,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh, empty data folder for one test, removed when dropped: made before the agents that
/// use it, it is dropped after them, once their processes have ended (an agent still running
/// could save a session into it while it is being removed).
pub struct DataDir(PathBuf);

impl std::ops::Deref for DataDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn data_dir(name: &str) -> DataDir {
    let dir =
        std::env::temp_dir().join(format!("agentwire-demo-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    DataDir(dir)
}

impl Agent {
    pub fn spawn(args: &[&str]) -> Agent {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentwire-demo-agent"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the demo agent starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Agent {
            child,
            stdin,
            lines,
            started: Instant::now(),
        }
    }

    pub fn acp(dir: &Path, extra: &[&str]) -> Agent {
        let mut args = vec!["--data-dir", dir.to_str().expect("utf-8 temp dir")];
        args.extend_from_slice(extra);
        Agent::spawn(&args)
    }

    pub fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub fn write(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{text}").expect("write to the demo agent");
        stdin.flush().expect("flush");
    }

    /// Sends what a session call produced; panics on a local refusal.
    pub fn send<E: std::fmt::Debug>(&mut self, sent: Result<Outbound, E>) -> Outbound {
        let out = sent.expect("the session sends it");
        self.write(&out.text);
        out
    }

    /// The next line the agent writes, as it came (for what no session would send).
    pub fn next_line(&mut self) -> String {
        self.lines
            .recv_timeout(WAIT)
            .expect("a line from the demo agent in time")
    }

    /// Feeds the agent's output to the client (sending what it answers by itself) until
    /// an event matches; every event seen is returned, the matching one last.
    pub fn until<P: Peer>(
        &mut self,
        peer: &mut P,
        mut done: impl FnMut(&P::Event) -> bool,
    ) -> Vec<P::Event> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no matching event in time; saw {seen:#?}");
            let events = match self
                .lines
                .recv_timeout(left.min(Duration::from_millis(100)))
            {
                Ok(line) => peer.feed(&line, self.now()),
                Err(_) => peer.tick_at(self.now()),
            };
            for e in events {
                if let Some(text) = P::sent(&e) {
                    let text = text.to_owned();
                    self.write(&text);
                }
                let hit = done(&e);
                seen.push(e);
                if hit {
                    return seen;
                }
            }
        }
    }

    /// Closes stdin and waits for the exit status.
    pub fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the demo agent did not exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
