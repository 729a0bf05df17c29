//! Configuration keys declared once: name, type, default, bounds, unit and help of every key
//! of a TOML section (fio's option table is the model). A section's parser fills the declared
//! defaults in and checks the declared bounds from the same table the docs tables are
//! generated from, so the three never disagree.

mod check;
mod docs;
mod fields;
mod section;

pub use docs::{markdown_table, number, seconds, span_words};
pub use fields::serde_fields;
pub use section::{
    check_section, check_table, count_value, default_value, fill_defaults, find, span_value,
    unknown_key,
};

use crate::ByteSize;

/// The type of a key's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number.
    Count,
    /// A number (may have a fraction).
    Number,
    /// A size: bytes, or a string with a unit (`"512MiB"`, `"2g"`).
    Size,
    /// A duration: a string with a unit (`"5ms"`, `"2m"`).
    Time,
    /// `true` or `false`.
    Bool,
    /// A string.
    Text,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// A list of strings (names).
    Names,
    /// A string, or a list of strings.
    NameOrNames,
    /// A table.
    Table,
    /// A list of tables (`[[section]]`).
    Tables,
    /// Something else, described in words (a name or a list of names, a table).
    Other(&'static str),
}

/// A key's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    /// The key must be given.
    Required,
    /// This TOML value (`"128MiB"`, `8`, `true`), filled in when the key is absent.
    Value(&'static str),
    /// Chosen by the parser from other keys, as described (`"the test's"`).
    Derived(&'static str),
}

/// The values a key accepts, in its base unit (count, bytes, ns, or the number itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounds {
    /// Any value of the type.
    Any,
    /// Whole values from `min` to `max` (bytes for sizes, ns for durations).
    Int(u64, u64),
    /// Numbers from `min` to `max`, each end included or not. An upper end of `f64::MAX`
    /// means no bound but a finite value.
    Float(End, End),
}

/// One end of a number's bounds: the value, and whether the value itself is refused
/// (`above 0`, `below 1000`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct End {
    /// The bound.
    pub value: f64,
    /// The bound itself is refused.
    pub exclusive: bool,
}

impl End {
    /// A bound the value may equal.
    pub const fn inclusive(value: f64) -> End {
        End {
            value,
            exclusive: false,
        }
    }

    /// A bound the value must not reach.
    pub const fn exclusive(value: f64) -> End {
        End {
            value,
            exclusive: true,
        }
    }

    /// Whether `x` is on the allowed side of this end (`upper`: the upper end).
    pub(super) fn admits(self, x: f64, upper: bool) -> bool {
        match (upper, self.exclusive) {
            (false, false) => x >= self.value,
            (false, true) => x > self.value,
            (true, false) => x <= self.value,
            (true, true) => x < self.value,
        }
    }
}

/// One key of a section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    /// Name in the TOML section.
    pub name: &'static str,
    /// Type of its value.
    pub kind: Kind,
    /// Default when absent.
    pub default: Default,
    /// Values it accepts.
    pub bounds: Bounds,
    /// Unit of a number (`rows`, `MB/s`); empty when the type carries it.
    pub unit: &'static str,
    /// One or two sentences: what it means.
    pub help: &'static str,
    /// A word accepted in place of a value of the type (`"unknown"`), if any.
    pub or_word: Option<&'static str>,
}

impl Key {
    /// A key with no bounds and no unit.
    pub const fn new(name: &'static str, kind: Kind, default: Default, help: &'static str) -> Key {
        Key {
            name,
            kind,
            default,
            bounds: Bounds::Any,
            unit: "",
            help,
            or_word: None,
        }
    }

    /// The same key accepting whole values from `min` to `max` only.
    pub const fn int(mut self, min: u64, max: u64) -> Key {
        self.bounds = Bounds::Int(min, max);
        self
    }

    /// The same key accepting numbers from `min` to `max` only.
    pub const fn float(mut self, min: f64, max: f64) -> Key {
        self.bounds = Bounds::Float(End::inclusive(min), End::inclusive(max));
        self
    }

    /// The same key accepting numbers from `min` up to but not including `max` only.
    pub const fn float_below(mut self, min: f64, max: f64) -> Key {
        self.bounds = Bounds::Float(End::inclusive(min), End::exclusive(max));
        self
    }

    /// The same key accepting numbers above `min` (not `min` itself) up to `max` only;
    /// `max = f64::MAX` for any finite number above `min`.
    pub const fn float_above(mut self, min: f64, max: f64) -> Key {
        self.bounds = Bounds::Float(End::exclusive(min), End::inclusive(max));
        self
    }

    /// The same key accepting numbers strictly between `min` and `max` only.
    pub const fn float_between(mut self, min: f64, max: f64) -> Key {
        self.bounds = Bounds::Float(End::exclusive(min), End::exclusive(max));
        self
    }

    /// The same key also accepting `word` in place of a value (`"unknown"`: not known yet).
    pub const fn or_word(mut self, word: &'static str) -> Key {
        self.or_word = Some(word);
        self
    }

    /// The same key with a unit.
    pub const fn unit(mut self, unit: &'static str) -> Key {
        self.unit = unit;
        self
    }

    /// The largest whole value accepted, in the base unit (None: not bounded in whole values).
    pub fn int_max(&self) -> Option<u64> {
        match self.bounds {
            Bounds::Int(_, max) => Some(max),
            _ => None,
        }
    }

    /// A value in the base unit, as messages and docs write it (`64k`, `1 s`, `4096`).
    pub fn show(&self, v: u64) -> String {
        match self.kind {
            Kind::Size => ByteSize(v).to_string(),
            Kind::Time => seconds(v),
            _ => v.to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
