//! Reads newline-delimited output of an agent with a bound on memory.
//!
//! Our own rather than tokio-util's `LinesCodec::new_with_max_length`, which bounds memory the
//! same way but does not keep what the relay needs: lines as bytes (the codec decodes UTF-8 and
//! ends the stream at a line that is not, where the relay drops that line and goes on, or
//! passes its bytes on as a binary frame), the size of a skipped line (reported to the page),
//! and splitting long lines into pieces instead of skipping them (stderr).

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What one read produced; the bytes (without the newline) are in the caller's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A line ended by `\n` (or, when splitting, a chunk of `limit` bytes).
    Full,
    /// The stream ended after these bytes, without a final newline.
    Last,
    /// A line of this many bytes was longer than the limit and was skipped, never buffered.
    TooLong(usize),
    /// The stream ended.
    Eof,
}

/// What to do with a line longer than the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// Skip it, reporting its length (protocol messages: half a message is no message).
    Skip,
    /// Hand it out in chunks of `limit` bytes (log text).
    Split,
}

/// Reads the next line into `buf` (cleared first), holding at most `limit` bytes.
pub async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
    overflow: Overflow,
) -> std::io::Result<Line> {
    buf.clear();
    let mut skipped = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (skipped, buf.is_empty()) {
                (0, true) => Line::Eof,
                (0, false) => Line::Last,
                (n, _) => Line::TooLong(n),
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.unwrap_or(available.len());
        if skipped == 0 && buf.len() + take <= limit {
            buf.extend_from_slice(&available[..take]);
        } else if overflow == Overflow::Split {
            let room = limit - buf.len();
            buf.extend_from_slice(&available[..room]);
            reader.consume(room);
            return Ok(Line::Full);
        } else {
            skipped += buf.len() + take;
            buf.clear();
        }
        reader.consume(take + usize::from(newline.is_some()));
        if newline.is_some() {
            return Ok(if skipped > 0 {
                Line::TooLong(skipped)
            } else {
                Line::Full
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    /// Reads everything with a tiny internal buffer, so lines cross buffer boundaries.
    fn read_all(input: &[u8], limit: usize, overflow: Overflow) -> Vec<(Line, String)> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut reader = BufReader::with_capacity(3, input);
            let mut buf = Vec::new();
            let mut out = Vec::new();
            loop {
                let line = read_line(&mut reader, &mut buf, limit, overflow)
                    .await
                    .unwrap();
                out.push((line, String::from_utf8_lossy(&buf).into_owned()));
                if line == Line::Eof {
                    return out;
                }
            }
        })
    }

    #[test]
    fn lines_limits_and_the_last_partial_line() {
        use Line::*;
        let s = |v: &[(Line, &str)]| {
            v.iter()
                .map(|(l, t)| (*l, t.to_string()))
                .collect::<Vec<_>>()
        };
        type Case = (&'static [u8], usize, Overflow, Vec<(Line, String)>);
        let cases: Vec<Case> = vec![
            (b"", 5, Overflow::Skip, s(&[(Eof, "")])),
            (
                b"a\nbb\n",
                5,
                Overflow::Skip,
                s(&[(Full, "a"), (Full, "bb"), (Eof, "")]),
            ),
            (
                b"\n\n",
                5,
                Overflow::Skip,
                s(&[(Full, ""), (Full, ""), (Eof, "")]),
            ),
            (
                b"a\ntail",
                5,
                Overflow::Skip,
                s(&[(Full, "a"), (Last, "tail"), (Eof, "")]),
            ),
            (
                b"12345\n123456\nok\n",
                5,
                Overflow::Skip,
                s(&[(Full, "12345"), (TooLong(6), ""), (Full, "ok"), (Eof, "")]),
            ),
            (
                b"x\n1234567890",
                5,
                Overflow::Skip,
                s(&[(Full, "x"), (TooLong(10), ""), (Eof, "")]),
            ),
            (
                b"1234567\nab",
                3,
                Overflow::Split,
                s(&[
                    (Full, "123"),
                    (Full, "456"),
                    (Full, "7"),
                    (Last, "ab"),
                    (Eof, ""),
                ]),
            ),
        ];
        for (input, limit, overflow, want) in cases {
            assert_eq!(
                read_all(input, limit, overflow),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }
}
