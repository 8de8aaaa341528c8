//! The registry of the HTTP endpoints: ACP's connections and MCP's sessions, by id. An id is
//! 256 random bits, looked up by its first `KEY_LEN` characters and then compared whole in
//! constant time, and it means something only to requests of the owner that made it (to
//! anyone else it is unknown: 404). An entry leaves the registry once, as it ends; one idle
//! too long ends, and when the processes' slots are all taken the idlest makes room.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::http::HeaderMap;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::origin::{asking_origin, origin_admits};
use crate::secret::constant_time_eq;

/// An id is looked up by its first characters, then compared whole in constant time.
const KEY_LEN: usize = 16;

/// Who made an entry: the endpoint (its agent, or hosted server) and the page's `Origin`
/// (none for a client that is not a browser).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub endpoint: String,
    pub origin: Option<String>,
}

impl Owner {
    /// The owner a request to `endpoint` speaks for.
    pub fn asking(endpoint: String, headers: &HeaderMap) -> Self {
        Owner {
            endpoint,
            origin: asking_origin(headers),
        }
    }

    /// Whether a request speaking for `asking` may use what this owner made.
    fn admits(&self, asking: &Owner) -> bool {
        self.endpoint == asking.endpoint
            && origin_admits(self.origin.as_deref(), asking.origin.as_deref())
    }
}

/// A request named an entry that is not there for it (ended, never was, or another owner's).
#[derive(Debug)]
pub struct Unknown;

/// What the registry keeps of every entry.
pub struct Record {
    pub id: String,
    pub owner: Owner,
    /// Readers (response bodies) of its streams alive now.
    pub readers: Arc<AtomicUsize>,
    /// Requests whose message waits to be handed on to its server.
    pub waiting: Arc<AtomicUsize>,
    last_active: Mutex<Instant>,
    ended: AtomicBool,
}

impl Record {
    /// A request used the entry now.
    pub fn touch(&self) {
        *self.last_active.lock().expect("not poisoned") = Instant::now();
    }

    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
    }

    /// Whether a client is reading one of its streams now.
    pub fn streaming(&self) -> bool {
        self.readers.load(Ordering::Relaxed) > 0
    }

    fn last_active(&self) -> Instant {
        *self.last_active.lock().expect("not poisoned")
    }
}

/// An entry of the registry: a connection or a session.
pub trait Entry: Send + Sync + 'static {
    fn record(&self) -> &Record;

    /// In use now (a stream open, say): neither idle nor the one to make room.
    fn busy(&self) -> bool {
        self.record().streaming()
    }
}

/// Every entry of one endpoint, by the first `KEY_LEN` characters of its id.
pub struct Registry<T> {
    map: Mutex<HashMap<String, Arc<T>>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            map: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Entry> Registry<T> {
    /// A new entry under a fresh id, made by `make` around its record; with the number open.
    /// `Err` when the system has no randomness for an id.
    pub fn insert(
        &self,
        owner: Owner,
        make: impl FnOnce(Record) -> T,
    ) -> std::io::Result<(Arc<T>, usize)> {
        let mut map = self.lock();
        let id = loop {
            let id = crate::cli::random_token()?;
            if !map.contains_key(&id[..KEY_LEN]) {
                break id;
            }
        };
        let entry = Arc::new(make(Record {
            id: id.clone(),
            owner,
            readers: Arc::default(),
            waiting: Arc::default(),
            last_active: Mutex::new(Instant::now()),
            ended: AtomicBool::new(false),
        }));
        map.insert(id[..KEY_LEN].to_string(), entry.clone());
        Ok((entry, map.len()))
    }

    /// The entry `id` names, whoever made it (or ended it).
    pub fn lookup(&self, id: &str) -> Option<Arc<T>> {
        let entry = self.lock().get(id.get(..KEY_LEN)?).cloned()?;
        constant_time_eq(entry.record().id.as_bytes(), id.as_bytes()).then_some(entry)
    }

    /// The entry `id` names, if `owner` made it and it has not ended.
    pub fn find(&self, id: &str, owner: &Owner) -> Option<Arc<T>> {
        self.lookup(id).filter(|e| {
            let record = e.record();
            record.owner.admits(owner) && !record.ended()
        })
    }

    /// The entry a request names in its `header`, touched (the request uses it now): `Ok(None)`
    /// when it names none, `Unknown` when what it names is no entry `owner` may use.
    pub fn named(
        &self,
        headers: &HeaderMap,
        header: &str,
        owner: &Owner,
    ) -> Result<Option<Arc<T>>, Unknown> {
        let Some(id) = headers.get(header) else {
            return Ok(None);
        };
        let entry = self.find(id.to_str().unwrap_or(""), owner).ok_or(Unknown)?;
        entry.record().touch();
        Ok(Some(entry))
    }

    /// Takes `entry` out as it ends, once: the number still open, or `None` when it had
    /// ended already.
    pub fn remove(&self, entry: &Arc<T>) -> Option<usize> {
        let record = entry.record();
        if record.ended.swap(true, Ordering::Relaxed) {
            return None;
        }
        let mut map = self.lock();
        let key = &record.id[..KEY_LEN];
        if map.get(key).is_some_and(|e| Arc::ptr_eq(e, entry)) {
            map.remove(key);
        }
        Some(map.len())
    }

    /// The entry not busy, and that `may_end` lets go, used least recently.
    pub fn idlest(&self, may_end: impl Fn(&T) -> bool) -> Option<Arc<T>> {
        self.lock()
            .values()
            .filter(|e| !e.busy() && may_end(e))
            .min_by_key(|e| e.record().last_active())
            .cloned()
    }

    /// A slot of `slots`; when every one is taken, the idlest entry `may_end` lets go is ended
    /// by `end` to make room (clients often leave without DELETE). `None` when none is free.
    pub async fn slot<F: Future<Output = ()>>(
        &self,
        slots: &Arc<Semaphore>,
        may_end: impl Fn(&T) -> bool,
        end: impl FnOnce(Arc<T>) -> F,
    ) -> Option<OwnedSemaphorePermit> {
        if let Ok(slot) = slots.clone().try_acquire_owned() {
            return Some(slot);
        }
        end(self.idlest(may_end)?).await;
        slots.clone().try_acquire_owned().ok()
    }

    /// The entries `which` picks.
    pub fn select(&self, which: impl Fn(&T) -> bool) -> Vec<Arc<T>> {
        self.lock().values().filter(|e| which(e)).cloned().collect()
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<T>>> {
        self.map.lock().expect("not poisoned")
    }
}

/// Ends an entry nobody uses, by `end`: not busy and no request for `idle`. Returns once it
/// ended (or is gone).
pub async fn watch_idle<T: Entry, F: Future<Output = ()>>(
    entry: Weak<T>,
    idle: Duration,
    end: impl Fn(Arc<T>, String) -> F,
) {
    loop {
        tokio::time::sleep((idle / 10).max(Duration::from_millis(10))).await;
        let Some(entry) = entry.upgrade() else {
            return;
        };
        if entry.record().ended() {
            return;
        }
        if !entry.busy() && entry.record().last_active().elapsed() >= idle {
            end(entry, format!("idle for {} ms", idle.as_millis())).await;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Item {
        record: Record,
        busy: bool,
    }

    impl Entry for Item {
        fn record(&self) -> &Record {
            &self.record
        }
        fn busy(&self) -> bool {
            self.busy
        }
    }

    fn owner(endpoint: &str, origin: Option<&str>) -> Owner {
        Owner {
            endpoint: endpoint.into(),
            origin: origin.map(String::from),
        }
    }

    fn add(registry: &Registry<Item>, who: Owner, busy: bool) -> Arc<Item> {
        registry
            .insert(who, |record| Item { record, busy })
            .unwrap()
            .0
    }

    #[test]
    fn an_id_is_found_whole_and_only_by_its_owner() {
        let registry = Registry::default();
        let page = owner("agent a", Some("http://ide.example"));
        let item = add(&registry, page.clone(), false);
        let id = item.record.id.clone();
        assert_eq!(id.len(), 64);
        assert!(registry.find(&id, &page).is_some());
        // The key alone, or the key with a wrong tail, is no id.
        assert!(registry.find(&id[..KEY_LEN], &page).is_none());
        let mut wrong = id[..63].to_string();
        wrong.push(if id.ends_with('0') { '1' } else { '0' });
        assert!(registry.find(&wrong, &page).is_none());
        assert!(registry.find("", &page).is_none());
        // Another endpoint, another page, a client that is no browser: unknown to them.
        assert!(registry
            .find(&id, &owner("agent b", Some("http://ide.example")))
            .is_none());
        assert!(registry
            .find(&id, &owner("agent a", Some("http://evil.example")))
            .is_none());
        assert!(registry.find(&id, &owner("agent a", None)).is_none());
        // A browser's same-origin request (no Origin, Sec-Fetch-Site) may use what a page made.
        let mut headers = HeaderMap::new();
        headers.insert("sec-fetch-site", "same-origin".parse().unwrap());
        let same = Owner::asking("agent a".into(), &headers);
        assert!(registry.find(&id, &same).is_some());
        // ...but not what a client that is no browser made.
        let tool = add(&registry, owner("agent a", None), false);
        assert!(registry.find(&tool.record.id, &same).is_none());
    }

    #[test]
    fn named_touches_and_tells_none_from_unknown() {
        let registry = Registry::default();
        let who = owner("host x", None);
        let item = add(&registry, who.clone(), false);
        let mut headers = HeaderMap::new();
        assert!(matches!(registry.named(&headers, "id", &who), Ok(None)));
        headers.insert("id", item.record.id.parse().unwrap());
        let before = item.record.last_active();
        std::thread::sleep(Duration::from_millis(2));
        let found = registry.named(&headers, "id", &who).unwrap().unwrap();
        assert!(Arc::ptr_eq(&found, &item));
        assert!(item.record.last_active() > before);
        headers.insert("id", "0".repeat(64).parse().unwrap());
        assert!(registry.named(&headers, "id", &who).is_err());
    }

    #[test]
    fn an_entry_leaves_once_and_is_not_found_after() {
        let registry = Registry::default();
        let who = owner("agent a", None);
        let a = add(&registry, who.clone(), false);
        let _b = add(&registry, who.clone(), false);
        assert_eq!(registry.len(), 2);
        assert_eq!(registry.remove(&a), Some(1));
        assert_eq!(registry.remove(&a), None, "once only");
        assert!(a.record.ended());
        assert!(registry.find(&a.record.id, &who).is_none());
        assert!(registry.lookup(&a.record.id).is_none());
        assert_eq!(registry.len(), 1);
    }

    #[tokio::test]
    async fn the_idlest_entry_not_busy_makes_room() {
        let registry = Registry::default();
        let who = owner("agent a", None);
        let oldest_busy = add(&registry, who.clone(), true);
        tokio::time::sleep(Duration::from_millis(2)).await;
        let old = add(&registry, who.clone(), false);
        tokio::time::sleep(Duration::from_millis(2)).await;
        let new = add(&registry, who.clone(), false);
        let idlest = registry.idlest(|_| true).unwrap();
        assert!(Arc::ptr_eq(&idlest, &old));
        let spared = registry.idlest(|i| i.record.id != old.record.id);
        assert!(Arc::ptr_eq(&spared.unwrap(), &new));
        assert!(registry.idlest(|_| false).is_none());

        // No slot free: the idlest is ended, and its slot taken.
        let slots = Arc::new(Semaphore::new(1));
        let held = slots.clone().try_acquire_owned().unwrap();
        let ended = Mutex::new(None);
        let slot = registry
            .slot(
                &slots,
                |_| true,
                |victim| {
                    *ended.lock().unwrap() = Some(victim);
                    drop(held);
                    async {}
                },
            )
            .await;
        assert!(slot.is_some());
        assert!(Arc::ptr_eq(ended.lock().unwrap().as_ref().unwrap(), &old));
        // None to end: no slot.
        let none = registry.slot(&slots, |_| false, |_| async {}).await;
        assert!(none.is_none());
        drop(oldest_busy);
    }

    #[tokio::test]
    async fn an_entry_unused_for_the_idle_limit_ends_unless_busy() {
        let registry = Registry::default();
        let idle = add(&registry, owner("agent a", None), false);
        let busy = add(&registry, owner("agent a", None), true);
        let limit = Duration::from_millis(30);
        let ended = Arc::new(Mutex::new(Vec::new()));
        let end = |ended: Arc<Mutex<Vec<String>>>| {
            move |item: Arc<Item>, why: String| {
                ended
                    .lock()
                    .unwrap()
                    .push(format!("{} {why}", &item.record.id[..4]));
                async {}
            }
        };
        let watch = tokio::spawn(watch_idle(Arc::downgrade(&busy), limit, end(ended.clone())));
        watch_idle(Arc::downgrade(&idle), limit, end(ended.clone())).await;
        let said = ended.lock().unwrap().clone();
        assert_eq!(said, [format!("{} idle for 30 ms", &idle.record.id[..4])]);
        assert!(!watch.is_finished(), "a busy entry is never idle");
        watch.abort();
    }
}
