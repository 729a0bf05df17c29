//! DPAWS: 15 tables of equal row count, rows from 14 to 805 bytes, four tests.

use storlab_core::dbtest;
use storlab_core::rng::Rng;
use tokio_postgres::{Client, Statement};

use super::{rows_selected, tablespace_clause, Op};
use crate::driver::Outcome;
use crate::error::DbError;

/// Tables in the suite.
pub const TABLES: u32 = dbtest::DPAWS_TABLES;
/// Rows touched by the range tests.
pub const RANGE: u64 = dbtest::DPAWS_RANGE_ROWS;

/// Row size of table `k` (0-based): spread evenly from 14 to 805 bytes.
pub fn row_bytes(k: u32) -> u32 {
    let bytes =
        dbtest::row_bytes_of_table(dbtest::DPAWS_ROW_BYTES, u64::from(k), u64::from(TABLES));
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

fn table(schema: &str, k: u32) -> String {
    format!("{schema}.dpaws_{:02}", k + 1)
}

pub(crate) async fn load_dpaws(
    c: &Client,
    schema: &str,
    scale: u64,
    ts: Option<&str>,
) -> Result<(), DbError> {
    for k in 0..TABLES {
        let t = table(schema, k);
        // id (8) + version (8) + filler with its 1-byte header make up the row's data.
        let filler = row_bytes(k).saturating_sub(17).max(1);
        let have: i64 = match c.query_one(&format!("SELECT count(*) FROM {t}"), &[]).await {
            Ok(row) => row.get(0),
            Err(_) => -1,
        };
        if have == scale as i64 {
            continue;
        }
        c.batch_execute(&format!(
            "DROP TABLE IF EXISTS {t};
             CREATE TABLE {t} (id bigint NOT NULL, version bigint NOT NULL DEFAULT 0, filler text NOT NULL){};
             INSERT INTO {t} (id, filler) SELECT g, repeat('x', {filler}) FROM generate_series(1, {scale}) g;
             ALTER TABLE {t} ADD PRIMARY KEY (id);
             ANALYZE {t};",
            tablespace_clause(ts)
        ))
        .await?;
    }
    Ok(())
}

/// Prepares the op's statement for every table.
pub(crate) async fn prepare(c: &Client, op: Op, schema: &str) -> Result<Vec<Statement>, DbError> {
    let mut out = Vec::new();
    for k in 0..TABLES {
        let t = table(schema, k);
        let sql = match op {
            Op::DpawsUpdateRow => format!("UPDATE {t} SET version = version + 1 WHERE id = $1"),
            Op::DpawsUpdateRange => format!(
                "UPDATE {t} SET version = version + 1 WHERE id BETWEEN $1 AND $1 + {}",
                RANGE - 1
            ),
            Op::DpawsSelectRow => format!("SELECT length(filler) FROM {t} WHERE id = $1"),
            _ => format!(
                "SELECT count(*) FROM {t} WHERE id BETWEEN $1 AND $1 + {} AND filler <> ''",
                RANGE - 1
            ),
        };
        out.push(c.prepare(&sql).await?);
    }
    Ok(out)
}

/// One operation of a DPAWS test.
pub(crate) async fn dpaws_op(
    c: &Client,
    op: Op,
    stmts: &[Statement],
    rng: &mut Rng,
    scale: u64,
) -> Result<Outcome, DbError> {
    let k = rng.below(TABLES as u64) as usize;
    let ranged = matches!(op, Op::DpawsUpdateRange | Op::DpawsSelectRange);
    let span = if ranged {
        scale.saturating_sub(RANGE - 1).max(1)
    } else {
        scale
    };
    let id = (1 + rng.below(span)) as i64;
    let rows = match op {
        Op::DpawsUpdateRow | Op::DpawsUpdateRange => c.execute(&stmts[k], &[&id]).await?,
        Op::DpawsSelectRow => rows_selected(c, &stmts[k], &[&id]).await?,
        _ => {
            let n: i64 = c.query_one(&stmts[k], &[&id]).await?.get(0);
            n as u64
        }
    };
    Ok(Outcome::rows(rows))
}
