//! The module's one JSON writer, into a `String`, writing what serde_json's compact
//! serializer writes (tested against it for any value and every shape the module writes).
//! Each shape says its members once (`Json`), over `&dyn Json`: one writer for members,
//! strings, numbers and nesting, where serde's `Serialize` compiled the serializer's paths
//! once for every type written (0.5–0.7 KB gzipped an entry, docs/BENCHMARKS.md "One JSON
//! trait of the module's own"). The shortest digits of a float come from the engine in the
//! module (`Number.prototype.toString`, exact and already there): serde_json's float writer
//! carries a 10 KB table of powers of ten that gzip cannot shrink. Integers are written by a
//! loop of its own (`write_int`).

use crate::json::{Map, Value};
use serde_json::Number;
use std::borrow::Cow;

/// What the module writes as JSON text.
pub trait Json {
    /// Appends the value's compact JSON text to `out`.
    fn write_json(&self, out: &mut String);
}

/// `value` as compact JSON text, as `serde_json::to_string` writes it. One function for every
/// shape (`&dyn`), not a copy for each.
pub fn text(value: &dyn Json) -> String {
    let mut out = String::with_capacity(128);
    value.write_json(&mut out);
    out
}

/// Writes `value` as compact JSON text at the end of `out`: JSON built by hand around a value
/// takes it without a string of its own and a copy.
pub fn append(out: &mut String, value: &dyn Json) {
    value.write_json(out);
}

/// An object written member by member, in order.
pub struct Members<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Members<'a> {
    pub fn open(out: &'a mut String) -> Self {
        out.push('{');
        Members { out, first: true }
    }

    /// An object whose first member is `"type"`: an event's or a tagged shape's tag (a name
    /// of the module's, written as it is).
    pub fn tagged(out: &'a mut String, tag: &'static str) -> Self {
        out.push_str("{\"type\":\"");
        out.push_str(tag);
        out.push('"');
        Members { out, first: false }
    }

    /// One member; one function for every member of every shape. `name` is a name of the
    /// module's (a literal, nothing to escape), written as it is.
    #[inline(never)]
    pub fn member(&mut self, name: &'static str, value: &dyn Json) -> &mut Self {
        self.name(name, false);
        value.write_json(self.out);
        self
    }

    /// A member's name, escaped (`escape`: a name from elsewhere, a map's key) or as it is.
    fn name(&mut self, name: &str, escape: bool) {
        self.out.push_str(if self.first { "\"" } else { ",\"" });
        self.first = false;
        if escape {
            escaped(self.out, name);
        } else {
            self.out.push_str(name);
        }
        self.out.push_str("\":");
    }

    /// A member left out when it is `None` (serde's `skip_serializing_if = "Option::is_none"`).
    pub fn some<T: Json>(&mut self, name: &'static str, value: &Option<T>) -> &mut Self {
        if let Some(v) = value {
            self.member(name, v);
        }
        self
    }

    pub fn close(&mut self) {
        self.out.push('}');
    }
}

/// `Json` for a type written as one of its names (an enum of unit variants, as serde's
/// `rename_all` writes it).
macro_rules! json_names {
    ($t:ty { $($variant:pat => $name:literal),* $(,)? }) => {
        impl $crate::json::Json for $t {
            fn write_json(&self, out: &mut String) {
                let name: &str = match self { $($variant => $name),* };
                $crate::json::Json::write_json(name, out);
            }
        }
    };
}
pub(crate) use json_names;

/// The elements of a list, in order.
fn elements(out: &mut String, items: &mut dyn Iterator<Item = &dyn Json>) {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        item.write_json(out);
    }
    out.push(']');
}

impl Json for str {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl Json for String {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl Json for Cow<'_, str> {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl<T: Json + ?Sized> Json for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
}

impl Json for bool {
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

macro_rules! ints {
    (signed $($t:ty),*) => {$(
        impl Json for $t {
            fn write_json(&self, out: &mut String) {
                write_int(out, *self < 0, self.unsigned_abs() as u64);
            }
        }
    )*};
    ($($t:ty),*) => {$(
        impl Json for $t {
            fn write_json(&self, out: &mut String) {
                write_int(out, false, *self as u64);
            }
        }
    )*};
}
ints!(signed i8, i16, i32, i64);
ints!(u8, u16, u32, u64, usize);

impl Json for f64 {
    fn write_json(&self, out: &mut String) {
        if self.is_finite() {
            out.push_str(&Shortest::of(*self).json());
        } else {
            out.push_str("null");
        }
    }
}

/// `None` is `null`.
impl<T: Json> Json for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(v) => v.write_json(out),
            None => out.push_str("null"),
        }
    }
}

impl<T: Json> Json for [T] {
    fn write_json(&self, out: &mut String) {
        elements(out, &mut self.iter().map(|v| v as &dyn Json));
    }
}

impl<T: Json> Json for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

impl<T: Json, const N: usize> Json for [T; N] {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

impl Json for Number {
    fn write_json(&self, out: &mut String) {
        match (self.as_u64(), self.as_i64()) {
            (Some(u), _) => write_int(out, false, u),
            (None, Some(i)) => write_int(out, true, i.unsigned_abs()),
            _ => self.as_f64().unwrap_or(f64::NAN).write_json(out),
        }
    }
}

/// A tree of values: the library's (`json::Value`), and natively the module's own as well, so
/// that the native tests write it too (`tree::tests`).
macro_rules! tree_json {
    ($value:ident, $map:ident) => {
        impl Json for $map<String, $value> {
            fn write_json(&self, out: &mut String) {
                let mut m = Members::open(out);
                for (k, v) in self {
                    m.name(k, true);
                    v.write_json(m.out);
                }
                m.close();
            }
        }

        impl Json for $value {
            fn write_json(&self, out: &mut String) {
                match self {
                    $value::Null => out.push_str("null"),
                    $value::Bool(b) => b.write_json(out),
                    $value::Number(n) => n.write_json(out),
                    $value::String(s) => write_str(out, s),
                    $value::Array(items) => items.write_json(out),
                    $value::Object(m) => m.write_json(out),
                }
            }
        }
    };
}

tree_json!(Value, Map);
#[cfg(not(target_arch = "wasm32"))]
use super::tree::{Map as TreeMap, Value as TreeValue};
#[cfg(not(target_arch = "wasm32"))]
tree_json!(TreeValue, TreeMap);

/// Writes `s` as a JSON string: `"`, `\\` and the control characters escaped as serde_json
/// escapes them (`\n`, `\u001b`), everything else as it is.
fn write_str(out: &mut String, s: &str) {
    // Room for the string as it is, up front: a long text (an answer's body, 145 KB, crosses
    // to JS inside JSON) is written without growing the buffer again and again.
    out.reserve(s.len() + 2);
    out.push('"');
    escaped(out, s);
    out.push('"');
}

/// `s` between a string's quotes.
fn escaped(out: &mut String, s: &str) {
    let mut from = 0;
    // The bytes as a slice: `str::bytes()` would call its iterator's `next` for every byte.
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "\\u00",
            _ => continue,
        };
        out.push_str(crate::text::part(s, from..i));
        out.push_str(escape);
        if escape.len() > 2 {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
        from = i + 1;
    }
    out.push_str(crate::text::part(s, from..));
}

fn write_int(out: &mut String, negative: bool, mut n: u64) {
    let mut digits = [0u8; 21];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        digits[at] = b'-';
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// A finite float's shortest round-trip digits: the value is ±0.`digits` × 10^`point`
/// (no digits for zero).
pub(crate) struct Shortest {
    negative: bool,
    /// ASCII digits, no leading or trailing zero.
    digits: String,
    point: i32,
}

impl Shortest {
    pub fn of(value: f64) -> Self {
        Self::read(&rendering(value.abs()), value.is_sign_negative())
    }

    /// Reads any rendering of the shortest digits: `0.00015`, `1.5e-7`, `1e+21`.
    fn read(rendering: &str, negative: bool) -> Self {
        let mut digits = String::with_capacity(20);
        let (mut point, mut exp, mut exp_sign) = (0i32, 0i32, 1i32);
        let (mut seen_point, mut in_exp) = (false, false);
        // One pass, no number parsing of core's: the renderings are ASCII digits, at most one
        // point, then maybe `e`, a sign and the exponent's digits.
        for &b in rendering.as_bytes() {
            match b {
                b'e' | b'E' => in_exp = true,
                b'-' if in_exp => exp_sign = -1,
                b'0'..=b'9' if in_exp => exp = exp * 10 + i32::from(b - b'0'),
                b'.' => seen_point = true,
                // Leading zeros after the point move it; before it they are nothing.
                b'0' if digits.is_empty() => point -= i32::from(seen_point),
                b'0'..=b'9' => {
                    digits.push(char::from(b));
                    point += i32::from(!seen_point);
                }
                _ => {}
            }
        }
        point += exp_sign * exp;
        while digits.ends_with('0') {
            digits.pop();
        }
        Shortest {
            negative,
            digits,
            point,
        }
    }

    /// As serde_json writes it: positional for decimal exponents -5 to 15 (an integral
    /// value keeps `.0`), else `d.ddde±x`.
    pub fn json(&self) -> String {
        let exp = self.point - 1;
        if self.digits.is_empty() || (-5..=15).contains(&exp) {
            let mut out = self.plain();
            if !out.contains('.') {
                out.push_str(".0");
            }
            return out;
        }
        let mut out = String::from(if self.negative { "-" } else { "" });
        out.push_str(crate::text::part(&self.digits, ..1));
        if self.digits.len() > 1 {
            out.push('.');
            out.push_str(crate::text::part(&self.digits, 1..));
        }
        out.push_str(if exp < 0 { "e-" } else { "e+" });
        out.push_str(&exp.unsigned_abs().to_string());
        out
    }

    /// Positional, never an exponent: as `f64`'s `Display` writes it (core's float
    /// formatting is the larger code).
    pub fn plain(&self) -> String {
        let mut out = String::from(if self.negative { "-" } else { "" });
        let (d, p) = (self.digits.as_str(), self.point);
        let zeros = |out: &mut String, n: i32| (0..n).for_each(|_| out.push('0'));
        if d.is_empty() {
            out.push('0');
        } else if p <= 0 {
            out.push_str("0.");
            zeros(&mut out, -p);
            out.push_str(d);
        } else if p as usize >= d.len() {
            out.push_str(d);
            zeros(&mut out, p - d.len() as i32);
        } else {
            out.push_str(crate::text::part(d, ..p as usize));
            out.push('.');
            out.push_str(crate::text::part(d, p as usize..));
        }
        out
    }
}

/// The shortest digits that read back as `value` (finite, not negative), in one of the
/// renderings `Shortest::read` reads.
#[cfg(target_arch = "wasm32")]
fn rendering(value: f64) -> String {
    js_sys::Number::from(value)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// Natively, serde_json's own: in a tie (a value halfway between two shortest renderings,
/// `34210098530745.8125`), core's renderings round the last digit up (`…745.813`), serde_json
/// and the engine round it to even (`…745.812`).
#[cfg(not(target_arch = "wasm32"))]
fn rendering(value: f64) -> String {
    serde_json::to_string(&value).unwrap_or_default()
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use serde_json::json;
    // Only the proptest, which runs natively, reads numbers through `Value`.
    #[cfg(not(target_arch = "wasm32"))]
    use serde_json::Value;

    fn laid_out(rendering: &str) -> String {
        Shortest::read(rendering, false).json()
    }

    #[test]
    fn renderings_of_one_number_are_laid_out_alike() {
        for (renderings, expected) in [
            (&["1e+21", "1e21", "1000000000000000000000"][..], "1e+21"),
            (&["1.5e-7", "0.00000015"], "1.5e-7"),
            (&["0.00001", "1e-5"], "0.00001"),
            (&["0.000001", "1e-6"], "1e-6"),
            (
                &["1234567890123456", "1.234567890123456e15"],
                "1234567890123456.0",
            ),
            (
                &["12345678901234567", "1.2345678901234567e16"],
                "1.2345678901234567e+16",
            ),
            (&["1", "1e0", "1.0"], "1.0"),
            (&["0", "0e0", "0.0"], "0.0"),
            (&["12.5", "1.25e1"], "12.5"),
            (&["5e-324"], "5e-324"),
            (&["1.7976931348623157e+308"], "1.7976931348623157e+308"),
        ] {
            for r in renderings {
                assert_eq!(laid_out(r), expected, "{r}");
            }
        }
    }

    #[test]
    // The tie is written as the exact value it is: halfway between …745.812 and …745.813.
    #[allow(clippy::excessive_precision)]
    fn values_are_written_as_serde_json_writes_them() {
        let value = json!({"a": [1, -2, 0.5, -0.0, 1e300, 2.5e-8, "x\u{1}\"é", null, true], "b": {}, "tie": 34210098530745.8125});
        assert_eq!(text(&value), serde_json::to_string(&value).unwrap());
    }

    /// Every shape the module writes, as serde_json writes it from the shape's `Serialize`
    /// (kept natively, for the Rust API): each event of both protocols, with and without its
    /// optional members, and what they hold.
    #[test]
    #[cfg(all(feature = "acp", feature = "mcp"))]
    fn every_shape_is_written_as_serde_json_writes_it() {
        use crate::jsonrpc::{Flow, Id, Outbound, ProtocolError, RawJson};
        use crate::schema::{Direction, Issue, Severity};
        use crate::{acp, mcp};
        fn same<T: Json + serde::Serialize>(value: &T) {
            assert_eq!(text(value), serde_json::to_string(value).unwrap());
        }
        let ids = [Id::Number(-4), Id::String("a\"b".into()), Id::Null];
        let error = ProtocolError::new(-32602, "bad \u{7}");
        let with_data = error.clone().with_data(json!({"x": [1, 2.5, null]}));
        let issue = |severity| Issue {
            path: "/params/a".into(),
            code: "wrong_type",
            message: "`a` must be a string".into(),
            severity,
        };
        let issues = vec![issue(Severity::Error), issue(Severity::Warning)];
        let raw = || RawJson::from_value(&json!({"k": [true, {"n": -1}]}));
        for id in &ids {
            same(id);
        }
        same(&error);
        same(&with_data);
        same(&issues);
        same(&[Flow::In, Flow::Out]);
        same(&[Direction::ClientToServer, Direction::ServerToClient]);
        same(&[mcp::version::Era::Handshake, mcp::version::Era::Stateless]);
        for outbound in [
            Outbound {
                id: Some(Id::Number(1)),
                method: Some("m".into()),
                text: "{}".into(),
            },
            Outbound {
                id: None,
                method: None,
                text: "x".into(),
            },
        ] {
            same(&outbound);
        }
        let shared = |id: Id, some: bool| {
            let (id_, method) = (some.then(|| id.clone()), some.then(|| "m".to_owned()));
            macro_rules! events {
                ($e:path) => {{
                    use $e as E;
                    vec![
                        E::Send { text: "t".into() },
                        E::Response {
                            id: id.clone(),
                            method: "m".into(),
                            result: raw(),
                        },
                        E::Error {
                            id: id.clone(),
                            method: "m".into(),
                            error: with_data.clone(),
                        },
                        E::Timeout {
                            id: id.clone(),
                            method: "m".into(),
                            error: error.clone(),
                        },
                        E::Request {
                            id: id.clone(),
                            method: "m".into(),
                            params: some.then(raw),
                        },
                        E::Notification {
                            method: "m".into(),
                            params: some.then(raw),
                        },
                        E::Violation {
                            id: id_.clone(),
                            method: method.clone(),
                            direction: Flow::Out,
                            issues: issues.clone(),
                        },
                        E::Stray {
                            id: id.clone(),
                            already_answered: some,
                            error: some.then(|| error.clone()),
                        },
                        E::ProtocolError {
                            error: error.clone(),
                        },
                    ]
                }};
            }
            (events!(acp::Event), events!(mcp::event::Event))
        };
        for (id, some) in [(Id::Number(7), true), (Id::String("s".into()), false)] {
            let (mut acp_events, mut mcp_events) = shared(id.clone(), some);
            let info = some.then(|| json!({"name": "n", "version": "1"}));
            acp_events.extend([
                acp::Event::Initialized {
                    protocol_version: 2,
                    peer_capabilities: json!({"a": {"b": true}}),
                    peer_info: info.clone(),
                    auth_methods: vec![json!({"id": "x"})],
                },
                acp::Event::SessionUpdate {
                    session_id: "s1".into(),
                    update: raw(),
                    replay: some,
                },
                acp::Event::TurnEnded {
                    id: id.clone(),
                    session_id: "s1".into(),
                    outcome: some.then(|| json!({"stopReason": "end_turn"})),
                    error: some.then(|| error.clone()),
                },
                acp::Event::CancelRequested { id: id.clone() },
                acp::Event::Closed {
                    error: some.then(|| error.clone()),
                },
            ]);
            mcp_events.extend([
                mcp::event::Event::Initialized {
                    protocol_version: "2025-11-25".into(),
                    era: mcp::version::Era::Handshake,
                    peer_capabilities: json!({"tools": {}}),
                    peer_info: info.clone(),
                    instructions: some.then(|| "i".into()),
                },
                mcp::event::Event::EraFallback {
                    from: "a".into(),
                    to: "b".into(),
                    reason: error.clone(),
                },
                mcp::event::Event::Progress {
                    id: some.then(|| id.clone()),
                    progress_token: RawJson::from_value(&json!("tok")),
                    params: raw(),
                },
                mcp::event::Event::Cancelled {
                    request_id: json!(3),
                    reason: some.then(|| "r".into()),
                },
                mcp::event::Event::Closed {
                    pending: vec![mcp::event::PendingCall {
                        id: id.clone(),
                        method: "m".into(),
                    }],
                },
            ]);
            for e in &acp_events {
                same(e);
            }
            for e in &mcp_events {
                same(e);
            }
        }
        let client = acp::AcpClient::new(Default::default());
        same(&client.methods());
        let server = mcp::McpServer::new(Default::default());
        same(&server.methods());
        same(&[
            acp::Phase::Uninitialized,
            acp::Phase::Initializing,
            acp::Phase::Ready,
            acp::Phase::Closed,
        ]);
        use mcp::Phase;
        same(&[
            Phase::Idle,
            Phase::Discovering,
            Phase::Initializing,
            Phase::Ready,
            Phase::Closed,
        ]);
    }

    /// Natively only: proptest is not built for wasm32 (`wasm-pack test` compiles these too).
    #[cfg(not(target_arch = "wasm32"))]
    mod properties {
        use super::*;

        /// Two renderings of `x`, as many digits each, one apart in the last, both reading
        /// back as `x`, the even one `b`'s.
        fn is_tie(a: &Shortest, b: &Shortest, x: f64) -> bool {
            let (da, db) = (a.digits.as_bytes(), b.digits.as_bytes());
            let n = da.len();
            let reads_back = |s: &Shortest| s.plain().parse::<f64>().ok() == Some(x);
            n == db.len()
                && a.point == b.point
                && da[..n - 1] == db[..n - 1]
                && da[n - 1].abs_diff(db[n - 1]) == 1
                && db[n - 1] % 2 == 0
                && reads_back(a)
                && reads_back(b)
        }

        proptest::proptest! {
            /// Any finite float as serde_json writes it; from core's renderings too, which
            /// have the same digits but in a tie (`rendering`), where they are one apart.
            #[test]
            fn floats_are_laid_out_as_serde_json_lays_them_out(bits: u64) {
                let x = f64::from_bits(bits);
                proptest::prop_assume!(x.is_finite());
                let expected = serde_json::to_string(&x).unwrap();
                proptest::prop_assert_eq!(text(&x), expected.clone());
                proptest::prop_assert_eq!(text(&Value::from(x)), serde_json::to_string(&Value::from(x)).unwrap());
                let ours = Shortest::of(x);
                let core = Shortest::read(&format!("{}", x.abs()), x.is_sign_negative());
                proptest::prop_assert_eq!(&core.digits, &Shortest::read(&format!("{x:e}"), false).digits);
                if core.digits == ours.digits {
                    proptest::prop_assert_eq!(core.json(), expected);
                    proptest::prop_assert_eq!(ours.plain(), format!("{x}"));
                } else {
                    proptest::prop_assert!(is_tie(&core, &ours, x), "{} {}", core.json(), expected);
                }
            }

            /// Any integer of any width as serde_json (itoa) writes it, alone and in a value.
            #[test]
            fn integers_are_written_as_serde_json_writes_them(i: i64, u: u64, small: (i8, u8, i16, u16, i32, u32)) {
                proptest::prop_assert_eq!(text(&i), serde_json::to_string(&i).unwrap());
                proptest::prop_assert_eq!(text(&u), serde_json::to_string(&u).unwrap());
                let (a, b, c, d, e, f) = small;
                let serde = serde_json::to_string(&small).unwrap();
                proptest::prop_assert_eq!(
                    format!("[{}]", [text(&a), text(&b), text(&c), text(&d), text(&e), text(&f)].join(",")),
                    serde
                );
                let v = serde_json::json!([i, u, i64::MIN, u64::MAX, 0, -1]);
                proptest::prop_assert_eq!(text(&v), serde_json::to_string(&v).unwrap());
            }

            /// Any value as serde_json writes it: the escapes, the numbers, the nesting.
            #[test]
            fn values_of_any_shape_are_written_as_serde_json_writes_them(value in crate::json::item::tests::properties::arb_json()) {
                proptest::prop_assert_eq!(text(&value), serde_json::to_string(&value).unwrap());
            }

            /// Written at the end of a text already begun, the value is the same text and what
            /// came before it stays as it was (the keys' quoting looks only at what it wrote).
            #[test]
            fn values_appended_leave_what_came_before(prefix in "[\"{:,0-9a-z\\[]{0,6}", value in crate::json::item::tests::properties::arb_json()) {
                let mut out = prefix.clone();
                append(&mut out, &value);
                proptest::prop_assert_eq!(out, prefix + &serde_json::to_string(&value).unwrap());
            }

            /// Every string, every control character among them.
            #[test]
            fn strings_are_escaped_as_serde_json_escapes_them(s in "[\u{0}-\u{7f}\u{e9}\u{2028}\u{1f600}]{0,24}") {
                proptest::prop_assert_eq!(text(&s), serde_json::to_string(&s).unwrap());
            }

            /// Ties: values with few bits after the point, whose exact decimals end in 5.
            #[test]
            fn ties_are_written_as_serde_json_writes_them(m in 0u64..1 << 53, e in -10i32..50, bits in 1i32..6) {
                let x = m as f64 * 2f64.powi(e - bits);
                let expected = serde_json::to_string(&x).unwrap();
                proptest::prop_assert_eq!(text(&x), expected);
                proptest::prop_assert_eq!(Shortest::of(x).plain().parse::<f64>().ok(), Some(x));
            }

            /// Floats of everyday sizes, where the layout changes from positional to exponent.
            #[test]
            fn everyday_floats_are_laid_out_as_serde_json_lays_them_out(m in 0u64..100_000_000_000, e in -12i32..24, neg: bool) {
                let x = m as f64 * 10f64.powi(e) * if neg { -1.0 } else { 1.0 };
                proptest::prop_assert_eq!(text(&x), serde_json::to_string(&x).unwrap());
            }
        }
    }
}
