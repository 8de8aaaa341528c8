//! The JavaScript binding: type conversion and error conversion only. Protocol logic
//! lives in the core; nothing here decides anything.

pub mod convert;
pub mod http;
pub mod jsonrpc;
pub mod session;
pub mod validator;
