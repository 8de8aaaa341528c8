//! The HTTP accept loop. Every connection is in one of three states: idle (waiting for a
//! request, its headers perhaps half-sent), busy (a request being answered) or lasting (an
//! authorized MCP event stream being sent, `Lasting`). An idle or busy period lasts at most
//! `request_timeout`; a lasting one as long as its stream (streams are capped by the MCP hub).
//! At most `max_pending` connections are idle or busy at once, and at most `max_open` are
//! open in all, both below the limit of open files (main.rs keeps room for agents' pipes and
//! WebSocket sessions). When a new connection finds either cap reached, the connection idle
//! longest is closed to make room; only when none is idle is the new one closed. So idle or
//! half-sent connections can neither pile up nor keep anyone out. A connection that upgrades
//! to a WebSocket leaves the loop: the session is the slot's (`--max-connections`).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use futures_util::StreamExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::time::Instant;
use tower_service::Service;

/// In each request's extensions: a handler grants it when its answer is an event stream that
/// may last as long as a call; the connection then has no deadline until that answer ends.
#[derive(Clone, Default)]
pub struct Lasting(Arc<AtomicBool>);

impl Lasting {
    pub fn grant(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    fn granted(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The bounds of the accept loop.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub request_timeout: Duration,
    pub max_pending: usize,
    pub max_open: usize,
}

struct Conn {
    id: u64,
    busy: AtomicUsize,
    lasting: AtomicUsize,
    /// When the current idle or busy period began.
    since: Mutex<Instant>,
    close: Notify,
}

impl Conn {
    fn idle(&self) -> bool {
        self.busy.load(Ordering::Relaxed) == 0 && self.lasting.load(Ordering::Relaxed) == 0
    }
    fn pending(&self) -> bool {
        self.lasting.load(Ordering::Relaxed) == 0
    }
    fn restart(&self) {
        *self.since.lock().expect("not poisoned") = Instant::now();
    }
    fn expired(&self, timeout: Duration) -> bool {
        self.pending() && self.since.lock().expect("not poisoned").elapsed() >= timeout
    }
}

/// Gives a lasting answer's place back when its body ends or is dropped.
struct LastingAnswer(Arc<Conn>);

impl Drop for LastingAnswer {
    fn drop(&mut self) {
        self.0.lasting.fetch_sub(1, Ordering::Relaxed);
        self.0.restart();
    }
}

pub async fn serve(listener: TcpListener, app: Router, limits: Limits) {
    let open: Arc<Mutex<BTreeMap<u64, Arc<Conn>>>> = Arc::default();
    let mut next = 0u64;
    let tick =
        (limits.request_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                // Out of file descriptors, say: wait for some to come back rather than spin.
                eprintln!("agentwire-relay: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let conn = {
            let mut open = open.lock().expect("not poisoned");
            let pending = open.values().filter(|c| c.pending()).count();
            if pending >= limits.max_pending || open.len() >= limits.max_open {
                // The connection idle longest makes room; if none is idle, the new one goes.
                let idlest = open
                    .values()
                    .filter(|c| c.idle())
                    .min_by_key(|c| *c.since.lock().expect("not poisoned"));
                match idlest.map(|c| c.id) {
                    Some(victim) => {
                        if let Some(c) = open.remove(&victim) {
                            c.close.notify_one();
                        }
                    }
                    None => {
                        drop(tcp);
                        continue;
                    }
                }
            }
            next += 1;
            let conn = Arc::new(Conn {
                id: next,
                busy: AtomicUsize::new(0),
                lasting: AtomicUsize::new(0),
                since: Mutex::new(Instant::now()),
                close: Notify::new(),
            });
            open.insert(next, conn.clone());
            conn
        };
        // Small frames must not wait for Nagle's algorithm.
        let _ = tcp.set_nodelay(true);
        let app = app.clone();
        let open = open.clone();
        tokio::spawn(async move {
            let for_requests = conn.clone();
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    let mut app = app.clone();
                    let conn = for_requests.clone();
                    let lasting = Lasting::default();
                    request.extensions_mut().insert(lasting.clone());
                    conn.busy.fetch_add(1, Ordering::Relaxed);
                    conn.restart();
                    async move {
                        let response = app
                            .call(request.map(axum::body::Body::new))
                            .await
                            .unwrap_or_else(|e| match e {});
                        if response.status() == hyper::StatusCode::SWITCHING_PROTOCOLS {
                            // Upgrading: it stays busy (never closed as idle) until it leaves the loop.
                            return Ok(response);
                        }
                        if !lasting.granted() {
                            // Answered: an idle period begins (the answer is written within it).
                            conn.busy.fetch_sub(1, Ordering::Relaxed);
                            conn.restart();
                            return Ok::<_, Infallible>(response);
                        }
                        conn.lasting.fetch_add(1, Ordering::Relaxed);
                        conn.busy.fetch_sub(1, Ordering::Relaxed);
                        let answer = LastingAnswer(conn);
                        Ok(response.map(move |body| {
                            axum::body::Body::from_stream(body.into_data_stream().map(
                                move |chunk| {
                                    let _ = &answer;
                                    chunk
                                },
                            ))
                        }))
                    }
                });
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(limits.request_timeout);
            let connection = http
                .serve_connection(TokioIo::new(tcp), service)
                .with_upgrades();
            // The connection future ends when the client closes it, or when it hands itself to
            // the WebSocket upgrade; dropping it closes it.
            let mut connection = std::pin::pin!(connection);
            loop {
                tokio::select! {
                    _ = &mut connection => break,
                    _ = conn.close.notified() => break,
                    _ = tokio::time::sleep(tick) => if conn.expired(limits.request_timeout) { break },
                }
            }
            open.lock().expect("not poisoned").remove(&conn.id);
        });
    }
}

/// Raises the soft limit of open files to the hard one: each session holds a socket and
/// three pipes. Returns the limit now in force.
pub fn raise_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit write and read only the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    Some(limit.rlim_cur)
}

/// How the open files are shared: `(max_pending, max_open, streams)`. Kept aside: the relay's
/// own files and, per agent slot, a WebSocket and three pipes.
pub fn share_files(
    files: u64,
    max_pending: usize,
    max_connections: usize,
    streams: usize,
) -> (usize, usize, usize) {
    let reserve = 64 + 4 * max_connections as u64;
    let room = usize::try_from(files.saturating_sub(reserve))
        .unwrap_or(usize::MAX)
        .max(8);
    let streams = streams.min(room / 3).max(1);
    let max_pending = max_pending.min(room.saturating_sub(streams)).max(4);
    (max_pending, room, streams)
}

#[cfg(test)]
mod tests {
    #[test]
    fn files_are_shared_with_room_kept() {
        // Plenty: the asked values.
        assert_eq!(
            super::share_files(20_000, 256, 8, 128),
            (256, 20_000 - 96, 128)
        );
        // 512 files: 96 kept aside, streams and pending connections fit in the rest.
        let (pending, open, streams) = super::share_files(512, 256, 8, 128);
        assert_eq!((open, streams), (416, 128));
        assert!(pending + streams <= open && pending == 256);
        // Very few: everything shrinks, nothing is zero.
        let (pending, open, streams) = super::share_files(128, 256, 8, 128);
        assert!(
            pending >= 4 && streams >= 1 && pending + streams <= open.max(8),
            "{pending} {open} {streams}"
        );
    }
}
