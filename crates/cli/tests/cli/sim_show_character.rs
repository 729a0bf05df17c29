//! `storlab sim --db-test T --show-character`: the built-in test as a characterization, which
//! `--workload-from` runs.

use storlab_core::character::Characterization;

use super::sim;

#[test]
fn a_built_in_test_prints_as_a_characterization_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = sim("enterprise-raid5.toml")
        .args([
            "--db-test",
            "oltp/medium",
            "--rows",
            "300000",
            "--show-character",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let c = Characterization::from_toml(&text, "oltp.toml").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = c.transactions.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["read", "write"]);
    assert_eq!(c.sessions, 50);
    assert_eq!(c.transactions[1].rows_inserted, 1.0);
    let file = dir.path().join("oltp.toml");
    std::fs::write(&file, &text).unwrap();
    sim("enterprise-raid5.toml")
        .args(["--workload-from"])
        .arg(&file)
        .args(["--duration", "2s", "--warmup", "1s"])
        .assert()
        .success();
}

#[test]
fn show_character_needs_a_test_with_a_mix() {
    for args in [
        &["--db-test", "job/copy-file", "--show-character"][..],
        &["--profile", "randread-8k", "--show-character"],
    ] {
        let out = sim("enterprise-raid5.toml")
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8_lossy(&out);
        assert!(
            err.contains("--show-character") || err.contains("--db-test"),
            "{err}"
        );
    }
}
