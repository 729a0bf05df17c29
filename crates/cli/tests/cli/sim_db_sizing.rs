//! `storlab sim` sizes a simulated database's data target by the page space its run lays out.

use predicates::prelude::*;

use super::storlab;

/// An array of one RAID 10 group with a data LUN of `data_bytes` and a log LUN of 1 GiB.
fn array(data_bytes: u64) -> String {
    format!(
        "name = \"sized\"\n\
         [[raid_groups]]\nname = \"g\"\nlevel = \"raid10\"\ndisks = 4\ndisk_model = \"hdd-10k\"\n\
         [[luns]]\nname = \"d\"\ngroup = \"g\"\nsize = {data_bytes}\n\
         [[luns]]\nname = \"l\"\ngroup = \"g\"\nsize = \"1g\"\n"
    )
}

/// An OLTP database (its history table appended to, without an index) on LUN `d`, its log
/// on LUN `l`.
const WORKLOAD: &str = "name = \"oltp\"\n[database]\ntest = \"oltp/medium\"\nsessions = 4\n\
                        rows = 20000\ndata = \"d\"\nlog = \"l\"\n";

/// `storlab sim` of [`WORKLOAD`] on [`array`]`(data_bytes)`, its results in `dir/out.json`.
fn run(dir: &std::path::Path, data_bytes: u64) -> assert_cmd::assert::Assert {
    let a = dir.join("sized.toml");
    let w = dir.join("oltp.toml");
    std::fs::write(&a, array(data_bytes)).unwrap();
    std::fs::write(&w, WORKLOAD).unwrap();
    storlab()
        .args(["sim", "--array"])
        .arg(&a)
        .arg("--workload")
        .arg(&w)
        .args(["--duration", "1s", "--warmup", "0", "--json"])
        .arg(dir.join("out.json"))
        .assert()
}

#[test]
fn a_data_target_as_large_as_the_runs_page_space_fits_and_one_block_less_does_not() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 1 << 30).success();
    let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let need = v["runs"][0]["workload"]["parameters"]["database_bytes"]
        .as_u64()
        .expect("database_bytes");
    assert!(need > 0 && need.is_multiple_of(8192), "{need}");
    run(dir.path(), need).success();
    let short = need - 8192;
    run(dir.path(), short)
        .code(2)
        .stderr(predicate::str::contains("oltp.toml"))
        .stderr(predicate::str::contains("database.rows"))
        .stderr(predicate::str::contains(format!("need {need} bytes")))
        .stderr(predicate::str::contains(format!(
            "the data target has {short}"
        )));
}
