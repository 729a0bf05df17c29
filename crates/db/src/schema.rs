//! storlab's own schema on a server: created and marked by storlab, reused only when it
//! carries the mark, and dropped at the end with exactly the objects storlab creates in it.
//!
//! Nothing is ever dropped with CASCADE: a user's object that depends on one of storlab's
//! tables (a view in another schema, say) makes the drop fail, the transaction is rolled
//! back, and the schema is kept with a warning naming the dependent object.

use tokio_postgres::error::SqlState;
use tokio_postgres::Client;

use crate::evidence::statements::Statements;

use crate::error::DbError;
use crate::suites::dpaws;

/// Start of the comment storlab puts on the schemas it creates: only a schema whose comment
/// starts with it (and that the connected role owns) is ever reused or dropped.
pub const MARKER: &str = "storlab: benchmark schema created by storlab";

/// Start of the comment storlab puts on the tables and the function it creates in its schema:
/// in a schema of storlab's, an object under one of storlab's names without it is the
/// user's, and storlab neither writes, replaces nor drops it.
pub const OBJECT_MARKER: &str = "storlab: benchmark object created by storlab";

/// Tables storlab creates in its schema (partitions, indexes, TOAST tables and identity
/// sequences go with their tables).
pub(crate) fn tables() -> Vec<String> {
    let mut names: Vec<String> = (1..=dpaws::TABLES)
        .map(|k| format!("dpaws_{k:02}"))
        .collect();
    for t in [
        "oltp_item",
        "oltp_hist",
        "ob_big",
        "ob_load",
        "ob_copy",
        "ob_del",
        "ob_dc",
        "ob_ct",
    ] {
        names.push(t.to_string());
    }
    names
}

/// Who is connected where: for messages.
struct Whoami {
    role: String,
    database: String,
}

async fn whoami(c: &Client) -> Result<Whoami, DbError> {
    let row = c
        .query_one("SELECT current_user::text, current_database()::text", &[])
        .await?;
    Ok(Whoami {
        role: row.get(0),
        database: row.get(1),
    })
}

/// The schema's comment and owner, if it exists.
async fn existing(c: &Client, schema: &str) -> Result<Option<(Option<String>, String)>, DbError> {
    let row = c
        .query_opt(
            "SELECT obj_description(oid, 'pg_namespace'), pg_get_userbyid(nspowner)::text \
             FROM pg_namespace WHERE nspname = $1",
            &[&schema],
        )
        .await?;
    Ok(row.map(|r| (r.get(0), r.get(1))))
}

/// Makes sure `schema` is storlab's: creates and marks it when missing, accepts it when it
/// carries storlab's mark and the connected role owns it, refuses it otherwise (bad input).
pub(crate) async fn claim(c: &Client, schema: &str) -> Result<(), DbError> {
    let me = whoami(c).await?;
    match existing(c, schema).await? {
        Some((comment, owner)) => {
            let marked = comment.as_deref().is_some_and(|t| t.starts_with(MARKER));
            if !marked {
                return Err(DbError::BadInput(format!(
                    "--schema {schema}: schema {schema} already exists in database {} and was \
                     not created by storlab (it has no storlab mark); storlab only works in a \
                     schema it creates itself and never touches yours: give a new name with \
                     --schema",
                    me.database
                )));
            }
            if owner != me.role {
                return Err(DbError::BadInput(format!(
                    "--schema {schema}: storlab's schema {schema} in database {} belongs to \
                     role {owner}, not {}: connect as {owner} or give another --schema",
                    me.database, me.role
                )));
            }
            if let Some(object) = unmarked_objects(c, schema).await?.first() {
                return Err(DbError::BadInput(format!(
                    "--schema {schema}: storlab's schema {schema} in database {} holds {object}, \
                     which storlab did not create (it has no storlab mark); storlab will not \
                     write, replace or drop it: move it out of the schema or give another \
                     --schema",
                    me.database
                )));
            }
            Ok(())
        }
        None => {
            let comment = format!(
                "{MARKER} {}; dropped at the end of its runs unless --keep-schema",
                env!("CARGO_PKG_VERSION")
            );
            let sql = format!(
                "BEGIN; CREATE SCHEMA {schema}; COMMENT ON SCHEMA {schema} IS {}; COMMIT;",
                quote_literal(&comment)
            );
            if let Err(e) = c.batch_execute(&sql).await {
                let _ = c.batch_execute("ROLLBACK").await;
                let privilege = e.as_db_error().is_some_and(|d| d.code().code() == "42501");
                if privilege {
                    return Err(DbError::BadInput(format!(
                        "--schema {schema}: role {} may not create a schema in database {}; \
                         grant it CREATE on the database (GRANT CREATE ON DATABASE {} TO {})",
                        me.role, me.database, me.database, me.role
                    )));
                }
                return Err(e.into());
            }
            Ok(())
        }
    }
}

/// The tables and functions in `schema` under the names storlab creates that lack its mark
/// ("table s.dpaws_03", "function s.ob_loop(integer)").
async fn unmarked_objects(c: &Client, schema: &str) -> Result<Vec<String>, DbError> {
    let pattern = format!("{OBJECT_MARKER}%");
    let rows = c
        .query(
            "SELECT 'table ' || n.nspname || '.' || c.relname FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = ANY($2) AND c.relkind IN ('r', 'p', 'f') \
             AND coalesce(obj_description(c.oid, 'pg_class'), '') NOT LIKE $3 \
             UNION ALL \
             SELECT 'function ' || n.nspname || '.' || p.proname || '(' || \
             pg_get_function_identity_arguments(p.oid) || ')' FROM pg_proc p \
             JOIN pg_namespace n ON n.oid = p.pronamespace \
             WHERE n.nspname = $1 AND p.proname = 'ob_loop' \
             AND coalesce(obj_description(p.oid, 'pg_proc'), '') NOT LIKE $3",
            &[&schema, &tables(), &pattern],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// `COMMENT ON TABLE schema.name IS` storlab's mark: appended to the SQL that creates one of
/// storlab's tables, in the same batch.
pub(crate) fn mark_table(schema: &str, name: &str) -> String {
    format!(
        "COMMENT ON TABLE {schema}.{name} IS {};",
        quote_literal(OBJECT_MARKER)
    )
}

/// Marks the tables and the function storlab created in its schema (after a load).
pub(crate) async fn mark_objects(c: &Client, schema: &str) -> Result<(), DbError> {
    let rows = c
        .query(
            "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = ANY($2) AND c.relkind IN ('r', 'p')",
            &[&schema, &tables()],
        )
        .await?;
    let mut sql: String = rows
        .iter()
        .map(|r| mark_table(schema, r.get::<_, &str>(0)))
        .collect();
    let function = c
        .query_opt(
            "SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace \
             WHERE n.nspname = $1 AND p.proname = 'ob_loop'",
            &[&schema],
        )
        .await?;
    if function.is_some() {
        sql += &format!(
            "COMMENT ON FUNCTION {schema}.ob_loop(int) IS {};",
            quote_literal(OBJECT_MARKER)
        );
    }
    c.batch_execute(&sql).await?;
    Ok(())
}

/// Drops storlab's schema and what storlab created in it, in one transaction and without
/// CASCADE. Returns why the schema was kept, if it was (not storlab's, or something that is
/// not storlab's is in it or depends on it).
pub(crate) async fn drop_owned(c: &Client, schema: &str) -> Option<String> {
    match existing(c, schema).await {
        Ok(None) => return None,
        Ok(Some((comment, _))) if comment.as_deref().is_some_and(|t| t.starts_with(MARKER)) => {}
        Ok(Some(_)) => return Some(format!("schema {schema} has no storlab mark")),
        Err(e) => return Some(e.to_string()),
    }
    match unmarked_objects(c, schema).await {
        Ok(objects) if objects.is_empty() => {}
        Ok(objects) => {
            return Some(format!(
                "it holds {}, which storlab did not create",
                objects.join(", ")
            ))
        }
        Err(e) => return Some(e.to_string()),
    }
    let tables: Vec<String> = tables().iter().map(|t| format!("{schema}.{t}")).collect();
    let mut sql = format!(
        "BEGIN; DROP TABLE IF EXISTS {}; DROP FUNCTION IF EXISTS {schema}.ob_loop(int);",
        tables.join(", ")
    );
    let ext_here = c
        .query_opt(
            "SELECT 1 FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace \
             WHERE e.extname = 'pg_stat_statements' AND n.nspname = $1",
            &[&schema],
        )
        .await;
    if matches!(ext_here, Ok(Some(_))) {
        sql += " DROP EXTENSION pg_stat_statements;";
    }
    sql += &format!(" DROP SCHEMA {schema}; COMMIT;");
    match c.batch_execute(&sql).await {
        Ok(()) => None,
        Err(e) => {
            let _ = c.batch_execute("ROLLBACK").await;
            Some(DbError::from(e).to_string())
        }
    }
}

/// Where pg_stat_statements can be read: the schema it lives in (created in storlab's schema
/// when the database has none, and then dropped with it), or why it cannot be. A server
/// without it in shared_preload_libraries, or a role that may not create it, still runs:
/// only the per-statement block profile is left out. Errors other than the server's answer
/// (a lost connection) are returned.
pub(crate) async fn statements_extension(c: &Client, schema: &str) -> Result<Statements, DbError> {
    let find = "SELECT n.nspname::text FROM pg_extension e JOIN pg_namespace n \
                ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'";
    let ext: String = match c.query_opt(find, &[]).await? {
        Some(row) => row.get(0),
        None => {
            let create =
                format!("CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA {schema}");
            if let Err(e) = c.batch_execute(&create).await {
                let Some(d) = e.as_db_error() else {
                    return Err(e.into());
                };
                return Ok(Statements::Unavailable(format!(
                    "CREATE EXTENSION pg_stat_statements failed ({}); it needs the extension \
                     installed and a role allowed to create it",
                    d.message()
                )));
            }
            c.query_one(find, &[]).await?.get(0)
        }
    };
    // The extension's functions refuse to run unless the library was loaded at server start.
    let probe = format!("SELECT 1 FROM {ext}.pg_stat_statements LIMIT 1");
    match c.batch_execute(&probe).await {
        Ok(()) => Ok(Statements::In(ext)),
        Err(e) => match e.as_db_error() {
            Some(d) if d.code() == &SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE => {
                Ok(Statements::Unavailable(
                    "pg_stat_statements is not in the server's shared_preload_libraries".into(),
                ))
            }
            Some(d) => Ok(Statements::Unavailable(format!(
                "pg_stat_statements cannot be read ({})",
                d.message()
            ))),
            None => Err(e.into()),
        },
    }
}

/// A SQL string literal.
fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}
