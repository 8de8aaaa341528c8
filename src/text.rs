//! Joining texts, as `[T]::join` does. core's `join` compiles to about 1 KB of code for each
//! element type (a general routine with specialised copy loops for short separators); this
//! plain loop is a fifth of that, and the joins here build error messages, never hot.

/// `s[range]`, without the panic. Slicing a `str` by index panics with a message that writes
/// the character it would cut by `Debug`, which keeps core's character escaping and its
/// Unicode tables (3–4 KB) in the module. Every cut made through this is at a boundary the
/// caller found, so the empty fallback is never taken.
pub(crate) fn part<I: std::slice::SliceIndex<str, Output = str>>(s: &str, range: I) -> &str {
    s.get(range).unwrap_or_default()
}

/// `parts` with `sep` between each two.
pub(crate) fn join<S: AsRef<str>>(parts: &[S], sep: &str) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(part.as_ref());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn parts_as_slicing_does_without_its_panic() {
        let s = "aé{}";
        assert_eq!(super::part(s, ..1), &s[..1]);
        assert_eq!(super::part(s, 1..3), "é");
        assert_eq!(super::part(s, 3..), "{}");
        // Where slicing would panic: inside a character, past the end.
        assert_eq!(super::part(s, 2..), "");
        assert_eq!(super::part(s, ..9), "");
    }

    #[test]
    fn joins_as_core_joins() {
        for parts in [vec![], vec!["a"], vec!["a", "", "b c"]] {
            assert_eq!(join(&parts, ", "), parts.join(", "));
            let owned: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
            assert_eq!(join(&owned, " or "), owned.join(" or "));
        }
    }
}
