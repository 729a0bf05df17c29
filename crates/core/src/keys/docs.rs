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

impl Key {
    /// The bounds in words (`1 to 1000`, `at most 1t`), empty when any value goes.
    pub fn describe_bounds(&self) -> String {
        match self.bounds {
            Bounds::Any => String::new(),
            Bounds::Int(0, max) => format!("at most {}", self.show(max)),
            Bounds::Int(min, u64::MAX) => format!("at least {}", self.show(min)),
            Bounds::Int(min, max) => format!("{} to {}", self.show(min), self.show(max)),
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
