//! Block profiles measured on a real database (`--profile-from`) change what the simulated
//! database does: blocks visited (or the server's measured CPU) set its CPU, blocks dirtied its data writes, WAL bytes its
//! log volume.

use storlab_core::result::Run;
use storlab_sim::db::MeasuredProfile;
use storlab_sim::{parse_workload, simulate};

use super::{opts, system, ENTERPRISE_RAID5};

fn profile(blocks: f64, dirtied: f64, wal: f64) -> MeasuredProfile {
    MeasuredProfile {
        source: "real.json".into(),
        test: "dpaws/select-row".into(),
        server_version: "15".into(),
        statements: 1,
        calls: 1000,
        blocks_per_op: blocks,
        read_per_op: 0.0,
        dirtied_per_op: dirtied,
        written_per_op: 0.0,
        wal_bytes_per_op: wal,
        rows_per_op: 1.0,
        server_cpu_ns_per_op: None,
        client_cpu_ns_per_op: None,
    }
}

fn run(test: &str, extra: &str, p: Option<MeasuredProfile>) -> Run {
    let s = system(ENTERPRISE_RAID5);
    let text = format!(
        "name = \"db\"\n[database]\ntest = \"{test}\"\ndata = \"datavol\"\nlog = \"logvol\"\n{extra}\n"
    );
    let mut w = parse_workload(&text, "db.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    w.database.as_mut().unwrap().profile = p;
    simulate(&s, &w, opts(10, 5, 7)).unwrap()
}

fn wait_ms(r: &Run, event: &str) -> f64 {
    r.metrics
        .waits
        .iter()
        .find(|w| w.event == event)
        .map_or(0.0, |w| w.avg_ms.unwrap_or(0.0))
}

#[test]
fn readers_that_dirtied_blocks_for_real_make_data_writes() {
    // Hint bits: a real select-row dirtied about one block per call. The schema alone says a
    // select writes nothing.
    let cfg = "sessions = 16\nrows = 2000000\nbuffer = \"8MiB\"";
    let schema = run("dpaws/select-row", cfg, None);
    let measured = run("dpaws/select-row", cfg, Some(profile(4.0, 1.0, 0.0)));
    assert_eq!(schema.metrics.write_iops, 0.0);
    assert!(
        measured.metrics.write_iops > 0.2 * measured.metrics.read_iops,
        "writes {} reads {}",
        measured.metrics.write_iops,
        measured.metrics.read_iops
    );
    // A profile that dirtied nothing keeps the select read-only.
    let clean = run("dpaws/select-row", cfg, Some(profile(4.0, 0.0, 0.0)));
    assert_eq!(clean.metrics.write_iops, 0.0);
}

#[test]
fn measured_wal_bytes_set_the_log_volume_per_transaction() {
    let cfg = "sessions = 16\nrows = 200000\nbuffer = \"64MiB\"";
    let per_tx = |r: &Run| {
        let tx_per_s = r.metrics.tx_per_min.unwrap() / 60.0;
        r.metrics.wal_mb_per_s.unwrap() * 1e6 / tx_per_s
    };
    let schema = run("dpaws/update-row", cfg, None);
    let measured = run("dpaws/update-row", cfg, Some(profile(8.0, 1.0, 6000.0)));
    // Schema: 150 bytes per row + 50 per commit; measured: 6,000 + 50. Each log write rounds
    // up to whole 8 KiB blocks, shared by the commits of a group: at most one block per write
    // more than the records.
    let (a, b) = (per_tx(&schema), per_tx(&measured));
    assert!(
        (6050.0..6050.0 + 8192.0).contains(&b),
        "measured {b} bytes per tx"
    );
    assert!(
        (200.0..200.0 + 8192.0).contains(&a),
        "schema {a} bytes per tx"
    );
    assert!(b > a + 4000.0, "measured {b} vs schema {a} bytes per tx");
}

#[test]
fn measured_blocks_per_operation_set_its_cpu_time() {
    // Cached table, default 5 us per block, 2 us per row and 10 us per statement (a read
    // commits nothing): CPU per operation follows the measured visits, not the schema's
    // descent plus the heap block.
    let cfg = "sessions = 4\nrows = 200000\nbuffer = \"64MiB\"";
    let schema = run("dpaws/select-row", cfg, None);
    let measured = run("dpaws/select-row", cfg, Some(profile(10.0, 0.0, 0.0)));
    let (a, b) = (wait_ms(&schema, "CPU"), wait_ms(&measured, "CPU"));
    let levels = schema.workload.parameters["index_levels"].as_u64().unwrap() as f64;
    let expect = (5.0 * (levels + 1.0) + 2.0 + 10.0) / 1000.0;
    assert!(
        (a - expect).abs() < 0.001,
        "schema CPU {a} ms per op, {expect} expected"
    );
    assert!((b - 0.062).abs() < 0.001, "measured CPU {b} ms per op");

    // The server's CPU per operation, measured, replaces the per-block estimate; the load
    // generator's is charged only when it shares the host (`client_cpu`).
    let timed = MeasuredProfile {
        server_cpu_ns_per_op: Some(37_000.0),
        client_cpu_ns_per_op: Some(11_000.0),
        ..profile(10.0, 0.0, 0.0)
    };
    let server = run("dpaws/select-row", cfg, Some(timed.clone()));
    assert!((wait_ms(&server, "CPU") - 0.037).abs() < 0.001);
    let beside = run(
        "dpaws/select-row",
        &format!("{cfg}\nclient_cpu = \"11us\""),
        Some(timed),
    );
    assert!((wait_ms(&beside, "CPU") - 0.048).abs() < 0.001);
}

#[test]
fn fractional_dirtied_blocks_average_out() {
    // 0.5 blocks dirtied per select: half the operations modify their heap block.
    let cfg = "sessions = 8\nrows = 2000000\nbuffer = \"8MiB\"";
    let half = run("dpaws/select-row", cfg, Some(profile(4.0, 0.5, 0.0)));
    let full = run("dpaws/select-row", cfg, Some(profile(4.0, 1.0, 0.0)));
    let ratio = |r: &Run| r.metrics.write_iops / r.metrics.rows_per_s.unwrap();
    let (h, f) = (ratio(&half), ratio(&full));
    assert!(
        (h / f - 0.5).abs() < 0.1,
        "writes per row: {h} with 0.5 dirtied, {f} with 1.0"
    );
}
