//! The analytic query's sizes as `[database]` keys (build and probe sides, sort, work
//! memory) with their bounds, and what a query run reports: its elapsed time, no rates.

use storlab_core::result::Run;
use storlab_sim::{parse_workload, simulate};

use super::{opts, system, ENTERPRISE_RAID5};

const MIB: u64 = 1 << 20;

fn query_workload(keys: &str) -> Result<storlab_sim::WorkloadSpec, String> {
    let s = system(ENTERPRISE_RAID5);
    let w = format!(
        "[database]\ntest = \"orabench/analytic-query\"\nengine = \"oracle\"\nsessions = 2\n\
         data = \"datavol\"\nlog = \"logvol\"\n{keys}\n"
    );
    parse_workload(&w, "q.toml", &s).map_err(|e| e.to_string())
}

fn run(keys: &str, secs: u64) -> Run {
    let s = system(ENTERPRISE_RAID5);
    let w = query_workload(keys).unwrap_or_else(|e| panic!("{e}"));
    simulate(&s, &w, opts(secs, 0, 5)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_query_keys_set_the_sizes_the_spill_arithmetic_uses() {
    // Build side 32 MiB in 8 MiB: one partitioning pass writing both sides (96 MiB); the
    // 4 MiB sort fits.
    let r = run(
        "build_size = \"32MiB\"\nprobe_size = \"64MiB\"\nsort_size = \"4MiB\"\nwork_mem = \"8MiB\"",
        20,
    );
    let p = &r.workload.parameters;
    let n = p["temp_executions"].as_u64().expect("temp executions");
    assert!(n >= 2, "{n} queries");
    assert_eq!(p["temp_bytes_written"].as_u64(), Some(96 * MIB * n));
}

#[test]
fn the_query_keys_name_their_bounds() {
    let e = query_workload("work_mem = \"1KiB\"")
        .err()
        .unwrap_or_default();
    assert!(e.contains("database.work_mem") && e.contains("64k"), "{e}");
    let e = query_workload("build_size = \"100TiB\"")
        .err()
        .unwrap_or_default();
    assert!(e.contains("database.build_size"), "{e}");
}

#[test]
fn a_query_run_reports_its_elapsed_time_and_no_transaction_rates() {
    let r = run("", 30);
    let m = &r.metrics;
    assert_eq!(m.rows_per_s, None);
    assert_eq!(m.tx_per_min, None);
    let q = &m.transactions[0];
    assert!(q.count > 0, "{q:?}");
    let elapsed = m.elapsed_s.expect("the query's elapsed time");
    assert!(
        (elapsed - q.latency_ms.mean / 1e3).abs() < 1e-5,
        "{elapsed}"
    );
}
