//! A received frame validated and read from one parse: the validator's tape is handed to the
//! caller, which takes the members it needs (strings decoded, values as their raw JSON text,
//! `json::Item`) without the frame ever becoming a tree of values.

use super::{parse, too_large, Context, Issue, Limits, Parsed, Rulebook, Severity, MAX_DEPTH_CAP};
use crate::json::tape::TapeError;
use crate::json::Item;

/// Parses one message (never a batch), hands the parse to `read`, and when `read` took what
/// it wanted, validates the same parse by the context `read` names (a response's by the
/// request it answers, found from its id): the issues, and what `read` took. `None` when the
/// text is not a JSON object the endpoint would read (its depth is the endpoint's), or `read`
/// declined it: the caller takes its general path, which says why. Inlined into each
/// session's read of a frame (wasm-opt leaves functions of one caller out of line).
#[inline(always)]
pub fn validate_and_read<'c, R>(
    text: &str,
    read: impl FnOnce(Item<'_, '_>) -> Option<(Context<'c>, R)>,
) -> Option<(Vec<Issue>, R)> {
    if text.len() > Limits::default().max_bytes {
        return None;
    }
    let read = |root: Item| match root.is_object().then(|| read(root)).flatten() {
        Some((ctx, taken)) => (Some(ctx), Some(taken)),
        None => (None, None),
    };
    let (issues, taken) = parse_read_validate(text, crate::json::MAX_DEPTH, read).ok()?;
    Some((issues?, taken?))
}

/// A message to send, read and validated from one parse: `read` takes what the session needs
/// of it (its params gated, a session id) and names the context to validate it by (`None`:
/// not validated). Refused when the text is not JSON within the depth a peer reads (one level
/// more than its params may have: the envelope's).
pub fn read_outgoing<'c, R>(
    text: &str,
    read: impl FnOnce(Item<'_, '_>) -> (Option<Context<'c>>, R),
) -> Result<(Vec<Issue>, R), TapeError> {
    let (issues, taken) = parse_read_validate(text, crate::json::MAX_DEPTH + 1, read)?;
    Ok((issues.unwrap_or_default(), taken))
}

/// The one parse under both: `read` first, then the issues by the context it names (`None`:
/// none named, or no rules for it). Only the read is built for each caller.
#[inline(always)]
fn parse_read_validate<'c, R>(
    text: &str,
    depth: usize,
    read: impl FnOnce(Item<'_, '_>) -> (Option<Context<'c>>, R),
) -> Result<(Option<Vec<Issue>>, R), TapeError> {
    let parsed = parse_at(text, depth)?;
    let (ctx, taken) = read(Item::root(&parsed.tape));
    Ok((issues_by(parsed, text.len(), ctx), taken))
}

#[inline(never)]
fn parse_at(text: &str, depth: usize) -> Result<Parsed<'_>, TapeError> {
    parse(
        text,
        depth.min(Limits::default().max_depth).min(MAX_DEPTH_CAP),
    )
}

#[inline(never)]
fn issues_by(parsed: Parsed, len: usize, ctx: Option<Context>) -> Option<Vec<Issue>> {
    let limits = Limits::default();
    match ctx.and_then(|ctx| Some((Rulebook::of(ctx.protocol, ctx.version)?, ctx))) {
        Some(_) if len > limits.max_bytes => {
            parsed.keep();
            Some(too_large(len, &limits).issues)
        }
        Some((book, ctx)) => Some(parsed.issues(book, &ctx)),
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
