//! Block profiles measured on a real database: the per-call counters of `pg_stat_statements`
//! that a `storlab db` run writes into its result file (blocks hit, read, dirtied and written,
//! WAL bytes per call), averaged over the statements of one test weighted by their calls.
//!
//! What the simulator takes from them, and why:
//! - blocks accessed per operation (hit + read): the CPU charged per operation. Visits beyond
//!   the schema's descent and heap blocks are repeat pins of those blocks and small hot
//!   structures (visibility map, free-space map, catalog), hits in any cache, so they cost CPU,
//!   not I/O;
//! - blocks dirtied per operation: how many of the operation's blocks it modifies, at least
//!   the blocks the test must change by definition (the heap blocks of updated rows). More
//!   than that shows writes the schema does not predict: hint bits set by readers, index
//!   leaves of non-HOT updates. `shared_blks_dirtied` counts clean-to-dirty changes only, so
//!   it is a lower bound when the real cache already held dirty blocks;
//! - WAL bytes per operation: the log volume of an operation, full-page images included;
//! - not the real run's read ratio: misses depend on the cache, and the simulated buffer cache
//!   decides its own.

use serde::Serialize;
use storlab_core::result::Results;

/// A test's measured per-operation block profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasuredProfile {
    /// Where it came from (file name).
    pub source: String,
    /// The real run's test (`dpaws/update-row`).
    pub test: String,
    /// The real server's version.
    pub server_version: String,
    /// Statements averaged and their calls.
    pub statements: usize,
    pub calls: u64,
    /// Per call: blocks accessed (hit + read), read, dirtied, written; WAL bytes; rows.
    pub blocks_per_op: f64,
    pub read_per_op: f64,
    pub dirtied_per_op: f64,
    pub written_per_op: f64,
    pub wal_bytes_per_op: f64,
    pub rows_per_op: f64,
    /// CPU per operation of the server's processes (known when storlab started the server),
    /// and of the load generator (storlab's driver, on the same machine), ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cpu_ns_per_op: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_cpu_ns_per_op: Option<f64>,
}

impl MeasuredProfile {
    /// The profile of `test` in a result file's runs. Errors name the reason: no run of that
    /// test, no statement counters in it, no calls.
    pub fn from_results(
        results: &Results,
        test: &str,
        source: &str,
    ) -> Result<MeasuredProfile, String> {
        let runs: Vec<_> = results
            .runs
            .iter()
            .filter(|r| r.workload.name == test)
            .collect();
        if runs.is_empty() {
            let have: Vec<&str> = results
                .runs
                .iter()
                .map(|r| r.workload.name.as_str())
                .collect();
            return Err(format!(
                "has no run of {test} (it has: {})",
                if have.is_empty() {
                    "no runs".to_string()
                } else {
                    have.join(", ")
                }
            ));
        }
        let mut p = MeasuredProfile {
            source: source.to_string(),
            test: test.to_string(),
            server_version: String::new(),
            statements: 0,
            calls: 0,
            blocks_per_op: 0.0,
            read_per_op: 0.0,
            dirtied_per_op: 0.0,
            written_per_op: 0.0,
            wal_bytes_per_op: 0.0,
            rows_per_op: 0.0,
            server_cpu_ns_per_op: None,
            client_cpu_ns_per_op: None,
        };
        // CPU seconds and the operations they served, over the runs that measured them.
        let (mut server, mut client) = ((0.0, 0u64), (0.0, 0u64));
        for run in &runs {
            let ops = run.metrics.ios;
            if let Some(cpu) = run.db.as_ref().and_then(|d| d.server_cpu_s) {
                server = (server.0 + cpu, server.1 + ops);
            }
            if let Some(tool) = run.tool.as_ref() {
                client = (client.0 + tool.cpu_s, client.1 + ops);
            }
        }
        let per_op = |(cpu, ops): (f64, u64)| (ops > 0).then(|| (cpu * 1e9 / ops as f64).round());
        p.server_cpu_ns_per_op = per_op(server);
        p.client_cpu_ns_per_op = per_op(client);
        for run in runs {
            let Some(db) = run.db.as_ref() else { continue };
            if p.server_version.is_empty() {
                p.server_version = db.server_version.clone();
            }
            for s in db.statements.iter().filter(|s| s.calls > 0) {
                let w = s.calls as f64;
                p.statements += 1;
                p.calls += s.calls;
                p.blocks_per_op += w * (s.shared_blks_hit + s.shared_blks_read);
                p.read_per_op += w * s.shared_blks_read;
                p.dirtied_per_op += w * s.shared_blks_dirtied;
                p.written_per_op += w * s.shared_blks_written;
                p.wal_bytes_per_op += w * s.wal_bytes;
                p.rows_per_op += w * s.rows_per_call;
            }
        }
        if p.calls == 0 {
            return Err(format!(
                "has no statement counters for {test} (was pg_stat_statements loaded in that run?)"
            ));
        }
        let n = p.calls as f64;
        for v in [
            &mut p.blocks_per_op,
            &mut p.read_per_op,
            &mut p.dirtied_per_op,
            &mut p.written_per_op,
            &mut p.wal_bytes_per_op,
            &mut p.rows_per_op,
        ] {
            *v = (*v / n * 1000.0).round() / 1000.0;
        }
        Ok(p)
    }

    /// Blocks modified per operation in thousandths, at least `schema_writes` (the blocks the
    /// operation must change by definition) and at most `plan_len` (every block it visits).
    pub fn modified_milli(&self, schema_writes: u64, plan_len: u64) -> u64 {
        let measured = (self.dirtied_per_op.max(0.0) * 1000.0).round() as u64;
        measured.max(schema_writes * 1000).min(plan_len * 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use storlab_core::result::{DbEvidence, Results, StatementStats};

    fn run_with(test: &str, stmts: Vec<StatementStats>) -> storlab_core::result::Run {
        let mut run: storlab_core::result::Run = serde_json::from_value(serde_json::json!({
            "target": {"name": "local", "kind": "real"},
            "workload": {"name": test, "kind": "db", "duration_s": 1.0, "warmup_s": 0.0},
            "metrics": {"iops": 0.0, "read_iops": 0.0, "write_iops": 0.0, "mbps": 0.0,
                "read_mbps": 0.0, "write_mbps": 0.0, "ios": 0,
                "latency_ms": {"mean": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "p999": 0.0, "max": 0.0}}
        }))
        .expect("minimal run");
        run.db = Some(DbEvidence {
            server_version: "15.18".into(),
            statements: stmts,
            ..DbEvidence::default()
        });
        run
    }

    fn stmt(calls: u64, hit: f64, read: f64, dirtied: f64, wal: f64) -> StatementStats {
        StatementStats {
            query: "UPDATE t SET v = v + 1 WHERE id = $1".into(),
            calls,
            rows_per_call: 1.0,
            shared_blks_hit: hit,
            shared_blks_read: read,
            shared_blks_dirtied: dirtied,
            wal_bytes: wal,
            ..StatementStats::default()
        }
    }

    #[test]
    fn statements_are_averaged_by_their_calls() {
        let r = Results::new(
            "x",
            vec![
                run_with("dpaws/select-row", vec![stmt(10, 9.0, 9.0, 9.0, 9.0)]),
                run_with(
                    "dpaws/update-row",
                    vec![
                        stmt(300, 5.0, 1.0, 1.0, 4000.0),
                        stmt(100, 9.0, 1.0, 2.0, 8000.0),
                    ],
                ),
            ],
        );
        let p = MeasuredProfile::from_results(&r, "dpaws/update-row", "real.json").unwrap();
        assert_eq!(p.calls, 400);
        assert_eq!(p.statements, 2);
        assert_eq!(p.blocks_per_op, 7.0); // (300*6 + 100*10) / 400
        assert_eq!(p.read_per_op, 1.0);
        assert_eq!(p.dirtied_per_op, 1.25);
        assert_eq!(p.wal_bytes_per_op, 5000.0);
        assert_eq!(p.server_version, "15.18");
    }

    #[test]
    fn a_missing_test_or_missing_counters_are_named() {
        let r = Results::new("x", vec![run_with("dpaws/select-row", Vec::new())]);
        let e = MeasuredProfile::from_results(&r, "dpaws/update-row", "f").unwrap_err();
        assert!(e.contains("no run of dpaws/update-row") && e.contains("dpaws/select-row"));
        let e = MeasuredProfile::from_results(&r, "dpaws/select-row", "f").unwrap_err();
        assert!(e.contains("pg_stat_statements"), "{e}");
    }

    #[test]
    fn modified_blocks_lie_between_the_schema_and_the_plan() {
        let r = Results::new("x", vec![run_with("t", vec![stmt(1, 3.0, 0.0, 0.85, 0.0)])]);
        let p = MeasuredProfile::from_results(&r, "t", "f").unwrap();
        assert_eq!(p.modified_milli(0, 4), 850);
        assert_eq!(p.modified_milli(1, 4), 1000);
        let r = Results::new("x", vec![run_with("t", vec![stmt(1, 3.0, 0.0, 7.5, 0.0)])]);
        let p = MeasuredProfile::from_results(&r, "t", "f").unwrap();
        assert_eq!(p.modified_milli(1, 4), 4000);
    }
}
