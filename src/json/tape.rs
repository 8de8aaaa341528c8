//! A flat, borrowed view of one JSON text: every value is one `Node` in document order,
//! containers know where their subtree ends. Built by an iterative parser that links open
//! containers through their own nodes, so nesting depth costs no stack at all; strings
//! stay in the source and are unescaped only when something needs their text.

use super::names::same;
use std::borrow::Cow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Num,
    Str,
    Arr,
    Obj,
}

#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub kind: Kind,
    /// Str: the text holds a backslash escape. Num: fractional or exponent syntax.
    /// Bool: the value.
    pub flag: bool,
    /// Str/Num: byte range in the source (strings without quotes).
    /// Arr/Obj: `start` = number of elements (members), `end` = index after the subtree.
    pub start: u32,
    pub end: u32,
}

pub struct Tape<'a> {
    pub src: &'a str,
    /// The nodes of `src` come first; the buffer may hold more, left from an earlier
    /// text (overwriting them is cheaper than truncating and refilling).
    pub nodes: Vec<Node>,
}

/// Why a text is not a JSON document (or is one we refuse).
#[derive(Debug, PartialEq, Eq)]
pub enum TapeError {
    Syntax { offset: usize, what: &'static str },
    TooDeep { offset: usize },
}

/// What a parse error reply says (`data` of -32700).
impl std::fmt::Display for TapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TapeError::Syntax { offset, what } => write!(f, "{what} at byte {offset}"),
            TapeError::TooDeep { offset } => write!(f, "recursion limit exceeded at byte {offset}"),
        }
    }
}

impl<'a> Tape<'a> {
    /// Parses `src` fully (RFC 8259, as strict as serde_json), allowing at most `max_depth`
    /// nested arrays/objects.
    pub fn parse(src: &'a str, max_depth: usize) -> Result<Tape<'a>, TapeError> {
        Self::parse_in(src, max_depth, Vec::new())
    }

    /// As `parse`, building in `nodes`: a buffer kept from an earlier text, overwritten.
    pub fn parse_in(
        src: &'a str,
        max_depth: usize,
        nodes: Vec<Node>,
    ) -> Result<Tape<'a>, TapeError> {
        let mut p = Parser {
            b: src.as_bytes(),
            nodes,
            len: 0,
            error: TapeError::TooDeep { offset: 0 },
        };
        match p.document(max_depth) {
            Ok(()) => Ok(Tape {
                src,
                nodes: p.nodes,
            }),
            Err(Stop) => Err(p.error),
        }
    }

    #[inline(always)]
    pub fn raw(&self, n: &Node) -> &'a str {
        // Ranges come from the parser and fall on ASCII delimiters, so they are char boundaries.
        self.src.get(n.start as usize..n.end as usize).unwrap_or("")
    }

    /// The text of a string node, unescaped.
    #[inline(always)]
    pub fn str(&self, n: &Node) -> Cow<'a, str> {
        let raw = self.raw(n);
        if n.flag {
            Cow::Owned(unescape(raw))
        } else {
            Cow::Borrowed(raw)
        }
    }

    /// The bytes of a string node that holds no escape, straight from the text (`None`
    /// for one that does: `str` unescapes it). Cheaper than `str` where bytes will do.
    #[inline(always)]
    pub fn plain(&self, n: &Node) -> Option<&'a [u8]> {
        if n.flag {
            return None;
        }
        self.src.as_bytes().get(n.start as usize..n.end as usize)
    }

    /// `f` of the bytes of string node `n`: straight from the text, or unescaped when it
    /// holds an escape (no `Cow` to deref on the common path).
    #[inline(always)]
    pub fn with_bytes<R>(&self, n: &Node, f: impl FnOnce(&[u8]) -> R) -> R {
        match self.plain(n) {
            Some(b) => f(b),
            None => f(self.str(n).as_bytes()),
        }
    }

    /// Whether string node `n` reads `text`.
    #[inline(always)]
    pub fn reads(&self, n: &Node, text: &[u8]) -> bool {
        self.with_bytes(n, |b| same(b, text))
    }

    pub fn num(&self, n: &Node) -> f64 {
        number(self.raw(n)).unwrap_or(f64::NAN)
    }

    /// JSON Schema's notion: a number with no fractional part (`1.0` counts).
    pub fn is_integer(&self, n: &Node) -> bool {
        !n.flag || self.num(n).fract() == 0.0
    }

    /// Node `i`, indexed as a slice: `Vec`'s `Index` is a call in the size-optimized build.
    #[inline(always)]
    pub fn node(&self, i: usize) -> &Node {
        &self.nodes.as_slice()[i]
    }

    /// Index of the first child of a container, and the children (values for arrays;
    /// key, value pairs for objects) follow each other through `next`.
    #[inline(always)]
    pub fn next(&self, i: usize) -> usize {
        let n = self.node(i);
        match n.kind {
            Kind::Arr | Kind::Obj => n.end as usize,
            _ => i + 1,
        }
    }

    /// Member (key index, value index) pairs of the object at `i`.
    #[inline(always)]
    pub fn members(&self, i: usize) -> Members<'_, 'a> {
        Members {
            tape: self,
            at: i + 1,
            left: self.node(i).start as usize,
        }
    }

    /// Element indices of the array at `i`.
    #[inline(always)]
    pub fn items(&self, i: usize) -> Items<'_, 'a> {
        Items {
            tape: self,
            at: i + 1,
            left: self.node(i).start as usize,
        }
    }

    /// The value of member `key` (the last one, as JSON parsers keep it).
    pub fn get(&self, obj: usize, key: &[u8]) -> Option<usize> {
        self.members(obj)
            .filter(|&(k, _)| self.key_is(k, key))
            .map(|(_, v)| v)
            .last()
    }

    pub fn key_is(&self, k: usize, key: &[u8]) -> bool {
        self.reads(self.node(k), key)
    }
}

pub struct Members<'t, 'a> {
    tape: &'t Tape<'a>,
    at: usize,
    left: usize,
}

impl Iterator for Members<'_, '_> {
    type Item = (usize, usize);
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let k = self.at;
        let v = k + 1;
        self.at = self.tape.next(v);
        Some((k, v))
    }
}

pub struct Items<'t, 'a> {
    tape: &'t Tape<'a>,
    at: usize,
    left: usize,
}

impl Iterator for Items<'_, '_> {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let v = self.at;
        self.at = self.tape.next(v);
        Some(v)
    }
}

/// The parser's state but for the cursor: that travels as an argument and a return value
/// (in a register, where a field would go through memory at every step).
struct Parser<'b> {
    b: &'b [u8],
    /// Nodes `..len` are this text's; the rest of the buffer is free to overwrite.
    nodes: Vec<Node>,
    len: usize,
    /// Why the parse stopped, once it has.
    error: TapeError,
}

/// A parse that stopped early: the error is kept in the parser (a unit result travels
/// in a register; the error itself would go through memory on every call).
struct Stop;

/// No open container (the `end` of an open one links to the one around it).
const TOP: u32 = u32::MAX;

impl Parser<'_> {
    /// Appends a node: stores into the buffer, growing it (rarely) out of line. Field by
    /// field: a node assembled on the stack is reloaded in wider words than it was written,
    /// which stalls store forwarding.
    #[inline(always)]
    fn push(&mut self, kind: Kind, flag: bool, start: u32, end: u32) {
        match self.nodes.as_mut_slice().get_mut(self.len) {
            Some(slot) => {
                slot.kind = kind;
                slot.flag = flag;
                slot.start = start;
                slot.end = end;
            }
            None => self.grow(Node {
                kind,
                flag,
                start,
                end,
            }),
        }
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: Node) {
        self.nodes.truncate(self.len);
        self.nodes.push(n);
        // Filled to capacity, so that the stores above find their slots.
        self.nodes
            .resize(self.nodes.capacity().max(self.b.len() / 8 + 4), n);
    }

    #[inline(always)]
    fn node(&mut self, i: usize) -> &mut Node {
        &mut self.nodes.as_mut_slice()[i]
    }

    /// Stops the parse at byte `at`, keeping why for `parse_in` to report.
    #[cold]
    fn err(&mut self, at: usize, what: &'static str) -> Stop {
        self.error = TapeError::Syntax { offset: at, what };
        Stop
    }

    /// The byte at `i`; 0 at the end (never valid where a byte is looked for).
    #[inline(always)]
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    /// Where the whitespace from `i` ends. Most calls find none, or one space (as after
    /// `": "` and `", "`), which is told without a call.
    #[inline(always)]
    fn ws(&self, i: usize) -> usize {
        match self.at(i) {
            c if c > b' ' => i,
            b' ' if self.at(i + 1) > b' ' => i + 1,
            _ => ws_end(self.b, i),
        }
    }

    /// Parses the text. Open containers form a list through their nodes' `end` (each
    /// links to the container around it) until they close: no stack to allocate.
    fn document(&mut self, max_depth: usize) -> Result<(), Stop> {
        let mut open = TOP;
        let mut depth = 0;
        let mut i = 0;
        // State machine: parse a value; after it, close containers or read separators.
        'value: loop {
            i = self.ws(i);
            let Some(&c) = self.b.get(i) else {
                return Err(self.err(i, "unexpected end of input, expected a value"));
            };
            match c {
                b'{' | b'[' => {
                    if depth >= max_depth {
                        self.error = TapeError::TooDeep { offset: i };
                        return Err(Stop);
                    }
                    let is_obj = c == b'{';
                    let node = self.len;
                    self.push(if is_obj { Kind::Obj } else { Kind::Arr }, false, 0, open);
                    i = self.ws(i + 1);
                    let close = if is_obj { b'}' } else { b']' };
                    if self.at(i) == close {
                        i += 1;
                        let end = self.len as u32;
                        self.node(node).end = end;
                    } else {
                        open = node as u32;
                        depth += 1;
                        if is_obj {
                            i = self.key(i)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => i = self.string(i)?,
                b't' => i = self.word(i, 4, *b"true", Kind::Bool, true)?,
                b'f' => i = self.word(i, 5, *b"alse", Kind::Bool, false)?,
                b'n' => i = self.word(i, 4, *b"null", Kind::Null, false)?,
                b'-' | b'0'..=b'9' => i = self.number(i)?,
                _ => return Err(self.err(i, "expected value")),
            }
            // A value is complete: separators and closings.
            loop {
                i = self.ws(i);
                if open == TOP {
                    if i != self.b.len() {
                        return Err(self.err(i, "trailing characters after the JSON value"));
                    }
                    return Ok(());
                }
                let node = open as usize;
                let is_obj = self.node(node).kind == Kind::Obj;
                match self.b.get(i) {
                    Some(b',') => {
                        self.node(node).start += 1;
                        i = self.ws(i + 1);
                        if is_obj {
                            i = self.key(i)?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if is_obj => {}
                    Some(b']') if !is_obj => {}
                    _ => {
                        return Err(self.err(
                            i,
                            if is_obj {
                                "expected ',' or '}'"
                            } else {
                                "expected ',' or ']'"
                            },
                        ))
                    }
                }
                i += 1;
                let end = self.len as u32;
                let n = self.node(node);
                n.start += 1;
                open = std::mem::replace(&mut n.end, end);
                depth -= 1;
            }
        }
    }

    /// A member's key and its colon, from `i`; returns where its value may start.
    #[inline(always)]
    fn key(&mut self, i: usize) -> Result<usize, Stop> {
        if self.at(i) != b'"' {
            return Err(self.err(i, "expected a string key"));
        }
        let i = self.string(i)?;
        let i = self.ws(i);
        if self.at(i) != b':' {
            return Err(self.err(i, "expected ':' after the key"));
        }
        Ok(i + 1)
    }

    /// The literal of `len` (4 or 5) bytes at `i`, whose first byte matched: its last four
    /// bytes, `tail`, compared as one word (a slice comparison is a `memcmp` call).
    fn word(
        &mut self,
        i: usize,
        len: usize,
        tail: [u8; 4],
        kind: Kind,
        flag: bool,
    ) -> Result<usize, Stop> {
        let end = i + len;
        let got = self.b.get(end - 4..end).and_then(|b| b.first_chunk::<4>());
        if got.is_none_or(|&g| u32::from_le_bytes(g) != u32::from_le_bytes(tail)) {
            return Err(self.err(i, "invalid literal"));
        }
        self.push(kind, flag, i as u32, end as u32);
        Ok(end)
    }

    /// Where the run of digits from `i` ends.
    fn digits(&self, mut i: usize) -> usize {
        while matches!(self.b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
        i
    }

    fn number(&mut self, start: usize) -> Result<usize, Stop> {
        let mut i = start;
        if self.at(i) == b'-' {
            i += 1;
        }
        match self.b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = self.digits(i),
            _ => return Err(self.err(i, "invalid number")),
        }
        let mut frac = false;
        if self.at(i) == b'.' {
            frac = true;
            let end = self.digits(i + 1);
            if end == i + 1 {
                return Err(self.err(end, "invalid number: digits expected after '.'"));
            }
            i = end;
        }
        if matches!(self.b.get(i), Some(b'e' | b'E')) {
            i += 1;
            frac = true;
            if matches!(self.b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let end = self.digits(i);
            if end == i {
                return Err(self.err(end, "invalid number: digits expected in the exponent"));
            }
            i = end;
        }
        // Only these can fall outside f64's range.
        if frac || i - start > 300 {
            let raw = self
                .b
                .get(start..i)
                .and_then(|r| std::str::from_utf8(r).ok())
                .unwrap_or("");
            if number(raw).is_none() {
                return Err(self.err(i, "number out of range"));
            }
        }
        self.push(Kind::Num, frac, start as u32, i as u32);
        Ok(i)
    }

    /// The four hex digits of a `\u` escape at `i`.
    fn hex4(&mut self, i: usize) -> Result<u32, Stop> {
        let mut v = 0u32;
        for at in i..i + 4 {
            let Some(&c) = self.b.get(at) else {
                return Err(self.err(at, "unexpected end in \\u escape"));
            };
            let Some(d) = (c as char).to_digit(16) else {
                return Err(self.err(at, "invalid \\u escape"));
            };
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// The string whose opening quote is at `i`; returns where it ends, past the closing
    /// quote. Most strings hold no escape: one scan finds their closing quote, inline; the
    /// others continue out of line.
    #[inline(always)]
    fn string(&mut self, i: usize) -> Result<usize, Stop> {
        let start = i + 1;
        let end = plain_end(self.b, start);
        // A byte compared, not an `Option` (whose `!=` is a call in the size-optimized build).
        if self.at(end) != b'"' {
            return self.string_rest(start, end);
        }
        self.push(Kind::Str, false, start as u32, end as u32);
        Ok(end + 1)
    }

    /// The rest of the string that starts at `start`, from its first byte at `i` that is
    /// not plain (or the end of the text).
    #[inline(never)]
    fn string_rest(&mut self, start: usize, mut i: usize) -> Result<usize, Stop> {
        let mut esc = false;
        loop {
            i = plain_end(self.b, i);
            let Some(&c) = self.b.get(i) else {
                return Err(self.err(i, "unterminated string"));
            };
            match c {
                b'"' => break,
                b'\\' => {
                    esc = true;
                    let Some(&e) = self.b.get(i + 1) else {
                        return Err(self.err(i + 1, "unterminated string"));
                    };
                    i += 2;
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let u = self.hex4(i)?;
                            i += 4;
                            if (0xD800..0xDC00).contains(&u) {
                                if self.b.get(i..i + 2) != Some(b"\\u") {
                                    return Err(self.err(i, "lone leading surrogate in \\u escape"));
                                }
                                let lo = self.hex4(i + 2)?;
                                i += 6;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err(i, "invalid surrogate pair in \\u escape"));
                                }
                            } else if (0xDC00..0xE000).contains(&u) {
                                return Err(self.err(i, "lone trailing surrogate in \\u escape"));
                            }
                        }
                        _ => return Err(self.err(i, "invalid escape")),
                    }
                }
                0..=0x1F => return Err(self.err(i, "control character in string")),
                _ => i += 1,
            }
        }
        self.push(Kind::Str, esc, start as u32, i as u32);
        Ok(i + 1)
    }
}

/// `bytes` as text, or the offset where they stop being UTF-8 (`Utf8Error::valid_up_to`).
/// For every input taken as bytes: messages, and the method a response answers.
/// The ASCII run they start with (most of a JSON text, often all of it) is skipped a wide
/// chunk at a time first; core's check, which goes a word at a time, reads only the rest.
pub fn utf8(bytes: &[u8]) -> Result<&str, usize> {
    let ascii = ascii_prefix(bytes);
    let rest = bytes.get(ascii..).unwrap_or(&[]);
    // The common end, a short ASCII tail, is told inline; core's check is a call.
    if rest.is_ascii() {
        // SAFETY: ASCII throughout.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    match std::str::from_utf8(rest) {
        // SAFETY: bytes[..ascii] are ASCII and bytes[ascii..] were just checked: ASCII ends
        // on a character boundary, so the whole is UTF-8.
        Ok(_) => Ok(unsafe { std::str::from_utf8_unchecked(bytes) }),
        Err(e) => Err(ascii + e.valid_up_to()),
    }
}

/// The length of the run of ASCII bytes `b` starts with, rounded down to a chunk of 16
/// (the rest is left to core's check). With WebAssembly SIMD: two chunks per step.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn ascii_prefix(b: &[u8]) -> usize {
    use core::arch::wasm32::{i8x16_bitmask, v128_load, v128_or};
    let mut i = 0;
    while let Some(pair) = b.get(i..).and_then(|r| r.first_chunk::<32>()) {
        // SAFETY: `pair` is 32 readable bytes, and `v128_load` needs no alignment.
        let x = unsafe {
            v128_or(
                v128_load(pair.as_ptr().cast()),
                v128_load(pair.as_ptr().add(16).cast()),
            )
        };
        if i8x16_bitmask(x) != 0 {
            return i;
        }
        i += 32;
    }
    i
}

/// The length of the run of ASCII bytes `b` starts with, rounded down to a word.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn ascii_prefix(b: &[u8]) -> usize {
    let mut i = 0;
    while let Some(&w) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        if u64::from_le_bytes(w) & 0x8080_8080_8080_8080 != 0 {
            return i;
        }
        i += 8;
    }
    i
}

/// Where the JSON whitespace from `i` ends.
#[inline(never)]
fn ws_end(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Where the run of plain bytes from `i` ends: at the first quote, backslash or control
/// character, or the end of the text. Sixteen bytes at a time with WebAssembly SIMD.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(super) fn plain_end(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<16>()) {
        let hits = specials(chunk);
        if hits != 0 {
            return i + hits.trailing_zeros() as usize;
        }
        i += 16;
    }
    // Fewer than 16 bytes left: the text's last 16, less those before `i` (scanned already).
    let Some(last) = b
        .len()
        .checked_sub(16)
        .and_then(|s| b.get(s..))
        .and_then(|r| r.first_chunk::<16>())
    else {
        return i + plain_tail(b.get(i..).unwrap_or(&[]));
    };
    let hits = u32::from(specials(last))
        .checked_shr((i + 16 - b.len()) as u32)
        .unwrap_or(0);
    if hits != 0 {
        i + hits.trailing_zeros() as usize
    } else {
        b.len()
    }
}

/// One bit per byte of `chunk` that is a quote, backslash or control character.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn specials(chunk: &[u8; 16]) -> u16 {
    use core::arch::wasm32::{i8x16_bitmask, i8x16_eq, u8x16_lt, u8x16_splat, v128_load, v128_or};
    // SAFETY: `chunk` is 16 readable bytes, and `v128_load` needs no alignment.
    let x = unsafe { v128_load(chunk.as_ptr().cast()) };
    let quote_or_backslash = v128_or(
        i8x16_eq(x, u8x16_splat(b'"')),
        i8x16_eq(x, u8x16_splat(b'\\')),
    );
    i8x16_bitmask(v128_or(quote_or_backslash, u8x16_lt(x, u8x16_splat(0x20))))
}

/// Where the run of plain bytes from `i` ends: at the first quote, backslash or control
/// character, or the end of the text. Eight bytes at a time (SWAR), then one at a time for
/// the last few bytes of the text.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub(super) fn plain_end(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(&chunk) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        let x = u64::from_le_bytes(chunk);
        let (q, bs) = (x ^ (ONES * u64::from(b'"')), x ^ (ONES * u64::from(b'\\')));
        // A zero byte in q or bs, or a byte below 0x20 in x (never one from 0x80: high bit).
        let hit = ((q.wrapping_sub(ONES) & !q)
            | (bs.wrapping_sub(ONES) & !bs)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH;
        if hit != 0 {
            // Borrows run only upward from a true hit, so the lowest flagged byte is one.
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + plain_tail(b.get(i..).unwrap_or(&[]))
}

/// The length of the run of plain bytes in `b`, one byte at a time: for the last few bytes.
fn plain_tail(b: &[u8]) -> usize {
    b.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .unwrap_or(b.len())
}

/// The value of JSON number syntax, correctly rounded; `None` outside `f64`'s range.
/// Decimals of up to 15 digits are read here, exactly; the rest by `long_number`.
pub fn number(raw: &str) -> Option<f64> {
    let digits = if raw.starts_with('-') {
        raw.get(1..).unwrap_or("")
    } else {
        raw
    };
    if let Some(n) = short_decimal(digits) {
        return Some(if digits.len() < raw.len() { -n } else { n });
    }
    Some(long_number(raw)).filter(|x| x.is_finite())
}

/// Exponents and long digit runs: core's reader natively. In the module, the engine's
/// `parseFloat`, as exact and already there (core's reader would add its code and its
/// 11 KB table of powers to the module).
#[cfg(not(target_arch = "wasm32"))]
fn long_number(raw: &str) -> f64 {
    raw.parse().unwrap_or(f64::NAN)
}

#[cfg(target_arch = "wasm32")]
fn long_number(raw: &str) -> f64 {
    js_sys::parse_float(raw)
}

/// The value of digits with at most one decimal point and at most 15 digits (`12`, `0.5`,
/// `3.25`): the integer of the digits, exact in `f64`, divided by a power of ten, exact too,
/// so the quotient is correctly rounded, the value any exact reader gets. `None` for other
/// syntax (exponents, longer numbers), which needs a full reader.
fn short_decimal(digits: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (mut m, mut count, mut point) = (0u64, 0usize, None);
    for (i, c) in digits.bytes().enumerate() {
        match c {
            b'0'..=b'9' if count < 15 => {
                m = m * 10 + u64::from(c - b'0');
                count += 1;
            }
            b'.' if point.is_none() => point = Some(i),
            _ => return None,
        }
    }
    if count == 0 {
        return None;
    }
    let scale = point.map_or(0, |p| digits.len() - p - 1);
    Some(m as f64 / *POW10.get(scale)?)
}

/// Unescapes the inside of a JSON string the parser already checked.
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut it = raw.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex = |it: &mut std::str::Chars| {
                    let s: String = it.take(4).collect();
                    u32::from_str_radix(&s, 16).unwrap_or(0xFFFD)
                };
                let mut u = hex(&mut it);
                if (0xD800..0xDC00).contains(&u) {
                    it.next();
                    it.next();
                    let lo = hex(&mut it);
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                }
                out.push(char::from_u32(u).unwrap_or('\u{FFFD}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_serde_json_on_validity() {
        for text in [
            "{}",
            "[]",
            "[1,2,[3,{}]]",
            r#"{"a":"\u00e9\ud83d\ude00","b":-0.5e3}"#,
            " 1 ",
            "null",
            "0",
            "01",
            "1.",
            "-",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "[1] 2",
            "\"a\u{1}\"",
            "1e400",
            &"9".repeat(400),
            "tru",
            "{\"a\":}",
            "",
            "   ",
            "true",
            "false",
            "null",
            "[true,false,null]",
            "fals",
            "nul",
            "falsy",
            "trUe",
            "nulll",
            "[nul]",
            "f",
            "n",
        ] {
            let ours = Tape::parse(text, 128).is_ok();
            let serde = serde_json::from_str::<serde_json::Value>(text).is_ok();
            assert_eq!(ours, serde, "{text:?}");
        }
    }

    #[test]
    fn numbers_read_as_core_reads_them() {
        for text in [
            "0",
            "-0",
            "7",
            "-65535",
            "123456789012345",
            "1234567890123456789",
            "0.1",
            "-2.5e-3",
            "1E2",
            "1e308",
            "4.9e-324",
        ] {
            let ours = number(text).expect(text);
            assert!(
                ours == text.parse::<f64>().unwrap()
                    && ours.is_sign_negative() == text.starts_with('-'),
                "{text}"
            );
        }
        assert_eq!(number("1e400"), None);
        // Short decimals, read without the full reader: every one as core reads it.
        let mut seed = 0x2545_F491_4F6C_DD1D_u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let digits = (seed % 1_000_000_000_000_000).to_string();
            let len = 1 + (seed >> 50) as usize % digits.len().min(15);
            let digits = &digits[..len];
            let point = (seed >> 40) as usize % (len + 1);
            let text = if point == 0 || point == len {
                digits.to_string()
            } else {
                format!("{}.{}", &digits[..point], &digits[point..])
            };
            for text in [text.clone(), format!("-{text}"), format!("0.{digits}")] {
                let ours = number(&text).expect(&text);
                let core = text.parse::<f64>().unwrap();
                assert!(
                    ours == core && ours.is_sign_negative() == core.is_sign_negative(),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn structure_and_strings() {
        let t = Tape::parse(r#"{"a":[1,2.5,"x\n"],"b":{"c":null},"a":true}"#, 8).unwrap();
        assert_eq!(t.nodes[0].start, 3);
        let a = t.get(0, b"a").unwrap();
        assert_eq!(t.nodes[a].kind, Kind::Bool, "the last duplicate wins");
        let items: Vec<_> = t.items(2).map(|i| t.nodes[i].kind).collect();
        assert_eq!(items, vec![Kind::Num, Kind::Num, Kind::Str]);
        assert_eq!(t.str(&t.nodes[5]), "x\n");
        assert!(t.is_integer(&t.nodes[3]) && !t.is_integer(&t.nodes[4]));
    }

    #[test]
    fn plain_runs_stop_at_the_first_special_byte() {
        // Every stop byte at every offset of a word, after bytes that could mislead SWAR,
        // scanned from every offset before it; and runs to the end of texts without one.
        for fill in [b'a', 0x01 + 0x20, 0x80, 0xA0, 0xFF] {
            for stop in [b'"', b'\\', 0x00, 0x1F] {
                for at in 0..20 {
                    let mut b = vec![fill; 24];
                    b[at] = stop;
                    b[(at + 1).min(23)] = b'"';
                    for from in 0..=at {
                        assert_eq!(
                            super::plain_end(&b, from),
                            at,
                            "fill {fill:#x} stop {stop:#x} at {at} from {from}"
                        );
                    }
                }
            }
            for len in 0..20 {
                let b = vec![fill; len];
                assert_eq!(
                    super::plain_end(&b, len / 2),
                    len,
                    "fill {fill:#x} len {len}"
                );
            }
        }
    }

    #[test]
    fn utf8_is_checked_as_core_checks_it() {
        // Every kind of sequence, valid and not, at every offset after an ASCII run that
        // spans the wide chunks; cut short at every length.
        let seqs: [&[u8]; 16] = [
            b"a",
            "\u{e9}".as_bytes(),
            "\u{65e5}".as_bytes(),
            "\u{1f389}".as_bytes(),
            b"\x80",
            b"\xc0\xaf",
            b"\xc2",
            b"\xe0\x80\xaf",
            b"\xed\xa0\x80",
            b"\xef\xbf",
            b"\xf0\x8f\xbf\xbf",
            b"\xf4\x90\x80\x80",
            b"\xf5\x80\x80\x80",
            b"\xff",
            "\u{10ffff}".as_bytes(),
            "\u{7ff}\u{800}\u{ffff}\u{10000}".as_bytes(),
        ];
        for lead in 0..70 {
            for seq in seqs {
                let mut b = vec![b'x'; lead];
                b.extend_from_slice(seq);
                b.extend_from_slice(b"tail after it, long enough for a chunk or two");
                for len in 0..=b.len() {
                    let b = &b[..len];
                    let core = std::str::from_utf8(b).map_err(|e| e.valid_up_to());
                    assert_eq!(super::utf8(b), core, "{b:?}");
                }
            }
        }
    }

    #[test]
    fn depth_is_limited_without_recursion() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(matches!(
            Tape::parse(&deep, 256),
            Err(TapeError::TooDeep { .. })
        ));
        let ok = "[".repeat(256) + &"]".repeat(256);
        assert!(Tape::parse(&ok, 256).is_ok());
    }
}
