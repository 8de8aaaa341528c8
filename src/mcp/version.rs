//! MCP protocol versions (date strings), their era, and the one negotiation function.
//! Unknown version strings are kept as they came; they never fail to parse.

use serde::{Serialize, Serializer};
use std::fmt;

/// A protocol version. The known ones carry their feature set; any other string is kept.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
    Unknown(String),
}

/// How a connection agrees on a version: the `initialize` handshake (2025-11-25 and
/// earlier) or per-request `_meta` with `server/discover` (2026-07-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Era {
    Handshake,
    Stateless,
}
crate::json::json_names!(Era { Era::Handshake => "handshake", Era::Stateless => "stateless" });

/// Every known version, oldest first.
pub const KNOWN: [Version; 5] = [
    Version::V2024_11_05,
    Version::V2025_03_26,
    Version::V2025_06_18,
    Version::V2025_11_25,
    Version::V2026_07_28,
];

impl Version {
    pub fn parse(s: &str) -> Version {
        match s {
            "2024-11-05" => Version::V2024_11_05,
            "2025-03-26" => Version::V2025_03_26,
            "2025-06-18" => Version::V2025_06_18,
            "2025-11-25" => Version::V2025_11_25,
            "2026-07-28" => Version::V2026_07_28,
            other => Version::Unknown(other.to_owned()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Version::Unknown(s) => s,
            known => known.name(),
        }
    }

    /// The text of a known version, "" for an unknown one (a version's `feature_level` is
    /// known): it outlives the version.
    pub fn name(&self) -> &'static str {
        match self {
            Version::V2024_11_05 => "2024-11-05",
            Version::V2025_03_26 => "2025-03-26",
            Version::V2025_06_18 => "2025-06-18",
            Version::V2025_11_25 => "2025-11-25",
            Version::V2026_07_28 => "2026-07-28",
            Version::Unknown(_) => "",
        }
    }

    /// `YYYY-MM-DD`, the only shape MCP versions take.
    pub fn is_well_formed(&self) -> bool {
        let b = self.as_str().as_bytes();
        b.len() == 10
            && b.iter().enumerate().all(|(i, c)| {
                if i == 4 || i == 7 {
                    *c == b'-'
                } else {
                    c.is_ascii_digit()
                }
            })
    }

    /// The known version whose features this one has: itself, or for an unknown but
    /// well-formed date the newest known version not after it (the oldest otherwise).
    /// `era` keeps a version negotiated by `initialize` in the handshake era.
    pub fn feature_level(&self, era: Era) -> Version {
        if !matches!(self, Version::Unknown(_)) {
            return self.clone();
        }
        let s = self.as_str();
        KNOWN
            .iter()
            .rev()
            .filter(|k| k.era() == era || era == Era::Stateless)
            .find(|k| self.is_well_formed() && k.as_str() <= s)
            .cloned()
            .unwrap_or(Version::V2024_11_05)
    }

    /// The era a version belongs to; unknown dates after the stateless switch are stateless.
    pub fn era(&self) -> Era {
        if self.is_well_formed() && self.as_str() >= Version::V2026_07_28.as_str() {
            Era::Stateless
        } else {
            Era::Handshake
        }
    }

    /// Position among the known versions (0 = oldest); `None` for unknown strings.
    pub fn rank(&self) -> Option<usize> {
        // By the variant, not a search of `KNOWN` comparing versions: every capability and
        // method a session checks asks for ranks.
        Some(match self {
            Version::V2024_11_05 => 0,
            Version::V2025_03_26 => 1,
            Version::V2025_06_18 => 2,
            Version::V2025_11_25 => 3,
            Version::V2026_07_28 => 4,
            Version::Unknown(_) => return None,
        })
    }

    /// True when this version has the features of `since` (and not those removed after
    /// `until`), judged by its feature level.
    pub fn within(&self, era: Era, since: &Version, until: Option<&Version>) -> bool {
        let level = match self.rank() {
            Some(known) => known,
            None => self.feature_level(era).rank().unwrap_or(0),
        };
        level >= since.rank().unwrap_or(0)
            && until.is_none_or(|u| level <= u.rank().unwrap_or(usize::MAX))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl From<&str> for Version {
    fn from(s: &str) -> Self {
        Version::parse(s)
    }
}

/// Why a requested version cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a `YYYY-MM-DD` string at all.
    Malformed,
    /// Well-formed, but not one we speak.
    Unsupported,
}

/// The responder's choice (handshake era): echo the requested version when supported,
/// otherwise offer our most preferred one, unless the caller wants a refusal instead.
/// `supported` is in preference order. A malformed request is always refused.
pub fn negotiate(
    requested: &str,
    supported: &[Version],
    offer_latest: bool,
) -> Result<Version, Refusal> {
    let requested = Version::parse(requested);
    if !requested.is_well_formed() {
        return Err(Refusal::Malformed);
    }
    if supported.contains(&requested) {
        return Ok(requested);
    }
    match supported.first() {
        Some(latest) if offer_latest => Ok(latest.clone()),
        _ => Err(Refusal::Unsupported),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_version_ranks_by_its_place_among_the_known() {
        for (place, version) in KNOWN.iter().enumerate() {
            assert_eq!(version.rank(), Some(place), "{version}");
            assert_eq!(Version::parse(version.as_str()).rank(), Some(place));
        }
        assert_eq!(Version::parse("2025-09-01").rank(), None);
        // An unknown date has the features of the newest known version before it.
        let between = Version::parse("2025-09-01");
        assert!(between.within(Era::Handshake, &Version::V2025_06_18, None));
        assert!(!between.within(Era::Handshake, &Version::V2025_11_25, None));
    }
}
