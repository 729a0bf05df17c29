//! Several arrays in one file: each `[[arrays]]` entry with its own controllers, numbered
//! one after another into the system's controllers (array 0's first, then array 1's ...), and
//! the `array` keys of groups, disk groups, paths and failures resolved against them. A file
//! without `[[arrays]]` is one array whose controllers are `[controllers]`.

use super::super::{ArrayFile, ConfigError};
use super::controllers::{resolve_controllers, ControllerSpec};

/// One array of the system, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct ArraySpec {
    /// Name (empty for the only array of a file without `[[arrays]]`).
    pub name: String,
    /// Its controllers.
    pub controllers: ControllerSpec,
    /// Its first controller's index among the system's controllers.
    pub first_controller: u32,
}

/// The arrays of `raw`: its `[[arrays]]`, or one unnamed array of `[controllers]`.
pub(super) fn resolve_arrays(raw: &ArrayFile, file: &str) -> Result<Vec<ArraySpec>, ConfigError> {
    if raw.arrays.is_empty() {
        let controllers = resolve_controllers(&raw.controllers, file, "controllers")?;
        return Ok(vec![ArraySpec {
            name: String::new(),
            controllers,
            first_controller: 0,
        }]);
    }
    let mut out: Vec<ArraySpec> = Vec::new();
    let mut first = 0u32;
    for (i, a) in raw.arrays.iter().enumerate() {
        if out.iter().any(|o| o.name == a.name) || a.name.is_empty() {
            return Err(ConfigError::invalid(
                file,
                format!("arrays[{i}].name"),
                format!("array names must be unique and not empty; got {:?}", a.name),
            ));
        }
        let prefix = format!("arrays[{i}].controllers");
        let controllers = resolve_controllers(&a.controllers, file, &prefix)?;
        let count = controllers.count;
        out.push(ArraySpec {
            name: a.name.clone(),
            controllers,
            first_controller: first,
        });
        first += count;
    }
    if u64::from(first) > crate::config::keys::MAX_CONTROLLERS {
        return Err(ConfigError::invalid(
            file,
            "arrays",
            format!(
                "the arrays have {first} controllers in all; at most {} are simulated",
                crate::config::keys::MAX_CONTROLLERS
            ),
        ));
    }
    Ok(out)
}

/// Resolves `array` keys and owning controllers: a named controller of the array, else the
/// array's controllers in turn over its groups.
pub(crate) struct Owners<'a> {
    arrays: &'a [ArraySpec],
    /// Groups given an owner so far, per array.
    seen: Vec<u32>,
    file: &'a str,
}

impl<'a> Owners<'a> {
    pub fn new(arrays: &'a [ArraySpec], file: &'a str) -> Owners<'a> {
        Owners {
            arrays,
            seen: vec![0; arrays.len()],
            file,
        }
    }

    /// The index of the array `name` names at `key` (its `array` key): required, and one of
    /// the `[[arrays]]`, when the file has them; absent otherwise.
    pub fn array(&self, name: Option<&str>, key: &str) -> Result<usize, ConfigError> {
        array_index(self.arrays, name)
            .map_err(|reason| ConfigError::invalid(self.file, key.to_string(), reason))
    }

    /// The system index of the controller owning the next group of array `a`: `controller`
    /// (counted inside the array, checked at `key`), else the array's next in turn.
    pub fn owner(
        &mut self,
        a: usize,
        controller: Option<u32>,
        key: &str,
    ) -> Result<u32, ConfigError> {
        let arr = &self.arrays[a];
        let count = arr.controllers.count;
        let local = controller.unwrap_or(self.seen[a] % count);
        self.seen[a] += 1;
        if local >= count {
            let which = if arr.name.is_empty() {
                "the array".to_string()
            } else {
                format!("array {:?}", arr.name)
            };
            return Err(ConfigError::invalid(
                self.file,
                key.to_string(),
                format!(
                    "no controller {local}; {which} has {count} (0..={})",
                    count - 1
                ),
            ));
        }
        Ok(arr.first_controller + local)
    }
}

/// The index of the array `name` names, or why it names none.
pub(crate) fn array_index(arrays: &[ArraySpec], name: Option<&str>) -> Result<usize, String> {
    let named = arrays.first().is_some_and(|a| !a.name.is_empty());
    let names = || {
        let all: Vec<&str> = arrays.iter().map(|a| a.name.as_str()).collect();
        all.join(", ")
    };
    match (name, named) {
        (None, false) => Ok(0),
        (Some(n), false) => Err(format!(
            "names array {n:?} but the file declares no [[arrays]]; remove `array` or declare the arrays"
        )),
        (None, true) => Err(format!(
            "the file declares [[arrays]]: name one with `array` (arrays: {})",
            names()
        )),
        (Some(n), true) => arrays
            .iter()
            .position(|a| a.name == n)
            .ok_or_else(|| format!("unknown array {n:?}; arrays: {}", names())),
    }
}
