//! OLTP: a 60/40 read/write transaction mix with think time.

use std::time::{Duration, Instant};

use storlab_core::rng::Rng;
use tokio_postgres::{Client, Statement};

use super::{rows_selected, tablespace_clause};
use crate::driver::Outcome;
use crate::error::DbError;

/// Think time between a client's transactions.
pub const THINK: Duration = Duration::from_millis(storlab_core::dbtest::OLTP_THINK_MS);

pub(crate) async fn load_oltp(
    c: &Client,
    schema: &str,
    scale: u64,
    ts: Option<&str>,
) -> Result<(), DbError> {
    let have: i64 = match c
        .query_one(&format!("SELECT count(*) FROM {schema}.oltp_item"), &[])
        .await
    {
        Ok(r) => r.get(0),
        Err(_) => -1,
    };
    if have == scale as i64 {
        return Ok(());
    }
    c.batch_execute(&format!(
        "DROP TABLE IF EXISTS {schema}.oltp_item, {schema}.oltp_hist;
         CREATE TABLE {schema}.oltp_item (id bigint NOT NULL, qty bigint NOT NULL, price numeric NOT NULL, pad text NOT NULL){ts};
         INSERT INTO {schema}.oltp_item SELECT g, 100, (g % 1000) / 10.0, repeat('o', 100) FROM generate_series(1, {scale}) g;
         ALTER TABLE {schema}.oltp_item ADD PRIMARY KEY (id);
         CREATE TABLE {schema}.oltp_hist (item bigint NOT NULL, delta bigint NOT NULL, at timestamptz NOT NULL DEFAULT now()){ts};
         ANALYZE {schema}.oltp_item;",
        ts = tablespace_clause(ts)
    ))
    .await?;
    Ok(())
}

pub(crate) async fn prepare(c: &Client, schema: &str) -> Result<Vec<Statement>, DbError> {
    Ok(vec![
        c.prepare(&format!(
            "SELECT qty, price FROM {schema}.oltp_item WHERE id = $1"
        ))
        .await?,
        c.prepare(&format!(
            "UPDATE {schema}.oltp_item SET qty = qty - 1 WHERE id = $1"
        ))
        .await?,
        c.prepare(&format!(
            "INSERT INTO {schema}.oltp_hist (item, delta) VALUES ($1, -1)"
        ))
        .await?,
        c.prepare("BEGIN").await?,
        c.prepare("COMMIT").await?,
    ])
}

/// One transaction: 60% read (5 point reads), 40% write (2 updates, 1 insert); the driver
/// then pauses for the think time.
pub(crate) async fn oltp_op(
    c: &Client,
    s: &[Statement],
    rng: &mut Rng,
    scale: u64,
) -> Result<Outcome, DbError> {
    let read = rng.unit_f64() < 0.6;
    c.execute(&s[3], &[]).await?;
    let mut rows = 0;
    if read {
        for _ in 0..5 {
            let id = (1 + rng.below(scale)) as i64;
            rows += rows_selected(c, &s[0], &[&id]).await?;
        }
    } else {
        for _ in 0..2 {
            let id = (1 + rng.below(scale)) as i64;
            rows += c.execute(&s[1], &[&id]).await?;
        }
        let id = (1 + rng.below(scale)) as i64;
        rows += c.execute(&s[2], &[&id]).await?;
    }
    let t = Instant::now();
    c.execute(&s[4], &[]).await?;
    let commit = (!read).then(|| t.elapsed().as_nanos() as u64);
    Ok(Outcome {
        rows,
        commit_ns: commit,
        label: if read { "read tx" } else { "write tx" },
        tx_type: Some(if read { "read" } else { "write" }),
        exhausted: false,
        think: THINK,
        bytes: 0,
    })
}
