//! Comparing secrets: the token, hosted servers' secrets, connection and session ids.

/// Compares in constant time (`subtle`), so the time taken does not tell how much of a guess
/// matched; only the length may show.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.ct_eq(b).into()
}
