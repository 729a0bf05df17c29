//! `storlab validate --drives [DIR]`: every `NAME.trace` of DIR beside a `NAME.diskspecs`
//! is replayed through the disk model imported from the description, one request at a time
//! as it was issued, and the simulated service times are compared with the measured ones:
//! the demerit (root-mean-square horizontal distance between the two CDFs, ms) against
//! DiskSim's own on the same trace where known, and the means. Exit 0 when every drive with
//! a known reference is at or below it, 1 otherwise. A drive whose files cannot be used (a
//! description the model refuses, an unreadable trace) is reported as refused, with the
//! reason, while the other drives are still checked and written; the exit code is then 2.

use std::path::{Path, PathBuf};

use serde::Serialize;
use storlab_report::drives::{page, DriveCdf};
use storlab_sim::device::drive_spec::{
    datasheet_form, demerit, import, quantiles, read_trace, replay,
};

use crate::error::CliError;
use crate::output::{json_text, Format, Output};

/// DiskSim 4.0's demerit on each drive's trace, ms (the data's README).
// 0.318 is a measured figure, not 1/pi.
#[allow(clippy::approx_constant)]
pub const DISKSIM_DEMERIT_MS: [(&str, f64); 6] = [
    ("atlas_III", 0.378),
    ("barracuda", 0.349),
    ("cheetah4LP", 0.318),
    ("hp_c2247a", 0.090),
    ("hp_c2490a", 0.254),
    ("dec_rz26", 0.340),
];

/// One drive's figures (an object of the `--json` array).
#[derive(Clone, Debug, Serialize)]
pub struct DriveResult {
    pub drive: String,
    pub requests: usize,
    pub demerit_ms: f64,
    pub mean_measured_ms: f64,
    pub mean_simulated_ms: f64,
    pub reference_demerit_ms: Option<f64>,
    /// Share of requests that are writes.
    pub write_share: f64,
    /// Share of reads the model served from its buffer.
    pub simulated_read_hit_share: f64,
    pub pass: bool,
    /// The same trace through the drive's datasheet form (its summary figures without the
    /// measured tables): what a model from a datasheet alone gets.
    pub datasheet_demerit_ms: f64,
    pub mean_datasheet_ms: f64,
    /// Service times at the quantiles 1/100 ... 1 of each distribution, ms.
    pub cdf_ms: Cdfs,
}

/// A drive that could not be checked (an object of the `--json` array, like a result's but
/// with `error` in place of the figures).
#[derive(Clone, Debug, Serialize)]
pub struct RefusedDrive {
    pub drive: String,
    pub reference_demerit_ms: Option<f64>,
    pub pass: bool,
    /// Why: the file, the key or line, and the reason.
    pub error: String,
}

/// One drive of the directory: checked, or refused with the reason.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Checked {
    Done(Box<DriveResult>),
    Refused(RefusedDrive),
}

/// Service times at evenly spaced quantiles, for a CDF picture.
#[derive(Clone, Debug, Serialize)]
pub struct Cdfs {
    pub measured: Vec<f64>,
    pub simulated: Vec<f64>,
    pub datasheet: Vec<f64>,
}

/// Points of each CDF in the JSON and the HTML picture.
const CDF_POINTS: usize = 100;

/// The drives of `dir`: names with both a `.diskspecs` and a `.trace`, sorted.
fn drives_in(dir: &Path) -> Result<Vec<String>, CliError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| CliError::BadInput(format!("--drives {}: cannot read: {e}", dir.display())))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "diskspecs"))
        .filter(|p| p.with_extension("trace").is_file())
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(CliError::BadInput(format!(
            "--drives {}: no NAME.trace beside a NAME.diskspecs",
            dir.display()
        )));
    }
    Ok(names)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn round4(v: f64) -> f64 {
    (v * 1e4).round() / 1e4
}

/// DiskSim's demerit on drive `name`'s trace, when known.
fn reference_of(name: &str) -> Option<f64> {
    DISKSIM_DEMERIT_MS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, r)| *r)
}

/// Replays one drive's trace.
pub fn check_drive(dir: &Path, name: &str) -> Result<DriveResult, CliError> {
    let specs = dir.join(format!("{name}.diskspecs"));
    let drive = import(&specs).map_err(CliError::BadInput)?;
    let trace_path = dir.join(format!("{name}.trace"));
    let trace = read_trace(&trace_path).map_err(CliError::BadInput)?;
    if trace.is_empty() {
        return Err(CliError::BadInput(format!(
            "{}: no requests",
            trace_path.display()
        )));
    }
    let sim = replay(&drive.params, &trace)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", trace_path.display())))?;
    let sheet = replay(&datasheet_form(&drive.params), &trace)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", trace_path.display())))?;
    let measured: Vec<f64> = trace.iter().map(|r| r.service_ms).collect();
    let reads = trace.iter().filter(|r| !r.write).count();
    let d = demerit(&measured, &sim.service_ms);
    let cdf =
        |v: &[f64]| -> Vec<f64> { quantiles(v, CDF_POINTS).into_iter().map(round4).collect() };
    let reference = reference_of(name);
    Ok(DriveResult {
        drive: name.to_string(),
        requests: trace.len(),
        demerit_ms: round4(d),
        mean_measured_ms: round4(mean(&measured)),
        mean_simulated_ms: round4(mean(&sim.service_ms)),
        reference_demerit_ms: reference,
        write_share: round4((trace.len() - reads) as f64 / trace.len() as f64),
        simulated_read_hit_share: round4(sim.read_hits as f64 / reads.max(1) as f64),
        pass: reference.is_none_or(|r| round4(d) <= r),
        datasheet_demerit_ms: round4(demerit(&measured, &sheet.service_ms)),
        mean_datasheet_ms: round4(mean(&sheet.service_ms)),
        cdf_ms: Cdfs {
            measured: cdf(&measured),
            simulated: cdf(&sim.service_ms),
            datasheet: cdf(&sheet.service_ms),
        },
    })
}

/// Every drive of `dir`, each checked on its own: one drive's bad files do not stop the
/// others. Only a directory that cannot be read or holds no drive is an error.
pub fn check_all(dir: &Path) -> Result<Vec<Checked>, CliError> {
    Ok(drives_in(dir)?
        .iter()
        .map(|n| match check_drive(dir, n) {
            Ok(r) => Checked::Done(Box::new(r)),
            Err(e) => Checked::Refused(RefusedDrive {
                drive: n.clone(),
                reference_demerit_ms: reference_of(n),
                pass: false,
                error: e.to_string(),
            }),
        })
        .collect())
}

/// Whether `v` is what `--json` of the drives' check holds: an array of drive objects
/// (one at least: a directory without drives is refused), each with its name and either its
/// demerit and CDFs or the reason it was refused.
pub fn is_drive_results(v: &serde_json::Value) -> bool {
    v.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|d| {
                d.get("drive").is_some_and(serde_json::Value::is_string)
                    && ((d.get("demerit_ms").is_some() && d.get("cdf_ms").is_some())
                        || d.get("error").is_some_and(serde_json::Value::is_string))
            })
    })
}

/// The HTML page of the drives' CDFs, and the refused drives with their reasons.
pub fn html(dir: &Path, checked: &[Checked]) -> String {
    let results: Vec<&DriveResult> = done(checked).collect();
    let refused: Vec<(String, String)> = refused(checked)
        .map(|r| (r.drive.clone(), r.error.clone()))
        .collect();
    let drives: Vec<DriveCdf> = results
        .iter()
        .map(|r| DriveCdf {
            drive: r.drive.clone(),
            requests: r.requests,
            measured_ms: r.cdf_ms.measured.clone(),
            simulated_ms: r.cdf_ms.simulated.clone(),
            datasheet_ms: r.cdf_ms.datasheet.clone(),
            demerit_ms: r.demerit_ms,
            datasheet_demerit_ms: r.datasheet_demerit_ms,
            reference_demerit_ms: r.reference_demerit_ms,
        })
        .collect();
    page(&format!("Drives of {}", dir.display()), &drives, &refused)
}

fn done(checked: &[Checked]) -> impl Iterator<Item = &DriveResult> {
    checked.iter().filter_map(|c| match c {
        Checked::Done(r) => Some(r.as_ref()),
        Checked::Refused(_) => None,
    })
}

fn refused(checked: &[Checked]) -> impl Iterator<Item = &RefusedDrive> {
    checked.iter().filter_map(|c| match c {
        Checked::Refused(r) => Some(r),
        Checked::Done(_) => None,
    })
}

/// Runs `storlab validate --drives`.
pub fn run(dir: &Path, json: Option<&PathBuf>, html_out: Option<&PathBuf>) -> Result<(), CliError> {
    let checked = check_all(dir)?;
    println!("Drives of {} (service time, measured against simulated; demerit: RMS distance between the CDFs)", dir.display());
    println!(
        "{:<12} {:>8} {:>11} {:>9} {:>10} {:>13} {:>14} {:>7} {:>9}  verdict",
        "drive",
        "requests",
        "demerit ms",
        "DiskSim",
        "datasheet",
        "mean meas ms",
        "mean sim ms",
        "writes",
        "read hit"
    );
    for c in &checked {
        let r = match c {
            Checked::Done(r) => r,
            Checked::Refused(r) => {
                println!("{:<12} refused (below)", r.drive);
                continue;
            }
        };
        let reference = r
            .reference_demerit_ms
            .map_or("-".to_string(), |v| format!("{v:.3}"));
        let verdict = match (r.reference_demerit_ms, r.pass) {
            (None, _) => "no reference",
            (_, true) => "pass",
            (_, false) => "FAIL",
        };
        println!(
            "{:<12} {:>8} {:>11.3} {:>9} {:>10.3} {:>13.3} {:>14.3} {:>6.1}% {:>8.1}%  {verdict}",
            r.drive,
            r.requests,
            r.demerit_ms,
            reference,
            r.datasheet_demerit_ms,
            r.mean_measured_ms,
            r.mean_simulated_ms,
            r.write_share * 100.0,
            r.simulated_read_hit_share * 100.0
        );
    }
    if let Some(path) = json {
        let out = Output::new("--json", path, Format::Json(is_drive_results));
        out.write(json_text(&checked)?.as_bytes())?;
    }
    if let Some(path) = html_out {
        Output::new("--html", path, Format::Html).write(html(dir, &checked).as_bytes())?;
    }
    let failed: Vec<&DriveResult> = done(&checked).filter(|r| !r.pass).collect();
    for r in &failed {
        println!(
            "FAIL {}: demerit {:.3} ms above DiskSim's {:.3} ms",
            r.drive,
            r.demerit_ms,
            r.reference_demerit_ms.unwrap_or(0.0)
        );
    }
    let refused: Vec<&RefusedDrive> = refused(&checked).collect();
    for r in &refused {
        println!("REFUSED {}: {}", r.drive, r.error);
    }
    let above = |n: usize| {
        format!(
            "{n} of {} drives have a demerit above DiskSim's",
            checked.len()
        )
    };
    if !refused.is_empty() {
        let mut msg = format!(
            "{} of {} drives could not be checked ({}): see REFUSED above",
            refused.len(),
            checked.len(),
            refused
                .iter()
                .map(|r| r.drive.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !failed.is_empty() {
            msg.push_str(&format!("; {}", above(failed.len())));
        }
        return Err(CliError::BadInput(msg));
    }
    if !failed.is_empty() {
        return Err(CliError::Failed(above(failed.len())));
    }
    Ok(())
}
