//! The JavaScript binding: type conversion and error conversion only. Protocol logic
//! lives in the core; nothing here decides anything.

mod convert;
mod jsonrpc;
