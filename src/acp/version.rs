//! Protocol version negotiation: one pure function per side.
//!
//! ACP versions are integers. The client sends the latest version it supports; the agent
//! answers with the version to use; the client disconnects if it cannot use the answer.

use crate::json::Value;
use crate::jsonrpc::{codes, object, ProtocolError};
use serde::{Deserialize, Serialize};
#[cfg(all(test, not(target_arch = "wasm32")))]
use serde_json::json;

/// The versions agentwire speaks, newest first.
pub const SUPPORTED: &[u16] = &[2, 1];

/// How an agent picks the version to answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NegotiationRule {
    /// Seeds 000/001: the requested version if supported, otherwise the agent's latest.
    #[default]
    Seed,
    /// The newest v2 draft: the highest supported version at or below the request;
    /// none → error -32022 with `data {requested, supported}`.
    Draft,
}

/// The agent's choice for a requested version.
pub fn agent_choose(
    requested: u16,
    supported: &[u16],
    rule: NegotiationRule,
) -> Result<u16, ProtocolError> {
    if supported.contains(&requested) {
        return Ok(requested);
    }
    let choice = match rule {
        NegotiationRule::Seed => supported.iter().copied().max(),
        NegotiationRule::Draft => supported.iter().copied().filter(|v| *v <= requested).max(),
    };
    choice.ok_or_else(|| unsupported(requested, supported))
}

/// -32022 as the newest draft defines it.
pub fn unsupported(requested: u16, supported: &[u16]) -> ProtocolError {
    ProtocolError::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version {requested}; supported: {}",
            list(supported)
        ),
    )
    .with_data(object! { "requested": requested, "supported": supported })
}

/// The client's verdict on the agent's answer: usable, or the error that ends the session.
pub fn client_accept(
    requested: u16,
    answered: &Value,
    supported: &[u16],
) -> Result<u16, ProtocolError> {
    let version = answered.as_u64().and_then(|v| u16::try_from(v).ok());
    match version {
        Some(v) if supported.contains(&v) => Ok(v),
        _ => Err(ProtocolError::local_refusal(format!(
            "The agent answered protocol version {} to our request for {requested}; this client supports {}, so the connection is closed",
            crate::json::text(answered),
            list(supported)
        ))
        .with_data(object! { "requested": requested, "answered": answered, "supported": supported })),
    }
}

/// The latest of a list of versions (the one a client requests).
pub fn latest(supported: &[u16]) -> u16 {
    supported.iter().copied().max().unwrap_or(1)
}

fn list(versions: &[u16]) -> String {
    let v: Vec<String> = versions.iter().map(u16::to_string).collect();
    crate::text::join(&v, ", ")
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn agent_choice_table() {
        use NegotiationRule::*;
        type Case = (u16, &'static [u16], NegotiationRule, Result<u16, ()>);
        let cases: &[Case] = &[
            (1, &[1], Seed, Ok(1)),
            (2, &[2, 1], Seed, Ok(2)),
            (2, &[1], Seed, Ok(1)),
            (3, &[2, 1], Seed, Ok(2)),
            (1, &[2], Seed, Ok(2)),
            (1, &[2], Draft, Err(())),
            (3, &[2, 1], Draft, Ok(2)),
            (2, &[1], Draft, Ok(1)),
            (0, &[1, 2], Draft, Err(())),
            (1, &[], Seed, Err(())),
        ];
        for (req, sup, rule, want) in cases {
            let got = agent_choose(*req, sup, *rule);
            match (got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g, *w, "{req} {sup:?} {rule:?}"),
                (Err(e), Err(())) => {
                    assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
                    assert_eq!(e.data, Some(json!({"requested": req, "supported": sup})));
                }
                (g, w) => panic!("{req} {sup:?} {rule:?}: got {g:?}, want {w:?}"),
            }
        }
    }

    #[test]
    fn client_verdict_names_both_versions() {
        assert_eq!(client_accept(2, &json!(1), &[2, 1]), Ok(1));
        let e = client_accept(2, &json!(3), &[2, 1]).unwrap_err();
        assert!(
            e.message.contains('3') && e.message.contains("for 2"),
            "{}",
            e.message
        );
        assert!(client_accept(2, &json!("2"), &[2, 1]).is_err());
        assert!(client_accept(2, &json!(70000), &[2, 1]).is_err());
    }
}
