//! The simulated database running a workload characterization: each mechanism on its own
//! (a cached data set reads nothing; changed blocks are dirtied and written; scans read in
//! multiblock reads; CPU demand saturates the host CPUs).

use storlab_core::character::Characterization;
use storlab_core::result::{Metrics, Run};
use storlab_sim::config::{character_workload, DEFAULT_MULTIBLOCK_READ_COUNT};
use storlab_sim::simulate;

use super::{opts, system, ENTERPRISE_RAID5};

/// A characterization of one transaction type (`tx`: its keys besides name and weight) on
/// one table segment, with `rest` appended (instance, more segments).
fn one_type(engine: &str, sessions: u32, tx: &str, segment: &str, instance: &str) -> String {
    format!(
        "name = \"t\"\nengine = \"{engine}\"\nsessions = {sessions}\n\
         [[transactions]]\nname = \"tx\"\nweight = 1.0\n{tx}\n\
         [[segments]]\nname = \"data\"\nkind = \"table\"\nshare = 1.0\n{segment}\n\
         [instance]\n{instance}\n"
    )
}

/// Runs `text` on the enterprise RAID 5 array (data on datavol, log on logvol) with the
/// `[database]` keys in `db`, for `secs` after a warm-up of `warmup` s.
fn run(text: &str, db: &str, mbrc: u64, secs: u64, warmup: u64) -> Run {
    let s = system(ENTERPRISE_RAID5);
    let c = Characterization::from_toml(text, "c.toml").unwrap_or_else(|e| panic!("{e}"));
    let db: toml::Table = toml::from_str(db).unwrap();
    let w = character_workload(&c, db, "c.toml", &s, mbrc).unwrap_or_else(|e| panic!("{e}"));
    simulate(&s, &w, opts(secs, warmup, 3)).unwrap_or_else(|e| panic!("{e}"))
}

fn data(r: &Run) -> &Metrics {
    &r.classes.iter().find(|c| c.name == "data").unwrap().metrics
}

fn param(r: &Run, key: &str) -> f64 {
    r.workload.parameters[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {}", r.workload.parameters))
}

fn tx_per_s(r: &Run) -> f64 {
    r.metrics.transactions.iter().map(|t| t.tx_per_s).sum()
}

#[test]
fn a_fully_cached_data_set_makes_no_reads() {
    let text = one_type(
        "oracle",
        8,
        "logical_reads = 50.5\nindex_share = 0.3\ncpu_ms = 0.2",
        "size = \"4m\"",
        "cpus = 4\nbuffer_cache = \"64m\"",
    );
    let r = run(&text, "", DEFAULT_MULTIBLOCK_READ_COUNT, 5, 3);
    assert!(tx_per_s(&r) > 1000.0, "{}", tx_per_s(&r));
    assert_eq!(data(&r).read_iops, 0.0, "{:?}", data(&r));
    assert_eq!(param(&r, "buffer_hit_pct"), 100.0);
    // A read-only mix commits nothing.
    assert_eq!(
        r.classes
            .iter()
            .find(|c| c.name == "log")
            .unwrap()
            .metrics
            .ios,
        0
    );
}

#[test]
fn changed_blocks_are_dirtied_and_the_checkpoints_write_each_of_them() {
    // 4 GiB cached by a 4 GiB buffer cache: nothing is evicted, so only the checkpoints (every
    // second) write, each block changed since the last one once; few blocks are changed twice
    // within a second (about 1% at these rates).
    for k in [3.0, 2.5] {
        let text = one_type(
            "postgresql",
            4,
            &format!("logical_reads = 8.0\nblocks_changed = {k}\ncpu_ms = 2.0\nredo_bytes = 300.0"),
            "size = \"4g\"",
            "cpus = 4\nbuffer_cache = \"4g\"",
        );
        let r = run(&text, "checkpoint_interval = \"1s\"", 16, 20, 2);
        let tps = tx_per_s(&r);
        let written = param(&r, "writer_blocks_per_s");
        let want = k * tps;
        assert!(
            (written - want).abs() < 0.03 * want,
            "k = {k}: {written} blocks written per s for {tps} tx/s"
        );
        // The writer's blocks are the data files' writes.
        let bytes = data(&r).write_mbps * 1e6 / 8192.0;
        assert!(
            (bytes - written).abs() < 0.02 * written,
            "{bytes} vs {written}"
        );
        // The redo of each commit goes to the log.
        let log = r.metrics.wal_mb_per_s.unwrap() * 1e6;
        assert!(
            log >= 300.0 * tps * 0.97,
            "{log} log bytes/s for {tps} tx/s"
        );
    }
}

#[test]
fn scans_read_consecutive_blocks_in_multiblock_reads_of_the_configured_size() {
    for (engine, mbrc) in [("oracle", 8u64), ("oracle", 16), ("postgresql", 16)] {
        let text = one_type(
            engine,
            4,
            "logical_reads = 256.0\nscan_share = 1.0\ncpu_ms = 0.1",
            "size = \"40g\"",
            "cpus = 4\nbuffer_cache = \"16m\"",
        );
        let r = run(&text, "", mbrc, 5, 1);
        let d = data(&r);
        let read_kib = d.read_mbps * 1e6 / d.read_iops / 1024.0;
        let want = (mbrc * 8) as f64;
        // A run that wraps at the segment's end, or meets a cached block, reads less (the
        // rates are rounded to the byte per ms).
        assert!(
            read_kib > 0.97 * want && read_kib <= 1.001 * want,
            "{engine} mbrc {mbrc}: {read_kib} KiB per read"
        );
        let blocks = param(&r, "blocks_per_multiblock_read");
        assert!(
            blocks > 0.97 * mbrc as f64 && blocks <= mbrc as f64,
            "{blocks}"
        );
        assert!(param(&r, "multiblock_reads_per_s") > 0.0);
    }
}

#[test]
fn cpu_demand_saturates_at_cpus_over_cpu_time_per_transaction() {
    // 2 CPUs, 10 ms of CPU a transaction, a cached data set: at most 200 tx/s, however many
    // sessions; one session alone runs 100 tx/s.
    for (sessions, want) in [(1u32, 100.0), (2, 200.0), (8, 200.0)] {
        let text = one_type(
            "oracle",
            sessions,
            "logical_reads = 4.0\ncpu_ms = 10.0",
            "size = \"1m\"",
            "cpus = 2\nbuffer_cache = \"16m\"",
        );
        let r = run(&text, "", 16, 10, 1);
        let tps = tx_per_s(&r);
        assert!(
            (tps - want).abs() < 0.01 * want,
            "{sessions} sessions: {tps} tx/s"
        );
        let queued = r.metrics.waits.iter().find(|w| w.event == "CPU:RunQueue");
        if sessions > 2 {
            // 8 sessions on 2 CPUs: each waits three bursts for every one it runs.
            let q = queued.expect("a run-queue wait");
            assert!((q.time_pct - 75.0).abs() < 2.0, "{q:?}");
        } else {
            assert!(queued.is_none(), "{queued:?}");
        }
    }
}

#[test]
fn per_type_response_times_and_a_think_time_after_each_transaction() {
    let text = "name = \"two\"\nengine = \"oracle\"\nsessions = 10\n\
        [[transactions]]\nname = \"short\"\nweight = 0.75\nlogical_reads = 2.0\ncpu_ms = 1.0\nthink_ms = 99.0\n\
        [[transactions]]\nname = \"long\"\nweight = 0.25\nlogical_reads = 2.0\ncpu_ms = 5.0\nthink_ms = 95.0\n\
        [[segments]]\nname = \"d\"\nkind = \"table\"\nshare = 1.0\nsize = \"1m\"\n\
        [instance]\ncpus = 16\nbuffer_cache = \"16m\"\n";
    let r = run(text, "", 16, 20, 2);
    let t = &r.metrics.transactions;
    assert_eq!(t.len(), 2);
    assert_eq!((t[0].name.as_str(), t[1].name.as_str()), ("short", "long"));
    // No queueing: each takes its CPU time; a cycle is 100 ms whichever type: 100 tx/s.
    assert!((t[0].latency_ms.mean - 1.0).abs() < 0.01, "{:?}", t[0]);
    assert!((t[1].latency_ms.mean - 5.0).abs() < 0.01, "{:?}", t[1]);
    let tps = tx_per_s(&r);
    assert!((tps - 100.0).abs() < 2.0, "{tps}");
    assert!((t[0].tx_per_s / tps - 0.75).abs() < 0.03, "{t:?}");
}

#[test]
fn an_oracle_characterization_commits_and_logs_its_changes_with_their_undo() {
    // Oracle's redo goes into the log buffer change by change: a characterization's
    // transactions must plan their undo and spread their redo over their changes, or their
    // commits wait for a log write that never comes. 4 changed blocks of 3,000 bytes of redo
    // a transaction; undo adds a record of at least 120 bytes per changed block.
    let text = one_type(
        "oracle",
        8,
        "logical_reads = 20.0\nblocks_changed = 4.0\ncpu_ms = 1.0\nredo_bytes = 3000.0",
        "size = \"1g\"",
        "cpus = 4\nbuffer_cache = \"2g\"",
    );
    let r = run(&text, "", DEFAULT_MULTIBLOCK_READ_COUNT, 10, 2);
    let tps = tx_per_s(&r);
    assert!(tps > 100.0, "{tps} tx/s");
    // 3,000 bytes of redo plus 4 x 120 of undo, and at most a log block more.
    let log = r.metrics.wal_mb_per_s.unwrap() * 1e6 / tps;
    assert!(
        (3480.0..=3480.0 + 8192.0).contains(&log),
        "{log} log bytes per transaction"
    );
}
