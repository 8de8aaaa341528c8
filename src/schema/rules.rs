//! The validation rules as compiled tables. `build.rs` reads the readable source,
//! `rules/*.rules`, with the text parser in `compile.rs` and writes each protocol's rules
//! as one constant `Rules` of these types (included by `schema/mod.rs`): nothing is parsed
//! at run time. A type is its variant and one `u16` index into a flat table (its parts
//! interned, so equal types are one number), packed into its `TyId`; every reference is a
//! `u16`, and all names live in one string: small, and laid out for gzip (see
//! docs/validation.md).
//!
//! This file is also compiled into the build script (as the emitter's vocabulary), so it
//! stands alone: no `crate::` or `super::` paths.

// Generated tables use what the rules hold; not every variant or helper occurs in both uses.
#![allow(dead_code)]

use crate::json::names::{cmp_names, same};
/// A type, as `Ty::pack` packs it: its variant and its index in one `u16`. A type is its own
/// number, so the rules need no table of types (docs/BENCHMARKS.md, "Types in one word");
/// `NONE` unpacks as `Ty::Any`.
pub type TyId = u16;
/// A name: its byte offset in `Rules::text`, where a length byte precedes it.
pub type Str = u16;
/// No type / no name.
pub const NONE: u16 = u16::MAX;

/// JSON type bits for `Basic::mask`.
pub const T_NULL: u8 = 1;
pub const T_BOOL: u8 = 2;
pub const T_INT: u8 = 4;
pub const T_NUM: u8 = 8; // any number, integers included
pub const T_STR: u8 = 16;
pub const T_ARR: u8 = 32;
pub const T_OBJ: u8 = 64;

/// `Ext::format` values (other formats are annotations).
pub const F_URI: u8 = 1;
pub const F_DATE_TIME: u8 = 2;
/// An absolute path, POSIX (`/home/u`) or Windows (`C:\x`, `C:/x`, `\\server\share`).
pub const F_ABSOLUTE_PATH: u8 = 3;

/// `Method::flags`: `params` may be omitted; may be omitted where `{}` would be valid.
pub const PARAMS_OPTIONAL: u8 = 1;
pub const PARAMS_EMPTY_OK: u8 = 2;

/// `Method::dir`.
pub const DIR_CLIENT: u8 = 0;
pub const DIR_SERVER: u8 = 1;
pub const DIR_BOTH: u8 = 2;

/// `Prop::name` bit: the member is required.
pub const REQUIRED: u16 = 0x8000;

/// A literal in a `Ty::Lits` run: a name (`Str`), `LIT_NUM | i` (`Rules::nums[i]`), or
/// `LIT_BOOL | 0/1`.
pub const LIT_NUM: u16 = 0x8000;
pub const LIT_BOOL: u16 = 0xC000;

/// A type. Runs (`u16` lists) are stored length-first in `Rules::runs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Any,
    /// `Rules::basics[i]`.
    Basic(u16),
    /// Any of the literals in this run.
    Lits(u16),
    /// Types in this run.
    All(u16),
    AnyOf(u16),
    OneOf(u16),
    /// Run [T]: not T.
    Not(u16),
    /// `Rules::tags[i]`.
    Tag(u16),
    /// A definition, resolved through the profile in use (`Profile::defs`).
    Ref(u16),
    /// Run [A, B]: A; if it fails but B holds, a tolerated deviation (warning).
    Tolerate(u16),
    /// Run [name, T]: a member holding T that is a tolerated older name of member `name`.
    Older(u16),
    /// Run [T, code, message, warning]: T; when it does not hold (or a member typed so is
    /// missing), one issue with this code and message (`{}` = the value) instead of T's; a
    /// warning when the last is 1.
    Verdict(u16),
}

/// A `TyId` holds a type's variant in its top four bits, its index in the low twelve.
const INDEX_BITS: u32 = 12;

impl Ty {
    /// Its `TyId`; none when its index does not fit in twelve bits (the build fails then).
    pub fn pack(self) -> Option<u16> {
        let (variant, index) = match self {
            Ty::Any => (0, 0),
            Ty::Basic(i) => (1, i),
            Ty::Lits(i) => (2, i),
            Ty::All(i) => (3, i),
            Ty::AnyOf(i) => (4, i),
            Ty::OneOf(i) => (5, i),
            Ty::Not(i) => (6, i),
            Ty::Tag(i) => (7, i),
            Ty::Ref(i) => (8, i),
            Ty::Tolerate(i) => (9, i),
            Ty::Older(i) => (10, i),
            Ty::Verdict(i) => (11, i),
        };
        (index >> INDEX_BITS == 0).then_some(variant << INDEX_BITS | index)
    }

    /// The type of a `TyId` (`pack` undone).
    #[inline(always)]
    pub fn unpack(word: u16) -> Ty {
        let i = word & ((1 << INDEX_BITS) - 1);
        match word >> INDEX_BITS {
            1 => Ty::Basic(i),
            2 => Ty::Lits(i),
            3 => Ty::All(i),
            4 => Ty::AnyOf(i),
            5 => Ty::OneOf(i),
            6 => Ty::Not(i),
            7 => Ty::Tag(i),
            8 => Ty::Ref(i),
            9 => Ty::Tolerate(i),
            10 => Ty::Older(i),
            11 => Ty::Verdict(i),
            _ => Ty::Any,
        }
    }
}

/// Keyword constraints of one schema, each applying only to values of its own type (as in
/// JSON Schema); `mask == 0` means any type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Basic {
    pub mask: u8,
    /// `Rules::exts[ext - 1]`, or 0 for none.
    pub ext: u8,
    /// Declared members, sorted by name (the order their issues are told in):
    /// `Rules::props[props..props + nprops]`.
    pub nprops: u8,
    pub props: u16,
    /// The type of undeclared members (objects) or of items (arrays), or `NONE`.
    pub sub: TyId,
}

/// The rarer keywords: format, pattern (`Str` or `NONE`), and `Rules::ranges` index or
/// `NONE` (the item count of an array type, the length of a string type, the value of
/// any other).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ext {
    pub format: u8,
    pub pattern: Str,
    pub range: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prop {
    /// `Str`, with `REQUIRED` set for a required member.
    pub name: u16,
    pub ty: TyId,
}

/// Dispatch on the string member `key`: (value, type) pairs sorted by value in
/// `Rules::variants[at..at + n]`, and the type of any other string value (open unions)
/// or `NONE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tag {
    pub key: Str,
    pub at: u16,
    pub n: u16,
    pub other: TyId,
    /// The type of an object without `key` (`tag(k=v)`: variant `v`), or `NONE`: required.
    pub absent: TyId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Method {
    pub name: Str,
    pub dir: u8,
    pub flags: u8,
    /// `NONE`: no params member is described (any is accepted).
    pub params: TyId,
    /// `NONE`: a notification.
    pub result: TyId,
    /// A tolerated name: every use is reported with this warning (or `NONE`).
    pub warning: Str,
}

/// Rules the schemas do not state, on a method's params (the overlay's `+Check` field): told
/// after the schema's issues, where the schema found nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    pub method: Str,
    pub dir: u8,
    pub ty: TyId,
}

#[derive(Debug)]
pub struct Profile {
    pub name: &'static str,
    /// Definition per symbol (`NONE` where this profile does not define it).
    pub defs: &'static [TyId],
    /// Sorted by name; the rules of one name (request, notification, directions) adjacent.
    pub methods: &'static [Method],
    /// The methods' checks, in name order.
    pub checks: &'static [Check],
}

#[derive(Debug)]
pub struct Rules {
    pub basics: &'static [Basic],
    pub exts: &'static [Ext],
    pub props: &'static [Prop],
    pub tags: &'static [Tag],
    pub variants: &'static [(Str, TyId)],
    pub runs: &'static [u16],
    pub nums: &'static [f64],
    /// Inclusive bounds; ±`f64::MAX` where there is none.
    pub ranges: &'static [(f64, f64)],
    /// Symbol names sorted, so a symbol is its position here (empty in the WebAssembly
    /// build, which has no use for them).
    pub syms: &'static [Str],
    /// The symbols of the envelope's definitions (`NONE` if undefined).
    pub request_id: u16,
    pub error: u16,
    /// All names, each after its length byte, in name order.
    pub text: &'static str,
    pub profiles: &'static [Profile],
}

/// A literal, decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    Str(&'static [u8]),
    Num(f64),
    Bool(bool),
}

impl Rules {
    /// The bytes of a name: what lookups compare (no char-boundary checks).
    #[inline(always)]
    pub fn name(&self, s: Str) -> &'static [u8] {
        let text = self.text.as_bytes();
        let at = s as usize + 1;
        let len = text.get(s as usize).copied().unwrap_or(0) as usize;
        text.get(at..at + len).unwrap_or(&[])
    }

    pub fn str(&self, s: Str) -> &'static str {
        std::str::from_utf8(self.name(s)).unwrap_or("")
    }

    #[inline(always)]
    pub fn ty(&self, t: TyId) -> Ty {
        Ty::unpack(t)
    }

    /// The run that starts at `at`. This and the accessors below are on every message's path,
    /// inlined by the compiler: wasm-opt leaves functions of one caller out of line
    /// (`wasm-pack.toml`).
    #[inline(always)]
    pub fn run(&self, at: u16) -> &'static [u16] {
        let at = at as usize;
        let len = self.runs.get(at).copied().unwrap_or(0) as usize;
        self.runs.get(at + 1..at + 1 + len).unwrap_or(&[])
    }

    #[inline(always)]
    pub fn lit(&self, code: u16) -> Lit {
        match code & LIT_BOOL {
            LIT_BOOL => Lit::Bool(code & 1 == 1),
            LIT_NUM => Lit::Num(
                self.nums
                    .get((code & !LIT_BOOL) as usize)
                    .copied()
                    .unwrap_or(f64::NAN),
            ),
            _ => Lit::Str(self.name(code)),
        }
    }

    #[inline(always)]
    pub fn props(&self, b: &Basic) -> &'static [Prop] {
        self.props
            .get(b.props as usize..b.props as usize + b.nprops as usize)
            .unwrap_or(&[])
    }

    pub fn ext(&self, b: &Basic) -> Option<&'static Ext> {
        self.exts.get((b.ext as usize).wrapping_sub(1))
    }

    #[inline(always)]
    pub fn profile(&self, name: &str) -> Option<&'static Profile> {
        self.profiles
            .iter()
            .find(|p| same(p.name.as_bytes(), name.as_bytes()))
    }

    /// The symbol of a definition name.
    pub fn sym(&self, name: &str) -> Option<u16> {
        self.syms
            .binary_search_by(|&s| cmp_names(self.name(s), name.as_bytes()))
            .ok()
            .map(|i| i as u16)
    }

    /// Whether name `s` is `key`: the length byte first, which settles most comparisons.
    #[inline(always)]
    pub fn is(&self, s: Str, key: &[u8]) -> bool {
        self.text
            .as_bytes()
            .get(s as usize)
            .is_some_and(|&len| len as usize == key.len())
            && same(self.name(s), key)
    }

    /// The rules of `method` in profile `p` (empty when it has none).
    #[inline(always)]
    pub fn methods(&self, p: &Profile, method: &str) -> &'static [Method] {
        // A scan that compares lengths first beats a binary search on these few dozen
        // names; each name is laid out once, so the rules of one method share its offset.
        // Plain loops: an iterator adapter would stay a call of its own on every message
        // (wasm-opt leaves functions of one caller out of line, `wasm-pack.toml`).
        let m = p.methods;
        let mut lo = 0;
        while lo < m.len() && !self.is(m[lo].name, method.as_bytes()) {
            lo += 1;
        }
        let mut hi = lo;
        while hi < m.len() && m[hi].name == m[lo].name {
            hi += 1;
        }
        &m[lo..hi]
    }
}

impl Profile {
    /// The definition of symbol `sym` here, if any.
    #[inline(always)]
    pub fn def(&self, sym: u16) -> Option<TyId> {
        self.defs.get(sym as usize).copied().filter(|&t| t != NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::{Ty, NONE};

    #[test]
    fn a_type_packs_into_one_word_and_back() {
        let all: [fn(u16) -> Ty; 11] = [
            Ty::Basic,
            Ty::Lits,
            Ty::All,
            Ty::AnyOf,
            Ty::OneOf,
            Ty::Not,
            Ty::Tag,
            Ty::Ref,
            Ty::Tolerate,
            Ty::Older,
            Ty::Verdict,
        ];
        assert_eq!(Ty::Any.pack(), Some(0));
        assert_eq!(Ty::unpack(0), Ty::Any);
        assert_eq!(Ty::unpack(NONE), Ty::Any, "no type is any");
        for variant in all {
            for i in [0, 1, 2_730, 4_095] {
                let word = variant(i).pack().expect("an index of twelve bits");
                assert_eq!(Ty::unpack(word), variant(i));
                assert_ne!(word, NONE);
            }
            assert_eq!(
                variant(4_096).pack(),
                None,
                "{:?} does not fit",
                variant(4_096)
            );
        }
    }
}
