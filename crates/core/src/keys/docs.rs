//! Keys in words, for the docs tables, help texts and messages: types, defaults, bounds,
//! numbers and durations.

use super::{Bounds, Default, Key, Kind};

impl Kind {
    /// How the docs name the type.
    pub fn describe(self) -> String {
        match self {
            Kind::Count => "integer".into(),
            Kind::Number => "number".into(),
            Kind::Size => "size".into(),
            Kind::Time => "duration".into(),
            Kind::Bool => "bool".into(),
            Kind::Text => "string".into(),
            Kind::Choice(c) => c
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(" \\| "),
            Kind::Names => "list of names".into(),
            Kind::NameOrNames => "name or list of names".into(),
            Kind::Table => "table".into(),
            Kind::Tables => "array of tables".into(),
            Kind::Other(s) => s.into(),
        }
    }
}

/// A number for messages: exponent notation when plain digits would run long (`1e-300`).
pub fn number(v: f64) -> String {
    if v == 0.0 || (1e-4..1e12).contains(&v.abs()) {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// A duration for messages and docs: `604800 s`, `0.5 ms`.
pub fn seconds(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 1.0 {
        format!("{s} s")
    } else {
        format!("{} ms", ns as f64 / 1e6)
    }
}

/// A duration in the largest unit it is a whole number of, for help texts: `7 days`,
/// `1 day`, `2 h`, `10 min`, `90 s`; below a second or not whole, as [`seconds`] says it.
pub fn span_words(ns: u64) -> String {
    const S: u64 = 1_000_000_000;
    let units = [
        (86_400 * S, "day"),
        (3_600 * S, "h"),
        (60 * S, "min"),
        (S, "s"),
    ];
    match units
        .iter()
        .find(|(unit, _)| ns >= *unit && ns.is_multiple_of(*unit))
    {
        Some((unit, "day")) if ns == *unit => "1 day".into(),
        Some((unit, "day")) => format!("{} days", ns / unit),
        Some((unit, name)) => format!("{} {name}", ns / unit),
        None => seconds(ns),
    }
}

impl Key {
    /// The bounds in words (`1 to 1000`, `at most 1t`), empty when any value goes.
    pub fn describe_bounds(&self) -> String {
        self.bounds_with(|v| self.show(v))
    }

    /// The bounds as a help text says them: durations in the largest whole unit (`1 s to
    /// 1 day`, `at most 7 days`), other values as [`Key::describe_bounds`] shows them.
    pub fn bounds_in_words(&self) -> String {
        match self.kind {
            Kind::Time => self.bounds_with(span_words),
            _ => self.describe_bounds(),
        }
    }

    /// The bounds in words, whole values shown by `show`.
    fn bounds_with(&self, show: impl Fn(u64) -> String) -> String {
        match self.bounds {
            Bounds::Any => String::new(),
            Bounds::Int(0, max) => format!("at most {}", show(max)),
            Bounds::Int(min, u64::MAX) => format!("at least {}", show(min)),
            Bounds::Int(min, max) => format!("{} to {}", show(min), show(max)),
            Bounds::Float(min, max) => {
                let (low, high) = (min.value, max.value);
                match (min.exclusive, max.exclusive, high == f64::MAX) {
                    (false, _, true) => format!("at least {low}"),
                    (true, _, true) => format!("above {low}"),
                    (false, false, false) => format!("{low} to {high}"),
                    (false, true, false) => format!("{low} to below {high}"),
                    (true, false, false) => format!("above {low}, at most {high}"),
                    (true, true, false) => format!("above {low}, below {high}"),
                }
            }
        }
    }

    /// The default as the docs show it.
    pub fn describe_default(&self) -> String {
        match self.default {
            Default::Required => "required".into(),
            Default::Value(v) => format!("`{v}`"),
            Default::Derived(d) => d.into(),
        }
    }
}

/// A Markdown table of `keys`: key, type, default, accepted values, unit, meaning.
pub fn markdown_table(keys: &[Key]) -> String {
    let mut out = String::from(
        "| key | type | default | accepts | unit | meaning |\n|---|---|---|---|---|---|\n",
    );
    for k in keys {
        out += &format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            k.name,
            k.kind.describe(),
            k.describe_default(),
            k.describe_bounds(),
            k.unit,
            k.help.replace('|', "\\|")
        );
    }
    out
}
