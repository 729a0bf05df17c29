//! Temp I/O of sorts and hash joins: a characterization's `temp_bytes` written to temp and
//! read back per execution, its own class and wait events; a built-in analytic query's
//! spills by the grace hash join's and the external sort's arithmetic; nothing spilled when
//! everything fits in memory.

use storlab_core::character::Characterization;
use storlab_core::result::{Metrics, Run};
use storlab_sim::config::{character_workload, WorkloadSpec};
use storlab_sim::db::query::{self, QueryDef};
use storlab_sim::simulate;

use super::{opts, system, ENTERPRISE_RAID5};

/// One read-only transaction type scanning nothing, with `temp_bytes` per execution.
fn with_temp(engine: &str, sessions: u32, temp_bytes: u64) -> Characterization {
    let text = format!(
        "name = \"t\"\nengine = \"{engine}\"\nsessions = {sessions}\n\
         [[transactions]]\nname = \"report\"\nweight = 1.0\nlogical_reads = 10.0\n\
         cpu_ms = 1.0\nthink_ms = 20.0\ntemp_bytes = {temp_bytes}\n\
         [[segments]]\nname = \"data\"\nkind = \"table\"\nsize = \"64m\"\nshare = 1.0\n\
         [instance]\ncpus = 4\nbuffer_cache = \"128m\"\n"
    );
    Characterization::from_toml(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn run_character(c: &Characterization, db: &str, secs: u64) -> Run {
    let s = system(ENTERPRISE_RAID5);
    let db: toml::Table = toml::from_str(db).unwrap();
    let mbrc = storlab_sim::db::scan_path::multiblock_read_count(c.engine, 8192);
    let w = character_workload(c, db, "t.toml", &s, mbrc).unwrap_or_else(|e| panic!("{e}"));
    simulate(&s, &w, opts(secs, 2, 5)).unwrap_or_else(|e| panic!("{e}"))
}

fn run_query(q: &QueryDef, engine: &str, sessions: u32, secs: u64) -> Run {
    let s = system(ENTERPRISE_RAID5);
    let db: toml::Table = toml::from_str(&format!(
        "test = \"{}\"\nengine = \"{engine}\"\nsessions = {sessions}\ndata = \"datavol\"\nlog = \"logvol\"",
        q.name
    ))
    .unwrap();
    let spec = query::database(q, db, "q.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    let w = WorkloadSpec {
        name: q.name.into(),
        streams: Vec::new(),
        database: Some(spec),
    };
    simulate(&s, &w, opts(secs, 0, 5)).unwrap_or_else(|e| panic!("{e}"))
}

fn param(r: &Run, key: &str) -> u64 {
    r.workload.parameters[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {}", r.workload.parameters))
}

fn class<'a>(r: &'a Run, name: &str) -> Option<&'a Metrics> {
    r.classes
        .iter()
        .find(|c| c.name == name)
        .map(|c| &c.metrics)
}

fn wait<'a>(r: &'a Run, event: &str) -> Option<&'a storlab_core::result::WaitEvent> {
    r.metrics.waits.iter().find(|w| w.event == event)
}

#[test]
fn temp_bytes_written_and_read_back_are_temp_bytes_per_execution_times_executions() {
    // 2.5 MiB an execution: Oracle writes it in direct writes of at most 1 MiB (128 blocks).
    let per = 2_621_440u64;
    let r = run_character(&with_temp("oracle", 4, per), "", 10);
    let n = param(&r, "temp_executions");
    assert!(n > 20, "{n} executions");
    assert_eq!(param(&r, "temp_bytes_written"), per * n);
    assert_eq!(param(&r, "temp_bytes_read"), per * n);
    // The temp class carries them (within the executions under way at the window's ends).
    let t = class(&r, "temp").expect("a temp class");
    let secs = 10.0;
    let written = t.write_mbps * 1e6 * secs;
    let read = t.read_mbps * 1e6 * secs;
    let expected = (per * n) as f64;
    let slack = (4 * per) as f64 + 1e4;
    assert!(
        (written - expected).abs() <= slack,
        "{written} vs {expected}"
    );
    assert!((read - expected).abs() <= slack, "{read} vs {expected}");
    // At most 1 MiB an I/O: 2.5 MiB in three writes (1, 1, 0.5 MiB).
    let per_write = t.write_mbps / t.write_iops;
    assert!(
        (per_write - 2.621_44 / 3.0).abs() < 0.01,
        "{per_write} MB a write"
    );
    // Not through the buffer cache: the data files see none of it.
    assert_eq!(class(&r, "data").unwrap().write_iops, 0.0);
    let w = wait(&r, "direct path write temp").expect("the write wait");
    assert!(w.avg_ms.unwrap() > 0.0);
    assert!(wait(&r, "direct path read temp").is_some());
    assert!(wait(&r, "IO:BufFileWrite").is_none());
}

#[test]
fn fractions_of_a_block_carry_and_postgresql_names_its_temp_waits() {
    // 1.5 blocks an execution: each session's executions write 1, 2, 1, 2 ... blocks.
    let per = 12_288u64;
    let c = with_temp("postgresql", 2, per);
    let r = run_character(&c, "", 5);
    let n = param(&r, "temp_executions");
    let written = param(&r, "temp_bytes_written");
    assert!(
        written.abs_diff(per * n) <= 2 * 8192,
        "{written} vs {}",
        per * n
    );
    assert_eq!(param(&r, "temp_bytes_read"), written);
    assert!(wait(&r, "IO:BufFileWrite").is_some());
    assert!(wait(&r, "IO:BufFileRead").is_some());
    assert!(wait(&r, "direct path write temp").is_none());
    // Through the host's file cache, a write is a copy: 20 us a block.
    let r = run_character(&c, "os_cache = \"1GiB\"\nos_read = \"20us\"", 5);
    let w = wait(&r, "IO:BufFileWrite")
        .expect("the write wait")
        .avg_ms
        .unwrap();
    assert!((0.02..=0.04).contains(&w), "{w} ms a buffered write");
}

#[test]
fn a_hash_join_spills_what_the_grace_arithmetic_says() {
    // Build side 32 MiB, work memory 8 MiB: 4 partitions in one pass, both inputs (96 MiB)
    // written and read back; the 4 MiB sort fits in memory.
    const MIB: u64 = 1 << 20;
    let q = QueryDef {
        name: "orabench/analytic-query",
        probe_bytes: 64 * MIB,
        build_bytes: 32 * MIB,
        sort_bytes: 4 * MIB,
        work_mem_bytes: 8 * MIB,
        buffer_bytes: 64 * MIB,
    };
    assert_eq!(q.temp_bytes(MIB), 96 * MIB);
    let r = run_query(&q, "oracle", 2, 20);
    let n = param(&r, "temp_executions");
    assert!(n >= 4, "{n} queries");
    assert_eq!(param(&r, "temp_bytes_written"), 96 * MIB * n);
    // The partitions are written while the scans read, each 1 MiB write due once the scan
    // has read 1 MiB more: all but the last, which goes when the scan ends.
    assert_eq!(param(&r, "temp_bytes_written_with_scans"), 95 * MIB * n);
    // The query's elapsed time is its transaction's response time.
    let tx = &r.metrics.transactions[0];
    assert_eq!(tx.name, "query");
    assert!(tx.count >= 2 && tx.latency_ms.mean > 0.0, "{tx:?}");
    // Both tables scanned whole by direct path reads (96 MiB over a 64 MiB buffer cache).
    assert!(wait(&r, "direct path read").is_some());

    // Everything in memory: no temp I/O, no temp class, no temp waits, and a shorter query.
    let fits = QueryDef {
        work_mem_bytes: 64 * MIB,
        ..q
    };
    assert_eq!(fits.temp_bytes(MIB), 0);
    let m = run_query(&fits, "oracle", 2, 20);
    assert!(class(&m, "temp").is_none());
    assert!(wait(&m, "direct path write temp").is_none());
    assert!(m.workload.parameters.get("temp_executions").is_none());
    let mean = |r: &Run| r.metrics.transactions[0].latency_ms.mean;
    assert!(mean(&m) < mean(&r), "{} vs {}", mean(&m), mean(&r));
}

#[test]
fn postgresql_reads_its_temp_files_back_from_the_file_cache_when_it_holds_them() {
    // 2.5 MiB an execution, written through a 1 GiB file cache: read back from there (a
    // copy, 20 us a block), the device only writes them back.
    let per = 2_621_440u64;
    let c = with_temp("postgresql", 2, per);
    let r = run_character(&c, "os_cache = \"1GiB\"\nos_read = \"20us\"", 5);
    let n = param(&r, "temp_executions");
    assert!(n > 4, "{n} executions");
    assert!(param(&r, "temp_reads_from_file_cache") > 0);
    let t = class(&r, "temp").expect("a temp class");
    assert_eq!(t.read_iops, 0.0, "no temp read reached the device");
    assert!(t.write_iops > 0.0, "the write-back did");
    // Without a file cache every read goes to the device.
    let direct = run_character(&c, "", 5);
    assert!(class(&direct, "temp").unwrap().read_iops > 0.0);
    assert!(direct
        .workload
        .parameters
        .get("temp_reads_from_file_cache")
        .is_none());
}
