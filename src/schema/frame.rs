//! A received frame validated and read from one parse: the validator's tape is handed to the
//! caller, which takes the members it needs (strings decoded, values as their raw JSON text,
//! `json::Item`) without the frame ever becoming a tree of values.

use super::{parse, Context, Issue, Limits, Rulebook, Severity, MAX_DEPTH_CAP};
use crate::json::tape::Kind;
use crate::json::Item;

/// Parses one message (never a batch), hands the parse to `read`, and when `read` took what
/// it wanted, validates the same parse by the context `read` names (a response's by the
/// request it answers, found from its id): the issues, and what `read` took. `None` when the
/// text is not a JSON object the endpoint would read (its depth is the endpoint's), or `read`
/// declined it: the caller takes its general path, which says why.
pub fn validate_and_read<'c, R>(
    text: &str,
    read: impl FnOnce(Item<'_, '_>) -> Option<(Context<'c>, R)>,
) -> Option<(Vec<Issue>, R)> {
    let limits = Limits::default();
    if text.len() > limits.max_bytes {
        return None;
    }
    let depth = limits
        .max_depth
        .min(MAX_DEPTH_CAP)
        .min(crate::json::MAX_DEPTH);
    let parsed = parse(text, depth).ok()?;
    let taken = (parsed.tape.node(0).kind == Kind::Obj)
        .then(|| read(Item::root(&parsed.tape)))
        .flatten()
        .and_then(|(ctx, taken)| Some((Rulebook::of(ctx.protocol, ctx.version)?, ctx, taken)));
    match taken {
        Some((book, ctx, taken)) => Some((parsed.issues(book, &ctx), taken)),
        None => {
            parsed.keep();
            None
        }
    }
}

/// Whether any issue is an error (warnings are delivered with the message).
pub fn has_errors(issues: &[Issue]) -> bool {
    issues.iter().any(|i| i.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{codes, Direction, Protocol};
    use std::borrow::Cow;

    fn ctx() -> Context<'static> {
        Context {
            protocol: Protocol::Acp,
            version: "1",
            direction: Direction::ServerToClient,
            in_reply_to: None,
        }
    }

    #[test]
    fn raw_members_are_the_frame_text() {
        let text = r#" {"jsonrpc":"2.0","method":"session/update","params":{"sessionId" : "s\"1","update":  {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a}]\"{"}} }} "#;
        let (issues, (sid, raw, kind)) = validate_and_read(text, |root| {
            let params = root.get("params").expect("params");
            let update = params.get("update").expect("update");
            let read = (
                params
                    .get("sessionId")
                    .and_then(|s| s.as_str())
                    .map(Cow::into_owned),
                update.raw().to_owned(),
                update
                    .get("sessionUpdate")
                    .and_then(|k| k.as_str())
                    .map(Cow::into_owned),
            );
            Some((ctx(), read))
        })
        .expect("read");
        assert!(!has_errors(&issues), "{issues:?}");
        assert_eq!(sid.as_deref(), Some("s\"1"));
        assert_eq!(
            raw,
            r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a}]\"{"}}"#
        );
        assert_eq!(kind.as_deref(), Some("agent_message_chunk"));
    }

    #[test]
    fn an_invalid_message_is_read_with_its_issues() {
        let text = r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{}}}"#;
        let (issues, ()) = validate_and_read(text, |_| Some((ctx(), ()))).expect("read");
        assert!(has_errors(&issues));
        assert!(issues.iter().any(|i| i.code == codes::MISSING_REQUIRED));
        assert!(validate_and_read("[1]", |_| Some((ctx(), ()))).is_none());
        assert!(validate_and_read("{", |_| Some((ctx(), ()))).is_none());
        assert!(validate_and_read(text, |_| None::<(Context, ())>).is_none());
    }
}
