//! Bookkeeping of requests in flight, both ways. Sans-IO: time is a number the caller
//! passes in (`now_ms`), and expiry is reported, never waited for.

use super::vec_map::VecSet;
use super::Id;
use std::collections::VecDeque;

/// An incoming request's id is already being served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DuplicateId;

/// One outgoing request waiting for its response.
#[derive(Clone, Debug, PartialEq)]
pub struct Outgoing {
    pub id: Id,
    pub method: String,
    pub sent_ms: u64,
    /// When the request expires, if it has a timeout.
    pub deadline_ms: Option<u64>,
    /// The latest the deadline may be pushed to by progress (`touch`).
    pub max_deadline_ms: Option<u64>,
    pub timeout_ms: Option<u64>,
}

/// How long a request may wait.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timeout {
    /// Per-request timeout; `None` waits forever.
    pub timeout_ms: Option<u64>,
    /// A cap on the total time when progress resets the deadline.
    pub max_total_ms: Option<u64>,
}

/// What became of an incoming response's id.
#[derive(Clone, Debug, PartialEq)]
pub enum Matched {
    /// The response answers this request, now removed from the table.
    Answered(Outgoing),
    /// This id was answered before: a duplicate response.
    AlreadyAnswered,
    /// No request with this id was ever sent (or it was cancelled long ago).
    Unknown,
}

/// How many answered ids are remembered to tell duplicates from strangers.
const ANSWERED_MEMORY: usize = 1024;

/// The pending-request table of one connection.
#[derive(Debug, Default)]
pub struct PendingTable {
    next_id: i64,
    /// In the order sent, except after a removal.
    outgoing: Vec<Outgoing>,
    /// The latest answered ids, oldest first.
    answered: VecDeque<Id>,
    /// The greatest number among them (ever): a number above it was not answered, and
    /// registering it (every id of `next_id`) looks for nothing.
    answered_max: i64,
    /// The greatest number registered (ever): a number above it is not in flight, and
    /// registering it (every id of `next_id`) looks for nothing.
    outgoing_max: i64,
    incoming: VecSet<Id>,
}

/// Oldest first, then by id: ids are unique, so the order is total and an unstable sort
/// gives the same result as a stable one.
fn oldest_first(v: &mut [Outgoing]) {
    super::sort_by(v, |a, b| (a.sent_ms, &a.id) < (b.sent_ms, &b.id));
}

impl PendingTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh id that is not in flight, taken.
    pub fn next_id(&mut self) -> Id {
        let id = self.peek_id();
        if let Id::Number(n) = id {
            self.next_id = n.wrapping_add(1);
        }
        id
    }

    /// The id `next_id` gives next, not taken (a message is written with it, and refused or
    /// sent).
    pub fn peek_id(&self) -> Id {
        let mut n = self.next_id;
        while self.in_flight(&Id::Number(n)) {
            n = n.wrapping_add(1);
        }
        Id::Number(n)
    }

    /// Registers an outgoing request. Refuses an id already in flight.
    pub fn register(
        &mut self,
        id: Id,
        method: &str,
        now_ms: u64,
        timeout: Timeout,
    ) -> Result<(), Id> {
        if self.in_flight(&id) {
            return Err(id);
        }
        if let Id::Number(n) = id {
            self.outgoing_max = self.outgoing_max.max(n);
        }
        self.forget_answered(&id);
        let deadline_ms = timeout.timeout_ms.map(|t| now_ms.saturating_add(t));
        let max_deadline_ms = timeout.max_total_ms.map(|t| now_ms.saturating_add(t));
        self.outgoing.push(Outgoing {
            id,
            method: method.to_owned(),
            sent_ms: now_ms,
            deadline_ms: cap(deadline_ms, max_deadline_ms),
            max_deadline_ms,
            timeout_ms: timeout.timeout_ms,
        });
        Ok(())
    }

    /// Matches a response to its request.
    pub fn resolve(&mut self, id: &Id) -> Matched {
        match self.cancel(id) {
            Some(entry) => Matched::Answered(entry),
            None if self.answered.contains(id) => Matched::AlreadyAnswered,
            None => Matched::Unknown,
        }
    }

    /// The request behind an id, if it is still pending.
    pub fn get(&self, id: &Id) -> Option<&Outgoing> {
        self.outgoing.iter().find(|e| e.id == *id)
    }

    /// Progress arrived: push the deadline out by the request's timeout, never past its cap.
    pub fn touch(&mut self, id: &Id, now_ms: u64) -> bool {
        match self.outgoing.iter_mut().find(|e| e.id == *id) {
            Some(e) => {
                let pushed = e.timeout_ms.map(|t| now_ms.saturating_add(t));
                e.deadline_ms = cap(pushed, e.max_deadline_ms);
                true
            }
            None => false,
        }
    }

    /// Removes and returns every request whose deadline has passed, oldest first.
    pub fn expire(&mut self, now_ms: u64) -> Vec<Outgoing> {
        let (mut expired, waiting): (Vec<Outgoing>, Vec<Outgoing>) =
            std::mem::take(&mut self.outgoing)
                .into_iter()
                .partition(|e| e.deadline_ms.is_some_and(|d| d <= now_ms));
        self.outgoing = waiting;
        for e in &expired {
            self.remember_answered(e.id.clone());
        }
        oldest_first(&mut expired);
        expired
    }

    /// The earliest deadline, so a driver knows when to call `expire` next.
    pub fn next_deadline(&self) -> Option<u64> {
        self.outgoing.iter().filter_map(|e| e.deadline_ms).min()
    }

    /// Withdraws a request (cancelled locally); a late response then counts as already answered.
    pub fn cancel(&mut self, id: &Id) -> Option<Outgoing> {
        let entry = self.outgoing.swap_remove(self.position(id)?);
        self.remember_answered(id.clone());
        Some(entry)
    }

    /// Empties the table (the connection closed) and returns what was still pending.
    pub fn drain(&mut self) -> Vec<Outgoing> {
        let mut all = std::mem::take(&mut self.outgoing);
        oldest_first(&mut all);
        all
    }

    pub fn pending_count(&self) -> usize {
        self.outgoing.len()
    }

    /// An incoming request arrived: refuses an id that is already being served.
    pub fn begin_incoming(&mut self, id: &Id) -> Result<(), DuplicateId> {
        if self.incoming.insert(id.clone()) {
            Ok(())
        } else {
            Err(DuplicateId)
        }
    }

    /// The incoming request was answered; its id may be used again.
    pub fn finish_incoming(&mut self, id: &Id) -> bool {
        self.incoming.remove(id)
    }

    pub fn is_serving(&self, id: &Id) -> bool {
        self.incoming.contains(id)
    }

    pub fn serving_count(&self) -> usize {
        self.incoming.len()
    }

    fn in_flight(&self, id: &Id) -> bool {
        !matches!(id, Id::Number(n) if *n > self.outgoing_max) && self.position(id).is_some()
    }

    fn position(&self, id: &Id) -> Option<usize> {
        self.outgoing.iter().position(|e| e.id == *id)
    }

    /// An id leaves the table here once per time it was registered, and registering takes it
    /// out of the memory: it is never in it twice, so it is not looked for (a scan of the whole
    /// memory, per response, in a long session).
    fn remember_answered(&mut self, id: Id) {
        if let Id::Number(n) = id {
            self.answered_max = self.answered_max.max(n);
        }
        self.answered.push_back(id);
        if self.answered.len() > ANSWERED_MEMORY {
            self.answered.pop_front();
        }
    }

    fn forget_answered(&mut self, id: &Id) {
        if matches!(id, Id::Number(n) if *n > self.answered_max) {
            return;
        }
        self.answered.retain(|x| x != id);
    }
}

fn cap(deadline: Option<u64>, max: Option<u64>) -> Option<u64> {
    match (deadline, max) {
        (Some(d), Some(m)) => Some(d.min(m)),
        (d, None) => d,
        (None, Some(m)) => Some(m),
    }
}
