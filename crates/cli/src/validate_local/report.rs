//! What `storlab validate --local` prints: the calibration points against the fitted model,
//! real against simulated per test, and a verdict in plain words computed from the numbers.

use storlab_core::result::Run;

use super::fit::Fit;
use crate::table::{num, render_left};

/// A real run within this share of the simulated one is "within" (a report, not a gate).
pub const WITHIN: f64 = 0.25;

/// Calibration points: the real sweep against the same profiles on the fitted model.
pub fn calibration(real: &[Run], model: &[Run]) -> String {
    let rows: Vec<Vec<String>> = real
        .iter()
        .zip(model)
        .map(|(r, m)| {
            let p = &r.workload.parameters;
            let depth = p
                .pointer("/classes/0/profile/jobs")
                .and_then(|v| v.as_u64());
            vec![
                r.workload.name.clone(),
                depth.map_or("1".into(), |d| d.to_string()),
                num(r.metrics.iops, 0),
                num(m.metrics.iops, 0),
                num(r.metrics.latency_ms.mean, 3),
                num(m.metrics.latency_ms.mean, 3),
            ]
        })
        .collect();
    render_left(
        &[
            "calibration point",
            "depth",
            "real IO/s",
            "model IO/s",
            "real ms",
            "model ms",
        ],
        &rows,
        1,
    )
}

/// One line on the fitted parameters, and a note when reads look cached by a host.
pub fn fitted(f: &Fit, read_latency_ms: f64) -> String {
    let s = &f.ssd;
    let mut out = format!(
        "  fitted device: {} dies (IOPS at depth 16 / depth 1 = {:.2}), read {} us, program {} us, \
         {} MB/s (sequential synced writes {} MB/s, best reads {} MB/s)\n",
        s.channels * s.dies_per_channel,
        f.scaling,
        s.read_us,
        s.program_us,
        num(s.interface_mbps, 0),
        num(f.write_mbps, 0),
        num(f.read_mbps, 0)
    );
    if read_latency_ms < 0.05 {
        out += &format!(
            "  note: 8 KiB reads took {} us at depth 1, faster than flash: this may be a VM whose \
             virtual disk is cached by the host; the fit models what this machine sees\n",
            num(read_latency_ms * 1e3, 1)
        );
    }
    out
}

fn top_wait(r: &Run) -> String {
    r.metrics.waits.first().map_or("-".into(), |w| {
        format!("{} {}%", w.event, num(w.time_pct, 0))
    })
}

/// Mean commit latency, ms; for a real run of autocommitted statements (no separate commit to
/// time), the WAL's mean sync time from pg_stat_wal, and `true` for that stand-in.
fn commit_mean_ms(r: &Run) -> Option<(f64, bool)> {
    if let Some(c) = r.metrics.commit_ms {
        return Some((c.mean, false));
    }
    let w = &r.db.as_ref()?.wal;
    (w.syncs > 0 && w.sync_ms > 0.0).then(|| (w.sync_ms / w.syncs as f64, true))
}

fn commit_ms(r: &Run) -> String {
    match commit_mean_ms(r) {
        Some((ms, false)) => num(ms, 3),
        Some((ms, true)) => format!("{}*", num(ms, 3)),
        None => "-".into(),
    }
}

/// Rows processed per second (0 when missing).
pub fn rows_per_s(r: &Run) -> f64 {
    r.metrics.rows_per_s.unwrap_or(0.0)
}

/// The side-by-side table: one row per (real, simulated) pair.
pub fn comparison(pairs: &[(Run, Run)]) -> String {
    let rows: Vec<Vec<String>> = pairs
        .iter()
        .map(|(real, sim)| {
            let ratio = rows_per_s(sim) / rows_per_s(real).max(1e-9);
            vec![
                real.workload.name.clone(),
                num(rows_per_s(real), 0),
                num(rows_per_s(sim), 0),
                format!("{ratio:.2}x"),
                commit_ms(real),
                commit_ms(sim),
                top_wait(real),
                top_wait(sim),
            ]
        })
        .collect();
    let starred = rows.iter().any(|r| r[4].ends_with('*'));
    let mut out = render_left(
        &[
            "test",
            "real rows/s",
            "sim rows/s",
            "sim/real",
            "real commit ms",
            "sim commit ms",
            "real top wait",
            "sim top wait",
        ],
        &rows,
        1,
    );
    if starred {
        out += "  * WAL sync time per sync (pg_stat_wal): the statements commit themselves\n";
    }
    out
}

fn wait_pct(r: &Run, event: &str) -> f64 {
    r.metrics
        .waits
        .iter()
        .filter(|w| w.event == event)
        .map(|w| w.time_pct)
        .sum()
}

/// Reads per second the real database's data device did (iostat), if sampled.
fn real_device_reads(r: &Run) -> Option<f64> {
    let db = r.db.as_ref()?;
    let role = db.roles.iter().find(|x| x.role == "data")?;
    Some(role.devices.iter().map(|d| d.avg.r_s).sum())
}

/// The real run was bound by the machine's CPUs (the server's own, or waiting for the load
/// generator's clients on the same CPUs) while the model's sessions were not.
fn cpu_reason(real: &Run, sim: &Run, cpus: usize) -> Option<String> {
    let real_cpu = wait_pct(real, "CPU");
    let client = wait_pct(real, "Client:ClientRead");
    let sim_cpu = wait_pct(sim, "CPU") + wait_pct(sim, "CPU:RunQueue");
    if real_cpu + client < 50.0 || sim_cpu > real_cpu + client - 20.0 {
        return None;
    }
    let client_part = if client >= 10.0 {
        format!(
            " and waiting for its client {}% (the load generator shares the {cpus} CPUs)",
            num(client, 0)
        )
    } else {
        String::new()
    };
    let basis = if sim.workload.parameters["profile"]["server_cpu_ns_per_op"].is_number() {
        "the server's measured CPU per operation"
    } else {
        "default CPU per block"
    };
    Some(format!(
        "the real run was CPU-bound (CPU {}% of session time{client_part}) where the model spends {}% on CPU ({basis})",
        num(real_cpu, 0),
        num(sim_cpu, 0)
    ))
}

/// The model is bound by the CPUs at the real run's measured CPU per operation, but the real
/// run left CPU time unused: it lost time the model does not have.
fn idle_cpu_reason(real: &Run, sim: &Run, cpus: usize) -> Option<String> {
    let runqueue = wait_pct(sim, "CPU:RunQueue");
    let server = real.db.as_ref()?.server_cpu_s?;
    let client = real.tool.as_ref().map_or(0.0, |t| t.cpu_s);
    let secs = real.workload.duration_s.max(1e-9);
    let used = (server + client) / secs;
    if runqueue < 50.0 || used > 0.9 * cpus as f64 {
        return None;
    }
    Some(format!(
        "the model is CPU-bound at the real run's CPU per operation, but the real run kept only {} of the {cpus} CPUs busy (server {}, driver {}): it lost time off the CPUs that the model does not have (scheduling, other processes, the wait sampler)",
        num(used, 2),
        num(server / secs, 2),
        num(client / secs, 2)
    ))
}

/// The plain-words verdict of one test, from its numbers.
pub fn verdict(real: &Run, sim: &Run) -> String {
    let test = real.workload.name.trim_start_matches("dpaws/");
    let ratio = rows_per_s(sim) / rows_per_s(real).max(1e-9);
    if (ratio - 1.0).abs() <= WITHIN {
        return format!(
            "simulated {test} within {:.0}% of real ({ratio:.2}x)",
            WITHIN * 100.0
        );
    }
    let mut why = Vec::new();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(reason) = cpu_reason(real, sim, cpus) {
        why.push(reason);
    }
    if let Some(reason) = idle_cpu_reason(real, sim, cpus) {
        why.push(reason);
    }
    let sim_reads: f64 = sim.devices.iter().map(|d| d.read_iops).sum();
    if let Some(reads) = real_device_reads(real) {
        if sim_reads > 100.0 && reads < sim_reads / 5.0 {
            why.push(format!(
                "the real database's buffer misses came from the OS page cache ({} device reads/s) where the model reads the disk ({} reads/s)",
                num(reads, 0),
                num(sim_reads, 0)
            ));
        }
    }
    if let (Some((r, wal)), Some(s)) = (commit_mean_ms(real), sim.metrics.commit_ms) {
        if s.mean > 2.0 * r || r > 2.0 * s.mean {
            why.push(format!(
                "commits took {} ms simulated against {} ms {}",
                num(s.mean, 3),
                num(r, 3),
                if wal { "per real WAL sync" } else { "real" }
            ));
        }
    }
    if why.is_empty() {
        why.push(format!(
            "top waits: real {}, simulated {}",
            top_wait(real),
            top_wait(sim)
        ));
    }
    let size = if ratio > 1.0 {
        format!("{ratio:.1}x real")
    } else {
        format!("{:.1}x below real", 1.0 / ratio.max(1e-9))
    };
    format!("simulated {test} {size}: {}", why.join("; "))
}

#[cfg(test)]
mod tests;
