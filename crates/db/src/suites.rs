//! The suites and their tests. Names are the contract (`suite/test`): the simulator's database
//! model runs the same names.
//!
//! - `dpaws`: 15 tables `dpaws_01` .. `dpaws_15`, `id bigint` primary key 1..scale, rows from 14
//!   to 805 bytes; tests `update-row`, `update-range` (10,000 consecutive rows), `select-row`,
//!   `select-range` (10,000 rows); 80 clients for row tests, 32 for range tests; `cycle` runs
//!   the four in turn.
//! - `orabench`: a table `ob_big` range-partitioned in 32 partitions on `id` (scale rows of
//!   about 300 bytes) plus load targets; tests `load-conventional` (2 rows per commit),
//!   `load-bulk` (COPY), `select-random`, `update-random`, `scan-full`, `aggregate`,
//!   `plpgsql`, `insert-select`, `delete-batched`, `drop-column`, `create-table-size`.
//! - `oltp`: a read/write mix (60% read transactions of 5 primary-key reads, 40% write
//!   transactions updating 2 rows and inserting 1) with 10 ms think time; `medium` (50
//!   clients) and `heavy` (100).

pub(crate) mod dpaws;
pub(crate) mod oltp;
pub(crate) mod orabench;

use storlab_core::dbtest::{self, DbTestDef};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Statement};

use crate::error::DbError;

pub(crate) use dpaws::{dpaws_op, load_dpaws};
pub(crate) use oltp::{load_oltp, oltp_op};
pub(crate) use orabench::{load_orabench, orabench_op};

/// The tests of `suite` as `--test` names them (`cycle`: the four DPAWS tests in turn).
pub fn tests_of(suite: &str) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = dbtest::suite_tests(suite)
        .filter(|d| d.real)
        .map(|d| d.test())
        .collect();
    if suite == "dpaws" {
        names.push("cycle");
    }
    names
}

/// Every suite with its tests as `--test` names them (for messages and help).
pub fn all_tests() -> Vec<(&'static str, Vec<&'static str>)> {
    dbtest::SUITES.iter().map(|s| (*s, tests_of(s))).collect()
}

/// What clients of a test do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// DPAWS: update one random row of a random table.
    DpawsUpdateRow,
    /// DPAWS: update 10,000 consecutive rows.
    DpawsUpdateRange,
    /// DPAWS: select one random row.
    DpawsSelectRow,
    /// DPAWS: select 10,000 consecutive rows.
    DpawsSelectRange,
    /// OLTP read/write mix with think time.
    OltpMix,
    /// OraBench: select one row by primary key.
    ObSelectRandom,
    /// OraBench: update one row by primary key.
    ObUpdateRandom,
    /// OraBench: insert rows, committing every 2.
    ObLoadConventional,
    /// OraBench: COPY batches.
    ObLoadBulk,
    /// OraBench: delete rows in batches, committing each batch.
    ObDeleteBatched,
    /// OraBench: a server-side PL/pgSQL loop.
    ObPlpgsql,
    /// OraBench: a grouped aggregate over the big table.
    ObAggregate,
    /// OraBench: a full scan of the big table.
    ObScanFull,
    /// OraBench: insert-select of a slice of the big table.
    ObInsertSelect,
    /// OraBench: drop a column of a copy of a partition, then checkpoint (once).
    ObDropColumn,
    /// OraBench: write a new table of a given size (once).
    ObCreateTableSize,
}

/// One test of a suite: its declaration (shared with the simulator) and what its clients do
/// here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestDef {
    /// `dpaws/update-row`.
    pub name: &'static str,
    /// Suite.
    pub suite: &'static str,
    /// What the clients do.
    pub op: Op,
    /// Clients when not given.
    pub default_clients: u32,
    /// Runs once (the timed unit is the whole statement sequence), not in a loop.
    pub once: bool,
    /// The test as declared in the shared vocabulary.
    pub def: &'static DbTestDef,
}

/// The statements each declared test runs here.
const OPS: &[(&str, Op)] = &[
    ("dpaws/update-row", Op::DpawsUpdateRow),
    ("dpaws/update-range", Op::DpawsUpdateRange),
    ("dpaws/select-row", Op::DpawsSelectRow),
    ("dpaws/select-range", Op::DpawsSelectRange),
    ("oltp/medium", Op::OltpMix),
    ("oltp/heavy", Op::OltpMix),
    ("orabench/load-conventional", Op::ObLoadConventional),
    ("orabench/load-bulk", Op::ObLoadBulk),
    ("orabench/select-random", Op::ObSelectRandom),
    ("orabench/update-random", Op::ObUpdateRandom),
    ("orabench/scan-full", Op::ObScanFull),
    ("orabench/aggregate", Op::ObAggregate),
    ("orabench/plpgsql", Op::ObPlpgsql),
    ("orabench/insert-select", Op::ObInsertSelect),
    ("orabench/delete-batched", Op::ObDeleteBatched),
    ("orabench/drop-column", Op::ObDropColumn),
    ("orabench/create-table-size", Op::ObCreateTableSize),
];

/// The test `def` as run here (None: a declared test this crate has no statements for).
pub fn test_def(def: &'static DbTestDef) -> Option<TestDef> {
    let (_, op) = OPS.iter().find(|(n, _)| *n == def.name)?;
    Some(TestDef {
        name: def.name,
        suite: def.suite(),
        op: *op,
        default_clients: def.default_clients,
        once: def.once,
        def,
    })
}

/// The tests named by `suite` and `test` (`cycle` expands to the four DPAWS tests).
pub fn find(suite: &str, test: &str) -> Result<Vec<TestDef>, String> {
    if !dbtest::SUITES.contains(&suite) {
        return Err(format!(
            "--suite: unknown suite {suite:?}; suites: {}",
            dbtest::SUITES.join(", ")
        ));
    }
    let tests = tests_of(suite);
    if !tests.contains(&test) {
        return Err(format!(
            "--test: suite {suite} has no test {test:?}; tests: {}",
            tests.join(", ")
        ));
    }
    let defs: Vec<&'static DbTestDef> = if suite == "dpaws" && test == "cycle" {
        dbtest::suite_tests("dpaws").collect()
    } else {
        dbtest::find(&format!("{suite}/{test}"))
            .into_iter()
            .collect()
    };
    Ok(defs.into_iter().filter_map(test_def).collect())
}

/// Creates and loads the suite's objects in `schema`, which must be storlab's (see
/// `schema::claim`); idempotent at the same scale.
pub(crate) async fn load(
    client: &Client,
    suite: &str,
    schema: &str,
    scale: u64,
    tablespace: Option<&str>,
) -> Result<(), DbError> {
    match suite {
        "dpaws" => load_dpaws(client, schema, scale, tablespace).await,
        "oltp" => load_oltp(client, schema, scale, tablespace).await,
        _ => load_orabench(client, schema, scale, tablespace).await,
    }
}

/// Runs a prepared SELECT and returns how many rows it returned, without decoding them.
///
/// The server does exactly what `Client::query` makes it do (the same Bind with binary
/// results, Execute and Sync, every row sent); the count comes from the `SELECT n` tag that
/// ends the reply. Rows are never built: `query` allocates a row and a vector of rows per call,
/// client CPU the measurement would charge to every transaction.
pub(crate) async fn rows_selected(
    c: &Client,
    statement: &Statement,
    params: &[&(dyn ToSql + Sync)],
) -> Result<u64, DbError> {
    Ok(c.execute(statement, params).await?)
}

/// `TABLESPACE x` clause or nothing.
pub(crate) fn tablespace_clause(tablespace: Option<&str>) -> String {
    tablespace.map_or(String::new(), |t| format!(" TABLESPACE {t}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_test_is_defined_and_cycle_expands() {
        for (suite, tests) in all_tests() {
            for test in tests {
                let defs = find(suite, test).unwrap_or_else(|e| panic!("{e}"));
                assert!(!defs.is_empty(), "{suite}/{test}");
            }
        }
        let cycle = find("dpaws", "cycle").unwrap();
        assert_eq!(cycle.len(), 4);
        for def in dbtest::DB_TESTS.iter().filter(|d| d.real) {
            assert!(test_def(def).is_some(), "{} has no statements", def.name);
        }
        assert!(find("dpaws", "update-rows")
            .unwrap_err()
            .contains("update-row"));
        assert!(find("tpcc", "x").unwrap_err().contains("dpaws"));
        assert_eq!(find("dpaws", "update-row").unwrap()[0].default_clients, 80);
        assert_eq!(
            find("dpaws", "select-range").unwrap()[0].default_clients,
            32
        );
    }

    /// The statements here do what the shared declaration says (the simulator reads the same
    /// declaration): rows per statement, rows per commit, think time.
    #[test]
    fn the_statements_match_the_declared_tests() {
        let def = |n: &str| dbtest::find(n).unwrap_or_else(|| panic!("{n}"));
        for n in ["dpaws/update-range", "dpaws/select-range"] {
            assert_eq!(def(n).rows_per_op, dpaws::RANGE, "{n}");
        }
        assert_eq!(def("dpaws/update-range").rows_per_commit, dpaws::RANGE);
        for k in 0..dpaws::TABLES {
            let declared = def("dpaws/update-row").row_bytes;
            assert!((declared[0]..=declared[1]).contains(&u64::from(dpaws::row_bytes(k))));
        }
        assert_eq!(dpaws::row_bytes(dpaws::TABLES - 1), 805);
        let conventional = def("orabench/load-conventional").rows_per_commit;
        assert_eq!(conventional, orabench::ROWS_PER_COMMIT as u64);
        assert_eq!(
            def("orabench/load-bulk").rows_per_op,
            orabench::COPY_BATCH as u64
        );
        assert_eq!(
            def("orabench/delete-batched").rows_per_op,
            orabench::DELETE_BATCH as u64
        );
        assert_eq!(
            def("orabench/insert-select").rows_per_op,
            orabench::SLICE as u64
        );
        for n in ["oltp/medium", "oltp/heavy"] {
            assert_eq!(def(n).think_ms as u128, oltp::THINK.as_millis(), "{n}");
        }
    }
}
