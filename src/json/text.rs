//! The module's one JSON writer: a `serde::Serializer` of its own into a `String`, writing
//! what serde_json's compact serializer writes (tested against it for any value and every
//! shape serde's derive hands it). Of its own because serde_json's writes to any `io::Write`
//! and carries its `io::Error` through every member; writing to a `String` cannot fail, and
//! without that path every `Serialize` of the module is smaller (1.2–1.8 KB gzipped an entry,
//! docs/BENCHMARKS.md). The shortest digits of a float come from the engine in the module
//! (`Number.prototype.toString`, exact and already there): serde_json's float writer carries
//! a 10 KB table of powers of ten that gzip cannot shrink. Integers are written by a loop of
//! its own (`write_int`).

use serde::ser::{self, Serialize};
use std::fmt;

/// `value` as compact JSON text, as `serde_json::to_string` writes it.
pub fn text<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = String::with_capacity(128);
    append(&mut out, value);
    out
}

/// Writes `value` as compact JSON text at the end of `out`: JSON built by hand around a value
/// takes it without a string of its own and a copy.
pub fn append<T: Serialize + ?Sized>(out: &mut String, value: &T) {
    let _ = value.serialize(Writer(out));
}

/// A shape JSON has no place for: serde reports one only for an internally tagged enum
/// whose variant is no object, or an integer wider than 64 bits, neither of which the module
/// has. The text then ends where it stopped, as serde_json's did.
#[derive(Debug)]
struct Unwritable;

impl fmt::Display for Unwritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no JSON for this shape")
    }
}

impl std::error::Error for Unwritable {}

impl ser::Error for Unwritable {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Unwritable
    }
}

type Done = Result<(), Unwritable>;

struct Writer<'a>(&'a mut String);

/// Writes `s` as a JSON string: `"`, `\\` and the control characters escaped as serde_json
/// escapes them (`\n`, `\u001b`), everything else as it is.
fn write_str(out: &mut String, s: &str) {
    // Room for the string as it is, up front: a long text (an answer's body, 145 KB, crosses
    // to JS inside JSON) is written without growing the buffer again and again.
    out.reserve(s.len() + 2);
    out.push('"');
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
    out.push('"');
}

fn write_int(out: &mut String, negative: bool, mut n: u64) -> Done {
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
    Ok(())
}

/// An array, a map or an object being written: a comma before each element but the first.
struct Compound<'a> {
    out: &'a mut String,
    first: bool,
    /// What closes it: `]`, `}`, or `}}` for a variant (`{"name":{…}}`).
    close: &'static str,
}

impl Compound<'_> {
    fn comma(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.comma();
        value.serialize(Writer(self.out))
    }

    /// A member's key; as serde_json writes keys, one that is not a string (an integer, a
    /// boolean) is written in quotes.
    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        self.comma();
        let at = self.out.len();
        key.serialize(Writer(self.out))?;
        if self.out.as_bytes().get(at) != Some(&b'"') {
            self.out.insert(at, '"');
            self.out.push('"');
        }
        self.out.push(':');
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Done {
        self.name(name);
        value.serialize(Writer(self.out))
    }

    /// A member's name: one function for every field, not a copy inlined into `field` for
    /// each type of value (−17 to −78 B gzipped).
    #[inline(never)]
    fn name(&mut self, name: &str) {
        self.comma();
        write_str(self.out, name);
        self.out.push(':');
    }

    fn close(self) -> Done {
        self.out.push_str(self.close);
        Ok(())
    }
}

impl<'a> Writer<'a> {
    fn open(self, open: &str, close: &'static str) -> Compound<'a> {
        self.0.push_str(open);
        Compound {
            out: self.0,
            first: true,
            close,
        }
    }

    /// `{"variant":` before a variant's content.
    fn variant(self, variant: &str, open: &str, close: &'static str) -> Compound<'a> {
        self.0.push('{');
        write_str(self.0, variant);
        self.0.push(':');
        self.open(open, close)
    }

    fn raw(self, text: &str) -> Done {
        self.0.push_str(text);
        Ok(())
    }
}

macro_rules! ints {
    (signed $($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Done {
            write_int(self.0, v < 0, v.unsigned_abs() as u64)
        }
    )*};
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Done {
            write_int(self.0, false, v as u64)
        }
    )*};
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Unwritable;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Done {
        self.raw(if v { "true" } else { "false" })
    }
    ints!(signed serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64);
    ints!(serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);
    fn serialize_f32(self, v: f32) -> Done {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Done {
        if !v.is_finite() {
            return self.raw("null");
        }
        self.raw(&Shortest::of(v).json())
    }
    fn serialize_char(self, v: char) -> Done {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Done {
        write_str(self.0, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        let mut seq = self.open("[", "]");
        for b in v {
            seq.element(b)?;
        }
        seq.close()
    }
    fn serialize_none(self) -> Done {
        self.raw("null")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.raw("null")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Done {
        self.raw("null")
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Done {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        let c = self.variant(variant, "", "}");
        value.serialize(Writer(c.out))?;
        c.close()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Unwritable> {
        Ok(self.variant(variant, "[", "]}"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open("{", "}"))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open("{", "}"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Unwritable> {
        Ok(self.variant(variant, "{", "}}"))
    }
}

/// The same `Compound` for every kind of sequence and object.
macro_rules! compound {
    ($($trait:ident: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Unwritable;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                self.element(value)
            }
            fn end(self) -> Done {
                self.close()
            }
        }
    )*};
}
compound!(SerializeSeq: serialize_element, SerializeTuple: serialize_element, SerializeTupleStruct: serialize_field, SerializeTupleVariant: serialize_field);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        self.key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(Writer(self.out))
    }
    fn end(self) -> Done {
        self.close()
    }
}

macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Unwritable;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Done {
                self.field(name, value)
            }
            fn end(self) -> Done {
                self.close()
            }
        }
    )*};
}
fields!(SerializeStruct, SerializeStructVariant);

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

#[cfg(test)]
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

    /// Every shape serde's derive and the module's types hand the writer: structs, options
    /// left out or null, unit, newtype, tuple and struct variants, internally tagged enums,
    /// maps with keys that are not strings (quoted, as serde_json quotes them), bytes, chars.
    #[test]
    fn every_shape_is_written_as_serde_json_writes_it() {
        use serde::Serialize;
        use std::collections::BTreeMap;
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Plain {
            some_name: &'static str,
            #[serde(skip_serializing_if = "Option::is_none")]
            left_out: Option<u8>,
            null: Option<u8>,
            unit: (),
            pair: (i32, f64),
            chars: [char; 2],
            #[serde(with = "serde_bytes_as_seq")]
            bytes: Vec<u8>,
        }
        mod serde_bytes_as_seq {
            pub fn serialize<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(b)
            }
        }
        #[derive(Serialize)]
        enum External {
            Unit,
            Newtype(u8),
            Tuple(u8, &'static str),
            Struct { a: bool },
        }
        #[derive(Serialize)]
        #[serde(tag = "type", rename_all = "camelCase")]
        enum Tagged {
            Empty,
            WithFields {
                id: crate::jsonrpc::Id,
                flow: crate::jsonrpc::Flow,
            },
            Wrapped(Plain),
        }
        #[derive(Serialize)]
        struct Newtype(Vec<External>);
        let plain = || Plain {
            some_name: "a\"b\u{7}",
            left_out: None,
            null: None,
            unit: (),
            pair: (-3, f64::NAN),
            chars: ['x', '\n'],
            bytes: vec![0, 255],
        };
        let keys: BTreeMap<i64, bool> = [(-1, true), (20, false)].into();
        let mut by_id = crate::jsonrpc::VecMap::default();
        by_id.insert(crate::jsonrpc::Id::Number(7), "seven");
        by_id.insert(crate::jsonrpc::Id::String("s".into()), "s");
        let same = |ours: String, serde: String| assert_eq!(ours, serde);
        same(text(&plain()), serde_json::to_string(&plain()).unwrap());
        let externals = Newtype(vec![
            External::Unit,
            External::Newtype(1),
            External::Tuple(2, "t"),
            External::Struct { a: true },
        ]);
        same(text(&externals), serde_json::to_string(&externals).unwrap());
        let tagged = [
            Tagged::Empty,
            Tagged::WithFields {
                id: crate::jsonrpc::Id::Number(-4),
                flow: crate::jsonrpc::Flow::In,
            },
            Tagged::Wrapped(plain()),
        ];
        same(text(&tagged), serde_json::to_string(&tagged).unwrap());
        same(text(&keys), serde_json::to_string(&keys).unwrap());
        same(text(&by_id), serde_json::to_string(&by_id).unwrap());
        let bools: BTreeMap<bool, ()> = [(true, ())].into();
        same(text(&bools), serde_json::to_string(&bools).unwrap());
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
                proptest::prop_assert_eq!(text(&small), serde_json::to_string(&small).unwrap());
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
