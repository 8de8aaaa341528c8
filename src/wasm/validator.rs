//! `Validator`: message validation on its own, for any protocol version.

use super::convert::{to_js, to_js_error};
use crate::json::Value;
use crate::jsonrpc::ProtocolError;
use crate::schema::{self, Context, Direction, Limits, Protocol, Rulebook};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// Where JS writes the text to validate, with `TextEncoder.encodeInto`: one native copy,
    /// where wasm-bindgen's string argument is copied a character at a time by a JS loop.
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// What the last `validateInput` found, until `takeIssues` takes it.
    static FOUND: RefCell<Result<Option<String>, JsValue>> = const { RefCell::new(Ok(None)) };
}

/// Above this, the input buffer is not kept once a smaller message comes.
const KEPT_INPUT: usize = 1 << 20;

/// The address of the input buffer, with room for at least `len` bytes. It moves only here,
/// so JS uses the address this returns for the text it writes next.
#[wasm_bindgen(js_name = inputBuffer)]
pub fn input_buffer(len: usize) -> *mut u8 {
    INPUT.with_borrow_mut(|b| {
        if b.len() > KEPT_INPUT && len <= KEPT_INPUT {
            *b = Vec::new();
        }
        if b.len() < len {
            b.resize(len, 0);
        }
        b.as_mut_ptr()
    })
}

/// The module's memory, for writing into the input buffer.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// Validates messages of one protocol version:
/// `new Validator({ protocol: "acp", version: "1" }).validate(text, { direction, inReplyTo })`.
#[wasm_bindgen]
pub struct Validator {
    protocol: Protocol,
    version: String,
    book: Rulebook,
    limits: Limits,
}

fn invalid(message: String) -> JsValue {
    to_js_error(&ProtocolError::invalid_params(message))
}

impl Validator {
    /// The issues of the input as JSON text, `None` when there are none.
    #[inline(always)]
    fn issues_in(
        &self,
        input: &[u8],
        text_len: usize,
        method_len: i32,
        server_to_client: bool,
    ) -> Result<Option<String>, JsValue> {
        let direction = if server_to_client {
            Direction::ServerToClient
        } else {
            Direction::ClientToServer
        };
        let (text, rest) = input
            .split_at_checked(text_len)
            .ok_or_else(|| invalid("the input is longer than its buffer".into()))?;
        let in_reply_to = match usize::try_from(method_len) {
            Ok(n) => Some(utf8(rest.get(..n).ok_or_else(|| {
                invalid("the method is longer than the buffer".into())
            })?)?),
            Err(_) => None,
        };
        let ctx = Context {
            protocol: self.protocol,
            version: &self.version,
            direction,
            in_reply_to,
        };
        // Text written by encodeInto is UTF-8; bytes from a transport may not be (an issue).
        let report = schema::validate_bytes_by(text, &ctx, Some(self.book), &self.limits);
        Ok((!report.issues.is_empty()).then(|| crate::json::text(&report.issues)))
    }
}

/// The method is written by encodeInto (UTF-8), so this fails only for a caller that breaks
/// the contract.
fn utf8(b: &[u8]) -> Result<&str, JsValue> {
    schema::utf8(b).map_err(|_| invalid("the input is not UTF-8".into()))
}

#[wasm_bindgen]
impl Validator {
    /// The options as plain values (`js/api.js` takes them from `{ protocol, version,
    /// maxBytes?, maxDepth? }`; an ACP version given as a number arrives as its text): no
    /// JSON round trip, so the first `new Validator` runs little code not yet compiled.
    #[wasm_bindgen(constructor)]
    pub fn new(
        protocol: Option<String>,
        version: Option<String>,
        max_bytes: Option<f64>,
        max_depth: Option<f64>,
    ) -> Result<Validator, JsValue> {
        let Some(protocol) = protocol.as_deref().and_then(Protocol::of) else {
            return Err(invalid(format!(
                "protocol must be \"acp\", \"mcp\" or \"mcp-apps\", not {}",
                crate::json::text(&protocol)
            )));
        };
        let Some(version) = version else {
            return Err(invalid(
                "version is required (ACP: 1 or 2; MCP: a date such as \"2025-11-25\")".into(),
            ));
        };
        if schema::versions(protocol).is_empty() {
            let entry = match protocol {
                Protocol::Acp => "agentwire/acp",
                Protocol::Mcp | Protocol::Apps => "agentwire/mcp",
            };
            return Err(invalid(format!(
                "this module is built without {}: import agentwire or {entry}",
                protocol.name()
            )));
        }
        // Only the published versions: the rules also answer to aliases (MCP "draft").
        let known = schema::versions(protocol).contains(&version.as_str());
        let Some(book) = Rulebook::of(protocol, &version).filter(|_| known) else {
            let known = crate::text::join(schema::versions(protocol), ", ");
            return Err(invalid(format!(
                "no rules for version {}; known: {known}",
                crate::json::text(&version)
            )));
        };
        let count = |name: &str, n: Option<f64>, default: usize| match n {
            None => Ok(default),
            Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(n.min(usize::MAX as f64) as usize),
            // The value is not echoed: printing an f64 would pull core's float formatting in.
            Some(_) => Err(invalid(format!(
                "{name} must be a whole number of at least 0"
            ))),
        };
        let d = Limits::default();
        let limits = Limits {
            max_bytes: count("maxBytes", max_bytes, d.max_bytes)?,
            max_depth: count("maxDepth", max_depth, d.max_depth)?,
        };
        Ok(Validator {
            protocol,
            version,
            book,
            limits,
        })
    }

    /// Validates the message JS wrote into the input buffer (`inputBuffer`): its first
    /// `text_len` bytes, then `method_len` bytes of the method a response answers (negative:
    /// none). `server_to_client` is the direction. Returns 0 when there is no issue, the
    /// common case, which then costs one number crossing back; otherwise 1, and `takeIssues`
    /// gives the issues (or throws why the input was refused). The public `validate`
    /// (js/api.js) writes the input and builds the report.
    #[wasm_bindgen(js_name = validateInput)]
    pub fn validate_input(&self, text_len: usize, method_len: i32, server_to_client: bool) -> u32 {
        match INPUT
            .with_borrow(|input| self.issues_in(input, text_len, method_len, server_to_client))
        {
            Ok(None) => 0,
            found => {
                FOUND.set(found);
                1
            }
        }
    }

    /// The issues of the last `validateInput` that returned 1, as JSON text.
    #[wasm_bindgen(js_name = takeIssues)]
    pub fn take_issues() -> Result<String, JsValue> {
        FOUND.replace(Ok(None)).map(Option::unwrap_or_default)
    }

    /// The versions this build has rules for.
    pub fn versions(protocol: &str) -> Result<JsValue, JsValue> {
        let Some(p) = Protocol::of(protocol) else {
            let quoted = crate::json::text(&protocol);
            return Err(invalid(format!("unknown protocol {quoted}")));
        };
        Ok(to_js(&Value::from(schema::versions(p).to_vec())))
    }
}
