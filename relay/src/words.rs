//! Splits an agent command line into program and arguments without a shell.
//!
//! Our own rather than `shlex`: `shlex::split` (1.3 and 2.0) splits the same quoting rules
//! but cannot refuse shell operators. It returns `a`, `|`, `b` for both `a | b` and `a '|' b`,
//! so after it an unquoted `|` can no longer be told from a quoted one, and `node a.js | tee
//! log` would silently run node with `|`, `tee`, `log` as arguments.
//!
//! The rules are a small subset of POSIX shell word splitting:
//! - unquoted blanks (space, tab, newline) separate words;
//! - `'…'` keeps everything literally up to the next `'`;
//! - `"…"` keeps everything literally except `\"`, `\\`, `\$` and `` \` ``;
//! - outside quotes, `\x` is a literal `x`;
//! - `""` and `''` make an empty word.
//!
//! Nothing is expanded: no variables, globs, `~` or command substitution. Unquoted shell
//! operators (`| & ; < > ( ) $` and backquote) are refused rather than passed on literally, so
//! that `node a.js | tee log` fails loudly instead of handing `|` to node as an argument; wrap such
//! commands in `sh -c '…'` when a shell is really wanted.

/// Why a command line could not be split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitError {
    Empty,
    UnclosedQuote(char),
    TrailingBackslash,
    ShellOperator(char),
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => write!(f, "the command is empty"),
            Self::UnclosedQuote(q) => write!(f, "unclosed {q} quote"),
            Self::TrailingBackslash => write!(f, "a backslash ends the command"),
            Self::ShellOperator(c) => write!(
                f,
                "`{c}` is a shell operator, and agent commands run without a shell \
                 (quote it, or use sh -c '…')"
            ),
        }
    }
}

/// Splits `line` into words; the first is the program.
pub fn split(line: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(SplitError::UnclosedQuote('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnclosedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or(SplitError::TrailingBackslash)?);
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' => {
                return Err(SplitError::ShellOperator(c));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(SplitError::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell_without_expanding() {
        let ok: &[(&str, &[&str])] = &[
            ("cat", &["cat"]),
            ("  node   agent.js  --x ", &["node", "agent.js", "--x"]),
            ("node 'my agent.js'", &["node", "my agent.js"]),
            (
                r#"node "a \"b\" \\ \$HOME \n""#,
                &["node", r#"a "b" \ $HOME \n"#],
            ),
            (r"a\ b c", &["a b", "c"]),
            ("x '' \"\"", &["x", "", ""]),
            (
                "sh -c 'echo $HOME | cat'",
                &["sh", "-c", "echo $HOME | cat"],
            ),
            ("a'b'\"c\"d", &["abcd"]),
            ("~/bin/agent *.js", &["~/bin/agent", "*.js"]),
        ];
        for (line, want) in ok {
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(split(line), Ok(want), "{line}");
        }
    }

    #[test]
    fn refuses_what_it_cannot_split_faithfully() {
        let bad: &[(&str, SplitError)] = &[
            ("", SplitError::Empty),
            ("   ", SplitError::Empty),
            ("node 'a", SplitError::UnclosedQuote('\'')),
            ("node \"a", SplitError::UnclosedQuote('"')),
            ("node a\\", SplitError::TrailingBackslash),
            ("node a | tee", SplitError::ShellOperator('|')),
            ("node a > log", SplitError::ShellOperator('>')),
            ("echo $HOME", SplitError::ShellOperator('$')),
            ("a; rm x", SplitError::ShellOperator(';')),
            ("a && b", SplitError::ShellOperator('&')),
        ];
        for (line, want) in bad {
            assert_eq!(split(line), Err(want.clone()), "{line}");
        }
    }
}
