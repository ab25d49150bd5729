//! Protocol revisions and the two eras they belong to.

/// A protocol revision emcp speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Version {
    /// 2024-11-05 (legacy era).
    V2024_11_05,
    /// 2025-03-26 (legacy era).
    V2025_03_26,
    /// 2025-06-18 (legacy era).
    V2025_06_18,
    /// 2025-11-25 (legacy era, the last one).
    V2025_11_25,
    /// 2026-07-28 (stateless: per-request `_meta`, `server/discover`).
    V2026_07_28,
}

/// The two eras of the protocol revisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Era {
    /// 2024-11-05 to 2025-11-25: a session opened by `initialize`.
    Legacy,
    /// 2026-07-28 and later: no `initialize`, `_meta` on each request.
    Stateless,
}

impl Era {
    /// True for [`Era::Stateless`].
    pub const fn is_stateless(self) -> bool {
        matches!(self, Era::Stateless)
    }
}

/// Initialize-era revisions, newest first.
pub const LEGACY: [Version; 4] = [
    Version::V2025_11_25,
    Version::V2025_06_18,
    Version::V2025_03_26,
    Version::V2024_11_05,
];

/// Stateless (2026-07-28 and later) revisions, newest first.
pub const STATELESS: [Version; 1] = [Version::V2026_07_28];

/// Every revision emcp speaks, oldest first.
const ALL: [Version; 5] = [
    Version::V2024_11_05,
    Version::V2025_03_26,
    Version::V2025_06_18,
    Version::V2025_11_25,
    Version::V2026_07_28,
];

impl Version {
    /// The revision's date string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Version::V2024_11_05 => "2024-11-05",
            Version::V2025_03_26 => "2025-03-26",
            Version::V2025_06_18 => "2025-06-18",
            Version::V2025_11_25 => "2025-11-25",
            Version::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision named by `s`, if emcp speaks it.
    pub fn parse(s: &[u8]) -> Option<Self> {
        ALL.iter().copied().find(|v| v.as_str().as_bytes() == s)
    }

    /// True for the stateless era (no `initialize`).
    pub const fn is_stateless(self) -> bool {
        matches!(self, Version::V2026_07_28)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_era() {
        assert_eq!(Version::parse(b"2025-06-18"), Some(Version::V2025_06_18));
        assert_eq!(
            Version::parse(b"2026-07-28").map(Version::is_stateless),
            Some(true)
        );
        assert_eq!(
            Version::parse(b"2025-11-25").map(Version::is_stateless),
            Some(false)
        );
        assert_eq!(Version::parse(b"1900-01-01"), None);
    }
}
