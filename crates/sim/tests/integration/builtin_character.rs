//! The built-in tests as workload characterizations: each test's characterization, worked out
//! from its declared mix (`storlab_core::dbtest::mix`) and the schema, is a valid
//! characterization, and a run of the test does per transaction what it says.

use storlab_sim::{parse_workload, simulate};

use super::{opts, system, ENTERPRISE_RAID5};

/// Runs `test` with the `[database]` keys `extra`; returns its characterization and the
/// per-transaction figures the run measured.
fn run(test: &str, extra: &str) -> (storlab_core::character::Characterization, serde_json::Value) {
    let s = system(ENTERPRISE_RAID5);
    let text = format!(
        "name = \"db\"\n[database]\ntest = \"{test}\"\ndata = \"datavol\"\nlog = \"logvol\"\n\
         rows = 200000\nbuffer = \"32MiB\"\n{extra}\n"
    );
    let w = parse_workload(&text, "db.toml", &s).unwrap_or_else(|e| panic!("{e}"));
    let c = w
        .database
        .as_ref()
        .and_then(|d| d.builtin_character())
        .unwrap_or_else(|| panic!("{test} has a characterization"));
    c.validate(test).unwrap_or_else(|e| panic!("{e}"));
    let r = simulate(&s, &w, opts(6, 2, 3)).unwrap_or_else(|e| panic!("{e}"));
    let measured = r.workload.parameters["per_transaction"].clone();
    (c, measured)
}

/// The characterization's figure, averaged over its transaction types by weight.
fn mean(
    c: &storlab_core::character::Characterization,
    f: fn(&storlab_core::character::Transaction) -> f64,
) -> f64 {
    c.transactions.iter().map(|t| t.weight * f(t)).sum()
}

fn close(what: &str, test: &str, declared: f64, measured: &serde_json::Value, tolerance: f64) {
    let m = measured
        .as_f64()
        .unwrap_or_else(|| panic!("{test}: {what} measured"));
    let off = (m - declared).abs() / declared.max(1e-9);
    assert!(
        off <= tolerance,
        "{test}: {what} per transaction: declared {declared:.2}, measured {m:.2}"
    );
}

#[test]
fn every_built_in_test_runs_what_its_characterization_declares() {
    let cases = [
        ("dpaws/update-row", "tables = 15\nrow_bytes = [14, 805]"),
        ("dpaws/select-row", "tables = 3"),
        (
            "dpaws/update-range",
            "tables = 2\nrange_rows = 5000\nrow_bytes = 100",
        ),
        ("dpaws/select-range", "range_rows = 700"),
        (
            "orabench/load-conventional",
            "rows_per_commit = 7\ntables = 2",
        ),
        ("oltp/medium", "tables = 2"),
        ("oltp/heavy", "engine = \"oracle\""),
    ];
    for (test, extra) in cases {
        let (c, m) = run(test, extra);
        assert!(
            m["transactions"].as_u64().unwrap_or(0) > 1000,
            "{test}: {m}"
        );
        // The mix of types and the block arithmetic: within 2% (the OLTP mix's types are
        // drawn at random; a range's blocks depend on where it starts).
        close(
            "logical reads",
            test,
            mean(&c, |t| t.logical_reads),
            &m["logical_reads"],
            0.02,
        );
        close(
            "blocks changed",
            test,
            mean(&c, |t| t.blocks_changed),
            &m["blocks_changed"],
            0.02,
        );
        close(
            "redo bytes",
            test,
            mean(&c, |t| t.redo_bytes),
            &m["redo_bytes"],
            0.02,
        );
    }
}

#[test]
fn the_characterizations_carry_the_tests_shape() {
    let (c, _) = run("oltp/medium", "");
    let names: Vec<&str> = c.transactions.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["read", "write"]);
    assert_eq!(c.transactions[0].weight, 0.6);
    assert_eq!(c.transactions[0].statements, 5.0);
    assert_eq!(c.transactions[0].blocks_changed, 0.0);
    assert_eq!(c.transactions[1].rows_inserted, 1.0);
    assert_eq!(c.transactions[1].think_ms, 10.0);
    // 200,000 rows of 100 bytes: a three-level index (PostgreSQL), so a point read visits
    // 3 index blocks and 1 heap block; the write updates 2 rows and appends 1 unindexed row.
    assert_eq!(c.transactions[0].logical_reads, 5.0 * 4.0);
    assert_eq!(c.transactions[1].logical_reads, 2.0 * 4.0 + 1.0);
    assert_eq!(c.transactions[1].blocks_changed, 3.0);
    assert_eq!(
        c.transactions[1].redo_bytes,
        2.0 * 150.0 + (52.0 + 24.0) + 50.0
    );
    let kinds: Vec<&str> = c.segments.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(kinds, ["oltp_01_pk", "oltp_01", "history"]);
    let (range, _) = run("dpaws/select-range", "range_rows = 700");
    let t = &range.transactions[0];
    assert!(t.index_share > 0.0 && t.index_share < 0.5, "{t:?}");
    assert_eq!(t.blocks_changed, 0.0);
}

#[test]
fn a_built_in_tests_characterization_file_runs_its_statements_key_by_key() {
    let cases = [
        ("dpaws/update-row", "tables = 3\nrow_bytes = [14, 805]"),
        ("dpaws/select-range", "range_rows = 700"),
        ("orabench/load-conventional", "rows_per_commit = 7"),
        ("oltp/medium", "tables = 2"),
    ];
    let s = system(ENTERPRISE_RAID5);
    for (test, extra) in cases {
        let (c, _) = run(test, extra);
        assert!(c.transactions.iter().all(|t| !t.steps.is_empty()), "{test}");
        // Written out and read back, as a user's file would be.
        let file = storlab_core::character::Characterization::from_toml(&c.to_toml(), "c.toml")
            .unwrap_or_else(|e| panic!("{test}: {e}"));
        let w = storlab_sim::config::character_workload(
            &file,
            toml::Table::new(),
            "c.toml",
            &s,
            storlab_sim::config::DEFAULT_MULTIBLOCK_READ_COUNT,
        )
        .unwrap_or_else(|e| panic!("{test}: {e}"));
        let r = simulate(&s, &w, opts(6, 2, 3)).unwrap_or_else(|e| panic!("{e}"));
        let m = &r.workload.parameters["per_transaction"];
        // The steps plan the blocks: the visits and changes the declaration works out, within
        // 2% (the types are drawn at random; a range's blocks depend on where it starts).
        for (what, f, got) in [
            (
                "logical reads",
                (|t| t.logical_reads) as fn(&storlab_core::character::Transaction) -> f64,
                &m["logical_reads"],
            ),
            ("blocks changed", |t| t.blocks_changed, &m["blocks_changed"]),
        ] {
            close(what, test, mean(&c, f), got, 0.02);
        }
    }
}
