//! The warm-up of a run: a fixed length, or automatic (until steady).

use serde::{Deserialize, Serialize};

use super::DEFAULT_WARMUP_MAX;
use crate::TimeSpan;

/// A warm-up: a fixed length, or automatic (until steady, at most `max`). Written `auto` or
/// as a time span (`10s`) on the command line and in plan files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warmup {
    /// This long.
    Fixed(TimeSpan),
    /// Until the steady-state test passes, at most this long.
    Auto {
        /// Longest warm-up.
        max: TimeSpan,
    },
}

impl Warmup {
    /// Parses `auto` or a time span (`10s`, `0`).
    pub fn parse(s: &str, max: TimeSpan) -> Result<Warmup, crate::UnitError> {
        if s.trim().eq_ignore_ascii_case("auto") {
            Ok(Warmup::Auto { max })
        } else if s.trim() == "0" {
            Ok(Warmup::Fixed(TimeSpan(0)))
        } else {
            s.parse().map(Warmup::Fixed)
        }
    }

    /// True for an automatic warm-up.
    pub fn is_auto(self) -> bool {
        matches!(self, Warmup::Auto { .. })
    }

    /// The longest the warm-up can take.
    pub fn max(self) -> TimeSpan {
        match self {
            Warmup::Fixed(t) => t,
            Warmup::Auto { max } => max,
        }
    }
}

impl std::fmt::Display for Warmup {
    /// `auto` or the span (`10s`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warmup::Fixed(t) => write!(f, "{t}"),
            Warmup::Auto { .. } => f.write_str("auto"),
        }
    }
}

impl Serialize for Warmup {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Warmup {
    /// `"auto"` (with the default limit), or whatever a [`TimeSpan`] reads.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Span(TimeSpan),
        }
        match Raw::deserialize(d)? {
            Raw::Text(s) => Warmup::parse(&s, DEFAULT_WARMUP_MAX)
                .map_err(|e| serde::de::Error::custom(format!("{e} (or \"auto\": until steady)"))),
            Raw::Span(t) => Ok(Warmup::Fixed(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmup_parses_auto_and_spans() {
        let max = DEFAULT_WARMUP_MAX;
        assert_eq!(Warmup::parse("auto", max), Ok(Warmup::Auto { max }));
        assert_eq!(Warmup::parse("0", max), Ok(Warmup::Fixed(TimeSpan(0))));
        assert_eq!(
            Warmup::parse("10s", max),
            Ok(Warmup::Fixed(TimeSpan::from_secs(10)))
        );
        assert!(Warmup::parse("soon", max).is_err());
        #[derive(Deserialize)]
        struct Plan {
            warmup: Warmup,
        }
        let read = |t: &str| toml::from_str::<Plan>(t).map(|p| p.warmup);
        assert_eq!(read("warmup = \"auto\"").ok(), Some(Warmup::Auto { max }));
        assert_eq!(
            read("warmup = \"5s\"").ok(),
            Some(Warmup::Fixed(TimeSpan::from_secs(5)))
        );
        assert!(read("warmup = \"later\"").is_err());
        assert_eq!(Warmup::Auto { max }.to_string(), "auto");
    }
}
