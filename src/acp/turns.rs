//! Prompt turns on the client side: when a `session/prompt` is over.
//!
//! In v1 the response to `session/prompt` ends the turn and carries the stop reason. In v2
//! the response only acknowledges that the prompt was inserted (`{messageId}`); the turn
//! ends with a `state_update` whose state is `idle` (with an optional `stopReason`). The
//! idle update may arrive before or after the acknowledgement. An idle snapshot that comes
//! before any sign of the turn (the acknowledgement, or a `running` / `requires_action`
//! state after the prompt was sent) may repeat an earlier turn's end and is not counted.

use crate::json::{Map, Value};
use crate::jsonrpc::{Id, VecMap};

#[derive(Debug)]
struct Turn {
    session_id: String,
    /// The acknowledgement (v2), once received.
    ack: Option<Map<String, Value>>,
    /// A `running` or `requires_action` state came after the prompt was sent.
    started: bool,
    /// The idle update that ended the turn, once received.
    idle: Option<Map<String, Value>>,
}

/// The open prompt turns of one connection, by request id.
#[derive(Debug, Default)]
pub(crate) struct Turns(VecMap<Id, Turn>);

/// A turn that ended: its request id, session and outcome (`{stopReason, messageId?, usage?, …}`).
pub(crate) type Ended = (Id, String, Value);

impl Turns {
    pub(crate) fn start(&mut self, id: Id, session_id: String) {
        self.0.insert(
            id,
            Turn {
                session_id,
                ack: None,
                started: false,
                idle: None,
            },
        );
    }

    /// A v2 `state_update` of a session; returns the turns it ends.
    pub(crate) fn on_state(&mut self, session_id: &str, update: &Value) -> Vec<Ended> {
        let state = update.get("state").and_then(Value::as_str).unwrap_or("");
        for (_, turn) in self
            .0
            .iter_mut()
            .filter(|(_, t)| t.session_id == session_id && t.idle.is_none())
        {
            match state {
                "running" | "requires_action" => turn.started = true,
                "idle" if turn.started || turn.ack.is_some() => {
                    turn.idle = Some(idle_fields(update))
                }
                _ => {}
            }
        }
        self.take_ended()
    }

    /// The response to the prompt: v1 ends the turn with it; v2 acknowledges.
    pub(crate) fn on_response(&mut self, id: &Id, result: &Value, version: u16) -> Vec<Ended> {
        let fields = result.as_object().cloned().unwrap_or_default();
        if version < 2 {
            return self
                .0
                .remove(id)
                .map(|t| (id.clone(), t.session_id, Value::Object(fields)))
                .into_iter()
                .collect();
        }
        if let Some(turn) = self.0.get_mut(id) {
            turn.ack = Some(fields);
        }
        self.take_ended()
    }

    /// The prompt failed (an error response, a timeout): the turn is over, without outcome.
    pub(crate) fn forget(&mut self, id: &Id) {
        self.0.remove(id);
    }

    /// Every turn still open (acknowledged, waiting for idle), removed: the session ends.
    pub(crate) fn drain(&mut self) -> Vec<(Id, String)> {
        let open = self
            .0
            .iter()
            .map(|(id, t)| (id.clone(), t.session_id.clone()))
            .collect();
        self.0.clear();
        open
    }

    fn take_ended(&mut self) -> Vec<Ended> {
        let mut ended = Vec::new();
        self.0.retain(|id, t| match (&t.ack, &t.idle) {
            (Some(ack), Some(idle)) => {
                let mut outcome = idle.clone();
                for (k, v) in ack {
                    outcome.entry(k.clone()).or_insert_with(|| v.clone());
                }
                ended.push((id.clone(), t.session_id.clone(), Value::Object(outcome)));
                false
            }
            _ => true,
        });
        ended
    }
}

/// What an idle update says about the end of the turn: everything but its kind, state and
/// background snapshot. An omitted or `null` stop reason is left out (not reported).
fn idle_fields(update: &Value) -> Map<String, Value> {
    let mut m = update.as_object().cloned().unwrap_or_default();
    for k in ["sessionUpdate", "state", "background"] {
        m.remove(k);
    }
    if !m.get("stopReason").is_some_and(Value::is_string) {
        m.remove("stopReason");
    }
    m
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use serde_json::json;

    fn idle(reason: &str) -> Value {
        json!({ "sessionUpdate": "state_update", "state": "idle", "stopReason": reason })
    }
    const RUNNING: fn() -> Value =
        || json!({ "sessionUpdate": "state_update", "state": "running" });

    #[test]
    fn v1_ends_at_the_response() {
        let mut t = Turns::default();
        t.start(Id::Number(1), "s".into());
        let ended = t.on_response(
            &Id::Number(1),
            &json!({ "stopReason": "end_turn", "usage": { "totalTokens": 3 } }),
            1,
        );
        assert_eq!(
            ended,
            vec![(
                Id::Number(1),
                "s".into(),
                json!({ "stopReason": "end_turn", "usage": { "totalTokens": 3 } })
            )]
        );
        assert!(t.drain().is_empty());
    }

    #[test]
    fn v2_ends_at_idle_after_the_acknowledgement_in_either_order() {
        // ack, running, idle
        let mut t = Turns::default();
        t.start(Id::Number(1), "s".into());
        assert!(t
            .on_response(&Id::Number(1), &json!({ "messageId": "m1" }), 2)
            .is_empty());
        assert!(t.on_state("s", &RUNNING()).is_empty());
        let ended = t.on_state("s", &idle("end_turn"));
        assert_eq!(
            ended,
            vec![(
                Id::Number(1),
                "s".into(),
                json!({ "stopReason": "end_turn", "messageId": "m1" })
            )]
        );

        // running, idle, then the ack
        t.start(Id::Number(2), "s".into());
        assert!(t.on_state("s", &RUNNING()).is_empty());
        assert!(
            t.on_state("s", &idle("cancelled")).is_empty(),
            "not over before the acknowledgement"
        );
        let ended = t.on_response(&Id::Number(2), &json!({ "messageId": "m2" }), 2);
        assert_eq!(
            ended[0].2,
            json!({ "stopReason": "cancelled", "messageId": "m2" })
        );
    }

    #[test]
    fn an_idle_snapshot_before_any_sign_of_the_turn_is_not_its_end() {
        let mut t = Turns::default();
        t.start(Id::Number(1), "s".into());
        assert!(
            t.on_state("s", &idle("end_turn")).is_empty(),
            "a repeated snapshot of the previous turn"
        );
        assert!(t
            .on_response(&Id::Number(1), &json!({ "messageId": "m" }), 2)
            .is_empty());
        assert!(
            t.on_state("other", &idle("end_turn")).is_empty(),
            "another session's state"
        );
        let ended = t.on_state("s", &json!({ "sessionUpdate": "state_update", "state": "idle", "stopReason": null, "usage": { "t": 1 } }));
        assert_eq!(
            ended[0].2,
            json!({ "usage": { "t": 1 }, "messageId": "m" }),
            "a null stop reason is not reported"
        );
    }

    #[test]
    fn failures_and_the_end_of_the_session() {
        let mut t = Turns::default();
        t.start(Id::Number(1), "s".into());
        t.start(Id::Number(2), "s".into());
        t.forget(&Id::Number(1));
        assert!(t
            .on_response(&Id::Number(2), &json!({ "messageId": "m" }), 2)
            .is_empty());
        assert_eq!(t.drain(), vec![(Id::Number(2), "s".to_owned())]);
        assert!(t.on_state("s", &idle("end_turn")).is_empty());
    }
}
