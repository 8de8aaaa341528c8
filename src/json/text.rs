//! The module's one JSON writer: serde_json's compact serializer, floats laid out as serde_json
//! lays them out. In the module the shortest digits of a float come from the engine
//! (`Number.prototype.toString`, exact and already there): serde_json's own float writer
//! carries a 10 KB table of powers of ten that gzip cannot shrink. Integers are written by a
//! loop of its own too (`write_int`).

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};
use std::io;

/// `value` as compact JSON text, as `serde_json::to_string` writes it.
pub fn text<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(128);
    // Writing to a `Vec` cannot fail; a map with non-string keys, which would, never occurs
    // in what the module writes.
    let _ = value.serialize(&mut Serializer::with_formatter(&mut out, Compact));
    // serde_json writes whole `str`s with ASCII between them: UTF-8 throughout.
    String::from_utf8(out).unwrap_or_default()
}

struct Compact;

/// Integers written digit by digit: serde_json's own writer (itoa) converts with an `expect`
/// whose panic would write its error by `Debug`, keeping core's debug builders in the module.
macro_rules! write_ints {
    (signed $($name:ident: $t:ty),*) => {$(
        fn $name<W: ?Sized + io::Write>(&mut self, w: &mut W, value: $t) -> io::Result<()> {
            write_int(w, value < 0, value.unsigned_abs() as u64)
        }
    )*};
    ($($name:ident: $t:ty),*) => {$(
        fn $name<W: ?Sized + io::Write>(&mut self, w: &mut W, value: $t) -> io::Result<()> {
            write_int(w, false, value as u64)
        }
    )*};
}

impl Formatter for Compact {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(Shortest::of(value).json().as_bytes())
    }
    write_ints!(signed write_i8: i8, write_i16: i16, write_i32: i32, write_i64: i64);
    write_ints!(write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64);
}

fn write_int<W: ?Sized + io::Write>(w: &mut W, negative: bool, mut n: u64) -> io::Result<()> {
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
    w.write_all(&digits[at..])
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

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
