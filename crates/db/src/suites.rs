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

use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Statement};

use crate::error::DbError;

pub(crate) use dpaws::{dpaws_op, load_dpaws};
pub(crate) use oltp::{load_oltp, oltp_op};
pub(crate) use orabench::{load_orabench, orabench_op};

/// Every suite and its tests (for messages and `--test list`).
pub const TESTS: &[(&str, &[&str])] = &[
    (
        "dpaws",
        &[
            "update-row",
            "update-range",
            "select-row",
            "select-range",
            "cycle",
        ],
    ),
    (
        "orabench",
        &[
            "load-conventional",
            "load-bulk",
            "select-random",
            "update-random",
            "scan-full",
            "aggregate",
            "plpgsql",
            "insert-select",
            "delete-batched",
            "drop-column",
            "create-table-size",
        ],
    ),
    ("oltp", &["medium", "heavy"]),
];

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

/// One test of a suite.
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
}

const fn t(
    name: &'static str,
    suite: &'static str,
    op: Op,
    default_clients: u32,
    once: bool,
) -> TestDef {
    TestDef {
        name,
        suite,
        op,
        default_clients,
        once,
    }
}

const ALL: &[TestDef] = &[
    t("dpaws/update-row", "dpaws", Op::DpawsUpdateRow, 80, false),
    t(
        "dpaws/update-range",
        "dpaws",
        Op::DpawsUpdateRange,
        32,
        false,
    ),
    t("dpaws/select-row", "dpaws", Op::DpawsSelectRow, 80, false),
    t(
        "dpaws/select-range",
        "dpaws",
        Op::DpawsSelectRange,
        32,
        false,
    ),
    t("oltp/medium", "oltp", Op::OltpMix, 50, false),
    t("oltp/heavy", "oltp", Op::OltpMix, 100, false),
    t(
        "orabench/load-conventional",
        "orabench",
        Op::ObLoadConventional,
        8,
        false,
    ),
    t("orabench/load-bulk", "orabench", Op::ObLoadBulk, 4, false),
    t(
        "orabench/select-random",
        "orabench",
        Op::ObSelectRandom,
        32,
        false,
    ),
    t(
        "orabench/update-random",
        "orabench",
        Op::ObUpdateRandom,
        32,
        false,
    ),
    t("orabench/scan-full", "orabench", Op::ObScanFull, 1, false),
    t("orabench/aggregate", "orabench", Op::ObAggregate, 1, false),
    t("orabench/plpgsql", "orabench", Op::ObPlpgsql, 4, false),
    t(
        "orabench/insert-select",
        "orabench",
        Op::ObInsertSelect,
        2,
        false,
    ),
    t(
        "orabench/delete-batched",
        "orabench",
        Op::ObDeleteBatched,
        1,
        false,
    ),
    t(
        "orabench/drop-column",
        "orabench",
        Op::ObDropColumn,
        1,
        true,
    ),
    t(
        "orabench/create-table-size",
        "orabench",
        Op::ObCreateTableSize,
        1,
        true,
    ),
];

/// The tests named by `suite` and `test` (`cycle` expands to the four DPAWS tests).
pub fn find(suite: &str, test: &str) -> Result<Vec<TestDef>, String> {
    let Some((_, tests)) = TESTS.iter().find(|(s, _)| *s == suite) else {
        let names: Vec<&str> = TESTS.iter().map(|(s, _)| *s).collect();
        return Err(format!(
            "--suite: unknown suite {suite:?}; suites: {}",
            names.join(", ")
        ));
    };
    if !tests.contains(&test) {
        return Err(format!(
            "--test: suite {suite} has no test {test:?}; tests: {}",
            tests.join(", ")
        ));
    }
    if suite == "dpaws" && test == "cycle" {
        return Ok(ALL.iter().filter(|d| d.suite == "dpaws").copied().collect());
    }
    let name = format!("{suite}/{test}");
    Ok(ALL.iter().filter(|d| d.name == name).copied().collect())
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
        for (suite, tests) in TESTS {
            for test in tests.iter() {
                let defs = find(suite, test).unwrap_or_else(|e| panic!("{e}"));
                assert!(!defs.is_empty(), "{suite}/{test}");
            }
        }
        let cycle = find("dpaws", "cycle").unwrap();
        assert_eq!(cycle.len(), 4);
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
}
