//! JSON-RPC 2.0, sans-IO and protocol-agnostic: envelopes, ids, errors and the
//! pending-request table. The protocol layers pass in what they allow (`ParseOptions`).

pub mod codes;
mod endpoint;
pub(crate) mod envelope;
mod error;
mod id;
pub(crate) mod json_object;
mod message;
mod pending;
mod raw;
mod vec_map;

pub use endpoint::{Endpoint, Frame, Outbound, Received};
pub use error::ProtocolError;
pub use id::Id;
pub(crate) use json_object::{object, serialized, set_member};
#[cfg(all(target_arch = "wasm32", not(agentwire_validator_only)))]
pub(crate) use message::error_object;
pub use message::{
    batch_to_text, call_text, frame_text, message_from_value, parse, parse_value, response_text,
    type_name, Incoming, Message, Notification, ParseFailure, ParseOptions, Request, Response,
};
pub use pending::{DuplicateId, Matched, Outgoing, PendingTable, Timeout};
pub use raw::RawJson;
pub(crate) use vec_map::{sort_by, VecMap, VecSet};

/// Whether a message came in or went out, from the session's side (`violation` events).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flow {
    In,
    Out,
}
crate::json::json_names!(Flow { Flow::In => "in", Flow::Out => "out" });
