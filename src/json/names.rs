//! Comparing names (object keys, method names) byte by byte, without a `memcmp` call.

/// Whether two names are the same (lengths first), without a `memcmp` call.
#[inline(always)]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && cmp_names(a, b).is_eq()
}

/// Byte order of two names, eight bytes at a time (a `memcmp` call costs more than these
/// short names, and is a byte loop in WebAssembly).
#[inline(always)]
pub fn cmp_names(mut a: &[u8], mut b: &[u8]) -> std::cmp::Ordering {
    while let (Some((x, ra)), Some((y, rb))) =
        (a.split_first_chunk::<8>(), b.split_first_chunk::<8>())
    {
        let (x, y) = (u64::from_le_bytes(*x), u64::from_le_bytes(*y));
        if x != y {
            // The first differing byte is the most significant one once swapped.
            return x.swap_bytes().cmp(&y.swap_bytes());
        }
        (a, b) = (ra, rb);
    }
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_compare_as_byte_strings() {
        let words: Vec<Vec<u8>> = [
            "",
            "a",
            "b",
            "ab",
            "session/",
            "session/load",
            "session/loa",
            "session/loadz",
            "session/lo\u{e9}d",
            "notifications/message",
            "notifications/messagf",
            "notifications/messag",
            "z\u{ff}",
        ]
        .iter()
        .map(|w| w.as_bytes().to_vec())
        .chain([
            vec![0x80; 9],
            vec![0x7f; 9],
            vec![0x80; 16],
            vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f],
        ])
        .collect();
        for a in &words {
            for b in &words {
                assert_eq!(super::cmp_names(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }
}
