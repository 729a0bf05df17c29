//! Arrays, workloads and plans given as a path, as TOML text or as a Python dict with the keys
//! of the files: text and dicts are written to files in a private directory (removed when the
//! call ends), so the command line's own loaders read them and name them in messages. A
//! process killed during a call (a Ray worker cancelled or shut down) leaves its directory;
//! the next call of any process of this user removes it (see
//! [`storlab_cli::private_dir::remove_stale`]).

use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use storlab_cli::private_dir::PrivateDir;

use crate::BadInput;

/// The files of one call; the directory goes when this does.
#[derive(Default)]
pub struct Inputs {
    dir: Option<PrivateDir>,
    /// (file written here, what the user gave) for messages.
    labels: Vec<(String, String)>,
}

impl Drop for Inputs {
    fn drop(&mut self) {
        // Removed while still locked; the lock goes with `dir` after.
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(&dir.path);
        }
    }
}

/// The private directories' names: `storlab-py-<pid>-<n>`.
const DIR_PREFIX: &str = "storlab-py";

/// The inputs written in a private directory, as `<role>.toml`: nothing else is ever
/// written there, which is how a directory a killed process left is recognised.
const ROLES: [&str; 3] = ["array", "workload", "plan"];

/// Whether `name` is a file a private directory holds.
fn written_here(name: &str) -> bool {
    name.strip_suffix(".toml")
        .is_some_and(|role| ROLES.contains(&role))
}

/// A new directory of this process under the temporary directory, created here (never one
/// that exists: the whole directory is removed at the end of the call) and locked while the
/// call runs, after removing the directories that processes killed during a call left there.
fn private_dir() -> PyResult<PrivateDir> {
    let temp = std::env::temp_dir();
    storlab_cli::private_dir::remove_stale(&temp, DIR_PREFIX, written_here);
    storlab_cli::private_dir::create(&temp, DIR_PREFIX).map_err(|e| {
        crate::RunFailed::new_err(format!(
            "{}: cannot create {DIR_PREFIX}-{}-N: {e}",
            temp.display(),
            std::process::id()
        ))
    })
}

impl Inputs {
    /// The path of `value` as the command line takes it (`role`: "array", "workload", ...).
    pub fn path(&mut self, role: &str, value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
        if let Ok(dict) = value.cast::<PyDict>() {
            let table = table(dict, role)?;
            let text = toml::to_string(&table)
                .map_err(|e| BadInput::new_err(format!("{role}: cannot write as TOML: {e}")))?;
            return self.write(role, &text, format!("{role} (dict)"));
        }
        if let Ok(s) = value.cast::<PyString>() {
            let s: String = s.extract()?;
            let s = s.as_str();
            if s.contains('\n') || (s.contains('=') && !Path::new(s).exists()) {
                return self.write(role, s, format!("{role} (TOML text)"));
            }
            return Ok(PathBuf::from(s));
        }
        let os = value.py().import("os")?;
        let path: PathBuf = os
            .call_method1("fspath", (value,))
            .and_then(|p| p.extract())
            .map_err(|_| {
                BadInput::new_err(format!(
                    "{role}: give a path, TOML text or a dict; got {}",
                    value
                        .get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
        Ok(path)
    }

    fn write(&mut self, role: &str, text: &str, label: String) -> PyResult<PathBuf> {
        if !ROLES.contains(&role) {
            return Err(BadInput::new_err(format!(
                "{role}: only {} are given as TOML text or a dict; give a path",
                ROLES.join(", ")
            )));
        }
        let dir = match &self.dir {
            Some(d) => d.path.clone(),
            None => {
                let d = private_dir()?;
                let path = d.path.clone();
                self.dir = Some(d);
                path
            }
        };
        let path = dir.join(format!("{role}.toml"));
        std::fs::write(&path, text).map_err(|e| {
            crate::RunFailed::new_err(format!("{}: cannot write: {e}", path.display()))
        })?;
        self.labels.push((path.display().to_string(), label));
        Ok(path)
    }

    /// What the user gave for the file at `path`, when it was written here.
    pub fn label(&self, path: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(f, _)| f == path)
            .map(|(_, l)| l.as_str())
    }

    /// `message` with the files written here named as what the user gave.
    pub fn relabel(&self, message: &str) -> String {
        let mut m = message.to_string();
        for (file, label) in &self.labels {
            m = m.replace(file.as_str(), label);
        }
        m
    }
}

fn table(dict: &Bound<'_, PyDict>, at: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in dict.iter() {
        let key: String = k
            .extract()
            .map_err(|_| BadInput::new_err(format!("{at}: keys must be strings; got {k}")))?;
        let here = format!("{at}.{key}");
        t.insert(key, value(&v, &here)?);
    }
    Ok(t)
}

fn value(v: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if v.cast::<PyInt>().is_ok() {
        let n: i64 = v
            .extract()
            .map_err(|_| BadInput::new_err(format!("{at}: {v} does not fit a 64-bit integer")))?;
        return Ok(toml::Value::Integer(n));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.extract::<String>()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(toml::Value::Table(table(d, at)?));
    }
    if v.cast::<PyList>().is_ok() || v.cast::<PyTuple>().is_ok() {
        let mut items = Vec::new();
        for (i, item) in v.try_iter()?.enumerate() {
            items.push(value(&item?, &format!("{at}[{i}]"))?);
        }
        return Ok(toml::Value::Array(items));
    }
    Err(BadInput::new_err(format!(
        "{at}: a TOML value is a string, number, boolean, list or dict; got {}",
        v.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    )))
}
