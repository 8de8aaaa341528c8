//! MCP servers hosted by a page. On its WebSocket the page sends `{"relay":{"host":"NAME"}}`;
//! the relay opens `/hosted/<id>` (Streamable HTTP, served by the same code as `/mcp/<agent>`)
//! and answers with its URL and a secret for the `Authorization` header, which the page hands
//! to its agent in `session/new`. The agent's messages go to the page as
//! `{"relay":{"event":"mcp","host":…,"session":…,"message":…}}`, the page's back as
//! `{"relay":{"mcp":"<session>","message":…}}`. The endpoint lives as long as the page's
//! connection; every request is refused (404) after, and nothing is ever spawned for it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::secret::constant_time_eq;

/// Hosted servers one page connection may open.
pub const PER_CONNECTION: usize = 8;
/// MCP sessions one hosted server may have at once.
pub const SESSIONS_PER_HOST: usize = 16;

/// The way to a page for its hosted servers' frames: a queue bounded in bytes. A frame counts
/// until the page's own byte-bounded queue has taken it, so a page that stops reading holds
/// at most `budget` bytes here (senders wait), whatever the size or number of frames.
#[derive(Clone)]
pub struct ToPage {
    tx: mpsc::UnboundedSender<(String, OwnedSemaphorePermit)>,
    bytes: Arc<Semaphore>,
    budget: usize,
}

/// The page's end of `ToPage`: each frame with the bytes it holds, given back when dropped.
pub type FromHosted = mpsc::UnboundedReceiver<(String, OwnedSemaphorePermit)>;

impl ToPage {
    pub fn new(budget: usize) -> (Self, FromHosted) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            ToPage {
                tx,
                bytes: Arc::new(Semaphore::new(budget)),
                budget,
            },
            rx,
        )
    }

    fn cost(&self, frame: &str) -> u32 {
        u32::try_from(frame.len().clamp(1, self.budget)).unwrap_or(u32::MAX)
    }

    /// Waits for room, then queues; false once the page is gone.
    pub async fn send(&self, frame: String) -> bool {
        if self.tx.is_closed() {
            return false;
        }
        // Never closed; a page that left drops what it held, which gives the room back.
        let Ok(permit) = self
            .bytes
            .clone()
            .acquire_many_owned(self.cost(&frame))
            .await
        else {
            return false;
        };
        self.tx.send((frame, permit)).is_ok()
    }

    /// Queues if there is room now; false otherwise.
    pub fn try_send(&self, frame: String) -> bool {
        match self.bytes.clone().try_acquire_many_owned(self.cost(&frame)) {
            Ok(permit) => self.tx.send((frame, permit)).is_ok(),
            Err(_) => false,
        }
    }
}

/// One hosted server: whose connection it belongs to and how to reach that page.
pub struct Host {
    pub id: String,
    pub name: String,
    pub conn: u64,
    secret: String,
    to_page: ToPage,
}

impl Host {
    /// Whether `Authorization: Bearer …` names this host's secret.
    pub fn secret_ok(&self, bearer: Option<&str>) -> bool {
        bearer.is_some_and(|b| constant_time_eq(b.as_bytes(), self.secret.as_bytes()))
    }

    pub fn authorization(&self) -> String {
        format!("Bearer {}", self.secret)
    }

    /// A frame to the page (waits while its queue is full); false once the page is gone.
    pub async fn send(&self, frame: String) -> bool {
        self.to_page.send(frame).await
    }

    /// Best effort, for endings: a page that is gone or full does not hold anything up.
    pub fn notify(&self, frame: String) {
        let _ = self.to_page.try_send(frame);
    }
}

/// Every hosted server of the relay, by id.
#[derive(Default)]
pub struct Hosts {
    map: Mutex<HashMap<String, Arc<Host>>>,
    next_conn: AtomicU64,
}

impl Hosts {
    /// A number for a new page connection, naming what it hosts.
    pub fn connection(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Opens a hosted server for connection `conn`, or says why not.
    pub fn open(&self, conn: u64, name: &str, to_page: ToPage) -> Result<Arc<Host>, String> {
        let valid = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !valid {
            return Err(format!(
                "cannot host {name:?}: a name is 1 to 64 of A-Z a-z 0-9 . _ -"
            ));
        }
        let mut map = self.map.lock().expect("not poisoned");
        let mine: Vec<&Arc<Host>> = map.values().filter(|h| h.conn == conn).collect();
        if mine.iter().any(|h| h.name == name) {
            return Err(format!(
                "cannot host {name:?}: this connection already hosts a server of that name"
            ));
        }
        if mine.len() >= PER_CONNECTION {
            return Err(format!(
                "cannot host {name:?}: a connection may host at most {PER_CONNECTION} servers"
            ));
        }
        let (id, secret) = match (crate::cli::random_token(), crate::cli::random_token()) {
            (Ok(id), Ok(secret)) => (id[..32].to_string(), secret),
            _ => return Err("cannot host: no randomness for an id".into()),
        };
        let host = Arc::new(Host {
            id: id.clone(),
            name: name.to_string(),
            conn,
            secret,
            to_page,
        });
        map.insert(id, host.clone());
        Ok(host)
    }

    pub fn get(&self, id: &str) -> Option<Arc<Host>> {
        self.map.lock().expect("not poisoned").get(id).cloned()
    }

    /// The connection ended: its hosted servers are forgotten (and returned, to end their sessions).
    pub fn close(&self, conn: u64) -> Vec<Arc<Host>> {
        let mut map = self.map.lock().expect("not poisoned");
        let gone: Vec<String> = map
            .values()
            .filter(|h| h.conn == conn)
            .map(|h| h.id.clone())
            .collect();
        gone.iter().filter_map(|id| map.remove(id)).collect()
    }
}
