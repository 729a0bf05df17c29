//! Checking a value against its key: the type first, then the bounds, each refusal naming
//! what the key takes and the value found.

use super::{number, Bounds, Key, Kind};
use crate::{ByteSize, TimeSpan};

/// A list of strings.
fn is_names(v: &toml::Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(|s| s.is_str()))
}

impl Key {
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
}
