//! Starts the real relay binary on a free loopback port and talks to it.
#![allow(dead_code)]

pub mod http;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const TOKEN: &str = "test-token-0123456789";
/// Every test body runs under this, so nothing hangs.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(120);
/// How long one expected frame may take.
pub const FRAME_TIMEOUT: Duration = Duration::from_secs(20);

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A running relay; stopped (SIGTERM, then SIGKILL) when dropped.
pub struct Relay {
    child: Child,
    pub port: u16,
    pub url: String,
    pub stderr: Arc<Mutex<String>>,
    more_stdout: Arc<Mutex<Vec<String>>>,
}

impl Relay {
    /// Starts the relay with `--port 0 --token TOKEN` and `args`.
    pub fn start(args: &[&str]) -> Relay {
        Self::start_with_env(args, &[])
    }

    /// The same, with extra environment variables for the relay.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Relay {
        Self::start_limited(args, env, None)
    }

    /// The same, with the relay's limit of open files (soft and hard) set to `files`.
    pub fn start_limited(args: &[&str], env: &[(&str, &str)], files: Option<u64>) -> Relay {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agentwire-relay"));
        if let Some(files) = files {
            use std::os::unix::process::CommandExt;
            // SAFETY: setrlimit only, between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    let limit = libc::rlimit {
                        rlim_cur: files,
                        rlim_max: files,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command
            .args(["--port", "0", "--token", TOKEN, "--grace-ms", "300"])
            .args(args)
            .env_remove("AGENTWIRE_TOKEN")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start agentwire-relay");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err_pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let more_stdout = Arc::new(Mutex::new(Vec::new()));
        let more = more_stdout.clone();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = tx.send(lines.next());
            // Anything more on stdout breaks the one-line promise; checked when dropped.
            more.lock().unwrap().extend(lines.map_while(Result::ok));
        });
        let url = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(Some(Ok(line))) => line,
            other => panic!(
                "no URL from the relay: {other:?}; stderr: {}",
                stderr.lock().unwrap()
            ),
        };
        let port = url
            .strip_prefix("http://127.0.0.1:")
            .and_then(|rest| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("unexpected URL line {url:?}"));
        assert_eq!(url, format!("http://127.0.0.1:{port}/?token={TOKEN}"));
        Relay {
            child,
            port,
            url,
            stderr,
            more_stdout,
        }
    }

    /// Whether the relay writes `text` to its stderr within ten seconds. Its stderr is read by
    /// a thread of its own, so a line the relay wrote before answering may not be read yet.
    pub fn logs(&self, text: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.stderr.lock().unwrap().contains(text) {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn ws_url(&self, agent: &str) -> String {
        format!(
            "ws://127.0.0.1:{}/ws?token={TOKEN}&agent={agent}",
            self.port
        )
    }

    /// Connects as the relay's own page would (right token and Origin).
    pub async fn connect(&self, agent: &str) -> Ws {
        connect_with(&self.ws_url(agent), &[("origin", &self.origin())])
            .await
            .unwrap_or_else(|status| panic!("upgrade refused with {status}"))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM to the relay and waits (bounded) for it to exit.
    pub fn terminate(&mut self) -> Option<std::process::ExitStatus> {
        signal(self.child.id(), libc::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) && self.terminate().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // The reader thread has seen stdout close once the relay is gone.
        std::thread::sleep(Duration::from_millis(20));
        let more = self.more_stdout.lock().unwrap();
        if !std::thread::panicking() {
            assert!(
                more.is_empty(),
                "the relay printed more than one stdout line: {more:?}"
            );
        }
    }
}

/// Connects as agentwire's client does (asking for the relay's frames with the
/// `agentwire.relay` subprotocol), with extra request headers (replacing any the client would
/// set, such as Host). On refusal returns the HTTP status.
pub async fn connect_with(url: &str, headers: &[(&'static str, &str)]) -> Result<Ws, u16> {
    let mut with_protocol = vec![("sec-websocket-protocol", "agentwire.relay")];
    with_protocol.extend_from_slice(headers);
    connect_plain(url, &with_protocol).await
}

/// Connects as any WebSocket client would: no subprotocol unless `headers` offer one.
pub async fn connect_plain(url: &str, headers: &[(&'static str, &str)]) -> Result<Ws, u16> {
    let mut request = url.into_client_request().unwrap();
    for (name, value) in headers {
        request
            .headers_mut()
            .insert(*name, HeaderValue::from_str(value).unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("connect failed: {e}"),
    }
}

/// What the page sees next: a frame, or the close frame (code, reason).
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    Text(String),
    Closed(Option<(u16, String)>),
}

pub async fn next(ws: &mut Ws) -> Seen {
    loop {
        let message = tokio::time::timeout(FRAME_TIMEOUT, ws.next())
            .await
            .expect("a frame in time");
        match message {
            Some(Ok(Message::Text(t))) => return Seen::Text(t.to_string()),
            Some(Ok(Message::Close(frame))) => {
                return Seen::Closed(
                    frame.map(|f: CloseFrame| (u16::from(f.code), f.reason.to_string())),
                )
            }
            Some(Ok(_)) => continue,
            None | Some(Err(_)) => return Seen::Closed(None),
        }
    }
}

/// The next frame, which must be text.
pub async fn next_text(ws: &mut Ws) -> String {
    match next(ws).await {
        Seen::Text(t) => t,
        other => panic!("expected a text frame, got {other:?}"),
    }
}

/// The next frame that is not a stderr event, parsed.
pub async fn next_json(ws: &mut Ws) -> Value {
    loop {
        let v: Value = serde_json::from_str(&next_text(ws).await).expect("JSON frame");
        if v["relay"]["event"] != "stderr" {
            return v;
        }
    }
}

/// Reads until the `spawned` event and returns the agent's pid.
pub async fn spawned_pid(ws: &mut Ws) -> u32 {
    let v = next_json(ws).await;
    assert_eq!(v["relay"]["event"], "spawned", "{v}");
    v["relay"]["pid"].as_u64().expect("pid") as u32
}

pub async fn send(ws: &mut Ws, text: &str) {
    ws.send(Message::Text(text.into())).await.expect("send");
}

/// Is there a process with this pid (zombies count as gone)?
pub fn alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
    match stat {
        Ok(s) => !s
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits until the process is gone; false if it is still there after `within`.
pub async fn gone_within(pid: u32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    !alive(pid)
}

pub fn signal(pid: u32, signal: i32) {
    unsafe {
        libc::kill(pid as i32, signal);
    }
}

/// A raw HTTP/1.1 GET (so paths like `/../x` reach the server unnormalised).
/// Returns (status, lower-cased headers, body).
pub fn http_get(
    port: u16,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    http_request(([127, 0, 0, 1], port).into(), "GET", path, headers)
}

/// A raw HTTP/1.1 request to `addr` (`Host` is `addr` unless given). A status of 0 means the
/// server closed the connection without an answer.
pub fn http_request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    // The server may answer and close before reading all of an oversized request.
    let _ = stream.write_all(request.as_bytes());
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    if raw.is_empty() {
        return (0, Vec::new(), Vec::new());
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a full HTTP response");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let body = raw[split + 4..].to_vec();
    (status, headers, body)
}

pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentwire-relay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The repository root (for node_modules).
pub fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Resident memory of a process in KiB (`VmRSS` of /proc/PID/status); 0 once it is gone.
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Open file descriptors of a process (`/proc/PID/fd`); 0 once it is gone.
pub fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Children of `parent` that exited and were never reaped (zombies).
pub fn zombies_of(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            fields.next() == Some("Z")
                && fields.next().and_then(|p| p.parse::<u32>().ok()) == Some(parent)
        })
        .collect()
}

/// Every live process (zombies excluded) as (pid, parent pid, command line with spaces).
fn processes() -> Vec<(u32, u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| alive(pid))
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            Some((pid, ppid, cmdline))
        })
        .collect()
}

/// The live children of `parent`.
pub fn children_of(parent: u32) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|p| p.1 == parent)
        .map(|p| p.0)
        .collect()
}

/// The live processes whose command line contains `marker` (found even once their parent is
/// gone), less forks that have not exec'd yet (the parent's command line, unchanged).
pub fn with_marker(marker: &str) -> Vec<u32> {
    let marked: Vec<_> = processes()
        .into_iter()
        .filter(|p| p.2.contains(marker))
        .collect();
    let fork = |p: &(u32, u32, String)| marked.iter().any(|q| q.0 == p.1 && q.2 == p.2);
    marked.iter().filter(|p| !fork(p)).map(|p| p.0).collect()
}

/// Polls `count` until it is zero; the last count otherwise.
pub async fn none_left_within(within: Duration, count: impl Fn() -> usize) -> usize {
    let deadline = Instant::now() + within;
    loop {
        let n = count();
        if n == 0 || Instant::now() >= deadline {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An agent that touches `marker` when it starts and then says so (`{"marked":true}`), so a
/// test can tell that nothing was spawned, and, once told, that something was.
pub fn marking_agent(name: &str, marker: &std::path::Path) -> String {
    format!(
        r#"{name}=sh -c 'touch "{}"; echo "{{\"marked\":true}}"; exec cat'"#,
        marker.display()
    )
}

/// Waits for the marking agent's word that it touched its marker (after `spawned`).
pub async fn marked(ws: &mut Ws) {
    spawned_pid(ws).await;
    assert_eq!(next_json(ws).await, serde_json::json!({"marked": true}));
}
