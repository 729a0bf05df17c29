//! OLTP: the transaction mix `storlab_core::dbtest::mix::OLTP` declares (60% read
//! transactions of 5 primary-key reads, 40% write transactions of 2 primary-key updates and
//! an append to the history table), with think time.

use std::time::{Duration, Instant};

use storlab_core::dbtest::mix::{self, Shape, Statement as Declared};
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

/// The prepared statement (index into [`prepare`]'s) that runs `st`: a key read or update
/// of the item table, or an append (the mix appends to the history table only).
fn statement_of(st: &Declared) -> usize {
    match (st.shape, st.writes) {
        (Shape::Key, false) => 0,
        (Shape::Key, true) => 1,
        (Shape::Append, _) => 2,
    }
}

/// One transaction of the declared mix, its type drawn as the simulator draws it
/// ([`mix::pick`]); every statement reaches one row by a random key. The driver then pauses
/// for the think time.
pub(crate) async fn oltp_op(
    c: &Client,
    s: &[Statement],
    rng: &mut Rng,
    scale: u64,
) -> Result<Outcome, DbError> {
    let types = &mix::OLTP;
    let ty = &types[mix::pick(types, rng.below(100))];
    c.execute(&s[3], &[]).await?;
    let mut rows = 0;
    for st in ty.statements {
        for _ in 0..st.times {
            let id = (1 + rng.below(scale)) as i64;
            rows += match statement_of(st) {
                0 => rows_selected(c, &s[0], &[&id]).await?,
                k => c.execute(&s[k], &[&id]).await?,
            };
        }
    }
    let t = Instant::now();
    c.execute(&s[4], &[]).await?;
    let writes = ty.writes();
    let commit = writes.then(|| t.elapsed().as_nanos() as u64);
    Ok(Outcome {
        rows,
        commit_ns: commit,
        label: if writes { "write tx" } else { "read tx" },
        tx_type: Some(ty.name),
        exhausted: false,
        think: THINK,
        bytes: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_statements_map_to_the_prepared_ones() {
        let [read, write] = &mix::OLTP;
        assert_eq!((read.name, write.name), ("read", "write"));
        let run = |t: &mix::TxType| -> Vec<usize> {
            t.statements
                .iter()
                .flat_map(|st| std::iter::repeat_n(statement_of(st), st.times as usize))
                .collect()
        };
        assert_eq!(run(read), [0; 5], "5 key reads");
        assert_eq!(run(write), [1, 1, 2], "2 key updates, 1 history insert");
    }
}
