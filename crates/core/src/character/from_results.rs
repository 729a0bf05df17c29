//! A `storlab db` result turned into a characterization, so that a measured run and a capture
//! of a live server (`storlab db --capture`) describe a workload in one format.
//!
//! One operation of the test is one transaction. The per-statement counters of
//! pg_stat_statements that the result carries (per call, for the statements with the most
//! execution time) give the per-transaction figures: their per-call averages weighted by the
//! calls, which are what `MeasuredProfile` (storlab-sim) reads from the same file, times the
//! statements per transaction (the calls over the operations, at least 1: the list may leave
//! statements out, and a transaction runs at least one). WAL bytes and blocks written are
//! the whole server's over the window, per operation.

use std::collections::BTreeSet;

use super::{
    CharacterError, Characterization, Engine, Event, Instance, Observed, Segment, SegmentKind,
    SegmentSize, Transaction,
};
use crate::result::{Results, Run, WorkloadKind};
use crate::ByteSize;

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// A PostgreSQL size setting (`128MB`, `8kB`, `8192`) in bytes; a bare number is in
/// `unit` bytes.
fn pg_bytes(text: &str, unit: u64) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, u) = t.split_at(split);
    let n: u64 = n.parse().ok()?;
    let scale = match u.trim() {
        "" => unit,
        "B" => 1,
        "kB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        "TB" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// Sums over the runs of the test.
#[derive(Default)]
struct Sums {
    ops: f64,
    secs: f64,
    calls: f64,
    hit: f64,
    read: f64,
    dirtied: f64,
    inserted: f64,
    wal_bytes: f64,
    wal_records: f64,
    written: f64,
    server_cpu: Option<(f64, f64)>,
    clients: f64,
}

fn sums(runs: &[&Run]) -> Sums {
    let mut s = Sums::default();
    for run in runs {
        let ops = run.metrics.ios as f64;
        s.ops += ops;
        s.secs += run.workload.duration_s;
        let clients = run.workload.parameters["clients"].as_f64().unwrap_or(1.0);
        s.clients = s.clients.max(clients);
        let Some(db) = run.db.as_ref() else { continue };
        for st in db.statements.iter().filter(|st| st.calls > 0) {
            let calls = st.calls as f64;
            s.calls += calls;
            s.hit += calls * st.shared_blks_hit;
            s.read += calls * st.shared_blks_read;
            s.dirtied += calls * st.shared_blks_dirtied;
            let q = st.query.trim_start().to_ascii_lowercase();
            if q.starts_with("insert") || q.starts_with("copy") {
                s.inserted += calls * st.rows_per_call;
            }
        }
        s.wal_bytes += db.wal.bytes as f64;
        s.wal_records += db.wal.records as f64;
        let c = &db.checkpoints;
        let backend = if c.buffers_backend > 0 {
            c.buffers_backend as f64
        } else {
            // 17 on: the backends' writes are in pg_stat_io only.
            db.pg_stat_io.as_ref().map_or(0.0, |io| {
                io.rows
                    .iter()
                    .filter(|r| r.backend_type == "client backend" && r.object == "relation")
                    .map(|r| r.writes as f64)
                    .sum()
            })
        };
        s.written += (c.buffers_checkpoint + c.buffers_clean) as f64 + backend;
        if let Some(cpu) = db.server_cpu_s {
            let (c0, o0) = s.server_cpu.unwrap_or((0.0, 0.0));
            s.server_cpu = Some((c0 + cpu, o0 + ops));
        }
    }
    s
}

/// The runs of `test` (or of the file's only test) among the database runs.
fn pick<'a>(
    results: &'a Results,
    test: Option<&str>,
    file: &str,
) -> Result<Vec<&'a Run>, CharacterError> {
    let db: Vec<&Run> = results
        .runs
        .iter()
        .filter(|r| r.workload.kind == WorkloadKind::Db)
        .collect();
    let names: BTreeSet<&str> = db.iter().map(|r| r.workload.name.as_str()).collect();
    let have = || {
        if names.is_empty() {
            "no database runs".to_string()
        } else {
            names.iter().copied().collect::<Vec<_>>().join(", ")
        }
    };
    let invalid = |reason: String| CharacterError::Invalid {
        file: file.into(),
        key: "runs".into(),
        reason,
    };
    let name = match test {
        Some(t) => t,
        None if names.len() == 1 => names.iter().next().copied().unwrap_or_default(),
        None => {
            return Err(invalid(format!(
                "name the test to characterize; the file has: {}",
                have()
            )))
        }
    };
    let runs: Vec<&Run> = db.into_iter().filter(|r| r.workload.name == name).collect();
    if runs.is_empty() {
        return Err(invalid(format!(
            "has no run of {name} (it has: {})",
            have()
        )));
    }
    Ok(runs)
}

/// The characterization of `test` in a `storlab db` result (of the file's only test when
/// `test` is None); `file` names the file in errors and in `source`.
pub fn from_results(
    results: &Results,
    test: Option<&str>,
    file: &str,
) -> Result<Characterization, CharacterError> {
    let runs = pick(results, test, file)?;
    let name = runs[0].workload.name.clone();
    let s = sums(&runs);
    let invalid = |reason: String| CharacterError::Invalid {
        file: file.into(),
        key: "runs".into(),
        reason,
    };
    if s.ops <= 0.0 || s.secs <= 0.0 {
        return Err(invalid(format!("{name} completed no operations")));
    }
    if s.calls <= 0.0 {
        return Err(invalid(format!(
            "{name} has no statement counters (was pg_stat_statements loaded in that run?)"
        )));
    }
    let db = runs.iter().find_map(|r| r.db.as_ref());
    let setting = |n: &str| db.and_then(|d| d.settings.get(n)).map(String::as_str);
    let block = setting("block_size")
        .and_then(|v| pg_bytes(v, 1))
        .filter(|b| b.is_power_of_two() && (512..=65_536).contains(b))
        .unwrap_or(8192);
    // The result keeps only the statements with the most execution time: a transaction runs
    // at least one statement, whatever share of the calls the list holds.
    let k = (s.calls / s.ops).max(1.0);
    let per = |v: f64| round3(v / s.calls * k);
    let tps = s.ops / s.secs;
    let waits = &runs[0].metrics.waits;
    let cpu_pct = waits
        .iter()
        .find(|w| w.event == "CPU")
        .map_or(0.0, |w| w.time_pct);
    // Server CPU when storlab measured its processes; else the sampled share of active time
    // without a wait event, the clients being active all the time.
    let cpu_ms = match s.server_cpu {
        Some((cpu, ops)) if ops > 0.0 => cpu * 1e3 / ops,
        _ => s.clients * cpu_pct / 100.0 / tps * 1e3,
    };
    let transaction = Transaction {
        name: name.clone(),
        weight: 1.0,
        logical_reads: per(s.hit + s.read),
        index_share: 0.0,
        scan_share: 0.0,
        // Blocks turned dirty miss a block changed again while dirty; one WAL record per
        // block change, less one commit record per operation, counts those.
        blocks_changed: per(s.dirtied).max(round3((s.wal_records - s.ops).max(0.0) / s.ops)),
        rows_inserted: per(s.inserted),
        redo_bytes: round3(s.wal_bytes / s.ops),
        cpu_ms: round3(cpu_ms),
        statements: round3(k),
        think_ms: 0.0,
        temp_bytes: 0.0,
        physical_reads: Some(per(s.read)),
        physical_writes: Some(round3(s.written / s.ops)),
        steps: Vec::new(),
    };
    let rate = |v: f64| Some(round3(v / s.secs));
    // Per-call figures times the statements per transaction, over the window.
    let stmt_rate = |v: f64| rate(v / s.calls * k * s.ops);
    let active_s = s.clients * s.secs;
    let observed = Observed {
        elapsed_s: Some(round3(s.secs)),
        transactions_per_s: rate(s.ops),
        logical_reads_per_s: stmt_rate(s.hit + s.read),
        physical_reads_per_s: stmt_rate(s.read),
        physical_writes_per_s: rate(s.written),
        redo_bytes_per_s: rate(s.wal_bytes),
        block_changes_per_s: stmt_rate(s.dirtied),
        executes_per_s: stmt_rate(s.calls),
        db_cpu_per_s: Some(round3(cpu_ms / 1e3 * tps)),
        events: waits
            .iter()
            .map(|w| Event {
                name: w.event.clone(),
                waits: None,
                time_s: round3(w.time_pct / 100.0 * active_s),
                avg_ms: w.avg_ms,
                pct_db_time: Some(w.time_pct.clamp(0.0, 100.0)),
                wait_class: Some(w.event.split(':').next().unwrap_or("").to_string()),
            })
            .collect(),
        ..Observed::default()
    };
    let c = Characterization {
        name: name.clone(),
        engine: Engine::Postgresql,
        source: format!("storlab-db:{file} {name}"),
        sessions: (s.clients.round() as u32).clamp(1, 100_000),
        block_bytes: block as u32,
        transactions: vec![transaction],
        segments: vec![Segment::plain(
            "data",
            SegmentKind::Table,
            SegmentSize::Unknown,
            "data",
            1.0,
        )],
        instance: Instance {
            cpus: 1,
            cpu_busy_pct: None,
            buffer_cache: ByteSize(
                setting("shared_buffers")
                    .and_then(|v| pg_bytes(v, block))
                    .unwrap_or(128 << 20),
            ),
            log_buffer: ByteSize(
                setting("wal_buffers")
                    .and_then(|v| pg_bytes(v, block))
                    .unwrap_or(16 << 20),
            ),
            db_time_per_s: Some(round3(s.clients)),
            settings: Default::default(),
        },
        observed: Some(observed),
    };
    c.validate(file)?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{DbEvidence, StatementStats};

    fn run(test: &str, ios: u64, stmts: Vec<StatementStats>) -> Run {
        let mut run: Run = serde_json::from_value(serde_json::json!({
            "target": {"name": "local", "kind": "real"},
            "workload": {"name": test, "kind": "db", "duration_s": 10.0, "warmup_s": 0.0,
                "parameters": {"clients": 4}},
            "metrics": {"iops": 0.0, "read_iops": 0.0, "write_iops": 0.0, "mbps": 0.0,
                "read_mbps": 0.0, "write_mbps": 0.0, "ios": ios,
                "latency_ms": {"mean": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "p999": 0.0, "max": 0.0}}
        }))
        .expect("minimal run");
        let mut db = DbEvidence {
            server_version: "17.2".into(),
            statements: stmts,
            server_cpu_s: Some(2.0),
            ..DbEvidence::default()
        };
        db.wal.bytes = 1_000_000;
        db.checkpoints.buffers_checkpoint = 300;
        db.settings.insert("shared_buffers".into(), "256MB".into());
        db.settings.insert("block_size".into(), "8192".into());
        run.db = Some(db);
        run
    }

    fn stmt(query: &str, calls: u64, hit: f64, read: f64, dirtied: f64) -> StatementStats {
        StatementStats {
            query: query.into(),
            calls,
            rows_per_call: 1.0,
            shared_blks_hit: hit,
            shared_blks_read: read,
            shared_blks_dirtied: dirtied,
            ..StatementStats::default()
        }
    }

    #[test]
    fn per_transaction_figures_sum_the_statements_over_the_operations() {
        let r = Results::new(
            "x",
            vec![run(
                "oltp/cycle",
                1000,
                vec![
                    stmt("SELECT v FROM t WHERE id = $1", 1000, 3.0, 1.0, 0.0),
                    stmt("INSERT INTO h VALUES ($1)", 500, 2.0, 0.0, 2.0),
                ],
            )],
        );
        let c = from_results(&r, None, "real.json").unwrap();
        let t = &c.transactions[0];
        assert_eq!(t.logical_reads, 5.0); // (1000 * 4 + 500 * 2) / 1000
        assert_eq!(t.physical_reads, Some(1.0));
        assert_eq!(t.blocks_changed, 1.0);
        assert_eq!(t.rows_inserted, 0.5);
        assert_eq!(t.statements, 1.5);
        assert_eq!(t.redo_bytes, 1000.0);
        assert_eq!(t.physical_writes, Some(0.3));
        assert_eq!(t.cpu_ms, 2.0);
        assert_eq!((c.sessions, c.engine), (4, Engine::Postgresql));
        assert_eq!(c.instance.buffer_cache, ByteSize(256 << 20));
        assert_eq!(c.unknowns(), ["segments[0].size (data)"]);
        let o = c.observed.unwrap();
        assert_eq!(o.transactions_per_s, Some(100.0));
    }

    #[test]
    fn the_test_must_exist_have_counters_and_be_named_among_several() {
        let r = Results::new(
            "x",
            vec![
                run("a", 10, vec![stmt("SELECT 1", 10, 1.0, 0.0, 0.0)]),
                run("b", 10, Vec::new()),
            ],
        );
        let e = from_results(&r, None, "f.json").unwrap_err().to_string();
        assert!(e.contains("name the test") && e.contains("a, b"), "{e}");
        let e = from_results(&r, Some("c"), "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f.json: runs: has no run of c"), "{e}");
        let e = from_results(&r, Some("b"), "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("pg_stat_statements"), "{e}");
        assert!(from_results(&r, Some("a"), "f.json").is_ok());
    }

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(pg_bytes("128MB", 8192), Some(128 << 20));
        assert_eq!(pg_bytes("8kB", 1), Some(8192));
        assert_eq!(pg_bytes("16384", 8192), Some(16384 * 8192));
        assert_eq!(pg_bytes("lots", 1), None);
        assert_eq!(pg_bytes("99999999999TB", 1), None);
    }
}
