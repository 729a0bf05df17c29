//! What the package's Ray front ends need from the command line's code: a real I/O run with
//! its latency histogram (so several hosts' runs merge exactly), the histogram itself with
//! an exact merge, and the price of a simulated array as `storlab compare` computes it.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use storlab_cli::cli::Command;
use storlab_core::LatencyHistogram;

/// A latency histogram (nanoseconds) of `storlab io`: merging two is exact, so the
/// percentiles of a merge are those of every sample of both.
#[pyclass(module = "storlab._native", frozen)]
pub struct Histogram {
    inner: LatencyHistogram,
}

#[pymethods]
impl Histogram {
    /// An empty histogram.
    #[new]
    fn new() -> Histogram {
        Histogram {
            inner: LatencyHistogram::new(),
        }
    }

    /// Rebuilds a histogram from `to_dict()` (the form that crosses processes and hosts).
    #[staticmethod]
    fn from_dict(d: &Bound<'_, PyDict>) -> PyResult<Histogram> {
        let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
            d.get_item(k)?.ok_or_else(|| {
                crate::BadInput::new_err(format!("histogram: the key {k:?} is missing"))
            })
        };
        let buckets: Vec<(u64, u64, u64)> = get("buckets")?.extract()?;
        let parts: Vec<(u64, u64)> = buckets.iter().map(|b| (b.0, b.2)).collect();
        let sum: u128 = get("sum_ns")?.extract()?;
        let inner = LatencyHistogram::from_buckets(
            &parts,
            sum,
            get("min_ns")?.extract()?,
            get("max_ns")?.extract()?,
        );
        Ok(Histogram { inner })
    }

    /// `{"buckets": [(lowest_ns, highest_ns, count), ...], "sum_ns", "min_ns", "max_ns",
    /// "count"}`: the non-empty buckets and the exact totals.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("buckets", self.inner.buckets())?;
        d.set_item("sum_ns", self.inner.sum())?;
        d.set_item("min_ns", self.inner.min())?;
        d.set_item("max_ns", self.inner.max())?;
        d.set_item("count", self.inner.count())?;
        Ok(d)
    }

    /// The histogram of every sample of `self` and `other`.
    fn merged(&self, other: &Histogram) -> Histogram {
        let mut inner = self.inner.clone();
        inner.merge(&other.inner);
        Histogram { inner }
    }

    /// The value at percentile `p` (0..=100) in milliseconds, as results report it.
    fn percentile_ms(&self, p: f64) -> f64 {
        storlab_core::histogram::round_to(self.inner.percentile(p) as f64 / 1e6, 4)
    }

    /// mean, p50, p95, p99, p999 and max in milliseconds (a result's `latency_ms`).
    fn summary_ms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.summary_ms();
        let d = PyDict::new(py);
        for (k, v) in [
            ("mean", s.mean),
            ("p50", s.p50),
            ("p95", s.p95),
            ("p99", s.p99),
            ("p999", s.p999),
            ("max", s.max),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Samples recorded.
    #[getter]
    fn count(&self) -> u64 {
        self.inner.count()
    }
}

/// Runs `storlab io` with `argv` (options after `io`, one load point) and returns the
/// results with the histogram of every measured I/O, and whether a signal stopped it.
#[pyfunction]
pub fn io_run(
    py: Python<'_>,
    argv: Vec<String>,
) -> PyResult<(crate::result::Result, Histogram, bool)> {
    let inputs = crate::source::Inputs::default();
    let full = std::iter::once("io".to_string()).chain(argv).collect();
    let Command::Io(args) = crate::parse(full, &inputs)?.command else {
        return Err(crate::RunFailed::new_err("not an io command line"));
    };
    let saved = crate::signals::Saved::new();
    let outcome = py.detach(|| storlab_cli::io_cmd::run_with_latency(&args));
    let stopped = saved.stopped();
    drop(saved);
    let (run, inner) = outcome.map_err(|e| crate::py_err(&e, &inputs))?;
    Ok((
        crate::result::Result::new(vec![run]),
        Histogram { inner },
        stopped,
    ))
}

/// Asks the run in progress in this process to stop, as Ctrl-C does (from another thread:
/// a Ray actor's second thread while its first runs [`io_run`]).
#[pyfunction]
pub fn request_stop() {
    storlab_io::signal::flag().store(true, std::sync::atomic::Ordering::SeqCst);
}

/// The physical disks, usable GB and price of a simulated array, as `storlab compare`
/// describes a plan's configuration (price: disks x price_per_disk, else usable GB x
/// price_per_gb; None without a price).
#[pyfunction]
#[pyo3(signature = (array, price_per_disk=None, price_per_gb=None))]
pub fn array_cost(
    array: &Bound<'_, PyAny>,
    price_per_disk: Option<f64>,
    price_per_gb: Option<f64>,
) -> PyResult<(Option<u32>, Option<f64>, Option<f64>)> {
    let mut inputs = crate::source::Inputs::default();
    let path = inputs.path("array", array)?;
    storlab_cli::sim_cmd::load_array(&path).map_err(|e| crate::py_err(&e, &inputs))?;
    let mut c = storlab_report::Configuration {
        name: "array".into(),
        kind: storlab_core::result::TargetKind::Sim,
        description: None,
        disks: None,
        usable_gb: None,
        price_per_disk,
        price_per_gb,
    };
    storlab_cli::compare::describe_sim(&mut c, &path);
    Ok((c.disks, c.usable_gb, storlab_report::total_cost(&c)))
}
