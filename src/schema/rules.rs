//! The validation rules as compiled tables. `build.rs` reads the readable source,
//! `rules/*.rules`, with the text parser in `compile.rs` and writes each protocol's rules
//! as one constant `Rules` of these types (included by `schema/mod.rs`): nothing is parsed
//! at run time. Types are hash-consed, every reference is a `u16` index into a flat table,
//! and all names live in one string.
//!
//! This file is also compiled into the build script (as the emitter's vocabulary), so it
//! stands alone: no `crate::` or `super::` paths.

// Generated tables use what the rules hold; not every variant or helper occurs in both uses.
#![allow(dead_code)]

/// Index into `Rules::tys`.
pub type TyId = u16;
/// Index into the string table (`Rules::str`).
pub type Str = u16;
/// No type / no string.
pub const NONE: u16 = u16::MAX;

/// JSON type bits for `Basic::mask`.
pub const T_NULL: u8 = 1;
pub const T_BOOL: u8 = 2;
pub const T_INT: u8 = 4;
pub const T_NUM: u8 = 8; // any number, integers included
pub const T_STR: u8 = 16;
pub const T_ARR: u8 = 32;
pub const T_OBJ: u8 = 64;

/// `Basic::format` values (other formats are annotations).
pub const F_URI: u8 = 1;
pub const F_DATE_TIME: u8 = 2;

/// `Method::flags`: `params` may be omitted; may be omitted where `{}` would be valid.
pub const PARAMS_OPTIONAL: u8 = 1;
pub const PARAMS_EMPTY_OK: u8 = 2;

/// `Method::dir`.
pub const DIR_CLIENT: u8 = 0;
pub const DIR_SERVER: u8 = 1;
pub const DIR_BOTH: u8 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Any,
    /// `Rules::basics[i]`.
    Basic(u16),
    /// Any of the literals `Rules::lits[start..start + len]` (a constant has one).
    Lits(u16, u16),
    /// Parts in `Rules::lists[start..start + len]`.
    All(u16, u16),
    AnyOf(u16, u16),
    OneOf(u16, u16),
    Not(TyId),
    /// An object dispatched on the string member `key`: (value, type) pairs sorted by
    /// value in `Rules::variants[start..start + len]`, and the type of any other string
    /// value (open unions) or `NONE`.
    Tag(Str, u16, u16, TyId),
    /// A definition, resolved through the profile in use (`Profile::defs`).
    Ref(u16),
    /// The first type; if it fails but the second holds, a tolerated deviation (warning).
    Tolerate(TyId, TyId),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    Str(Str),
    Num(f64),
    Bool(bool),
}

/// Keyword constraints of one schema, each applying only to values of its own type (as in
/// JSON Schema); `mask == 0` means any type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Basic {
    pub mask: u8,
    pub format: u8,
    pub pattern: Str,
    /// `Rules::ranges` index: numeric range, string length or item count (by `mask`).
    pub range: u16,
    /// Declared members, sorted by name: `Rules::props[props..props + nprops]`.
    pub props: u16,
    pub nprops: u16,
    /// The type of undeclared members, items of an array, or `NONE`.
    pub rest: TyId,
    pub items: TyId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prop {
    pub name: Str,
    pub ty: TyId,
    /// A tolerated older name of the member `alias_of` (a warning), or `NONE`.
    pub alias_of: Str,
    pub required: bool,
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

#[derive(Debug)]
pub struct Profile {
    pub name: &'static str,
    /// Definition per symbol (`NONE` where this profile does not define it).
    pub defs: &'static [TyId],
    /// Sorted by name; the rules of one name (request, notification, directions) adjacent.
    pub methods: &'static [Method],
}

#[derive(Debug)]
pub struct Rules {
    pub tys: &'static [Ty],
    pub basics: &'static [Basic],
    pub lits: &'static [Lit],
    pub lists: &'static [TyId],
    pub variants: &'static [(Str, TyId)],
    pub props: &'static [Prop],
    /// Inclusive bounds; ±`f64::MAX` where there is none.
    pub ranges: &'static [(f64, f64)],
    /// Symbol names sorted, so a symbol is its position here.
    pub syms: &'static [Str],
    /// All names, one after the other; string `i` ends at `ends[i]`.
    pub text: &'static str,
    pub ends: &'static [u16],
    pub profiles: &'static [Profile],
}

impl Rules {
    pub fn str(&self, s: Str) -> &'static str {
        let start = match s {
            0 => 0,
            _ => self.ends.get(s as usize - 1).copied().unwrap_or(0),
        };
        let end = self.ends.get(s as usize).copied().unwrap_or(0);
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    pub fn list(&self, start: u16, len: u16) -> &'static [TyId] {
        self.lists.get(start as usize..start as usize + len as usize).unwrap_or(&[])
    }

    pub fn props(&self, b: &Basic) -> &'static [Prop] {
        self.props.get(b.props as usize..b.props as usize + b.nprops as usize).unwrap_or(&[])
    }

    pub fn profile(&self, name: &str) -> Option<&'static Profile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// The symbol of a definition name.
    pub fn sym(&self, name: &str) -> Option<u16> {
        self.syms.binary_search_by(|&s| self.str(s).cmp(name)).ok().map(|i| i as u16)
    }

    /// The rules of `method` in profile `p` (empty when it has none).
    pub fn methods(&self, p: &Profile, method: &str) -> &'static [Method] {
        let m = p.methods;
        let lo = m.partition_point(|r| self.str(r.name) < method);
        let hi = lo + m[lo..].partition_point(|r| self.str(r.name) == method);
        &m[lo..hi]
    }
}

impl Profile {
    /// The definition of symbol `sym` here, if any.
    pub fn def(&self, sym: u16) -> Option<TyId> {
        self.defs.get(sym as usize).copied().filter(|&t| t != NONE)
    }
}
