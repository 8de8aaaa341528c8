//! The places the HTTP endpoints share across the relay: open event streams (MCP's and ACP's
//! count toward one cap) and request bodies held at once; and, per connection or session,
//! the requests waiting for their server to take their message.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};

use crate::refusal::refused;

/// Open streams across all sessions and connections (hung POSTs, GET streams, resumes),
/// unless the open files allow fewer (main.rs).
pub const STREAMS_TOTAL: usize = 128;
/// Request bodies held at once across the endpoints, from before they are read until their
/// message was handed on (written to the process, or queued for the page); each at most the
/// message limit. More wait (within the request's deadline).
const BODIES_AT_ONCE: usize = 16;
/// Requests of one session waiting for its server to take their message (a server that does
/// not read its stdin, a page that does not read its WebSocket); more get 503, so one stuck
/// server holds at most this many of the bodies above.
const WAITING_PER_SESSION: usize = 4;

/// The relay-wide places, shared by the endpoints (cloning shares them).
#[derive(Clone)]
pub struct Permits {
    streams: Arc<Semaphore>,
    bodies: Arc<Semaphore>,
}

impl Permits {
    /// Places for `streams` open streams and `BODIES_AT_ONCE` bodies.
    pub fn new(streams: usize) -> Self {
        Permits {
            streams: Arc::new(Semaphore::new(streams)),
            bodies: Arc::new(Semaphore::new(BODIES_AT_ONCE)),
        }
    }

    /// A place for one more open stream, if one is free now.
    pub fn stream(&self) -> Option<OwnedSemaphorePermit> {
        self.streams.clone().try_acquire_owned().ok()
    }

    /// What a POST holds until its message is handed on: one of its session's places for
    /// waiting requests (refused, 503, when they are taken; none without a session), then one
    /// of the places for a body being read (more wait).
    #[allow(clippy::result_large_err)] // a refusal is a whole response
    pub async fn hold_post(
        &self,
        waiting: Option<&Arc<AtomicUsize>>,
    ) -> Result<Held<'_>, Response> {
        let waiting = waiting.map(Waiting::take).transpose()?;
        Ok(Held {
            _waiting: waiting,
            _body: self.bodies.acquire().await.ok(),
        })
    }
}

/// The places a POST holds, given back when dropped.
pub struct Held<'a> {
    _waiting: Option<Waiting>,
    _body: Option<SemaphorePermit<'a>>,
}

/// One of a session's `WAITING_PER_SESSION` places for a request whose message waits to be
/// handed on; given back when dropped.
struct Waiting(Arc<AtomicUsize>);

impl Waiting {
    #[allow(clippy::result_large_err)] // a refusal is a whole response
    fn take(count: &Arc<AtomicUsize>) -> Result<Waiting, Response> {
        count
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| (n < WAITING_PER_SESSION).then_some(n + 1))
            .map_err(|_| refused(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: this session's server has not taken the messages before; try again later"))?;
        Ok(Waiting(count.clone()))
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}
