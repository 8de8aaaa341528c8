//! The rules language, read at build time: `build.rs` parses `rules/*.rules` (a compact
//! text description of every message type, see the header of `rules/acp.rules`) into an
//! arena of type nodes and `emit`s them as the tables of `rules.rs`. Not part of the
//! library. Definitions are shared by the profiles (schema versions) listed in the `@`
//! line above them; a reference is a symbol resolved through the profile in use, so one
//! shared body can point at each version's own `ContentBlock`.

use std::collections::HashMap;

pub type TyId = u32;
pub type Sym = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    None,
    Uri,
    DateTime,
    AbsolutePath,
}

/// JSON type bits for `Basic::mask`: the tables' own (one definition for both sides).
pub use super::rules::{T_ARR, T_BOOL, T_INT, T_NULL, T_NUM, T_OBJ, T_STR};

#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Str(Box<str>),
    Num(f64),
    Bool(bool),
}

#[derive(Clone, Debug)]
pub struct Prop {
    pub name: Box<str>,
    pub ty: TyId,
    pub required: bool,
    /// A tolerated older name of the member `alias_of`: accepted with a warning.
    pub alias_of: Option<Box<str>>,
}

/// Keyword constraints of one schema, each applying only to values of its own type
/// (as in JSON Schema); `mask == 0` means any type.
#[derive(Clone, Debug, Default)]
pub struct Basic {
    pub mask: u8,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub len: (Option<u32>, Option<u32>),
    pub format: Option<Format>,
    pub pattern: Option<Box<str>>,
    /// Declared members, sorted by name.
    pub props: Vec<Prop>,
    pub rest: Option<TyId>,
    pub items: Option<TyId>,
    pub count: (Option<u32>, Option<u32>),
}

#[derive(Clone, Debug)]
pub enum Ty {
    Any,
    Basic(Box<Basic>),
    Const(Lit),
    /// Any of these literals (an enum).
    Enum(Vec<Lit>),
    All(Vec<TyId>),
    AnyOf(Vec<TyId>),
    OneOf(Vec<TyId>),
    Not(TyId),
    /// An object dispatched on the string member `key`: sorted (value, type) pairs, and the
    /// type for any other string value (open unions), if allowed.
    Tag {
        key: Box<str>,
        variants: Vec<(Box<str>, TyId)>,
        other: Option<TyId>,
        /// The type of an object without `key` (`tag(k=v)`: variant `v`); none: required.
        absent: Option<TyId>,
    },
    Ref(Sym),
    /// The first type; if it fails but the second holds, a tolerated deviation (warning).
    Tolerate(TyId, TyId),
    /// `T ! 'code' 'message'` (`?`: a warning): one issue of the overlay's own in place of T's.
    Verdict {
        ty: TyId,
        code: Box<str>,
        message: Box<str>,
        warning: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    ClientToServer,
    ServerToClient,
    Both,
}

#[derive(Clone, Debug)]
pub struct MethodRule {
    pub dir: Dir,
    /// `None`: no params member is described (any is accepted).
    pub params: Option<TyId>,
    /// `params` may be omitted.
    pub params_optional: bool,
    /// `params` may be omitted where `{}` would be valid.
    pub params_empty_ok: bool,
    /// `None`: a notification.
    pub result: Option<TyId>,
    /// A tolerated name: every use is reported with this warning.
    pub warning: Option<Box<str>>,
    /// `+Check`: the overlay's rules on the params beyond the schema's.
    pub check: Option<TyId>,
}

#[derive(Debug, Default)]
pub struct Profile {
    /// Definition per symbol (`u32::MAX` when this profile does not define it).
    pub defs: Vec<TyId>,
    pub methods: HashMap<Box<str>, Vec<MethodRule>>,
}

#[derive(Debug, Default)]
pub struct Rules {
    pub tys: Vec<Ty>,
    pub syms: HashMap<Box<str>, Sym>,
    pub profiles: HashMap<Box<str>, Profile>,
}

pub const UNDEFINED: TyId = u32::MAX;

impl Rules {
    pub fn parse(text: &str) -> Result<Rules, String> {
        let mut r = Rules::default();
        r.tys.push(Ty::Any); // TyId 0
        let mut current: Vec<Box<str>> = Vec::new();
        for (no, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |e: String| format!("rules line {}: {e}", no + 1);
            if let Some(names) = line.strip_prefix('@') {
                current = names.split_whitespace().map(Box::from).collect();
                for p in &current {
                    r.profiles.entry(p.clone()).or_default();
                }
            } else if let Some(dir) = line.chars().next().and_then(dir_of) {
                let (name, rule) = r.method_line(dir, &line[1..]).map_err(at)?;
                for p in &current {
                    let prof = r
                        .profiles
                        .get_mut(p)
                        .ok_or_else(|| at("no profile".into()))?;
                    prof.methods
                        .entry(name.clone())
                        .or_default()
                        .push(rule.clone());
                }
            } else {
                let (name, body) = line
                    .split_once(" = ")
                    .ok_or_else(|| at("expected `Name = type`".into()))?;
                let ty = r.expr_text(body).map_err(at)?;
                let sym = r.sym(name.trim());
                for p in &current {
                    let prof = r
                        .profiles
                        .get_mut(p)
                        .ok_or_else(|| at("no profile".into()))?;
                    if prof.defs.len() <= sym as usize {
                        prof.defs.resize(sym as usize + 1, UNDEFINED);
                    }
                    prof.defs[sym as usize] = ty;
                }
            }
        }
        Ok(r)
    }

    pub fn sym(&mut self, name: &str) -> Sym {
        let n = self.syms.len() as Sym;
        *self.syms.entry(Box::from(name)).or_insert(n)
    }

    fn push(&mut self, t: Ty) -> TyId {
        self.tys.push(t);
        (self.tys.len() - 1) as TyId
    }

    fn expr_text(&mut self, s: &str) -> Result<TyId, String> {
        let mut p = Cursor {
            s: s.as_bytes(),
            i: 0,
        };
        let t = self.expr(&mut p)?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("unexpected `{}`", &s[p.i..]));
        }
        Ok(t)
    }

    /// `> method Params Result ["warning"]`: `?Params` may be omitted, `~Params` where `{}`
    /// would do, `-` none / notification.
    fn method_line(&mut self, dir: Dir, rest: &str) -> Result<(Box<str>, MethodRule), String> {
        let (head, warning) = match rest.find('"') {
            Some(q) => (
                &rest[..q],
                Some(Box::from(rest[q..].trim().trim_matches('"'))),
            ),
            None => (rest, None),
        };
        let f: Vec<&str> = head.split_whitespace().collect();
        let (name, params, result, check) = match f[..] {
            [name, params, result] => (name, params, result, None),
            [name, params, result, check] => match check.strip_prefix('+') {
                Some(c) => (name, params, result, Some(self.expr_text(c)?)),
                None => return Err("expected `+Check` after the result".into()),
            },
            _ => return Err("expected `dir method params result [+Check]`".into()),
        };
        let (params_optional, params) = match params.strip_prefix('?') {
            Some(p) => (true, p),
            None => (false, params),
        };
        let (params_empty_ok, params) = match params.strip_prefix('~') {
            Some(p) => (true, p),
            None => (false, params),
        };
        let params = if params == "-" {
            None
        } else {
            Some(self.expr_text(params)?)
        };
        let result = if result == "-" {
            None
        } else {
            Some(self.expr_text(result)?)
        };
        Ok((
            Box::from(name),
            MethodRule {
                dir,
                params,
                params_optional,
                params_empty_ok,
                result,
                warning,
                check,
            },
        ))
    }

    // expr := alt ('~' alt)? (('!' | '?') string string)?
    fn expr(&mut self, p: &mut Cursor) -> Result<TyId, String> {
        let mut a = self.alt(p)?;
        if p.eat(b'~') {
            let b = self.alt(p)?;
            a = self.push(Ty::Tolerate(a, b));
        }
        let warning = match p.peek() {
            Some(b'!') => false,
            Some(b'?') => true,
            _ => return Ok(a),
        };
        p.i += 1;
        let (code, message) = (p.string()?, p.string()?);
        Ok(self.push(Ty::Verdict {
            ty: a,
            code: code.into(),
            message: message.into(),
            warning,
        }))
    }

    // alt := one ('|' one)*
    fn alt(&mut self, p: &mut Cursor) -> Result<TyId, String> {
        let mut v = vec![self.oneof(p)?];
        while p.eat(b'|') {
            v.push(self.oneof(p)?);
        }
        Ok(self.union(v))
    }

    /// `A|B|…`, simplified where that is exact: literals become an enum, `T|null` joins null
    /// into T's type mask.
    fn union(&mut self, v: Vec<TyId>) -> TyId {
        if v.len() == 1 {
            return v[0];
        }
        if v.iter()
            .all(|&t| matches!(self.tys[t as usize], Ty::Const(_)))
        {
            let lits = v.iter().map(|&t| match &self.tys[t as usize] {
                Ty::Const(l) => l.clone(),
                _ => Lit::Bool(false),
            });
            let lits = lits.collect();
            return self.push(Ty::Enum(lits));
        }
        if v.len() == 2 {
            let null = |t: &Ty| matches!(t, Ty::Basic(b) if b.mask == T_NULL);
            for (x, y) in [(v[0], v[1]), (v[1], v[0])] {
                if null(&self.tys[y as usize]) {
                    if let Ty::Basic(b) = &self.tys[x as usize] {
                        if b.mask != 0 {
                            let mut b = b.clone();
                            b.mask |= T_NULL;
                            return self.push(Ty::Basic(b));
                        }
                    }
                }
            }
        }
        self.push(Ty::AnyOf(v))
    }

    // oneof := all ('^' all)*
    fn oneof(&mut self, p: &mut Cursor) -> Result<TyId, String> {
        let mut v = vec![self.all(p)?];
        while p.eat(b'^') {
            v.push(self.all(p)?);
        }
        Ok(if v.len() == 1 {
            v[0]
        } else {
            self.push(Ty::OneOf(v))
        })
    }

    // all := not ('&' not)*
    fn all(&mut self, p: &mut Cursor) -> Result<TyId, String> {
        let mut v = vec![self.not(p)?];
        while p.eat(b'&') {
            v.push(self.not(p)?);
        }
        Ok(if v.len() == 1 {
            v[0]
        } else {
            self.push(Ty::All(v))
        })
    }

    fn not(&mut self, p: &mut Cursor) -> Result<TyId, String> {
        if p.eat(b'!') {
            let t = self.not(p)?;
            return Ok(self.push(Ty::Not(t)));
        }
        self.atom(p)
    }

    fn atom(&mut self, p: &mut Cursor) -> Result<TyId, String> {
        p.ws();
        match p.peek() {
            Some(b'(') => {
                p.i += 1;
                let t = self.expr(p)?;
                p.expect(b')')?;
                Ok(t)
            }
            Some(b'"') => {
                let s = p.string()?;
                Ok(self.push(Ty::Const(Lit::Str(s.into()))))
            }
            Some(b'-' | b'0'..=b'9') => {
                let n = p.number()?;
                Ok(self.push(Ty::Const(Lit::Num(n))))
            }
            Some(b'{') => {
                let mut b = Basic {
                    mask: T_OBJ,
                    ..Basic::default()
                };
                self.object(p, &mut b)?;
                self.suffixes(p, b)
            }
            Some(b'[') => {
                let mut b = Basic {
                    mask: T_ARR,
                    ..Basic::default()
                };
                self.array(p, &mut b)?;
                self.suffixes(p, b)
            }
            _ => {
                let w = p.word();
                let mask = match w {
                    "any" => 0,
                    "null" => T_NULL,
                    "bool" => T_BOOL,
                    "int" => T_INT,
                    "num" => T_NUM,
                    "str" => T_STR,
                    "arr" => T_ARR,
                    "obj" => T_OBJ,
                    "true" | "false" => return Ok(self.push(Ty::Const(Lit::Bool(w == "true")))),
                    "tag" => return self.tag(p),
                    "" => return Err(format!("expected a type at `{}`", p.rest())),
                    name => {
                        let s = self.sym(name);
                        return Ok(self.push(Ty::Ref(s)));
                    }
                };
                let mut b = Basic {
                    mask,
                    ..Basic::default()
                };
                match p.peek() {
                    Some(b'{') => self.object(p, &mut b)?,
                    Some(b'[') => self.array(p, &mut b)?,
                    _ => {}
                }
                // `any[T]`: the items of an array; any other value holds. (A typeless basic's
                // `items` would also type an object's members: an array or not an array.)
                if w == "any" && b.items.is_some() {
                    b.mask = T_ARR;
                    let items = self.push(Ty::Basic(Box::new(b)));
                    let other = Basic {
                        mask: T_NULL | T_BOOL | T_NUM | T_STR | T_OBJ,
                        ..Basic::default()
                    };
                    let other = self.push(Ty::Basic(Box::new(other)));
                    return Ok(self.push(Ty::AnyOf(vec![items, other])));
                }
                if w == "any"
                    && b.props.is_empty()
                    && b.rest.is_none()
                    && b.items.is_none()
                    && p.peek() != Some(b'(')
                    && !matches!(p.peek_raw(), Some(b'/' | b'%'))
                {
                    return Ok(0);
                }
                self.suffixes(p, b)
            }
        }
    }

    /// `(lo..hi)` ranges, `/format`, `%"pattern"` right after a basic type.
    fn suffixes(&mut self, p: &mut Cursor, mut b: Basic) -> Result<TyId, String> {
        loop {
            match p.peek_raw() {
                Some(b'(') => {
                    p.i += 1;
                    let lo = if p.peek() == Some(b'.') {
                        None
                    } else {
                        Some(p.number()?)
                    };
                    p.expect(b'.')?;
                    p.expect(b'.')?;
                    let hi = if p.peek() == Some(b')') {
                        None
                    } else {
                        Some(p.number()?)
                    };
                    p.expect(b')')?;
                    let count = |v: Option<f64>| v.map(|v| v as u32);
                    if b.mask & T_ARR != 0 && b.mask & !(T_ARR | T_NULL) == 0 {
                        b.count = (count(lo), count(hi));
                    } else if b.mask & T_STR != 0 && b.mask & !(T_STR | T_NULL) == 0 {
                        b.len = (count(lo), count(hi));
                    } else {
                        b.min = lo;
                        b.max = hi;
                    }
                }
                Some(b'/') => {
                    p.i += 1;
                    b.format = Some(match p.word() {
                        "uri" => Format::Uri,
                        "date-time" => Format::DateTime,
                        "absolute-path" => Format::AbsolutePath,
                        _ => Format::None, // annotations only (uri-template, regex, byte, email)
                    });
                }
                Some(b'%') => {
                    p.i += 1;
                    let pat = p.string()?;
                    super::pattern::check_syntax(&pat)?;
                    b.pattern = Some(pat.into());
                }
                _ => return Ok(self.push(Ty::Basic(Box::new(b)))),
            }
        }
    }

    fn object(&mut self, p: &mut Cursor, b: &mut Basic) -> Result<(), String> {
        p.expect(b'{')?;
        loop {
            p.ws();
            if p.eat(b'}') {
                break;
            }
            if p.s[p.i..].starts_with(b"..") {
                p.i += 2;
                b.rest = Some(self.expr(p)?);
                continue;
            }
            let name: String = if p.peek() == Some(b'"') {
                p.string()?
            } else {
                p.word_with(true).to_string()
            };
            if name.is_empty() {
                return Err(format!("expected a member name at `{}`", p.rest()));
            }
            let alias_of = if p.eat_raw(b'@') {
                Some(Box::from(p.word()))
            } else {
                None
            };
            let required = !p.eat_raw(b'?');
            p.expect(b':')?;
            let ty = self.expr(p)?;
            // Kept sorted by name as they come (a stable insertion: few members, no sort code).
            let at = b.props.partition_point(|q| *q.name <= *name);
            b.props.insert(
                at,
                Prop {
                    name: name.into(),
                    ty,
                    required,
                    alias_of,
                },
            );
        }
        Ok(())
    }

    fn array(&mut self, p: &mut Cursor, b: &mut Basic) -> Result<(), String> {
        p.expect(b'[')?;
        b.items = Some(self.expr(p)?);
        p.expect(b']')
    }

    fn tag(&mut self, p: &mut Cursor) -> Result<TyId, String> {
        p.expect(b'(')?;
        let key: Box<str> = p.word().into();
        let absent = if p.eat(b'=') {
            Some(p.word_with(true).to_string())
        } else {
            None
        };
        p.expect(b')')?;
        p.expect(b'{')?;
        let (mut variants, mut other) = (Vec::new(), None);
        loop {
            p.ws();
            if p.eat(b'}') {
                break;
            }
            let value: String = match p.peek() {
                Some(b'"') => p.string()?,
                Some(b'*') => {
                    p.i += 1;
                    p.expect(b':')?;
                    other = Some(self.expr(p)?);
                    continue;
                }
                _ => p.word_with(true).to_string(),
            };
            p.expect(b':')?;
            let at = variants.partition_point(|(v, _): &(Box<str>, TyId)| **v <= *value);
            variants.insert(at, (value.into_boxed_str(), self.expr(p)?));
        }
        let absent = match absent {
            Some(v) => Some(
                variants
                    .iter()
                    .find(|(x, _)| **x == *v)
                    .map(|&(_, t)| t)
                    .ok_or_else(|| format!("`tag({key}={v})` names no variant"))?,
            ),
            None => None,
        };
        Ok(self.push(Ty::Tag {
            key,
            variants,
            other,
            absent,
        }))
    }
}

fn dir_of(c: char) -> Option<Dir> {
    match c {
        '>' => Some(Dir::ClientToServer),
        '<' => Some(Dir::ServerToClient),
        '=' => Some(Dir::Both),
        _ => None,
    }
}

struct Cursor<'s> {
    s: &'s [u8],
    i: usize,
}

impl<'s> Cursor<'s> {
    fn ws(&mut self) {
        while self.s.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn peek_raw(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        self.eat_raw(c)
    }
    fn eat_raw(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected `{}` at `{}`", c as char, self.rest()))
        }
    }
    fn rest(&self) -> String {
        String::from_utf8_lossy(&self.s[self.i..self.s.len().min(self.i + 40)]).into_owned()
    }
    /// A name: letters, digits and `_ $ . -`.
    fn word(&mut self) -> &'s str {
        self.word_with(false)
    }
    /// A name that may also hold `/` (member names, tag values).
    fn word_with(&mut self, slash: bool) -> &'s str {
        self.ws();
        let st = self.i;
        while let Some(&c) = self.s.get(self.i) {
            if c.is_ascii_alphanumeric()
                || matches!(c, b'_' | b'$' | b'.' | b'-')
                || (slash && c == b'/')
            {
                // `..` starts a range or rest, never part of a name.
                if c == b'.' && self.s.get(self.i + 1) == Some(&b'.') {
                    break;
                }
                self.i += 1;
            } else {
                break;
            }
        }
        std::str::from_utf8(&self.s[st..self.i]).unwrap_or("")
    }
    fn number(&mut self) -> Result<f64, String> {
        self.ws();
        let st = self.i;
        while let Some(&c) = self.s.get(self.i) {
            let dots = c == b'.' && self.s.get(self.i + 1) == Some(&b'.');
            if (c.is_ascii_digit() || matches!(c, b'-' | b'.' | b'e' | b'E' | b'+')) && !dots {
                self.i += 1;
            } else {
                break;
            }
        }
        let t = std::str::from_utf8(&self.s[st..self.i]).unwrap_or("");
        t.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("bad number `{t}`"))
    }
    /// A string literal, in `"` or `'` (a message that holds `"`), without escapes.
    fn string(&mut self) -> Result<String, String> {
        self.ws();
        let st = self.i;
        let quote = match self.s.get(st) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return Err(format!("expected a string at `{}`", self.rest())),
        };
        self.i += 1;
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => return Err("no escapes in rules strings".into()),
                c if c == quote => {
                    let inner = std::str::from_utf8(&self.s[st + 1..self.i - 1])
                        .map_err(|e| e.to_string())?;
                    return Ok(inner.to_string());
                }
                _ => {}
            }
        }
        Err("unterminated string".into())
    }
}

use super::rules as rt;

/// Compiles rules text into the Rust expression of one `rules::Rules`: types and their
/// parts hash-consed, symbols numbered in name order, names sorted into one string.
/// Without `sym_names` the definitions' names are left out (only `validate_definition`
/// looks a definition up by name).
pub fn emit(text: &str, sym_names: bool) -> Result<String, String> {
    let r = Rules::parse(text)?;
    let mut names: Vec<(&str, Sym)> = r.syms.iter().map(|(n, &s)| (&**n, s)).collect();
    names.sort();
    let mut e = Emitter {
        sym_of: vec![0; names.len()],
        ..Emitter::default()
    };
    e.names(&r, sym_names)?;
    for (i, &(_, s)) in names.iter().enumerate() {
        e.sym_of[s as usize] = index(i)?;
    }
    let syms = if sym_names {
        names
            .iter()
            .map(|(n, _)| e.str(n))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    let sym = |name: &str| {
        names
            .iter()
            .position(|(n, _)| *n == name)
            .map_or(Ok(rt::NONE), index)
    };
    let (request_id, error) = (sym("RequestId")?, sym("Error")?);
    let mut profiles: Vec<(&Box<str>, &Profile)> = r.profiles.iter().collect();
    profiles.sort_by_key(|(n, _)| *n);
    let mut out_profiles = String::new();
    for (name, p) in profiles {
        let mut defs = Vec::new();
        for &(_, s) in &names {
            defs.push(match p.defs.get(s as usize) {
                Some(&t) if t != UNDEFINED => e.ty(&r, t)?,
                _ => rt::NONE,
            });
        }
        let mut rules: Vec<(&Box<str>, &MethodRule)> = p
            .methods
            .iter()
            .flat_map(|(n, v)| v.iter().map(move |m| (n, m)))
            .collect();
        rules.sort_by_key(|(n, _)| *n); // stable: the rules of one name keep their order
        let mut methods = Vec::new();
        let mut checks = Vec::new();
        for (n, m) in rules {
            methods.push(rt::Method {
                name: e.str(n)?,
                dir: match m.dir {
                    Dir::ClientToServer => rt::DIR_CLIENT,
                    Dir::ServerToClient => rt::DIR_SERVER,
                    Dir::Both => rt::DIR_BOTH,
                },
                flags: if m.params_optional {
                    rt::PARAMS_OPTIONAL
                } else {
                    0
                } | if m.params_empty_ok {
                    rt::PARAMS_EMPTY_OK
                } else {
                    0
                },
                params: e.opt(&r, m.params)?,
                result: e.opt(&r, m.result)?,
                warning: m.warning.as_deref().map_or(Ok(rt::NONE), |w| e.str(w))?,
            });
            if let (Some(t), Some(last)) = (m.check, methods.last()) {
                checks.push(rt::Check {
                    method: last.name,
                    dir: last.dir,
                    ty: e.ty(&r, t)?,
                });
            }
        }
        out_profiles += &format!(
            "Profile {{ name: {name:?}, defs: &{defs:?}, methods: &{methods:?}, checks: &{checks:?} }},\n"
        );
    }
    Ok(format!(
        "Rules {{\nbasics: &{:?},\nexts: &{:?},\nprops: &{:?},\ntags: &{:?},\nvariants: &{:?},\nruns: &{:?},\nnums: &{:?},\nranges: &{:?},\nsyms: &{syms:?},\nrequest_id: {request_id},\nerror: {error},\ntext: {:?},\nprofiles: &[\n{out_profiles}],\n}}\n",
        e.basics,
        e.exts,
        e.props,
        e.tags,
        e.variants,
        e.runs,
        e.nums,
        e.ranges,
        e.text,
    ))
}

fn index(i: usize) -> Result<u16, String> {
    u16::try_from(i)
        .ok()
        .filter(|&i| i != rt::NONE)
        .ok_or_else(|| "more than 65535 entries in a table".into())
}

#[derive(Default)]
struct Emitter {
    /// Symbol numbers of the parse -> symbol numbers in name order.
    sym_of: Vec<u16>,
    /// Parsed type -> compiled type.
    memo: HashMap<TyId, u16>,
    basics: Vec<rt::Basic>,
    exts: Vec<rt::Ext>,
    props: Vec<rt::Prop>,
    tags: Vec<rt::Tag>,
    variants: Vec<(u16, u16)>,
    runs: Vec<u16>,
    nums: Vec<f64>,
    ranges: Vec<(f64, f64)>,
    /// Entries already in a table, by their text: index.
    seen: HashMap<String, u16>,
    text: String,
    offsets: HashMap<String, u16>,
}

/// The index of `items` in `table`, appended unless the same sequence is already there.
fn intern<T: Clone + std::fmt::Debug>(
    seen: &mut HashMap<String, u16>,
    table: &mut Vec<T>,
    kind: &str,
    items: &[T],
) -> Result<u16, String> {
    let key = format!("{kind}{items:?}");
    if let Some(&at) = seen.get(&key) {
        return Ok(at);
    }
    let at = index(table.len())?;
    table.extend_from_slice(items);
    index(table.len())?;
    seen.insert(key, at);
    Ok(at)
}

impl Emitter {
    /// Lays out every name of the rules, sorted (neighbours share prefixes, which gzip
    /// likes), each after its length byte.
    fn names(&mut self, r: &Rules, sym_names: bool) -> Result<(), String> {
        let mut all: Vec<&str> = if sym_names {
            r.syms.keys().map(|n| &**n).collect()
        } else {
            Vec::new()
        };
        for t in &r.tys {
            match t {
                Ty::Basic(b) => {
                    all.extend(b.pattern.as_deref());
                    for p in &b.props {
                        all.push(&p.name);
                        all.extend(p.alias_of.as_deref());
                    }
                }
                Ty::Const(Lit::Str(s)) => all.push(s),
                Ty::Enum(ls) => all.extend(ls.iter().filter_map(|l| {
                    if let Lit::Str(s) = l {
                        Some(&**s)
                    } else {
                        None
                    }
                })),
                Ty::Tag { key, variants, .. } => {
                    all.push(key);
                    all.extend(variants.iter().map(|(v, _)| &**v));
                }
                Ty::Verdict { code, message, .. } => {
                    all.push(code);
                    all.push(message);
                }
                _ => {}
            }
        }
        for p in r.profiles.values() {
            for (n, rules) in &p.methods {
                all.push(n);
                all.extend(rules.iter().filter_map(|m| m.warning.as_deref()));
            }
        }
        all.sort();
        all.dedup();
        for n in all {
            let len = u8::try_from(n.len())
                .ok()
                .filter(|&l| l < 0x80)
                .ok_or_else(|| format!("name longer than 127 bytes: {n}"))?;
            let at = u16::try_from(self.text.len())
                .ok()
                .filter(|&a| a < rt::LIT_NUM)
                .ok_or("the names exceed 32 KiB")?;
            self.text.push(char::from(len));
            self.text.push_str(n);
            self.offsets.insert(n.to_string(), at);
        }
        Ok(())
    }

    fn str(&self, s: &str) -> Result<u16, String> {
        self.offsets
            .get(s)
            .copied()
            .ok_or_else(|| format!("name `{s}` not laid out"))
    }

    fn run(&mut self, items: &[u16]) -> Result<u16, String> {
        let mut v = vec![index(items.len())?];
        v.extend_from_slice(items);
        intern(&mut self.seen, &mut self.runs, "run", &v)
    }

    fn lits(&mut self, ls: &[Lit]) -> Result<rt::Ty, String> {
        let mut codes = Vec::new();
        for l in ls {
            codes.push(match l {
                Lit::Str(s) => self.str(s)?,
                Lit::Num(x) => rt::LIT_NUM | intern(&mut self.seen, &mut self.nums, "num", &[*x])?,
                Lit::Bool(b) => rt::LIT_BOOL | u16::from(*b),
            });
        }
        Ok(rt::Ty::Lits(self.run(&codes)?))
    }

    fn list(&mut self, r: &Rules, v: &[TyId]) -> Result<u16, String> {
        let ids = v
            .iter()
            .map(|&t| self.ty(r, t))
            .collect::<Result<Vec<_>, _>>()?;
        self.run(&ids)
    }

    fn opt(&mut self, r: &Rules, t: Option<TyId>) -> Result<u16, String> {
        t.map_or(Ok(rt::NONE), |t| self.ty(r, t))
    }

    /// The `TyId` of `t`: `t` packed (`rt::TyId`).
    fn push(&mut self, t: rt::Ty) -> Result<u16, String> {
        t.pack()
            .ok_or_else(|| format!("{t:?}: an index past the 4,095 a packed type holds"))
    }

    fn ty(&mut self, r: &Rules, t: TyId) -> Result<u16, String> {
        if let Some(&id) = self.memo.get(&t) {
            return Ok(id);
        }
        let compiled = match &r.tys[t as usize] {
            Ty::Any => rt::Ty::Any,
            Ty::Basic(b) => rt::Ty::Basic(self.basic(r, b)?),
            Ty::Const(l) => self.lits(std::slice::from_ref(l))?,
            Ty::Enum(ls) => self.lits(ls)?,
            Ty::All(v) => rt::Ty::All(self.list(r, v)?),
            Ty::AnyOf(v) => rt::Ty::AnyOf(self.list(r, v)?),
            Ty::OneOf(v) => rt::Ty::OneOf(self.list(r, v)?),
            Ty::Not(x) => rt::Ty::Not(self.list(r, &[*x])?),
            Ty::Tag {
                key,
                variants,
                other,
                absent,
            } => {
                let key = self.str(key)?;
                let mut vs = Vec::new();
                for (value, t) in variants {
                    vs.push((self.str(value)?, self.ty(r, *t)?));
                }
                let tag = rt::Tag {
                    key,
                    at: intern(&mut self.seen, &mut self.variants, "tag", &vs)?,
                    n: index(vs.len())?,
                    other: self.opt(r, *other)?,
                    absent: self.opt(r, *absent)?,
                };
                rt::Ty::Tag(intern(&mut self.seen, &mut self.tags, "tag", &[tag])?)
            }
            Ty::Ref(s) => rt::Ty::Ref(self.sym_of[*s as usize]),
            Ty::Tolerate(a, b) => rt::Ty::Tolerate(self.list(r, &[*a, *b])?),
            Ty::Verdict {
                ty,
                code,
                message,
                warning,
            } => {
                let ty = self.ty(r, *ty)?;
                let run = [self.str(code)?, self.str(message)?, u16::from(*warning), ty];
                rt::Ty::Verdict(self.run(&run)?)
            }
        };
        let id = self.push(compiled)?;
        self.memo.insert(t, id);
        Ok(id)
    }

    fn basic(&mut self, r: &Rules, b: &Basic) -> Result<u16, String> {
        // The parser sets the bounds that fit the mask (count, length or value): one range.
        let u = |v: Option<u32>| v.map(f64::from);
        let bounds = [
            (b.min, b.max),
            (u(b.len.0), u(b.len.1)),
            (u(b.count.0), u(b.count.1)),
        ];
        let mut set = bounds
            .iter()
            .filter(|(lo, hi)| lo.is_some() || hi.is_some());
        let range = match (set.next(), set.next()) {
            (None, _) => rt::NONE,
            (Some(&(lo, hi)), None) => {
                let pair = (lo.unwrap_or(-f64::MAX), hi.unwrap_or(f64::MAX));
                intern(&mut self.seen, &mut self.ranges, "range", &[pair])?
            }
            _ => return Err("several kinds of bounds on one type".into()),
        };
        let format = match b.format {
            Some(Format::Uri) => rt::F_URI,
            Some(Format::DateTime) => rt::F_DATE_TIME,
            Some(Format::AbsolutePath) => rt::F_ABSOLUTE_PATH,
            _ => 0,
        };
        let pattern = b.pattern.as_deref().map_or(Ok(rt::NONE), |p| self.str(p))?;
        let ext = rt::Ext {
            format,
            pattern,
            range,
        };
        let ext = if ext
            == (rt::Ext {
                format: 0,
                pattern: rt::NONE,
                range: rt::NONE,
            }) {
            0
        } else {
            let i = intern(&mut self.seen, &mut self.exts, "ext", &[ext])? + 1;
            u8::try_from(i).map_err(|_| "more than 255 keyword sets")?
        };
        let mut props = Vec::new();
        for p in &b.props {
            let mut ty = self.ty(r, p.ty)?;
            if let Some(a) = p.alias_of.as_deref() {
                let older = rt::Ty::Older(self.run(&[self.str(a)?, ty])?);
                ty = self.push(older)?;
            }
            let name = self.str(&p.name)?;
            props.push(rt::Prop {
                name: name | if p.required { rt::REQUIRED } else { 0 },
                ty,
            });
        }
        let compiled = rt::Basic {
            mask: b.mask,
            ext,
            nprops: u8::try_from(props.len()).map_err(|_| "more than 255 members")?,
            props: if props.is_empty() {
                0
            } else {
                intern(&mut self.seen, &mut self.props, "props", &props)?
            },
            sub: self.opt(r, b.rest.or(b.items))?,
        };
        intern(&mut self.seen, &mut self.basics, "basic", &[compiled])
    }
}
