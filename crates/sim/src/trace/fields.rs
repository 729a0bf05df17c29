//! Field splitting and validated number parsing shared by the format parsers.
//!
//! Parsing works on bytes and never allocates; only error messages do.

/// The fields of one line, numbered from 1 as they are taken.
pub(super) struct Fields<'a, I: Iterator<Item = &'a [u8]>> {
    iter: I,
    index: usize,
}

/// Comma-separated fields, each trimmed of blanks.
pub(super) fn csv(line: &[u8]) -> Fields<'_, impl Iterator<Item = &[u8]>> {
    Fields {
        iter: line.split(|&b| b == b',').map(<[u8]>::trim_ascii),
        index: 0,
    }
}

/// Blank-separated fields (runs of spaces or tabs count as one separator).
pub(super) fn words(line: &[u8]) -> Fields<'_, impl Iterator<Item = &[u8]>> {
    Fields {
        iter: line
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty()),
        index: 0,
    }
}

impl<'a, I: Iterator<Item = &'a [u8]>> Fields<'a, I> {
    /// The next field, called `name` in messages; an error if the line has no more fields.
    pub(super) fn next(&mut self, name: &'static str) -> Result<Field<'a>, String> {
        self.index += 1;
        match self.iter.next() {
            Some(text) => Ok(Field {
                text,
                index: self.index,
                name,
            }),
            None => Err(format!("field {} ({name}) is missing", self.index)),
        }
    }
}

/// One field's text with its position and name, for validation and messages.
pub(super) struct Field<'a> {
    pub(super) text: &'a [u8],
    index: usize,
    name: &'static str,
}

impl<'a> Field<'a> {
    /// An error message: `field N (Name): "text" <what>`.
    pub(super) fn fail(&self, what: &str) -> String {
        format!(
            "field {} ({}): {:?} {what}",
            self.index,
            self.name,
            String::from_utf8_lossy(self.text)
        )
    }

    /// An unsigned decimal integer; `unit` completes "is not ..." (e.g. "a number of bytes").
    pub(super) fn uint(&self, unit: &str) -> Result<u64, String> {
        parse_u64(self.text).ok_or_else(|| self.number_error(unit))
    }

    /// A byte count for a record: at least 1 and at most `u32::MAX` (under 4 GiB).
    pub(super) fn size(&self) -> Result<u32, String> {
        let v = self.uint("a number of bytes")?;
        self.check_size(v, 1)
    }

    /// Checks a size given in units of `unit_bytes` bytes and returns it in bytes.
    pub(super) fn check_size(&self, v: u64, unit_bytes: u64) -> Result<u32, String> {
        if v == 0 {
            return Err(self.fail("is zero; sizes must be at least 1 byte"));
        }
        v.checked_mul(unit_bytes)
            .and_then(|b| u32::try_from(b).ok())
            .ok_or_else(|| self.fail("is over 4 GiB; sizes must be at most 4294967295 bytes"))
    }

    /// An offset given in 512-byte units, returned in bytes.
    pub(super) fn sectors_to_bytes(&self, unit: &str) -> Result<u64, String> {
        self.uint(unit)?
            .checked_mul(512)
            .ok_or_else(|| self.fail("is too large: the byte offset does not fit 64 bits"))
    }

    /// Decimal seconds (e.g. `12.000345`), returned in nanoseconds.
    pub(super) fn seconds_ns(&self) -> Result<u64, String> {
        parse_seconds_ns(self.text).ok_or_else(|| {
            let t = self.text;
            let digits = t.iter().filter(|b| b.is_ascii_digit()).count();
            let dots = t.iter().filter(|&&b| b == b'.').count();
            if digits > 0 && digits + dots == t.len() && dots <= 1 {
                // A well-formed decimal fails only by not fitting 64 bits of nanoseconds.
                self.fail(
                    "is too large: times must be at most 18446744073.709551615 seconds \
                     (about 584 years)",
                )
            } else {
                self.number_error("a number of seconds")
            }
        })
    }

    /// The field as UTF-8 text, which must not be empty.
    pub(super) fn str(&self) -> Result<&'a str, String> {
        match std::str::from_utf8(self.text) {
            Ok("") => Err(self.fail("is empty")),
            Ok(s) => Ok(s),
            Err(_) => Err(self.fail("is not valid UTF-8")),
        }
    }

    /// The most precise reason why the field is not a valid unsigned number.
    fn number_error(&self, unit: &str) -> String {
        let t = self.text;
        let numeric =
            |s: &[u8]| !s.is_empty() && s.iter().all(|b| b.is_ascii_digit() || *b == b'.');
        if t.first() == Some(&b'-') && numeric(&t[1..]) {
            self.fail("is negative")
        } else if !t.is_empty() && t.iter().all(u8::is_ascii_digit) {
            self.fail("is too large")
        } else {
            self.fail(&format!("is not {unit}"))
        }
    }
}

/// An unsigned decimal integer without sign; None on any other character or on overflow.
#[inline]
pub(super) fn parse_u64(t: &[u8]) -> Option<u64> {
    if t.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in t {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// Decimal seconds (`int`, `int.frac`, `.frac` or `int.`) to nanoseconds; fractional digits
/// past the ninth are checked and truncated. None if not such a number or on overflow.
#[inline]
pub(super) fn parse_seconds_ns(t: &[u8]) -> Option<u64> {
    let (int, frac) = match t.iter().position(|&b| b == b'.') {
        Some(dot) => (&t[..dot], &t[dot + 1..]),
        None => (t, &t[t.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let secs = if int.is_empty() { 0 } else { parse_u64(int)? };
    let mut ns: u64 = 0;
    for i in 0..9 {
        let d = match frac.get(i) {
            Some(b) if b.is_ascii_digit() => u64::from(b - b'0'),
            Some(_) => return None,
            None => 0,
        };
        ns = ns * 10 + d;
    }
    if frac.len() > 9 && !frac[9..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}
