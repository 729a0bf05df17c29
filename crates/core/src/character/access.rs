//! How a segment's accesses spread over its blocks, and a segment's size that may be unknown;
//! both written as short strings in characterization files.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

use crate::ByteSize;

/// Largest Zipf exponent accepted.
pub const MAX_ZIPF_THETA: f64 = 10.0;

/// The spread of a segment's accesses over its blocks.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Access {
    /// Every block equally likely (`"uniform"`).
    #[default]
    Uniform,
    /// Zipf with exponent `theta` over the blocks (`"zipf:0.99"`).
    Zipf { theta: f64 },
    /// A hot set: the fraction `data` of the blocks takes the fraction `accesses` of the
    /// accesses, the rest spread evenly (`"hot:0.2/0.8"`).
    Hot { data: f64, accesses: f64 },
}

/// The forms an access takes, with the bounds of their numbers.
fn forms() -> String {
    format!(
        "use \"uniform\", \"zipf:THETA\" (THETA above 0, at most {MAX_ZIPF_THETA}) or \
         \"hot:DATA/ACCESSES\" (fractions above 0 and below 1, e.g. hot:0.2/0.8)"
    )
}

fn fraction(s: &str, what: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{what} {s:?} is not a number; {}", forms()))?;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("{what} must be above 0 and below 1; got {s}"))
    }
}

impl FromStr for Access {
    type Err = String;

    fn from_str(s: &str) -> Result<Access, String> {
        let s = s.trim();
        if s == "uniform" {
            return Ok(Access::Uniform);
        }
        if let Some(theta) = s.strip_prefix("zipf:") {
            let t: f64 = theta
                .trim()
                .parse()
                .map_err(|_| format!("zipf exponent {theta:?} is not a number; {}", forms()))?;
            if t > 0.0 && t <= MAX_ZIPF_THETA {
                return Ok(Access::Zipf { theta: t });
            }
            return Err(format!(
                "zipf exponent must be above 0 and at most {MAX_ZIPF_THETA}; got {theta}"
            ));
        }
        if let Some(rest) = s.strip_prefix("hot:") {
            let (d, a) = rest
                .split_once('/')
                .ok_or_else(|| format!("{s:?} has no '/'; {}", forms()))?;
            return Ok(Access::Hot {
                data: fraction(d, "the hot data fraction")?,
                accesses: fraction(a, "the hot access fraction")?,
            });
        }
        Err(format!("unknown access {s:?}; {}", forms()))
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Access::Uniform => write!(f, "uniform"),
            Access::Zipf { theta } => write!(f, "zipf:{theta}"),
            Access::Hot { data, accesses } => write!(f, "hot:{data}/{accesses}"),
        }
    }
}

impl Serialize for Access {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Access {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(de::Error::custom)
    }
}

/// How a segment whose size the source did not give writes its size.
pub const UNKNOWN_SIZE: &str = "unknown";

/// A segment's size: known, or `"unknown"` (the source did not give it; it must be filled in
/// before the workload is simulated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentSize {
    Known(ByteSize),
    Unknown,
}

impl SegmentSize {
    /// The size, when known.
    pub fn known(self) -> Option<ByteSize> {
        match self {
            SegmentSize::Known(b) => Some(b),
            SegmentSize::Unknown => None,
        }
    }
}

impl Serialize for SegmentSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SegmentSize::Known(b) => b.serialize(s),
            SegmentSize::Unknown => s.serialize_str(UNKNOWN_SIZE),
        }
    }
}

impl<'de> Deserialize<'de> for SegmentSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bytes(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bytes(b) => Ok(SegmentSize::Known(ByteSize(b))),
            Raw::Text(t) if t.trim() == UNKNOWN_SIZE => Ok(SegmentSize::Unknown),
            Raw::Text(t) => t
                .parse::<ByteSize>()
                .map(SegmentSize::Known)
                .map_err(|e| de::Error::custom(format!("{e}; or \"unknown\""))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_forms_parse_print_and_name_the_bound() {
        for s in ["uniform", "zipf:0.99", "hot:0.2/0.8"] {
            assert_eq!(s.parse::<Access>().unwrap().to_string(), s);
        }
        assert_eq!(
            "hot:0.1/0.9".parse::<Access>().unwrap(),
            Access::Hot {
                data: 0.1,
                accesses: 0.9
            }
        );
        let e = "zipf:11".parse::<Access>().unwrap_err();
        assert_eq!(e, "zipf exponent must be above 0 and at most 10; got 11");
        let e = "hot:0.2/1.5".parse::<Access>().unwrap_err();
        assert_eq!(
            e,
            "the hot access fraction must be above 0 and below 1; got 1.5"
        );
        assert!("hot:0.2".parse::<Access>().unwrap_err().contains("no '/'"));
        assert!("gauss".parse::<Access>().unwrap_err().contains("uniform"));
        assert!("zipf:nan".parse::<Access>().is_err());
    }
}
