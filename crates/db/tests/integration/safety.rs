//! On someone else's server: storlab's own schema only, nothing of the user's dropped, no
//! statistics reset, no CHECKPOINT unasked, the schema gone at the end unless kept.

use storlab_db::options::{DsnServer, Server};
use storlab_db::{run_db, DbError};

use super::{exec, kept, one, options, query_i64, scratch, serial, start};

fn dropped(dsn: &str) -> Server {
    Server::dsn(dsn)
}

fn schema_exists(dsn: &str, name: &str) -> bool {
    query_i64(
        dsn,
        &format!("SELECT count(*) FROM pg_namespace WHERE nspname = '{name}'"),
    ) == 1
}

#[test]
fn public_and_schemas_not_created_by_storlab_are_refused_and_user_objects_survive() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    exec(
        &dsn,
        "CREATE TABLE public.dpaws_01 (id int, note text);
         INSERT INTO public.dpaws_01 SELECT g, 'mine' FROM generate_series(1, 7) g;
         CREATE SCHEMA mine; CREATE TABLE mine.dpaws_02 (id int); INSERT INTO mine.dpaws_02 VALUES (1);",
    );
    for schema in ["public", "mine"] {
        let mut o = options(dropped(&dsn), "dpaws", "update-row", 500);
        o.schema = schema.into();
        let e = run_db(&o).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, DbError::BadInput(_)), "{schema}: {text}");
        assert!(text.contains(&format!("--schema {schema}")), "{text}");
        let why = if schema == "public" {
            "never in `public`"
        } else {
            "not created by storlab"
        };
        assert!(text.contains(why), "{text}");
    }
    assert_eq!(query_i64(&dsn, "SELECT count(*) FROM public.dpaws_01"), 7);
    assert_eq!(query_i64(&dsn, "SELECT count(*) FROM mine.dpaws_02"), 1);
    assert!(
        !schema_exists(&dsn, "storlab"),
        "nothing created by a refused run"
    );

    // A user's view on storlab's big table: reloading it (another scale) must not drop the
    // view, and neither must the end-of-run cleanup.
    one(run_db(&options(
        kept(dsn.clone()),
        "orabench",
        "select-random",
        2_000,
    ))
    .unwrap());
    exec(
        &dsn,
        "CREATE VIEW public.user_view AS SELECT id FROM storlab.ob_big",
    );
    let e = run_db(&options(dropped(&dsn), "orabench", "select-random", 3_000)).unwrap_err();
    assert!(
        e.to_string()
            .contains("view user_view depends on table ob_big")
            && e.to_string().contains("CASCADE"),
        "{e}"
    );
    assert_eq!(
        query_i64(&dsn, "SELECT count(*) FROM public.user_view"),
        2_000
    );
    // Same scale: no reload; the run works, and the schema is kept for the view's sake.
    one(run_db(&options(dropped(&dsn), "orabench", "select-random", 2_000)).unwrap());
    assert_eq!(
        query_i64(&dsn, "SELECT count(*) FROM public.user_view"),
        2_000
    );
    assert!(schema_exists(&dsn, "storlab"));
    // Without the view, the next run drops its schema.
    exec(&dsn, "DROP VIEW public.user_view");
    one(run_db(&options(dropped(&dsn), "orabench", "select-random", 2_000)).unwrap());
    assert!(!schema_exists(&dsn, "storlab"));
    assert_eq!(query_i64(&dsn, "SELECT count(*) FROM public.dpaws_01"), 7);
    cluster.stop().unwrap();
}

#[test]
fn other_statistics_survive_no_checkpoint_is_forced_and_the_schema_goes() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    exec(
        &dsn,
        "CREATE EXTENSION pg_stat_statements; CREATE ROLE other LOGIN;",
    );
    let other = dsn.replace("user=storlab", "user=other");
    assert_ne!(other, dsn);
    for _ in 0..3 {
        exec(&other, "SELECT 4242 AS someone_elses_query");
    }
    let others = "SELECT count(*) FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid \
                  WHERE r.rolname = 'other'";
    let before = query_i64(&dsn, others);
    assert!(before > 0, "the other role's statements are tracked");
    let requested = "SELECT checkpoints_req FROM pg_stat_bgwriter";
    let checkpoints = query_i64(&dsn, requested);
    let run = one(run_db(&options(dropped(&dsn), "dpaws", "update-row", 1_000)).unwrap());
    assert!(run.metrics.rows_per_s.unwrap() > 0.0);
    let db = run.db.as_ref().unwrap();
    assert!(
        db.statements
            .iter()
            .any(|s| s.query.contains("UPDATE storlab.dpaws")),
        "storlab's own statements are profiled from snapshots: {:?}",
        db.statements
    );
    assert_eq!(
        query_i64(&dsn, others),
        before,
        "nobody else's statistics reset"
    );
    assert_eq!(
        query_i64(&dsn, requested),
        checkpoints,
        "no CHECKPOINT requested"
    );
    assert!(
        !schema_exists(&dsn, "storlab"),
        "storlab's schema is dropped at the end"
    );
    assert_eq!(
        query_i64(
            &dsn,
            "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'"
        ),
        1,
        "the user's extension stays"
    );

    // --checkpoint asks for one.
    let mut o = options(dropped(&dsn), "dpaws", "select-row", 1_000);
    o.server = Server::Dsn(DsnServer {
        dsn: dsn.clone(),
        checkpoint: true,
        keep_schema: false,
    });
    one(run_db(&o).unwrap());
    assert!(query_i64(&dsn, requested) > checkpoints);
    cluster.stop().unwrap();
}

#[test]
fn the_schema_is_dropped_after_a_failure_and_kept_with_keep_schema() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    // A database where every statement longer than 300 ms fails: the load fails.
    exec(&dsn, "CREATE DATABASE lab");
    exec(&dsn, "ALTER DATABASE lab SET statement_timeout = '300ms'");
    let lab = cluster.conninfo("lab");
    let e = run_db(&options(dropped(&lab), "dpaws", "update-row", 3_000_000)).unwrap_err();
    assert!(e.to_string().contains("statement timeout"), "{e}");
    assert!(!schema_exists(&lab, "storlab"), "dropped after the failure");
    assert_eq!(
        query_i64(
            &lab,
            "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'"
        ),
        0,
        "the extension storlab put in its schema went with it"
    );

    one(run_db(&options(kept(dsn.clone()), "dpaws", "select-row", 500)).unwrap());
    assert!(schema_exists(&dsn, "storlab"), "--keep-schema keeps it");
    let marked = query_i64(
        &dsn,
        "SELECT count(*) FROM pg_namespace WHERE nspname = 'storlab' \
         AND obj_description(oid, 'pg_namespace') LIKE 'storlab: benchmark schema created by storlab%'",
    );
    assert_eq!(marked, 1, "and it carries storlab's mark");
    // The marked schema is reused (no reload at the same scale), then dropped.
    one(run_db(&options(dropped(&dsn), "dpaws", "select-row", 500)).unwrap());
    assert!(!schema_exists(&dsn, "storlab"));
    cluster.stop().unwrap();
}

/// In a schema storlab created and kept, a table the user put there under one of storlab's
/// names (or storlab's function replaced by theirs) is not storlab's: the run is refused
/// before it writes, replaces or drops anything, and the table keeps its rows.
#[test]
fn a_users_table_under_storlabs_name_in_its_kept_schema_is_never_touched() {
    let _s = serial();
    let dir = scratch();
    let cluster = start(dir.path());
    let dsn = cluster.conninfo("postgres");
    one(run_db(&options(kept(dsn.clone()), "dpaws", "select-row", 500)).unwrap());
    exec(
        &dsn,
        "DROP TABLE storlab.dpaws_03;
         CREATE TABLE storlab.dpaws_03 (id bigint, note text);
         INSERT INTO storlab.dpaws_03 SELECT g, 'mine' FROM generate_series(1, 500) g;",
    );
    for keep in [true, false] {
        let server = if keep {
            kept(dsn.clone())
        } else {
            dropped(&dsn)
        };
        let e = run_db(&options(server, "dpaws", "update-row", 500)).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, DbError::BadInput(_)), "{text}");
        assert!(
            text.contains("table storlab.dpaws_03") && text.contains("did not create"),
            "{text}"
        );
    }
    assert_eq!(
        query_i64(
            &dsn,
            "SELECT count(*) FROM storlab.dpaws_03 WHERE note = 'mine'"
        ),
        500,
        "the user's rows are as they were"
    );
    // Their table gone, storlab's schema is storlab's again: used, then dropped.
    exec(&dsn, "DROP TABLE storlab.dpaws_03");
    one(run_db(&options(dropped(&dsn), "dpaws", "select-row", 500)).unwrap());
    assert!(!schema_exists(&dsn, "storlab"));
    cluster.stop().unwrap();
}
