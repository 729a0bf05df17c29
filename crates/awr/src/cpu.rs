//! The CPU sections of a report: Time Model Statistics (Statspack: Time Model System Stats),
//! whose `DB CPU` is the sessions' CPU and `background cpu time` the background processes';
//! and Operating System Statistics (Statspack: OS Statistics), whose `NUM_CPUS` is the host's
//! CPUs and `BUSY_TIME` / `IDLE_TIME` (centiseconds over all CPUs) its busy share. And what
//! they give the characterization: the CPU per transaction, the host's busy share and the log
//! writer's CPU per write.

use std::collections::BTreeMap;

use crate::build::Ctx;
use crate::grid::{label_and_values, Table};
use crate::number::Scale;
use crate::sections::Facts;

/// Time Model Statistics, or Statspack's Time Model System Stats.
pub(crate) fn is_time_model(t: &Table) -> bool {
    t.titled("time model")
}

/// Operating System Statistics, or Statspack's OS Statistics; not their Detail tables (one
/// row a snapshot).
pub(crate) fn is_os_stats(t: &Table) -> bool {
    (t.titled("operating system statistics") || t.titled("os statistics"))
        && !t.title.to_ascii_lowercase().contains("detail")
}

/// Time Model Statistics: each statistic's seconds over the interval, by lowercase name
/// (`db cpu`, `background cpu time`).
pub(crate) fn time_model(f: &mut Facts, t: &Table) {
    f.found("Time Model Statistics");
    for row in &t.rows {
        let (label, values) = label_and_values(row);
        let Some(v) = values.first().filter(|_| !label.is_empty()) else {
            continue;
        };
        let name = label.to_lowercase();
        let at = || format!("Time Model Statistics: {label}");
        if let Some(s) = f.num(v, Scale::Count, at) {
            f.time_model.entry(name).or_insert(s);
        }
    }
}

/// Operating System Statistics: each statistic's value (the first column; `*_TIME` are
/// centiseconds over the interval), by uppercase name; `NUM_CPUS` gives the CPUs when the
/// header did not.
pub(crate) fn os_stats(f: &mut Facts, t: &Table) {
    f.found("Operating System Statistics");
    for row in &t.rows {
        let (label, values) = label_and_values(row);
        let Some(v) = values.first().filter(|_| !label.is_empty()) else {
            continue;
        };
        let name = label.to_uppercase();
        let at = || format!("Operating System Statistics: {label}");
        if let Some(x) = f.num(v, Scale::Count, at) {
            f.os_stats.entry(name).or_insert(x);
        }
    }
    if f.cpus.is_none() {
        f.cpus = f.os_stats.get("NUM_CPUS").copied();
    }
}

impl Facts {
    /// The sessions' CPU seconds over the interval: Time Model's DB CPU.
    pub(crate) fn db_cpu_s(&self) -> Option<f64> {
        self.time_model.get("db cpu").copied()
    }

    /// The background processes' CPU seconds over the interval: Time Model's background
    /// cpu time.
    pub(crate) fn background_cpu_s(&self) -> Option<f64> {
        self.time_model.get("background cpu time").copied()
    }

    /// The host's busy share, percent: BUSY_TIME over BUSY_TIME + IDLE_TIME.
    pub(crate) fn os_busy_pct(&self) -> Option<f64> {
        let busy = *self.os_stats.get("BUSY_TIME")?;
        let idle = *self.os_stats.get("IDLE_TIME")?;
        (busy + idle > 0.0).then(|| (100.0 * busy / (busy + idle)).clamp(0.0, 100.0))
    }
}

/// Database CPU per transaction, ms: the Load Profile's DB CPU; else Time Model's DB CPU over
/// the interval's transactions; else `CPU used by this session` (centiseconds) over them;
/// else the CPU line of the top timed events over them.
pub(crate) fn cpu_ms(cx: &mut Ctx) -> f64 {
    if let Some(s) = cx.per_txn("db cpu") {
        return s * 1000.0;
    }
    let per_interval = cx.f.elapsed_s.map(|e| e * cx.tps).filter(|n| *n > 0.0);
    let Some(n) = per_interval else {
        cx.warnings
            .push("no DB CPU in the Load Profile and no Elapsed time: cpu_ms = 0".into());
        return 0.0;
    };
    if let Some(s) = cx.f.db_cpu_s() {
        return s * 1000.0 / n;
    }
    if let Some(cs) = cx.stat("cpu used by this session") {
        return cs * 10.0 / n;
    }
    let cpu =
        cx.f.events
            .iter()
            .find(|e| e.name == "DB CPU" || e.name == "CPU time");
    if let Some(e) = cpu {
        return e.time_s * 1000.0 / n;
    }
    cx.warnings.push(
        "no DB CPU in the Load Profile, Time Model, Instance Activity or top events: cpu_ms = 0"
            .into(),
    );
    0.0
}

/// The host's busy share, percent: 100 - %Idle of Host CPU; else BUSY_TIME over BUSY_TIME +
/// IDLE_TIME of Operating System Statistics; else the database's CPU (DB CPU and background
/// cpu time) per second over the CPUs, with a warning (it leaves out other processes).
pub(crate) fn cpu_busy_pct(cx: &mut Ctx, cpus: u32) -> Option<f64> {
    let f = cx.f;
    if let Some(p) = f.cpu_busy_pct.or_else(|| f.os_busy_pct()) {
        return Some(p);
    }
    let elapsed = f.elapsed_s.filter(|e| *e > 0.0);
    let db_cpu = cx
        .per_s("db cpu")
        .or_else(|| Some(f.db_cpu_s()? / elapsed?))?;
    let background = f.background_cpu_s().zip(elapsed).map(|(s, e)| s / e);
    let what = if background.is_some() {
        "DB CPU and background CPU"
    } else {
        "DB CPU (foreground only)"
    };
    cx.warnings.push(format!(
        "no Host CPU or Operating System Statistics: cpu_busy_pct estimated from {what} per \
         second over the CPUs (other processes left out: an underestimate)"
    ));
    let busy = db_cpu + background.unwrap_or(0.0);
    Some((busy / f64::from(cpus) * 100.0).clamp(0.0, 100.0))
}

/// Largest log writer CPU per write, µs (the simulated database's bound on `log_writer_cpu`).
const MAX_LOG_WRITER_CPU_US: f64 = 1e6;

/// The log writer's CPU per log write (`log_writer_cpu_us`): Time Model's background cpu time
/// over Instance Activity's `redo writes`. A report gives no CPU per background process, so
/// all background CPU is charged to the log writer's writes: the log writer is the background
/// process in the commit path (a commit waits for its CPU and its write), and charged per
/// write at the report's write rate the background CPU keeps its share of the host's CPUs.
pub(crate) fn log_writer_settings(cx: &mut Ctx, settings: &mut BTreeMap<String, String>) {
    let (Some(cpu_s), Some(writes)) = (cx.f.background_cpu_s(), cx.stat("redo writes")) else {
        cx.warnings.push(
            "no background cpu time (Time Model Statistics) or no redo writes (Instance \
             Activity Stats): the log writer's CPU is not known (the simulated database takes \
             its log_writer_cpu)"
                .into(),
        );
        return;
    };
    if writes < 1.0 || cpu_s <= 0.0 {
        return;
    }
    let us = (cpu_s * 1e6 / writes)
        .round()
        .clamp(1.0, MAX_LOG_WRITER_CPU_US);
    settings.insert("log_writer_cpu_us".into(), format!("{us:.0}"));
}
