//! The interpreter: walks one value of a tape against one type of the rules, recording
//! issues with JSON-pointer paths. Alternatives are tried quietly (counting, not
//! describing, failures); only the branch that explains a failure best is walked again
//! to describe it, so valid messages cost no allocation.

use super::rules::{
    Basic, Lit, Profile, Prop, Rules, Str, Tag, Ty, TyId, F_ABSOLUTE_PATH, F_DATE_TIME, F_URI,
    NONE, REQUIRED, T_ARR, T_BOOL, T_INT, T_NULL, T_NUM, T_OBJ, T_STR,
};
use super::{codes, Issue, Severity};
use crate::json::tape::{Kind, Tape};

/// At most this many issues are described per message.
pub const MAX_ISSUES: usize = 64;

pub struct Walker<'a> {
    pub rules: &'static Rules,
    pub prof: &'static Profile,
    pub tape: &'a Tape<'a>,
    pub issues: Vec<Issue>,
    /// > 0 while trying alternatives: failures are only counted.
    quiet: u32,
    qerrors: usize,
    qwarnings: usize,
    /// Scratch for matching members to declared properties.
    pub found: Vec<u32>,
}

/// No member found.
const ABSENT: u32 = u32::MAX;

impl<'a> Walker<'a> {
    /// A walker using `found` (empty; its capacity kept from earlier walks) as its scratch.
    pub fn new(
        rules: &'static Rules,
        prof: &'static Profile,
        tape: &'a Tape<'a>,
        found: Vec<u32>,
    ) -> Self {
        Walker {
            rules,
            prof,
            tape,
            issues: Vec::new(),
            quiet: 0,
            qerrors: 0,
            qwarnings: 0,
            found,
        }
    }

    /// The JSON pointer of node `n`, with `extra` appended. Found from the root down when
    /// an issue is told (rarely), rather than kept as a path while walking.
    pub fn pointer(&self, n: usize, extra: Option<&str>) -> String {
        let tape = self.tape;
        let holds = |v: usize| v <= n && n < tape.next(v);
        let mut out = String::new();
        let mut at = 0;
        while at != n {
            at = match tape.node(at).kind {
                Kind::Obj => {
                    let Some((k, v)) = tape.members(at).find(|&(_, v)| holds(v)) else {
                        break;
                    };
                    segment(&mut out, &tape.str(tape.node(k)));
                    v
                }
                Kind::Arr => {
                    let Some((i, v)) = tape.items(at).enumerate().find(|&(_, v)| holds(v)) else {
                        break;
                    };
                    segment(&mut out, &i.to_string());
                    v
                }
                _ => break,
            };
        }
        if let Some(e) = extra {
            segment(&mut out, e);
        }
        out
    }

    /// Tells an issue at node `n` (member `at` of it, if given). The message is written
    /// only when the issue is told: not while alternatives are tried.
    pub fn report(
        &mut self,
        n: usize,
        severity: Severity,
        code: &'static str,
        at: Option<&str>,
        message: impl FnOnce() -> String,
    ) {
        if self.should_tell(severity) {
            let message = message();
            self.tell(n, severity, code, at, message);
        }
    }

    /// Counts an issue while alternatives are tried; whether it is to be told.
    #[inline(never)]
    fn should_tell(&mut self, severity: Severity) -> bool {
        if self.quiet > 0 {
            match severity {
                Severity::Error => self.qerrors += 1,
                Severity::Warning => self.qwarnings += 1,
            }
            return false;
        }
        self.issues.len() < MAX_ISSUES
    }

    #[inline(never)]
    fn tell(
        &mut self,
        n: usize,
        severity: Severity,
        code: &'static str,
        at: Option<&str>,
        message: String,
    ) {
        let path = self.pointer(n, at);
        self.issues.push(Issue {
            path,
            code,
            message,
            severity,
        });
    }

    fn error(
        &mut self,
        n: usize,
        code: &'static str,
        at: Option<&str>,
        message: impl FnOnce() -> String,
    ) -> bool {
        self.report(n, Severity::Error, code, at, message);
        false
    }

    /// Runs `t` quietly: (valid, errors counted, warnings counted).
    fn trial(&mut self, t: TyId, n: usize) -> (bool, usize, usize) {
        let (e, w) = (self.qerrors, self.qwarnings);
        self.quiet += 1;
        let ok = self.check(t, n);
        self.quiet -= 1;
        (ok, self.qerrors - e, self.qwarnings - w)
    }

    /// Accepts a branch that passed a trial: walked again aloud only to keep its warnings.
    fn accept(&mut self, t: TyId, n: usize, warnings: usize) -> bool {
        if warnings > 0 && self.quiet == 0 {
            self.check(t, n);
        }
        true
    }

    fn kind_name(&self, n: usize) -> &'static str {
        let node = self.tape.node(n);
        match node.kind {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Num if self.tape.is_integer(node) => "an integer",
            Kind::Num => "a number",
            Kind::Str => "a string",
            Kind::Arr => "an array",
            Kind::Obj => "an object",
        }
    }

    #[inline(always)]
    fn bits(&self, n: usize) -> u8 {
        let node = self.tape.node(n);
        match node.kind {
            Kind::Null => T_NULL,
            Kind::Bool => T_BOOL,
            Kind::Num if self.tape.is_integer(node) => T_INT | T_NUM,
            Kind::Num => T_NUM,
            Kind::Str => T_STR,
            Kind::Arr => T_ARR,
            Kind::Obj => T_OBJ,
        }
    }

    /// Which JSON types `t` can accept at all (0 = any): decides how a failed union is told.
    fn admits(&self, t: TyId, depth: u32) -> u8 {
        const ALL: u8 = 0x7F;
        if depth > 16 {
            return ALL;
        }
        let r = self.rules;
        let m = match r.ty(t) {
            Ty::Basic(b) => {
                let mask = r.basics[b as usize].mask;
                mask | if mask & T_NUM != 0 { T_INT } else { 0 }
            }
            Ty::Lits(l) => r.run(l).iter().fold(0, |m, &c| m | lit_bits(r.lit(c))),
            Ty::Tag(..) => T_OBJ,
            Ty::Ref(s) => match self.prof.def(s) {
                Some(d) => self.admits(d, depth + 1),
                None => ALL,
            },
            Ty::All(v) => r
                .run(v)
                .iter()
                .fold(ALL, |m, &x| m & self.admits(x, depth + 1)),
            Ty::AnyOf(v) | Ty::OneOf(v) | Ty::Tolerate(v) => r
                .run(v)
                .iter()
                .fold(0, |m, &x| m | self.admits(x, depth + 1)),
            Ty::Older(v) => r.run(v).get(1).map_or(ALL, |&x| self.admits(x, depth + 1)),
            Ty::Verdict(v) => r.run(v).get(3).map_or(ALL, |&x| self.admits(x, depth + 1)),
            _ => ALL,
        };
        if m == 0 {
            ALL
        } else {
            m
        }
    }

    /// Whether type `t` declares a member that the object at `n` has.
    fn declares_a_member(&self, t: TyId, n: usize, depth: u32) -> bool {
        if depth > 16 {
            return false;
        }
        let (r, tape) = (self.rules, self.tape);
        match r.ty(t) {
            Ty::Basic(b) => r
                .props(&r.basics[b as usize])
                .iter()
                .any(|p| tape.get(n, r.name(p.name & !REQUIRED)).is_some()),
            Ty::Tag(i) => r
                .tags
                .get(i as usize)
                .is_some_and(|tag| tape.get(n, r.name(tag.key)).is_some()),
            Ty::Ref(s) => self
                .prof
                .def(s)
                .is_some_and(|d| self.declares_a_member(d, n, depth + 1)),
            Ty::All(v) | Ty::AnyOf(v) | Ty::OneOf(v) | Ty::Tolerate(v) => r
                .run(v)
                .iter()
                .any(|&x| self.declares_a_member(x, n, depth + 1)),
            Ty::Older(v) => r
                .run(v)
                .get(1)
                .is_some_and(|&x| self.declares_a_member(x, n, depth + 1)),
            Ty::Verdict(v) => r
                .run(v)
                .get(3)
                .is_some_and(|&x| self.declares_a_member(x, n, depth + 1)),
            _ => false,
        }
    }

    pub fn check(&mut self, mut t: TyId, n: usize) -> bool {
        let rules = self.rules;
        // References and older names lead to their types without a call.
        let ty = loop {
            match rules.ty(t) {
                Ty::Ref(s) => match self.prof.def(s) {
                    Some(d) => t = d,
                    None => return true,
                },
                Ty::Older(v) => match rules.run(v).get(1) {
                    Some(&x) => t = x,
                    None => return true,
                },
                ty => break ty,
            }
        };
        match ty {
            Ty::Any | Ty::Ref(_) | Ty::Older(_) => true,
            Ty::Basic(b) => self.basic(&rules.basics[b as usize], n),
            Ty::Lits(l) => self.literal(rules.run(l), n),
            Ty::All(v) => {
                // Every part is walked, so all of their issues are told.
                let mut ok = true;
                for &x in rules.run(v) {
                    ok &= self.check(x, n);
                }
                ok
            }
            Ty::AnyOf(v) => self.any_of(rules.run(v), n, false),
            Ty::OneOf(v) => self.any_of(rules.run(v), n, true),
            Ty::Not(v) => {
                let Some(&x) = rules.run(v).first() else {
                    return true;
                };
                let (ok, _, _) = self.trial(x, n);
                !ok || self.error(n, codes::NOT_ALLOWED_HERE, None, || {
                    "this form is excluded here".into()
                })
            }
            Ty::Tag(i) => {
                let Some(tag) = rules.tags.get(i as usize) else {
                    return true;
                };
                let variants = rules
                    .variants
                    .get(tag.at as usize..tag.at as usize + tag.n as usize)
                    .unwrap_or(&[]);
                self.tag(tag, variants, n)
            }
            Ty::Verdict(v) => {
                let &[code, message, warning, x] = rules.run(v) else {
                    return true;
                };
                let (ok, _, w) = self.trial(x, n);
                if ok {
                    return self.accept(x, n, w);
                }
                self.verdict(code, message, warning, n, None)
            }
            Ty::Tolerate(v) => {
                let &[a, b] = rules.run(v) else { return true };
                let (ok, _, w) = self.trial(a, n);
                if ok {
                    return self.accept(a, n, w);
                }
                let (ok, _, w) = self.trial(b, n);
                if ok {
                    self.accept(b, n, w);
                    self.report(n, Severity::Warning, codes::TOLERATED, None, || {
                        "does not match the schema but is a shape real peers send; tolerated".into()
                    });
                    return true;
                }
                self.check(a, n)
            }
        }
    }

    fn any_of(&mut self, v: &[TyId], n: usize, exactly_one: bool) -> bool {
        let kind = self.bits(n);
        if !exactly_one && self.plain_match(v, kind) {
            return true;
        }
        let mut best: Option<(usize, TyId)> = None;
        let mut passed: Option<(TyId, usize)> = None;
        // Alternatives of other JSON types cannot match: when one is left, it is walked
        // once, aloud (type-disjoint unions, e.g. recursive JSON values, stay linear).
        let mut admitting = v.iter().filter(|&&x| self.admits(x, 0) & kind != 0);
        if let (Some(&x), None) = (admitting.next(), admitting.next()) {
            return self.check(x, n);
        }
        let mut admitted = 0u8;
        // For an object, a failing alternative that declares one of its members explains it
        // better than one that declares none (`{action: "bogus"}` is a bad elicitation answer,
        // not a task result without `task`); when none declares any, the first one does.
        let obj = self.tape.node(n).kind == Kind::Obj;
        let mut best_knows = false;
        for &x in v {
            let (ok, errors, warnings) = self.trial(x, n);
            if ok {
                if !exactly_one {
                    return self.accept(x, n, warnings);
                }
                if passed.is_some() {
                    return self.error(n, codes::AMBIGUOUS, None, || {
                        "matches more than one of the alternatives".into()
                    });
                }
                passed = Some((x, warnings));
                continue;
            }
            let admits = self.admits(x, 0);
            admitted |= admits;
            if admits & kind != 0 {
                let knows = obj && self.declares_a_member(x, n, 0);
                let better = match best {
                    None => true,
                    Some((e, _)) if obj => knows && (!best_knows || errors < e),
                    Some((e, _)) => errors < e,
                };
                if better {
                    best = Some((errors, x));
                    best_knows = knows;
                }
            }
        }
        if let Some((x, w)) = passed {
            return self.accept(x, n, w);
        }
        match best {
            Some((_, x)) if self.quiet == 0 => self.check(x, n),
            Some(_) => self.error(n, codes::WRONG_TYPE, None, String::new),
            None => {
                let found = self.kind_name(n);
                self.error(n, codes::WRONG_TYPE, None, || {
                    format!("expected {}, found {found}", type_names(admitted))
                })
            }
        }
    }

    /// Whether a value of JSON types `kind` matches one of the leading alternatives of `v`
    /// that are only a type (`str|int`, the ids and progress tokens of every message): such
    /// an alternative holds exactly when it admits the type, and tells nothing. The first of
    /// them that holds is the one the full walk would accept, since all before it failed.
    #[inline(always)]
    fn plain_match(&self, v: &[TyId], kind: u8) -> bool {
        let r = self.rules;
        for &x in v {
            let Ty::Basic(b) = r.ty(x) else { return false };
            let b = &r.basics[b as usize];
            if b.ext != 0 || b.nprops != 0 || b.sub != NONE {
                return false;
            }
            // As `basic` tells it: `kind` has `T_NUM` for every number.
            if b.mask == 0 || b.mask & kind != 0 {
                return true;
            }
        }
        false
    }

    fn literal(&mut self, lits: &'static [u16], n: usize) -> bool {
        let (tape, rules) = (self.tape, self.rules);
        let node = tape.node(n);
        let hit = lits.iter().any(|&c| match (rules.lit(c), node.kind) {
            (Lit::Str(s), Kind::Str) => tape.reads(node, s),
            (Lit::Num(x), Kind::Num) => tape.num(node) == x,
            (Lit::Bool(b), Kind::Bool) => node.flag == b,
            _ => false,
        });
        if hit {
            return true;
        }
        let bits = lits.iter().fold(0, |m, &c| m | lit_bits(rules.lit(c)));
        if bits & self.bits(n) == 0 {
            let found = self.kind_name(n);
            return self.error(n, codes::WRONG_TYPE, None, || {
                format!("expected {}, found {found}", type_names(bits))
            });
        }
        let got = tape.raw(node);
        self.error(n, codes::UNKNOWN_ENUM_VALUE, None, || {
            format!(
                "{} is not one of {}",
                quote(node.kind, got),
                list(rules, lits)
            )
        })
    }

    /// Tells a verdict's issue at node `n` (member `at` of it, missing, if given): `{}` in
    /// its message is the value, a string as Rust's `Debug` writes it. A warning holds.
    fn verdict(
        &mut self,
        code: Str,
        message: Str,
        warning: u16,
        n: usize,
        at: Option<&str>,
    ) -> bool {
        let (rules, tape) = (self.rules, self.tape);
        let severity = if warning == 1 {
            Severity::Warning
        } else {
            Severity::Error
        };
        self.report(n, severity, rules.str(code), at, || {
            let text = rules.str(message);
            // Found byte by byte: `str::find` would bring a substring searcher into the module.
            let Some(i) = text.as_bytes().windows(2).position(|w| w == b"{}") else {
                return text.to_string();
            };
            let node = tape.node(n);
            let value = match (at, node.kind) {
                (Some(_), _) => "nothing".to_string(),
                (None, Kind::Str) => crate::json::text(&tape.str(node)),
                (None, _) => tape.raw(node).to_string(),
            };
            // Pushed piece by piece: `concat` is core's join, 1 KB of code for this one use.
            let mut out = String::with_capacity(text.len() + value.len());
            out.push_str(crate::text::part(text, ..i));
            out.push_str(&value);
            out.push_str(crate::text::part(text, i + 2..));
            out
        });
        warning == 1
    }

    /// The verdict a member's type gives when the member is missing, if it is one.
    fn verdict_of(&self, mut t: TyId) -> Option<&'static [u16]> {
        let rules = self.rules;
        for _ in 0..16 {
            match rules.ty(t) {
                Ty::Ref(s) => t = self.prof.def(s)?,
                Ty::Verdict(v) => return Some(rules.run(v)),
                _ => return None,
            }
        }
        None
    }

    fn tag(&mut self, tag: &'static Tag, variants: &'static [(Str, TyId)], n: usize) -> bool {
        let (key, other) = (tag.key, tag.other);
        let (tape, rules) = (self.tape, self.rules);
        if tape.node(n).kind != Kind::Obj {
            let found = self.kind_name(n);
            return self.error(n, codes::WRONG_TYPE, None, || {
                format!("expected an object, found {found}")
            });
        }
        let Some(v) = tape.get(n, rules.name(key)) else {
            if tag.absent != NONE {
                return self.check(tag.absent, n);
            }
            let key = rules.str(key);
            return self.error(n, codes::MISSING_REQUIRED, Some(key), || {
                format!("`{key}` is required")
            });
        };
        if tape.node(v).kind != Kind::Str {
            let found = self.kind_name(v);
            return self.error(n, codes::WRONG_TYPE, Some(rules.str(key)), || {
                format!("expected a string, found {found}")
            });
        }
        match tape.with_bytes(tape.node(v), |value| {
            variants.iter().find(|&&(k, _)| rules.is(k, value))
        }) {
            Some(&(_, t)) => self.check(t, n),
            None if other != NONE => self.check(other, n),
            None => {
                let key = rules.str(key);
                self.error(n, codes::UNKNOWN_ENUM_VALUE, Some(key), || {
                    let names: Vec<&str> = variants.iter().map(|&(k, _)| rules.str(k)).collect();
                    format!(
                        "unknown `{key}` \"{}\"; expected one of {}",
                        tape.str(tape.node(v)),
                        crate::text::join(&names, ", ")
                    )
                })
            }
        }
    }

    /// The bounds of `b` on values of `kind`: as the rules read `(lo..hi)`, the item count
    /// of an array type, the length of a string type, the value of any other.
    fn bounds(&self, b: &Basic, kind: Kind) -> Option<(f64, f64)> {
        let only = |t: u8| b.mask & t != 0 && b.mask & !(t | T_NULL) == 0;
        let on = if only(T_ARR) {
            Kind::Arr
        } else if only(T_STR) {
            Kind::Str
        } else {
            Kind::Num
        };
        let range = self.rules.ext(b)?.range;
        if range == NONE || on != kind {
            return None;
        }
        self.rules.ranges.get(range as usize).copied()
    }

    fn basic(&mut self, b: &'static Basic, n: usize) -> bool {
        let tape = self.tape;
        let node = tape.node(n);
        if b.mask != 0 && self.bits(n) & b.mask == 0 {
            let found = self.kind_name(n);
            return self.error(n, codes::WRONG_TYPE, None, || {
                format!("expected {}, found {found}", type_names(b.mask))
            });
        }
        match node.kind {
            Kind::Num => match self.bounds(b, Kind::Num) {
                Some(r) => {
                    let x = tape.num(node);
                    !(x < r.0 || x > r.1)
                        || self.error(n, codes::OUT_OF_RANGE, None, || {
                            format!("{} is outside {}", plain(x), range(r))
                        })
                }
                None => true,
            },
            Kind::Str => self.string(b, n),
            Kind::Arr => {
                let count = node.start;
                if let Some(r) = self
                    .bounds(b, Kind::Arr)
                    .filter(|r| f64::from(count) < r.0 || f64::from(count) > r.1)
                {
                    return self.error(n, codes::OUT_OF_RANGE, None, || {
                        format!("{count} items, expected {}", range(r))
                    });
                }
                if b.sub == NONE {
                    return true;
                }
                let mut ok = true;
                for v in tape.items(n) {
                    ok &= self.check(b.sub, v);
                }
                ok
            }
            Kind::Obj if b.nprops > 0 || b.sub != NONE => self.object(b, n),
            _ => true,
        }
    }

    fn string(&mut self, b: &'static Basic, n: usize) -> bool {
        let tape = self.tape;
        let node = tape.node(n);
        if let Some(r) = self.bounds(b, Kind::Str) {
            let len = tape.str(node).chars().count() as u32;
            if f64::from(len) < r.0 || f64::from(len) > r.1 {
                return self.error(n, codes::OUT_OF_RANGE, None, || {
                    format!("length {len}, expected {}", range(r))
                });
            }
        }
        let Some(ext) = self.rules.ext(b) else {
            return true;
        };
        match ext.format {
            F_URI if !is_uri(&tape.str(node)) => {
                return self.error(n, codes::FORMAT, None, || {
                    "expected an absolute URI (RFC 3986)".into()
                })
            }
            F_DATE_TIME if !is_date_time(&tape.str(node)) => {
                return self.error(n, codes::FORMAT, None, || {
                    "expected an RFC 3339 date-time".into()
                })
            }
            F_ABSOLUTE_PATH if !is_absolute_path(&tape.str(node)) => {
                return self.error(n, codes::FORMAT, None, || {
                    "expected an absolute path".into()
                })
            }
            _ => {}
        }
        if ext.pattern != NONE {
            let p = self.rules.str(ext.pattern);
            if !super::pattern::matches(p, &tape.str(node)) {
                return self.error(n, codes::PATTERN, None, || {
                    format!("does not match the pattern {p}")
                });
            }
        }
        true
    }

    /// `!any`: no value holds.
    fn closed(&self, t: TyId) -> bool {
        let r = self.rules;
        matches!(r.ty(t), Ty::Not(v) if r.run(v).first().is_some_and(|&x| r.ty(x) == Ty::Any))
    }

    fn object(&mut self, b: &'static Basic, n: usize) -> bool {
        let tape = self.tape;
        let rules = self.rules;
        let props = rules.props(b);
        let base = self.found.len();
        // Pushed, not `resize`d: its `extend_with` would stay a call of its own (wasm-opt leaves
        // functions of one caller out of line, `wasm-pack.toml`).
        for _ in props {
            self.found.push(ABSENT);
        }
        let mut ok = true;
        for (k, v) in tape.members(n) {
            // Objects declare few members (at most a dozen): a scan beats a search. A plain
            // loop: `position` would stay a call of its own for every member.
            let hit = tape.with_bytes(tape.node(k), |key| {
                let mut i = 0;
                while i < props.len() && !rules.is(props[i].name & !REQUIRED, key) {
                    i += 1;
                }
                (i < props.len()).then_some(i)
            });
            match hit {
                Some(i) => self.found.as_mut_slice()[base + i] = k as u32,
                // A closed object (`..!any`, MCP Apps' `additionalProperties: false`): the
                // member is named, not its value judged.
                None if b.sub != NONE && self.closed(b.sub) => {
                    let key = tape.str(tape.node(k));
                    ok = self.error(v, codes::NOT_ALLOWED_HERE, None, || {
                        format!("unknown member `{key}`: this object allows no other members")
                    }) && ok;
                }
                None if b.sub != NONE => {
                    ok &= self.check(b.sub, v);
                }
                None => {}
            }
        }
        // A tolerated older name of a member is typed `Older[name, T]`.
        let older = |p: &Prop| match rules.ty(p.ty) {
            Ty::Older(v) => rules.run(v).first().copied(),
            _ => None,
        };
        let present = |w: &Self, name: Str| {
            props
                .iter()
                .enumerate()
                .any(|(j, q)| q.name & !REQUIRED == name && w.found.as_slice()[base + j] != ABSENT)
        };
        // Older names are rare (a few ACP members): without one, a missing member is not
        // looked for under another name (a scan of every member per missing one, quadratic
        // for MCP Apps' 76 style variables).
        // (Found at the first missing member: valid objects never pay for it.)
        let mut aliases: Option<bool> = None;
        for (i, p) in props.iter().enumerate() {
            let k = self.found.as_slice()[base + i];
            let name = || rules.str(p.name & !REQUIRED);
            if k == ABSENT {
                if p.name & REQUIRED != 0 {
                    let any_older =
                        *aliases.get_or_insert_with(|| props.iter().any(|q| older(q).is_some()));
                    let by_alias = any_older
                        && props.iter().enumerate().any(|(j, q)| {
                            older(q) == Some(p.name & !REQUIRED)
                                && self.found.as_slice()[base + j] != ABSENT
                        });
                    if !by_alias {
                        ok = match self.verdict_of(p.ty) {
                            // A member the overlay checks: its verdict tells the absence.
                            Some(&[code, message, warning, _]) => {
                                self.verdict(code, message, warning, n, Some(name()))
                            }
                            _ => {
                                let name = name();
                                self.error(n, codes::MISSING_REQUIRED, Some(name), || {
                                    format!("`{name}` is required")
                                })
                            }
                        } && ok;
                    }
                }
                continue;
            }
            // The older name alone is a tolerated deviation; beside the current name it is an
            // extra member for older peers, which the schema allows.
            if let Some(target) = older(p).filter(|&t| !present(self, t)) {
                let (name, target) = (name(), rules.str(target));
                self.report(
                    k as usize + 1,
                    Severity::Warning,
                    codes::TOLERATED,
                    None,
                    || format!("`{name}` is the older name of `{target}`; tolerated"),
                );
            }
            ok &= self.check(p.ty, k as usize + 1);
        }
        self.found.truncate(base);
        ok
    }
}

/// Absolute in POSIX (`/home/u`) or Windows form (`C:\x`, `C:/x`, `\\server\share`).
pub fn is_absolute_path(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || p.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// Appends one JSON-pointer segment (`~` and `/` escaped).
fn segment(out: &mut String, s: &str) {
    out.push('/');
    for c in s.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

fn lit_bits(l: Lit) -> u8 {
    match l {
        Lit::Str(_) => T_STR,
        Lit::Num(x) if x.fract() == 0.0 => T_INT | T_NUM,
        Lit::Num(_) => T_NUM,
        Lit::Bool(_) => T_BOOL,
    }
}

fn type_names(mask: u8) -> String {
    let names = [
        (T_OBJ, "an object"),
        (T_ARR, "an array"),
        (T_STR, "a string"),
        (T_NUM, "a number"),
        (T_INT, "an integer"),
        (T_BOOL, "a boolean"),
        (T_NULL, "null"),
    ];
    let mut v: Vec<&str> = Vec::new();
    for (bit, name) in names {
        // "a number" already covers integers.
        if mask & bit != 0 && !(bit == T_INT && mask & T_NUM != 0) {
            v.push(name);
        }
    }
    if v.is_empty() {
        return "nothing".into();
    }
    crate::text::join(&v, " or ")
}

fn quote(kind: Kind, raw: &str) -> String {
    if kind == Kind::Str {
        format!("\"{raw}\"")
    } else {
        raw.to_string()
    }
}

fn list(rules: &Rules, lits: &[u16]) -> String {
    let shown: Vec<String> = lits
        .iter()
        .take(12)
        .map(|&c| match rules.lit(c) {
            // A literal of the rules is their text, UTF-8 by construction (no lossy decoder here).
            Lit::Str(s) => format!("\"{}\"", std::str::from_utf8(s).unwrap_or_default()),
            Lit::Num(x) => plain(x),
            Lit::Bool(b) => b.to_string(),
        })
        .collect();
    let more = if lits.len() > 12 { ", …" } else { "" };
    format!("{}{more}", crate::text::join(&shown, ", "))
}

fn range((lo, hi): (f64, f64)) -> String {
    let bound = |x: f64| Some(x).filter(|x| x.abs() != f64::MAX);
    match (bound(lo), bound(hi)) {
        (Some(l), Some(h)) => format!("{}..={}", plain(l), plain(h)),
        (Some(l), None) => format!(">= {}", plain(l)),
        (None, Some(h)) => format!("<= {}", plain(h)),
        (None, None) => "any".into(),
    }
}

/// A finite number as `f64`'s `Display` writes it (shortest digits, no exponent).
fn plain(x: f64) -> String {
    crate::json::Shortest::of(x).plain()
}

/// An absolute URI by RFC 3986's character rules: a scheme, `:`, then only URI characters
/// and well-formed percent escapes.
pub fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut sc = scheme.bytes();
    if !sc.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !sc.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return false;
    }
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        // A `match`, not a search of the list: no `memchr` call per character.
        let allowed = matches!(
            c,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b':'
                | b'/'
                | b'?'
                | b'#'
                | b'['
                | b']'
                | b'@'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        );
        if !(c.is_ascii_alphanumeric() || allowed) {
            return false;
        }
        i += 1;
    }
    true
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let d = b.get(r)?;
        d.iter()
            .all(u8::is_ascii_digit)
            .then(|| d.iter().fold(0, |a, &c| a * 10 + u32::from(c - b'0')))
    };
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(sec)) = (
        num(0..4),
        num(5..7),
        num(8..10),
        num(11..13),
        num(14..16),
        num(17..19),
    ) else {
        return false;
    };
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !matches!(b.get(10), Some(b'T' | b't'))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return false;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo)
        || d == 0
        || d > days[mo as usize - 1]
        || h > 23
        || mi > 59
        || sec > 60
    {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let st = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == st {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let (Some(oh), Some(om)) = (num(i + 1..i + 3), num(i + 4..i + 6)) else {
                return false;
            };
            b.get(i + 3) == Some(&b':') && oh < 24 && om < 60 && i + 6 == b.len()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn uri_characters_are_rfc_3986s() {
        for c in 0..=255u8 {
            let text = format!("a:{}", char::from(c));
            let allowed = c.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&c);
            assert_eq!(super::is_uri(&text), allowed, "{c:#x}");
        }
    }

    #[test]
    fn plain_numbers_read_as_display_writes_them() {
        let mut x: f64 = 1.0e-310;
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut cases = vec![
            0.0,
            -0.0,
            0.1,
            -2.5,
            1e15,
            1e16,
            1.5e20,
            1e21,
            123.456,
            5e-324,
            f64::MAX,
            -1e-7,
            0.0001,
        ];
        while x < 1e300 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            cases.push(x * (1.0 + (seed % 1000) as f64 / 997.0));
            cases.push(-((seed % 100_000) as f64) / 64.0);
            x *= 7.3;
        }
        for x in cases {
            assert_eq!(super::plain(x), format!("{x}"), "{x:e}");
        }
    }
}
