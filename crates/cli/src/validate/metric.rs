//! The metrics a reference figure can name, read from a simulated run.

use storlab_core::result::{ArrayMetrics, Metrics, Run};

use crate::error::CliError;

/// The metrics a figure can name.
const METRICS: &str = "iops, mbps, read_iops, write_iops, latency_ms_mean, rows_per_s, tx_per_min, \
    wal_mb_per_s, commit_ms_mean, ROLE.iops/mbps/read_mbps/write_mbps/read_iops/write_iops (ROLE: data or log), \
    disk_iops.GROUP, read_delay_ms.GROUP, destage_delay_ms.GROUP, rank_destage_delay_ms.GROUP \
    (GROUP: a RAID group name prefix)";

pub fn metric(run: &Run, name: &str, file: &str) -> Result<f64, CliError> {
    let unknown = || {
        CliError::BadInput(format!(
            "{file}: metric: unknown metric {name:?}; use {METRICS}"
        ))
    };
    let m = &run.metrics;
    let basic = |m: &Metrics, k: &str| match k {
        "iops" => Some(m.iops),
        "mbps" => Some(m.mbps),
        "read_iops" => Some(m.read_iops),
        "write_iops" => Some(m.write_iops),
        "read_mbps" => Some(m.read_mbps),
        "write_mbps" => Some(m.write_mbps),
        "latency_ms_mean" => Some(m.latency_ms.mean),
        _ => None,
    };
    if let Some(v) = basic(m, name) {
        return Ok(v);
    }
    let db = |v: Option<f64>| v.unwrap_or(0.0);
    match name {
        "rows_per_s" => return Ok(db(m.rows_per_s)),
        "tx_per_min" => return Ok(db(m.tx_per_min)),
        "wal_mb_per_s" => return Ok(db(m.wal_mb_per_s)),
        "commit_ms_mean" => return Ok(m.commit_ms.map_or(0.0, |c| c.mean)),
        _ => {}
    }
    let (what, arg) = name.split_once('.').ok_or_else(unknown)?;
    let mean = |xs: Vec<f64>| {
        if xs.is_empty() {
            Err(CliError::BadInput(format!(
                "{file}: metric: {name:?} matches no RAID group or disk of the run"
            )))
        } else {
            Ok(xs.iter().sum::<f64>() / xs.len() as f64)
        }
    };
    let groups = |f: &dyn Fn(&ArrayMetrics) -> f64| {
        run.arrays
            .iter()
            .filter(|a| a.name.starts_with(arg))
            .map(f)
            .collect::<Vec<_>>()
    };
    match what {
        "data" | "log" => {
            let class = run.classes.iter().find(|c| c.name == what).ok_or_else(|| {
                CliError::BadInput(format!("{file}: metric: {name:?} needs a database run"))
            })?;
            basic(&class.metrics, arg).ok_or_else(unknown)
        }
        "disk_iops" => mean(
            run.devices
                .iter()
                .filter(|d| d.name.starts_with(arg))
                .map(|d| d.iops)
                .collect(),
        ),
        "read_delay_ms" => mean(groups(&|a| a.read_delay_ms)),
        "destage_delay_ms" => mean(groups(&|a| a.destage_delay_ms)),
        "rank_destage_delay_ms" => mean(groups(&|a| a.rank_destage_delay_ms)),
        _ => Err(unknown()),
    }
}
