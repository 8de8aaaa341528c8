//! The small regular-expression subset the schemas use in `pattern` (no regex engine in
//! the package): literals, `.`, classes `[A-Z0-9_]` (with `^` negation), quantifiers
//! `? * + {n} {n,} {n,m}`, and the anchors `^` `$`. Matching is by backtracking over
//! single-atom quantifiers only, which stays linear for these patterns.

#[derive(Debug)]
enum Atom {
    Any,
    Char(char),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

#[derive(Debug)]
struct Piece {
    atom: Atom,
    min: usize,
    max: usize,
}

struct Compiled {
    start: bool,
    end: bool,
    pieces: Vec<Piece>,
}

// The errors name no pattern: only the build reports them (`check_syntax`); the module,
// which only matches, would otherwise format texts it drops.
fn compile(p: &str) -> Result<Compiled, &'static str> {
    let mut cs: Vec<char> = p.chars().collect();
    let start = cs.first() == Some(&'^');
    if start {
        cs.remove(0);
    }
    let end = cs.last() == Some(&'$') && !(cs.len() >= 2 && cs[cs.len() - 2] == '\\');
    if end {
        cs.pop();
    }
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let atom = match cs[i] {
            '.' => Atom::Any,
            '\\' => {
                i += 1;
                Atom::Char(*cs.get(i).ok_or("dangling backslash")?)
            }
            '[' => {
                i += 1;
                let negated = cs.get(i) == Some(&'^');
                if negated {
                    i += 1;
                }
                let mut ranges = Vec::new();
                while cs.get(i).ok_or("unterminated class")? != &']' {
                    let mut a = cs[i];
                    if a == '\\' {
                        i += 1;
                        a = *cs.get(i).ok_or("dangling backslash")?;
                    }
                    if cs.get(i + 1) == Some(&'-') && cs.get(i + 2).is_some_and(|&c| c != ']') {
                        ranges.push((a, cs[i + 2]));
                        i += 3;
                    } else {
                        ranges.push((a, a));
                        i += 1;
                    }
                }
                Atom::Class { negated, ranges }
            }
            '(' | ')' | '|' | '*' | '+' | '?' | '{' | '^' | '$' => {
                return Err("unsupported pattern syntax")
            }
            c => Atom::Char(c),
        };
        i += 1;
        let (min, max) = match cs.get(i) {
            Some('?') => (0, 1),
            Some('*') => (0, usize::MAX),
            Some('+') => (1, usize::MAX),
            Some('{') => {
                let close = cs[i..]
                    .iter()
                    .position(|&c| c == '}')
                    .ok_or("unterminated {")?
                    + i;
                let body: String = cs[i + 1..close].iter().collect();
                let num = |s: &str| s.trim().parse::<usize>().map_err(|_| "bad quantifier");
                let r = match body.split_once(',') {
                    None => (num(&body)?, num(&body)?),
                    Some((a, "")) => (num(a)?, usize::MAX),
                    Some((a, b)) => (num(a)?, num(b)?),
                };
                i = close;
                r
            }
            _ => (1, 1),
        };
        if min != 1 || max != 1 {
            i += 1;
        }
        pieces.push(Piece { atom, min, max });
    }
    Ok(Compiled { start, end, pieces })
}

/// Rejects, when the rules are compiled (build.rs), a pattern outside the supported subset.
#[allow(dead_code)]
pub fn check_syntax(p: &str) -> Result<(), String> {
    compile(p).map(|_| ()).map_err(|e| format!("{e} in {p:?}"))
}

fn atom_matches(a: &Atom, c: char) -> bool {
    match a {
        Atom::Any => c != '\n',
        Atom::Char(x) => *x == c,
        Atom::Class { negated, ranges } => {
            ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
        }
    }
}

fn match_here(pieces: &[Piece], s: &[char], end: bool) -> bool {
    let Some((p, rest)) = pieces.split_first() else {
        return !end || s.is_empty();
    };
    let mut n = 0;
    while n < p.max && n < s.len() && atom_matches(&p.atom, s[n]) {
        n += 1;
    }
    // Greedy, then give back.
    loop {
        if n >= p.min && match_here(rest, &s[n..], end) {
            return true;
        }
        if n == 0 || n <= p.min {
            return false;
        }
        n -= 1;
    }
}

/// Whether `s` matches `pattern` (ECMA semantics: unanchored unless `^`/`$`).
pub fn matches(pattern: &str, s: &str) -> bool {
    let Ok(c) = compile(pattern) else { return true };
    let chars: Vec<char> = s.chars().collect();
    if c.start {
        return match_here(&c.pieces, &chars, c.end);
    }
    (0..=chars.len()).any(|i| match_here(&c.pieces, &chars[i..], c.end))
}

#[cfg(test)]
mod tests {
    #[test]
    fn subset() {
        for (p, s, want) in [
            ("^[A-Z]{3}$", "USD", true),
            ("^[A-Z]{3}$", "US", false),
            ("^[A-Z]{3}$", "USDX", false),
            ("^[A-Z]{3}$", "usd", false),
            ("[0-9]+", "ab12", true),
            ("^a.c$", "abc", true),
            ("^ab*c?$", "abbb", true),
            ("^[^/]+$", "a/b", false),
        ] {
            assert_eq!(super::matches(p, s), want, "{p} {s}");
        }
        assert!(super::check_syntax("(a|b)").is_err());
    }
}
