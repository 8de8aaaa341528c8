//! Joining texts, as `[T]::join` does. core's `join` compiles to about 1 KB of code for each
//! element type (a general routine with specialised copy loops for short separators); this
//! plain loop is a fifth of that, and the joins here build error messages, never hot.

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
    fn joins_as_core_joins() {
        for parts in [vec![], vec!["a"], vec!["a", "", "b c"]] {
            assert_eq!(join(&parts, ", "), parts.join(", "));
            let owned: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
            assert_eq!(join(&owned, " or "), owned.join(" or "));
        }
    }
}
