//! Configuration keys declared once: name, type, default, bounds, unit and help of every key
//! of a TOML section (fio's option table is the model). A section's parser fills the declared
//! defaults in and checks the declared bounds from the same table the docs tables are
//! generated from, so the three never disagree.

use crate::{ByteSize, TimeSpan};

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
    fn admits(self, x: f64, upper: bool) -> bool {
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

/// A list of strings.
fn is_names(v: &toml::Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(|s| s.is_str()))
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

    /// A value in the base unit, as messages and docs write it (`64k`, `1 s`, `4096`).
    pub fn show(&self, v: u64) -> String {
        match self.kind {
            Kind::Size => ByteSize(v).to_string(),
            Kind::Time => seconds(v),
            _ => v.to_string(),
        }
    }

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

    /// The bounds as a message says them (`at least 0 and below 1000`).
    fn bound_message(&self) -> String {
        match self.bounds {
            Bounds::Int(min, max) if min > 0 && max < u64::MAX => {
                format!("at least {} and at most {}", self.show(min), self.show(max))
            }
            Bounds::Float(min, max) => {
                let low = match min.exclusive {
                    true => format!("above {}", number(min.value)),
                    false => format!("at least {}", number(min.value)),
                };
                match (max.value == f64::MAX, max.exclusive) {
                    (true, _) => format!("finite and {low}"),
                    (false, false) => format!("{low} and at most {}", number(max.value)),
                    (false, true) => format!("{low} and below {}", number(max.value)),
                }
            }
            _ => self.describe_bounds(),
        }
    }

    /// The value in its base unit (None: not a number of this key's type).
    fn base_value(&self, v: &toml::Value) -> Option<f64> {
        match self.kind {
            Kind::Count => v.as_integer().map(|i| i as f64),
            Kind::Number => v.as_float().or_else(|| v.as_integer().map(|i| i as f64)),
            Kind::Size => v.clone().try_into::<ByteSize>().ok().map(|b| b.0 as f64),
            Kind::Time => v.clone().try_into::<TimeSpan>().ok().map(|t| t.0 as f64),
            _ => None,
        }
    }

    /// Checks the type of `v`: the reason names what the key takes and the value found.
    pub fn check_type(&self, v: &toml::Value) -> Result<(), String> {
        let what = match self.kind {
            Kind::Count if v.as_integer().is_some_and(|i| i >= 0) => return Ok(()),
            Kind::Count => "a whole number, 0 or more".to_string(),
            Kind::Number if v.is_float() || v.is_integer() => return Ok(()),
            Kind::Number => "a number".to_string(),
            Kind::Size => {
                return match v.clone().try_into::<ByteSize>() {
                    Ok(_) => Ok(()),
                    Err(e) => Err(format!(
                        "must be a size (bytes, or a string with a unit such as \"64KiB\"); got \
                         {v}: {}",
                        e.message()
                    )),
                }
            }
            Kind::Time => {
                return match v.clone().try_into::<TimeSpan>() {
                    Ok(_) => Ok(()),
                    Err(e) => Err(format!(
                        "must be a duration (a string with a unit such as \"5ms\", or seconds); \
                         got {v}: {}",
                        e.message()
                    )),
                }
            }
            Kind::Bool if v.is_bool() => return Ok(()),
            Kind::Bool => "true or false".to_string(),
            Kind::Text if v.is_str() => return Ok(()),
            Kind::Text => "a string".to_string(),
            Kind::Choice(c) if v.as_str().is_some_and(|s| c.contains(&s)) => return Ok(()),
            Kind::Choice(c) => {
                let quoted: Vec<String> = c.iter().map(|s| format!("\"{s}\"")).collect();
                format!("one of {}", quoted.join(", "))
            }
            Kind::Names if is_names(v) => return Ok(()),
            Kind::Names => "a list of names ([\"a\", \"b\"])".to_string(),
            Kind::NameOrNames if v.is_str() || is_names(v) => return Ok(()),
            Kind::NameOrNames => "a name or a list of names ([\"a\", \"b\"])".to_string(),
            Kind::Table if v.is_table() => return Ok(()),
            Kind::Table => "a table".to_string(),
            Kind::Tables if v.as_array().is_some_and(|a| a.iter().all(|t| t.is_table())) => {
                return Ok(())
            }
            Kind::Tables => "an array of tables".to_string(),
            Kind::Other(_) => return Ok(()),
        };
        Err(format!("must be {what}; got {v}"))
    }

    /// Checks the type of `v`, then its bounds; the reason names the bound and the value
    /// found.
    pub fn check(&self, v: &toml::Value) -> Result<(), String> {
        if self.or_word.is_some() && v.as_str() == self.or_word {
            return Ok(());
        }
        self.check_type(v).map_err(|reason| match self.or_word {
            Some(word) => format!("{reason}; or \"{word}\""),
            None => reason,
        })?;
        let Some(x) = self.base_value(v) else {
            return Ok(());
        };
        let fits = match self.bounds {
            Bounds::Any => true,
            Bounds::Int(min, max) => x >= min as f64 && x <= max as f64,
            Bounds::Float(min, max) => min.admits(x, false) && max.admits(x, true),
        };
        if fits {
            return Ok(());
        }
        let got = match (self.bounds, self.kind) {
            (Bounds::Int(..), _) if x >= 0.0 => self.show(x as u64),
            (_, Kind::Number) => number(x),
            _ => v.to_string(),
        };
        let unit = match self.unit {
            "" => String::new(),
            u => format!(" {u}"),
        };
        Err(format!("must be {}{unit}; got {got}", self.bound_message()))
    }

    /// Checks the value of the command-line flag `flag` that this key declares: the reason
    /// names the flag (`--group-commit must be at least 1 and at most 4096 committers; got
    /// 0`).
    pub fn check_flag(&self, flag: &str, v: impl Into<toml::Value>) -> Result<(), String> {
        self.check(&v.into())
            .map_err(|reason| format!("{flag} {reason}"))
    }

    /// Values just outside the bounds, as TOML, each with the bound as messages show it
    /// (an exclusive end is outside itself; beyond an upper end of `f64::MAX` lies infinity,
    /// refused as not finite). For tests that every declared bound is enforced.
    pub fn values_outside(&self) -> Vec<(String, String)> {
        let int = |n: u64| match self.kind {
            Kind::Time => format!("\"{n}ns\""),
            _ => n.to_string(),
        };
        let step = |x: f64| if x == 0.0 { 1e-3 } else { x.abs() * 1e-3 };
        match self.bounds {
            Bounds::Any => Vec::new(),
            Bounds::Int(min, max) => {
                let mut out = Vec::new();
                if min > 0 {
                    out.push((int(min - 1), self.show(min)));
                }
                if max < i64::MAX as u64 {
                    out.push((int(max + 1), self.show(max)));
                }
                out
            }
            Bounds::Float(min, max) => {
                let low = match min.exclusive {
                    true => min.value,
                    false => min.value - step(min.value),
                };
                let (high, high_bound) = match (max.exclusive, max.value == f64::MAX) {
                    (_, true) => (f64::INFINITY, "finite".to_string()),
                    (true, false) => (max.value, number(max.value)),
                    (false, false) => (max.value + step(max.value), number(max.value)),
                };
                vec![
                    (format!("{low:?}"), number(min.value)),
                    (format!("{high:?}"), high_bound),
                ]
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

/// A whole number as a TOML value, for [`Key::check_flag`] (saturating: a count beyond i64
/// is beyond every bound).
pub fn count_value(n: u64) -> toml::Value {
    toml::Value::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

/// A duration in ns as a TOML value, for [`Key::check_flag`] (`"1500000000ns"`).
pub fn span_value(ns: u64) -> toml::Value {
    toml::Value::String(format!("{ns}ns"))
}

/// The default of `key` as a TOML value (None: none declared, or one that does not parse).
pub fn default_value(key: &Key) -> Option<toml::Value> {
    let Default::Value(text) = key.default else {
        return None;
    };
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()?
        .remove("v")
}

/// Fills the declared defaults of `keys` into `table` where the key is absent.
pub fn fill_defaults(table: &mut toml::Table, keys: &[Key]) {
    for key in keys {
        if !table.contains_key(key.name) {
            if let Some(v) = default_value(key) {
                table.insert(key.name.to_string(), v);
            }
        }
    }
}

/// Checks every declared key of `table` against its type and bounds: the first that breaks
/// them, as (key, reason).
pub fn check_table(table: &toml::Table, keys: &[Key]) -> Result<(), (&'static str, String)> {
    for key in keys {
        if let Some(v) = table.get(key.name) {
            key.check(v).map_err(|reason| (key.name, reason))?;
        }
    }
    Ok(())
}

/// The first key of `table` that `keys` does not declare, with the reason naming the keys
/// that are.
pub fn unknown_key(table: &toml::Table, keys: &[Key]) -> Result<(), (String, String)> {
    match table.keys().find(|k| find(keys, k).is_none()) {
        None => Ok(()),
        Some(k) => {
            let allowed: Vec<&str> = keys.iter().map(|k| k.name).collect();
            Err((
                k.clone(),
                format!("unknown key (allowed: {})", allowed.join(", ")),
            ))
        }
    }
}

/// Makes `table` what its parser reads: refuses keys `keys` does not declare, fills the
/// declared defaults in, requires the keys declared [`Default::Required`], and checks every
/// value's type and bounds. The first problem, as (key, reason).
pub fn check_section(table: &mut toml::Table, keys: &[Key]) -> Result<(), (String, String)> {
    unknown_key(table, keys)?;
    fill_defaults(table, keys);
    if let Some(k) = keys
        .iter()
        .find(|k| k.default == Default::Required && !table.contains_key(k.name))
    {
        return Err((k.name.to_string(), format!("is required ({})", k.help)));
    }
    check_table(table, keys).map_err(|(k, reason)| (k.to_string(), reason))
}

/// The declared key named `name`.
pub fn find<'a>(keys: &'a [Key], name: &str) -> Option<&'a Key> {
    keys.iter().find(|k| k.name == name)
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

/// The field names a serde type accepts (its `deserialize_struct` fields), for tests that
/// every accepted key is declared. Empty for a type that is not a plain struct.
pub fn serde_fields<'de, T: serde::Deserialize<'de>>() -> &'static [&'static str] {
    let mut capture = fields::Capture(&[]);
    let _ = T::deserialize(&mut capture);
    capture.0
}

mod fields {
    use serde::de::{self, Visitor};
    use serde::forward_to_deserialize_any;

    pub(super) struct Capture(pub(super) &'static [&'static str]);

    impl<'de> de::Deserializer<'de> for &mut Capture {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = fields;
            Err(de::Error::custom("fields captured"))
        }

        forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
}

#[cfg(test)]
mod tests;
