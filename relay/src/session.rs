//! One WebSocket connection bridged to one agent process.
//!
//! ```text
//! page ──frames──► inbound loop ──lines──► agent stdin
//! page ◄─writer task◄─ byte-bounded queue ◄── stdout pump (lines) / stderr pump / events
//! ```
//! Every text frame becomes one stdin line; every stdout line one text frame (or, when the
//! page asked with `frames=binary`, one binary frame of the line's bytes, as they came; the
//! relay's own events stay text frames), in order, but for the page's relay commands (frames that start with `{"relay":`: hosting an MCP server,
//! see hosting.rs), which go to the relay. The
//! queue toward the page holds a bounded number of bytes: when the page reads slowly the stdout
//! pump waits, stops reading the pipe, and the agent blocks on its own writes.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{FutureExt, SinkExt, StreamExt};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::timeout;

use crate::cli::Agent;
use crate::frames::{self, Command, Event};
use crate::hosting::{Hosts, ToPage};
use crate::lines::{read_line, Line, Overflow};
use crate::mcp_http;
use crate::process::{self, Waiter};

/// Limits that apply to every session.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_message_bytes: usize,
    pub grace: Duration,
}

/// What a session uses of the relay: its limits and, for the MCP servers its page hosts, the
/// hosted servers, their sessions and the relay's own address.
#[derive(Clone)]
pub struct Context {
    pub limits: Limits,
    pub hosted: Arc<Hosts>,
    pub mcp: mcp_http::Hub,
    /// `http://HOST:PORT`, the start of a hosted server's URL.
    pub base_url: String,
}

/// Stderr is forwarded in pieces of at most this many bytes.
const STDERR_CHUNK: usize = 16 * 1024;
/// What a queued frame costs beyond its text, so that empty frames are not free.
const FRAME_OVERHEAD: usize = 64;
/// How long to wait for the page's answer to our close frame.
const CLOSE_WAIT: Duration = Duration::from_secs(1);
/// How long a page that stopped reading may hold the last frames before they are given up.
const DRAIN_WAIT: Duration = Duration::from_secs(10);
/// Pings a page may send: a burst of this many, then one per `PING_REFILL`. Each ping queues
/// a pong that waits in the WebSocket layer for as long as the page does not read, so a page
/// that pings and never reads would grow the relay without bound; past the budget it is
/// closed with 1008. Browsers never send pings of their own.
const PING_BURST: u32 = 256;
const PING_REFILL: Duration = Duration::from_millis(100);

/// A token bucket for the page's pings.
struct PingBudget {
    left: u32,
    since: tokio::time::Instant,
}

impl PingBudget {
    fn new() -> Self {
        PingBudget {
            left: PING_BURST,
            since: tokio::time::Instant::now(),
        }
    }
    /// Spends one ping; false when the budget is gone.
    fn spend(&mut self) -> bool {
        let now = tokio::time::Instant::now();
        let earned = (now.duration_since(self.since).as_millis() / PING_REFILL.as_millis()) as u32;
        if earned > 0 {
            self.left = (self.left + earned).min(PING_BURST);
            self.since = now;
        }
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }
}

/// An item for the writer task.
enum Out {
    Text(String),
    /// An agent line, for a page that asked for binary frames.
    Binary(Vec<u8>),
    Close(u16, String),
}

/// The page-bound queue: an item waits for permits worth its size before it is queued, and
/// gives them back once written, so at most `budget` bytes wait for a slow page.
#[derive(Clone)]
struct Outbox {
    tx: mpsc::UnboundedSender<(Out, OwnedSemaphorePermit)>,
    bytes: Arc<Semaphore>,
    budget: usize,
    /// The page asked for the relay's own frames (the `agentwire.relay` subprotocol); a client
    /// that did not gets the agent's messages and nothing else.
    events: bool,
}

impl Outbox {
    fn new(
        budget: usize,
        events: bool,
    ) -> (Self, mpsc::UnboundedReceiver<(Out, OwnedSemaphorePermit)>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Self {
                tx,
                bytes: Arc::new(Semaphore::new(budget)),
                budget,
                events,
            },
            rx,
        )
    }

    async fn push(&self, out: Out) {
        let len = match &out {
            Out::Text(t) => t.len(),
            Out::Binary(b) => b.len(),
            Out::Close(_, r) => r.len(),
        };
        let cost = (len + FRAME_OVERHEAD).min(self.budget);
        let cost = u32::try_from(cost).unwrap_or(u32::MAX);
        // The semaphore is never closed, so acquiring only waits.
        if let Ok(permit) = self.bytes.clone().acquire_many_owned(cost).await {
            let _ = self.tx.send((out, permit));
        }
    }

    async fn event(&self, event: Event<'_>) {
        if self.events {
            self.push(Out::Text(event.to_frame())).await;
        }
    }

    async fn error(&self, message: &str) {
        self.event(Event::Error { message }).await;
    }
}

/// How the inbound side ended.
enum Ending {
    AgentExited(Option<std::process::ExitStatus>),
    PageGone,
    /// The page broke the WebSocket protocol: closed with this code and reason (1009 for a
    /// message over the limit, 1007 for a text frame that is not UTF-8).
    Refused(u16, String),
    RelayShutdown,
}

/// Runs the session until both the agent and the socket are done. `_slot` is the connection
/// permit, released when this returns.
pub async fn run(
    socket: WebSocket,
    agent: Agent,
    binary: bool,
    events: bool,
    relay: Context,
    mut shutdown: watch::Receiver<bool>,
    _slot: OwnedSemaphorePermit,
) {
    let limits = relay.limits;
    let (sink, mut stream) = socket.split();
    let (outbox, queue) = Outbox::new(
        limits.max_message_bytes.max(1 << 20) + FRAME_OVERHEAD,
        events,
    );
    let writer = tokio::spawn(write_frames(sink, queue));
    // What hosted servers' sessions send the page joins the page-bound queue; until it has,
    // it waits in a queue of its own, bounded in bytes as well.
    let (to_page, mut hosted) = ToPage::new(limits.max_message_bytes.max(1 << 20) + FRAME_OVERHEAD);
    let forward = {
        let outbox = outbox.clone();
        tokio::spawn(async move {
            while let Some((frame, _held)) = hosted.recv().await {
                outbox.push(Out::Text(frame)).await;
            }
        })
    };
    let page = Page {
        relay: relay.clone(),
        conn: relay.hosted.connection(),
        to_page,
    };

    let mark = process::session_mark();
    let mut child = match process::spawn(&agent, &mark) {
        Ok(child) => child,
        Err(e) => {
            eprintln!("agentwire-relay: cannot start agent {:?}: {e}", agent.name);
            outbox
                .error(&format!("cannot start agent {:?}: {e}", agent.name))
                .await;
            outbox
                .push(Out::Close(1011, "cannot start the agent".into()))
                .await;
            forward.abort();
            finish(outbox, writer, stream).await;
            return;
        }
    };
    let pid = child.id().unwrap_or(0);
    eprintln!(
        "agentwire-relay: started agent {:?} (pid {pid})",
        agent.name
    );
    outbox
        .event(Event::Spawned {
            agent: &agent.name,
            pid,
        })
        .await;
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let mut waiter = process::wait_in_background(child);
    let stdout_pump = tokio::spawn(pump_stdout(
        stdout,
        outbox.clone(),
        limits.max_message_bytes,
        binary,
    ));
    let stderr_pump = tokio::spawn(pump_stderr(stderr, outbox.clone()));

    let ending = inbound(
        &mut stream,
        stdin,
        &outbox,
        &page,
        &mut waiter,
        &mut shutdown,
    )
    .await;
    // The page is gone or going: what it hosted goes with it.
    let hosted = relay.hosted.close(page.conn);
    relay.mcp.end_hosted(&hosted).await;
    drop(page);
    forward.abort();
    // stdin is closed now: it was dropped when `inbound` returned.
    let status = match &ending {
        Ending::AgentExited(status) => *status,
        _ => process::stop(pid, &mut waiter, limits.grace).await,
    };
    // Deliver everything the agent wrote before it ended, unless something it left behind
    // holds the pipes open: then end the group first, and give up on the pipes after that.
    let stops = [stdout_pump.abort_handle(), stderr_pump.abort_handle()];
    let mut pumps = std::pin::pin!(async {
        let _ = tokio::join!(stdout_pump, stderr_pump);
    });
    let drained = timeout(limits.grace, &mut pumps).await.is_ok();
    process::end_session(pid, &mark, limits.grace).await;
    if !drained && timeout(limits.grace, &mut pumps).await.is_err() {
        stops.iter().for_each(tokio::task::AbortHandle::abort);
        outbox
            .error("the agent's output pipes stayed open after it ended; the rest is not relayed")
            .await;
    }

    let (code, signal) = process::describe(status);
    let signal = signal.map(frames::signal_name);
    eprintln!(
        "agentwire-relay: agent {:?} (pid {pid}) ended: {}",
        agent.name,
        process::ending_words(code, signal.as_deref())
    );
    outbox
        .event(Event::Exit {
            code,
            signal: signal.as_deref(),
        })
        .await;
    let close = match ending {
        Ending::AgentExited(_) => Some(match (code, &signal) {
            (Some(0), _) => (1000, "the agent exited".to_string()),
            (Some(c), _) => (1011, format!("the agent exited with code {c}")),
            (None, Some(s)) => (1011, format!("the agent was ended by {s}")),
            (None, None) => (1011, "the agent ended".to_string()),
        }),
        Ending::Refused(code, reason) => Some((code, reason)),
        Ending::RelayShutdown => Some((1001, "the relay is shutting down".to_string())),
        Ending::PageGone => None,
    };
    if let Some((code, reason)) = close {
        outbox.push(Out::Close(code, reason)).await;
    }
    finish(outbox, writer, stream).await;
}

/// Lets the writer drain, then waits briefly for the page's side of the closing handshake.
async fn finish(
    outbox: Outbox,
    writer: tokio::task::JoinHandle<()>,
    mut stream: futures_util::stream::SplitStream<WebSocket>,
) {
    drop(outbox);
    let abort = writer.abort_handle();
    if timeout(DRAIN_WAIT, writer).await.is_err() {
        abort.abort();
    }
    let _ = timeout(CLOSE_WAIT, async {
        while let Some(Ok(_)) = stream.next().await {}
    })
    .await;
}

/// The page's side of hosting: its connection's number and how frames reach it.
struct Page {
    relay: Context,
    conn: u64,
    to_page: ToPage,
}

impl Page {
    /// Carries out one relay command of the page.
    async fn command(&self, text: &str, outbox: &Outbox) {
        match frames::page_command(text) {
            Ok(Command::Host { name }) => {
                match self
                    .relay
                    .hosted
                    .open(self.conn, &name, self.to_page.clone())
                {
                    Ok(host) => {
                        let url = format!("{}/hosted/{}", self.relay.base_url, host.id);
                        eprintln!("agentwire-relay: a page hosts the MCP server {name:?}");
                        outbox
                            .event(Event::Hosted {
                                name: &name,
                                url: &url,
                                authorization: &host.authorization(),
                            })
                            .await;
                    }
                    Err(why) => {
                        outbox
                            .event(Event::HostRefused {
                                name: &name,
                                message: &why,
                            })
                            .await
                    }
                }
            }
            Ok(Command::Mcp { session, message }) => {
                if let Err(why) = self.relay.mcp.from_page(self.conn, &session, message) {
                    outbox.error(why).await;
                }
            }
            Err(why) => outbox.error(why).await,
        }
    }
}

/// Page → agent. Returns when the page, the agent or the relay ends the session.
///
/// Every frame that has already arrived joins one write to the agent: a page that sends many
/// messages at once costs one write, not one each (up to `BATCH_BYTES`).
async fn inbound(
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    mut stdin: Option<ChildStdin>,
    outbox: &Outbox,
    page: &Page,
    waiter: &mut Waiter,
    shutdown: &mut watch::Receiver<bool>,
) -> Ending {
    let mut batch = Vec::new();
    let mut pings = PingBudget::new();
    loop {
        let message = tokio::select! {
            joined = &mut *waiter => return Ending::AgentExited(joined.ok().and_then(Result::ok)),
            _ = shutdown.changed() => return Ending::RelayShutdown,
            message = stream.next() => message,
        };
        batch.clear();
        let mut ending = None;
        let mut next = Some(message);
        while let Some(message) = next.take() {
            ending = take(
                message,
                &mut pings,
                outbox,
                page,
                stdin.is_some().then_some(&mut batch),
            )
            .await;
            if ending.is_some() {
                break;
            }
            if batch.len() < BATCH_BYTES {
                next = stream.next().now_or_never();
            }
        }
        // What came before the end is still delivered.
        if let (false, Some(pipe)) = (batch.is_empty(), stdin.as_mut()) {
            let written = tokio::select! {
                written = pipe.write_all(&batch) => written,
                joined = &mut *waiter => return Ending::AgentExited(joined.ok().and_then(Result::ok)),
                _ = shutdown.changed() => return Ending::RelayShutdown,
            };
            if written.is_err() {
                stdin = None;
                outbox
                    .error("the agent's stdin is closed; message not delivered")
                    .await;
            }
        }
        if let Some(ending) = ending {
            return ending;
        }
    }
}

/// Bytes of lines gathered for one write to the agent.
const BATCH_BYTES: usize = 256 * 1024;

/// Takes one frame of the page: a message joins `batch` as a line (`None`: the agent's stdin
/// is closed), a relay command is carried out, a refusal is reported. Returns how the session
/// ends, when this frame ends it.
async fn take(
    message: Option<Result<Message, axum::Error>>,
    pings: &mut PingBudget,
    outbox: &Outbox,
    page: &Page,
    batch: Option<&mut Vec<u8>>,
) -> Option<Ending> {
    let text = match message {
        None | Some(Ok(Message::Close(_))) => return Some(Ending::PageGone),
        Some(Err(e)) => {
            return Some(match refusal(&e) {
                Some((code, reason)) => {
                    // Said on the side channel too: a close reason is easy to miss.
                    outbox
                        .error(&format!("{reason}; the connection is closed ({code})"))
                        .await;
                    Ending::Refused(code, reason)
                }
                None => Ending::PageGone,
            });
        }
        Some(Ok(Message::Text(text))) => text,
        Some(Ok(Message::Binary(_))) => {
            outbox
                .error("binary frames are not relayed: send each JSON-RPC message as a text frame")
                .await;
            return None;
        }
        Some(Ok(Message::Ping(_))) if !pings.spend() => {
            let reason = "too many pings: a page that pings must also read the pongs".to_string();
            outbox
                .error(&format!("{reason}; the connection is closed (1008)"))
                .await;
            return Some(Ending::Refused(1008, reason));
        }
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => return None,
    };
    // Relay commands exist only for a page that asked for the relay's frames; for any other
    // client a frame is the agent's, whatever it looks like.
    if outbox.events && text.as_str().trim_start().starts_with(frames::PREFIX) {
        page.command(text.as_str(), outbox).await;
        return None;
    }
    let Some(batch) = batch else {
        outbox
            .error("the agent's stdin is closed; message not delivered")
            .await;
        return None;
    };
    match frames::page_text_to_line(text.as_str()) {
        Ok(line) => {
            batch.extend_from_slice(line.as_bytes());
            batch.push(b'\n');
        }
        Err(reason) => outbox.error(reason).await,
    }
    None
}

/// The close code and reason for what the page did wrong: 1009 for a message over the
/// limit, 1007 for a text frame that is not UTF-8 (RFC 6455 §7.4.1).
fn refusal(error: &axum::Error) -> Option<(u16, String)> {
    use std::error::Error as _;
    let mut source = error.source();
    while let Some(e) = source {
        match e.downcast_ref::<tungstenite::Error>() {
            Some(tungstenite::Error::Capacity(c)) => {
                return Some((1009, format!("message too big: {c}")))
            }
            Some(tungstenite::Error::Utf8(_)) => {
                return Some((1007, "a text frame was not valid UTF-8".into()))
            }
            _ => {}
        }
        source = e.source();
    }
    None
}

/// Agent stdout → one frame per line: text, or with `binary` the line's bytes as they came
/// (the page's session judges them; no relay event is a binary frame, so no line can pass
/// for one). Lines over the limit are skipped without being buffered and reported; a last
/// line without a newline is still delivered.
async fn pump_stdout(stdout: Option<ChildStdout>, outbox: Outbox, limit: usize, binary: bool) {
    let Some(stdout) = stdout else { return };
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut buf = Vec::new();
    loop {
        match read_line(&mut reader, &mut buf, limit, Overflow::Skip).await {
            Ok(Line::Full | Line::Last) => {
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue; // a blank line is no message
                }
                if binary {
                    outbox.push(Out::Binary(std::mem::take(&mut buf))).await;
                    continue;
                }
                // Only where relay frames are sent can an agent line pose as one.
                if let Some(reason) = frames::refuse_agent_line(&buf).filter(|_| outbox.events) {
                    outbox.error(reason).await;
                    continue;
                }
                match String::from_utf8(std::mem::take(&mut buf)) {
                    Ok(text) => outbox.push(Out::Text(text)).await,
                    Err(_) => {
                        outbox
                            .error("the agent wrote a line that is not UTF-8; dropped")
                            .await
                    }
                }
            }
            Ok(Line::TooLong(n)) => {
                let message = format!(
                    "the agent wrote a message of {n} bytes, over the limit of {limit}; dropped"
                );
                outbox.error(&message).await;
            }
            Ok(Line::Eof) => return,
            Err(e) => {
                outbox
                    .error(&format!("reading the agent's stdout failed: {e}"))
                    .await;
                return;
            }
        }
    }
}

/// Agent stderr → `stderr` events, line by line (long lines in chunks), never dropped.
async fn pump_stderr(stderr: Option<ChildStderr>, outbox: Outbox) {
    let Some(stderr) = stderr else { return };
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    while let Ok(Line::Full | Line::Last) =
        read_line(&mut reader, &mut buf, STDERR_CHUNK, Overflow::Split).await
    {
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        outbox
            .event(Event::Stderr {
                text: &String::from_utf8_lossy(&buf),
            })
            .await;
    }
}

/// Writes queued items to the socket, flushing whenever the queue runs empty. Once the socket
/// fails or is closed, it keeps draining (and dropping) so that the pumps never block on it.
async fn write_frames(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut queue: mpsc::UnboundedReceiver<(Out, OwnedSemaphorePermit)>,
) {
    let mut open = true;
    while let Some((out, _permit)) = queue.recv().await {
        if !open {
            continue;
        }
        let message = match out {
            Out::Text(text) => Message::Text(text.into()),
            Out::Binary(bytes) => Message::Binary(bytes.into()),
            Out::Close(code, reason) => {
                open = false;
                Message::Close(Some(CloseFrame {
                    code,
                    reason: truncate(reason, 123).into(),
                }))
            }
        };
        if sink.feed(message).await.is_err() {
            open = false;
        }
        if queue.is_empty() && sink.flush().await.is_err() {
            open = false;
        }
    }
    let _ = sink.close().await;
}

/// A close reason may hold at most 123 bytes.
fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}
