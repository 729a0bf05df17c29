//! The results of a call: the runs as the command line writes them, and their tables.

use pyo3::prelude::*;
use storlab_core::result::{Results, Run};

use crate::capsule::ArrowTable;

/// The runs of one call (result schema `storlab.results/1`).
#[pyclass(module = "storlab._native", frozen)]
pub struct Result {
    results: Results,
}

impl Result {
    pub fn new(runs: Vec<Run>) -> Result {
        Result {
            results: Results::new(storlab_cli::output::GIT_COMMIT, runs),
        }
    }
}

#[pymethods]
impl Result {
    /// Reads result text (`storlab.results/1`), as [`Result::to_json`] writes it.
    #[staticmethod]
    fn from_json_text(text: &str) -> PyResult<Result> {
        let results: Results = serde_json::from_str(text)
            .map_err(|e| crate::BadInput::new_err(format!("not storlab result text: {e}")))?;
        Ok(Result { results })
    }

    /// Reads a result file (`storlab.results/1`) a command wrote.
    #[staticmethod]
    fn from_json_file(path: std::path::PathBuf) -> PyResult<Result> {
        let results = storlab_cli::output::read_results(&path)
            .map_err(|e| crate::py_err(&e, &crate::source::Inputs::default()))?;
        Ok(Result { results })
    }

    /// The results as the command line's `--json` file holds them (pretty, newline ended).
    fn to_json(&self) -> PyResult<String> {
        let mut text = serde_json::to_string_pretty(&self.results)
            .map_err(|e| crate::RunFailed::new_err(format!("cannot encode results: {e}")))?;
        text.push('\n');
        Ok(text)
    }

    /// True when any run was stopped before its end.
    #[getter]
    fn partial(&self) -> bool {
        self.results.runs.iter().any(|r| r.partial)
    }

    /// Number of runs.
    fn __len__(&self) -> usize {
        self.results.runs.len()
    }

    /// The table `name` ("runs" or "series") as an Arrow C data interface exporter.
    fn table(&self, name: &str) -> PyResult<ArrowTable> {
        let runs = &self.results.runs;
        let columns = match name {
            "runs" => crate::tables::runs(runs),
            "series" => crate::tables::series(runs),
            _ => {
                return Err(crate::BadInput::new_err(format!(
                    "table must be \"runs\" or \"series\"; got {name:?}"
                )))
            }
        };
        Ok(ArrowTable::new(columns))
    }
}
