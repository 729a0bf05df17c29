//! Typed units: owns [`ByteSize`] (bytes, binary `k`/`m`/`g`/`t` suffixes),
//! [`TimeSpan`] (nanoseconds) and their parse error [`UnitError`], with exact
//! string parsing, shortest exact display, and serde for config files.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

/// Size units, largest first, for parsing and display.
const SIZE_UNITS: &[(&str, u64)] = &[
    ("t", 1 << 40),
    ("g", 1 << 30),
    ("m", 1 << 20),
    ("k", 1 << 10),
];
/// Time units in nanoseconds, largest first, for parsing and display.
const TIME_UNITS: &[(&str, u64)] = &[
    ("h", 3_600_000_000_000),
    ("m", 60_000_000_000),
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("ns", 1),
];
/// 2^64 as f64: the first float that does not fit in a `u64`.
const U64_LIMIT: f64 = 18_446_744_073_709_551_616.0;

/// A string, integer or float that could not be turned into a size or duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError {
    /// What was being parsed: `"size"` or `"duration"`.
    pub kind: &'static str,
    /// The offending input, as given.
    pub input: String,
    /// What was wrong, including the accepted forms where helpful.
    pub reason: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} {:?}: {}", self.kind, self.input, self.reason)
    }
}

impl std::error::Error for UnitError {}

/// A size in bytes. Parses `512`, `512b`, `8k`, `8KiB`, `8KB`, `1.5g`, `2t`
/// (all binary: `k` = 1024); displays the shortest exact form (`8k`, `1536`).
/// Serde: from a string or an integer number of bytes; serialized as a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteSize(pub u64);

impl ByteSize {
    /// Number of bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }

    /// Size in KiB.
    pub fn kib(self) -> f64 {
        self.0 as f64 / 1024.0
    }

    /// Size in MiB.
    pub fn mib(self) -> f64 {
        self.0 as f64 / (1024.0 * 1024.0)
    }
}

/// A span of time in nanoseconds. Parses `100ns`, `250us`, `500ms`, `60s`,
/// `10m`, `1h`, `1.5s`, or a plain number of seconds; displays the shortest
/// exact form (`1.5s` -> `1500ms`). Serde: from a string or a number
/// (integer or float) of seconds; serialized as the display string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimeSpan(pub u64);

impl TimeSpan {
    /// Number of nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// Span in (fractional) seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// Span as a [`std::time::Duration`].
    pub const fn as_duration(self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.0)
    }

    /// From whole seconds, saturating at `u64::MAX` ns (~584 years).
    pub const fn from_secs(secs: u64) -> Self {
        Self(secs.saturating_mul(1_000_000_000))
    }

    /// From whole milliseconds, saturating at `u64::MAX` ns.
    pub const fn from_millis(ms: u64) -> Self {
        Self(ms.saturating_mul(1_000_000))
    }

    /// From fractional seconds, rounded to the nearest nanosecond. Negative
    /// and NaN give zero; too-large values saturate.
    pub fn from_secs_f64(secs: f64) -> Self {
        Self((secs * 1e9).round() as u64)
    }
}

/// Why a value was rejected; turned into a message by [`error`].
#[derive(Debug)]
enum Fail {
    Empty,
    Negative,
    NotNumber,
    Unit(String),
    Overflow,
    Fraction,
    Precision,
}

/// Per-type parsing rules shared by the parser, error messages and serde.
trait UnitValue: Sized {
    const KIND: &'static str;
    const ATOM: &'static str;
    const HINT: &'static str;
    const EXPECTING: &'static str;
    /// Atoms per unit of a bare number in a config file (bytes / seconds).
    const NUMBER_UNIT: u64;
    fn unit(suffix: &str) -> Option<u64>;
    fn new(atoms: u64) -> Self;
}

impl UnitValue for ByteSize {
    const KIND: &'static str = "size";
    const ATOM: &'static str = "bytes";
    const HINT: &'static str =
        "use a number with an optional k, m, g, t suffix, binary units: 8k = 8192 bytes";
    const EXPECTING: &'static str = "a size like \"8k\" or a number of bytes";
    const NUMBER_UNIT: u64 = 1;

    fn unit(suffix: &str) -> Option<u64> {
        let base = match suffix {
            "" | "b" => return Some(1),
            s => s.strip_suffix("ib").or(s.strip_suffix('b')).unwrap_or(s),
        };
        SIZE_UNITS.iter().find(|(n, _)| *n == base).map(|&(_, m)| m)
    }
    fn new(atoms: u64) -> Self {
        Self(atoms)
    }
}

impl UnitValue for TimeSpan {
    const KIND: &'static str = "duration";
    const ATOM: &'static str = "nanoseconds";
    const HINT: &'static str = "use a number with a unit ns, us, ms, s, m (minutes) or h, \
                                e.g. 500ms, 1.5s, 10m; a plain number means seconds";
    const EXPECTING: &'static str = "a duration like \"60s\" or a number of seconds";
    const NUMBER_UNIT: u64 = 1_000_000_000;

    fn unit(suffix: &str) -> Option<u64> {
        let u = match suffix {
            "" => "s",
            "µs" | "μs" => "us",
            s => s,
        };
        TIME_UNITS.iter().find(|(n, _)| *n == u).map(|&(_, m)| m)
    }
    fn new(atoms: u64) -> Self {
        Self(atoms)
    }
}

/// Converts a bare float from a config file: rounded to a whole atom, but
/// rejected if more than 1e-6 away from one (e.g. 1.5 bytes).
fn float_to_atoms<T: UnitValue>(v: f64) -> Result<T, Fail> {
    if v.is_nan() {
        return Err(Fail::NotNumber);
    }
    if v < 0.0 {
        return Err(Fail::Negative);
    }
    let x = v * T::NUMBER_UNIT as f64;
    if x >= U64_LIMIT {
        return Err(Fail::Overflow);
    }
    if (x - x.round()).abs() > 1e-6 {
        return Err(Fail::Fraction);
    }
    Ok(T::new(x.round() as u64))
}

/// Builds the user-facing error for `input`.
fn error<T: UnitValue>(input: &str, fail: Fail) -> UnitError {
    let (kind, hint) = (T::KIND, T::HINT);
    let reason = match fail {
        Fail::Empty => format!("empty {kind} ({hint})"),
        Fail::Negative => format!("{kind}s cannot be negative ({hint})"),
        Fail::NotNumber => format!("expected a number ({hint})"),
        Fail::Unit(u) => format!("unknown {kind} unit {u:?} ({hint})"),
        Fail::Overflow => format!("too large (maximum is {} {})", u64::MAX, T::ATOM),
        Fail::Fraction => format!("not a whole number of {}", T::ATOM),
        Fail::Precision => "too many decimal places (at most 19)".to_string(),
    };
    UnitError {
        kind,
        input: input.to_string(),
        reason,
    }
}

/// Parses `<decimal number><optional whitespace><unit>` exactly (no floats).
fn parse_scaled(s: &str, unit: fn(&str) -> Option<u64>) -> Result<u64, Fail> {
    let s = s.trim();
    if s.is_empty() {
        return Err(Fail::Empty);
    }
    if s.starts_with('-') {
        return Err(Fail::Negative);
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if (int.is_empty() && frac.is_empty()) || frac.contains('.') {
        return Err(Fail::NotNumber);
    }
    let suffix = suffix.trim_start();
    let mult = unit(&suffix.to_ascii_lowercase()).ok_or_else(|| Fail::Unit(suffix.to_string()))?;
    let frac = frac.trim_end_matches('0');
    if frac.len() > 19 {
        return Err(Fail::Precision);
    }
    // Only ASCII digits remain, so parsing can fail only by overflow.
    let digits = |d: &str| -> Result<u128, Fail> {
        if d.is_empty() {
            Ok(0)
        } else {
            d.parse::<u128>().map_err(|_| Fail::Overflow)
        }
    };
    let whole = digits(int)?
        .checked_mul(u128::from(mult))
        .ok_or(Fail::Overflow)?;
    let scale = 10u128.pow(frac.len() as u32);
    let part = digits(frac)? * u128::from(mult);
    if part % scale != 0 {
        return Err(Fail::Fraction);
    }
    u64::try_from(whole + part / scale).map_err(|_| Fail::Overflow)
}

fn parse<T: UnitValue>(s: &str) -> Result<T, UnitError> {
    parse_scaled(s, T::unit)
        .map(T::new)
        .map_err(|f| error::<T>(s, f))
}

/// Writes `n` in the largest unit that divides it exactly.
fn fmt_exact(f: &mut fmt::Formatter<'_>, n: u64, units: &[(&str, u64)], zero: &str) -> fmt::Result {
    if n == 0 {
        return f.pad(zero);
    }
    match units.iter().find(|&&(_, m)| n / m * m == n) {
        Some(&(u, m)) => f.pad(&format!("{}{u}", n / m)),
        None => f.pad(&n.to_string()),
    }
}

/// Serde visitor accepting a unit string, an integer or a float.
struct Visit<T>(PhantomData<T>);

impl<T: UnitValue> de::Visitor<'_> for Visit<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        parse(v).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        let atoms = v.checked_mul(T::NUMBER_UNIT).ok_or(Fail::Overflow);
        atoms
            .map(T::new)
            .map_err(|f| E::custom(error::<T>(&v.to_string(), f)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::custom(error::<T>(&v.to_string(), Fail::Negative))),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        float_to_atoms(v).map_err(|f| E::custom(error::<T>(&v.to_string(), f)))
    }
}

/// `Display`, `FromStr`, `Serialize` (as the display string) and
/// `Deserialize` (string or number, see the type docs) for a unit type.
macro_rules! unit_impls {
    ($t:ty, $units:expr, $zero:literal) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt_exact(f, self.0, $units, $zero)
            }
        }

        impl FromStr for $t {
            type Err = UnitError;
            fn from_str(s: &str) -> Result<Self, UnitError> {
                parse(s)
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(Visit(PhantomData))
            }
        }
    };
}

unit_impls!(ByteSize, SIZE_UNITS, "0");
unit_impls!(TimeSpan, TIME_UNITS, "0s");

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SEC: u64 = 1_000_000_000;

    fn size(s: &str) -> Result<u64, String> {
        s.parse::<ByteSize>()
            .map(|b| b.0)
            .map_err(|e| e.to_string())
    }
    fn span(s: &str) -> Result<u64, String> {
        s.parse::<TimeSpan>()
            .map(|t| t.0)
            .map_err(|e| e.to_string())
    }
    fn assert_rejects<T: fmt::Debug>(parse: fn(&str) -> Result<T, String>, cases: &[(&str, &str)]) {
        for (input, want) in cases {
            let msg = parse(input).unwrap_err();
            assert!(msg.contains(want), "{input:?}: {msg}");
        }
    }

    #[test]
    fn size_parse_and_display() {
        let groups: [(&[&str], u64); 6] = [
            (&["512", "512b", "512B", " 512 "], 512),
            (&["8k", "8K", "8KiB", "8kib", "8KB", "8 k", "8192"], 8192),
            (&["1m", "1MiB", "1M", "1024k", ".0009765625g"], 1 << 20),
            (&["4g", "4GiB", "4096m"], 4 << 30),
            (&["1.5g", "1.50G"], 3 << 29),
            (&["2t"], 2 << 40),
        ];
        for (inputs, want) in groups {
            inputs
                .iter()
                .for_each(|s| assert_eq!(size(s), Ok(want), "{s}"));
        }
        assert_eq!(size("16777215.5t"), Ok((16_777_215 << 40) + (1 << 39)));
        assert_eq!(size("18446744073709551615"), Ok(u64::MAX));
        let shown = [
            (0, "0"),
            (1536, "1536"),
            (8192, "8k"),
            (1 << 20, "1m"),
            (4 << 30, "4g"),
        ];
        for (n, want) in shown.into_iter().chain([(3 << 40, "3t")]) {
            assert_eq!(ByteSize(n).to_string(), want);
        }
        assert_eq!(format!("{:>4}", ByteSize(1024)), "  1k");
        assert_eq!((ByteSize(1536).kib(), ByteSize(3 << 19).mib()), (1.5, 1.5));
        assert_eq!(ByteSize(7).bytes(), 7);
    }

    #[test]
    fn size_rejections() {
        let hint =
            "(use a number with an optional k, m, g, t suffix, binary units: 8k = 8192 bytes)";
        let want = format!("invalid size \"8x\": unknown size unit \"x\" {hint}");
        assert_eq!(size("8x"), Err(want));
        assert_rejects(
            size,
            &[
                ("", "invalid size \"\": empty size"),
                ("   ", "empty size"),
                ("-8k", "sizes cannot be negative"),
                ("k", "expected a number"),
                ("1.2.3k", "expected a number"),
                ("+5", "expected a number"),
                ("8ib", "unknown size unit \"ib\""),
                ("1e3", "unknown size unit \"e3\""),
                ("16777216t", "too large"),
                ("18446744073709551616", "too large"),
                ("99999999999999999999999999999999999999999k", "too large"),
                ("1.5", "not a whole number of bytes"),
                ("0.1k", "not a whole number of bytes"),
                ("1.00000000000000000001k", "too many decimal places"),
            ],
        );
    }

    #[test]
    fn time_parse_display_and_methods() {
        let cases = [
            ("60s", 60 * SEC, "1m"),
            ("90", 90 * SEC, "90s"),
            ("500ms", SEC / 2, "500ms"),
            ("250us", 250_000, "250us"),
            ("250µs", 250_000, "250us"),
            ("100ns", 100, "100ns"),
            ("10m", 600 * SEC, "10m"),
            ("1H", 3600 * SEC, "1h"),
            (" 1.5 s ", 1_500_000_000, "1500ms"),
            ("0", 0, "0s"),
        ];
        for (s, ns, shown) in cases {
            assert_eq!(span(s), Ok(ns), "{s}");
            assert_eq!(TimeSpan(ns).to_string(), shown);
        }
        assert_eq!(TimeSpan::from_secs(2).as_nanos(), 2 * SEC);
        assert_eq!(TimeSpan::from_millis(3), TimeSpan(3_000_000));
        assert_eq!(TimeSpan::from_secs_f64(1.5), TimeSpan(1_500_000_000));
        assert_eq!(TimeSpan::from_secs_f64(-1.0), TimeSpan(0));
        assert_eq!(TimeSpan::from_secs(u64::MAX), TimeSpan(u64::MAX));
        assert_eq!(TimeSpan(2_500_000_000).as_secs_f64(), 2.5);
        assert_eq!(TimeSpan(7).as_duration().as_nanos(), 7);
    }

    #[test]
    fn time_rejections() {
        assert_rejects(
            span,
            &[
                ("", "invalid duration \"\": empty duration"),
                ("-1s", "durations cannot be negative"),
                ("ms", "expected a number"),
                (
                    "5x",
                    "unit \"x\" (use a number with a unit ns, us, ms, s, m",
                ),
                ("5sec", "unknown duration unit \"sec\""),
                ("1.5ns", "not a whole number of nanoseconds"),
                ("18446744074s", "too large"),
            ],
        );
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Cfg {
        size: ByteSize,
        duration: TimeSpan,
    }

    fn toml_cfg(s: &str) -> Result<(u64, u64), String> {
        let c: Cfg = toml::from_str(s).map_err(|e| e.to_string())?;
        Ok((c.size.0, c.duration.0))
    }

    #[test]
    fn serde_toml_and_json() {
        assert_eq!(
            toml_cfg("size = \"8k\"\nduration = \"60s\""),
            Ok((8192, 60 * SEC))
        );
        assert_eq!(toml_cfg("size = 8192\nduration = 60"), Ok((8192, 60 * SEC)));
        assert_eq!(toml_cfg("size = 1\nduration = 1.5"), Ok((1, 1_500_000_000)));
        assert_eq!(toml_cfg("size = 1\nduration = 1e-7"), Ok((1, 100)));
        let cfg = Cfg {
            size: ByteSize(1),
            duration: TimeSpan(1_500_000_000),
        };
        let text = toml::to_string(&cfg).unwrap();
        assert_eq!(text, "size = \"1\"\nduration = \"1500ms\"\n");
        assert_rejects(
            toml_cfg,
            &[
                ("size = \"8x\"\nduration = 1", "unknown size unit"),
                ("size = -1\nduration = 1", "sizes cannot be negative"),
                ("size = 1\nduration = -2", "durations cannot be negative"),
                ("size = 1\nduration = -0.5", "durations cannot be negative"),
                ("size = 1\nduration = 1e30", "too large"),
                ("size = 1.5\nduration = 1", "not a whole number of bytes"),
                (
                    "size = 1\nduration = 1.5e-9",
                    "not a whole number of nanoseconds",
                ),
                ("size = true\nduration = 1", "a size like"),
            ],
        );
        let j: Cfg = serde_json::from_str(r#"{"size": 4096.0, "duration": 18446744073}"#).unwrap();
        assert_eq!((j.size.0, j.duration.0), (4096, 18_446_744_073 * SEC));
        let big = serde_json::from_str::<Cfg>(r#"{"size": 1, "duration": 18446744074}"#);
        assert!(big.unwrap_err().to_string().contains("too large"));
        assert_eq!(serde_json::to_string(&ByteSize(1 << 20)).unwrap(), "\"1m\"");
    }

    proptest! {
        #[test]
        fn size_round_trip(k in 0u64..=u64::MAX / 1024, n in any::<u64>()) {
            for s in [ByteSize(k * 1024), ByteSize(n)] {
                prop_assert_eq!(s.to_string().parse::<ByteSize>(), Ok(s));
                let json = serde_json::to_string(&s).unwrap();
                prop_assert_eq!(serde_json::from_str::<ByteSize>(&json).unwrap(), s);
            }
        }

        #[test]
        fn time_round_trip(n in any::<u64>(), unit in 0usize..TIME_UNITS.len()) {
            let m = TIME_UNITS[unit].1;
            for t in [TimeSpan(n), TimeSpan(n / m * m)] {
                prop_assert_eq!(t.to_string().parse::<TimeSpan>(), Ok(t));
                let json = serde_json::to_string(&t).unwrap();
                prop_assert_eq!(serde_json::from_str::<TimeSpan>(&json).unwrap(), t);
            }
        }
    }
}
