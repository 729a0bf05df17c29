//! Numbers as Oracle's reports print them: thousands separators (`1,234,567.8`), scale
//! suffixes (`12.3K`, `1,024M`), units glued on (`1.47ms`, `583us`), percentages, and
//! `#####` where a value overflowed its column.

/// A number read from a report cell.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Num {
    /// The digits as printed and the suffix after them (`K`, `M`, `ms`, `%`; empty if none).
    Value(f64, String),
    /// `#####`: the value did not fit its column.
    Overflow,
}

/// Reads one token; None when it is not a number (a word, `N/A`, empty).
pub(crate) fn parse(token: &str) -> Option<Num> {
    let t = token.trim();
    if t.len() >= 2 && t.chars().all(|c| c == '#') {
        return Some(Num::Overflow);
    }
    let digits_end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == ',' || c == '.' || (i == 0 && c == '-')))
        .map_or(t.len(), |(i, _)| i);
    let (digits, suffix) = t.split_at(digits_end);
    let plain: String = digits.chars().filter(|&c| c != ',').collect();
    if !plain.chars().any(|c| c.is_ascii_digit()) || !valid_commas(digits) {
        return None;
    }
    let suffix_ok = matches!(
        suffix,
        "" | "K" | "M" | "G" | "T" | "k" | "m" | "g" | "t" | "%" | "ms" | "us" | "s" | "ns"
    );
    if !suffix_ok {
        return None;
    }
    plain
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| Num::Value(v, suffix.to_string()))
}

/// Commas only between digits (`1,234`), never leading, trailing or doubled.
fn valid_commas(digits: &str) -> bool {
    let b = digits.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        c != b','
            || (i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
    })
}

/// The token is a number or an overflow mark.
pub(crate) fn is_numeric(token: &str) -> bool {
    parse(token).is_some()
}

/// What a value means, which decides how its suffix scales it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    /// A count or rate: `K` = 1e3, `M` = 1e6, `G` = 1e9, `T` = 1e12.
    Count,
    /// Bytes: `K` = 1024, `M` = 1024^2 ... (Oracle's Cache Sizes).
    Bytes,
    /// A time in milliseconds: a bare number is ms; `us`, `s`, `ns` convert.
    Millis,
}

/// The value of `token` as `scale` reads it. `Err(())` marks an overflowed column (`#####`);
/// `Ok(None)` a token that is not a number.
pub(crate) fn value(token: &str, scale: Scale) -> Result<Option<f64>, ()> {
    let (v, suffix) = match parse(token) {
        None => return Ok(None),
        Some(Num::Overflow) => return Err(()),
        Some(Num::Value(v, s)) => (v, s),
    };
    let factor = match (scale, suffix.as_str()) {
        (_, "" | "%") => 1.0,
        (Scale::Count, "K" | "k") => 1e3,
        (Scale::Count, "M" | "m") => 1e6,
        (Scale::Count, "G" | "g") => 1e9,
        (Scale::Count, "T" | "t") => 1e12,
        (Scale::Bytes, "K" | "k") => 1024.0,
        (Scale::Bytes, "M" | "m") => 1024.0 * 1024.0,
        (Scale::Bytes, "G" | "g") => 1024.0 * 1024.0 * 1024.0,
        (Scale::Bytes, "T" | "t") => 1024f64.powi(4),
        (Scale::Millis, "ms") => 1.0,
        (Scale::Millis, "us") => 1e-3,
        (Scale::Millis, "ns") => 1e-6,
        (Scale::Millis, "s") => 1e3,
        _ => return Ok(None),
    };
    Ok(Some(v * factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_numbers_read_with_their_scale() {
        let count = |t| value(t, Scale::Count);
        assert_eq!(count("1,234,567.8"), Ok(Some(1_234_567.8)));
        assert_eq!(count("12.5K"), Ok(Some(12_500.0)));
        assert_eq!(count("2.3M"), Ok(Some(2_300_000.0)));
        assert_eq!(count("45.6%"), Ok(Some(45.6)));
        assert_eq!(count("-3"), Ok(Some(-3.0)));
        assert_eq!(count("#####"), Err(()));
        assert_eq!(count("N/A"), Ok(None));
        assert_eq!(count(""), Ok(None));
        assert_eq!(count("1,2,,3"), Ok(None));
        assert_eq!(count(",123"), Ok(None));
        assert_eq!(count("12ab"), Ok(None));
        assert_eq!(count("1.2.3"), Ok(None));
        assert_eq!(value("1,024M", Scale::Bytes), Ok(Some(1_073_741_824.0)));
        assert_eq!(value("8K", Scale::Bytes), Ok(Some(8192.0)));
        assert_eq!(value("1.47ms", Scale::Millis), Ok(Some(1.47)));
        assert_eq!(value("500us", Scale::Millis), Ok(Some(0.5)));
        assert_eq!(value("2", Scale::Millis), Ok(Some(2.0)));
        assert!(is_numeric("#####") && is_numeric("0.00") && !is_numeric("Snap:"));
    }
}
