//! The HTTP accept loop: a connection lives at most `request_timeout` until it upgrades to a
//! WebSocket (its headers too must arrive within it), and at most `max_pending` connections
//! that have not upgraded are open at once. So neither half-sent requests nor idle
//! connections that never upgrade can pile up and use the file descriptors that sessions
//! need. An upgraded connection is the session's and has no deadline; so is one that carries
//! an authorized MCP request (`Lasting`), whose event stream may run for as long as a call.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_service::Service;

/// In each request's extensions: a handler grants it once the request passed the guards, and
/// the connection then outlives the deadline (it no longer counts as pending).
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

pub async fn serve(listener: TcpListener, app: Router, request_timeout: Duration, max_pending: usize) {
    let pending = Arc::new(Semaphore::new(max_pending));
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
        let Ok(permit) = pending.clone().try_acquire_owned() else {
            drop(tcp); // over the cap of connections not yet answered: closed at once
            continue;
        };
        // Small frames must not wait for Nagle's algorithm.
        let _ = tcp.set_nodelay(true);
        let app = app.clone();
        tokio::spawn(async move {
            let lasting = Lasting::default();
            let granted = lasting.clone();
            let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                let mut app = app.clone();
                request.extensions_mut().insert(lasting.clone());
                async move { Ok::<_, Infallible>(app.call(request.map(axum::body::Body::new)).await.unwrap_or_else(|e| match e {})) }
            });
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).header_read_timeout(request_timeout);
            let connection = http.serve_connection(TokioIo::new(tcp), service).with_upgrades();
            // The connection future ends when the client closes it, or when it hands itself to
            // the WebSocket upgrade; past the deadline it is dropped, which closes it, unless
            // a handler granted it a lasting life.
            let mut connection = std::pin::pin!(connection);
            let ended = tokio::time::timeout(request_timeout, &mut connection).await.is_ok();
            drop(permit);
            if !ended && granted.granted() {
                let _ = connection.await;
            }
        });
    }
}

/// Raises the soft limit of open files to the hard one: each session holds a socket and
/// three pipes.
pub fn raise_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit write and read only the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return None;
            }
        }
    }
    Some(limit.rlim_cur as u64)
}
