//! `storlab db --dsn`: passwords from the environment, connection failures named, schemas
//! refused, and a server without pg_stat_statements in its shared_preload_libraries (the run
//! goes on without the per-statement profile).

use predicates::prelude::*;

use super::db::{scratch_tmp, start_server, WITHOUT_STATEMENTS};
use super::storlab;

/// A server without pg_stat_statements in shared_preload_libraries: every test of the cycle
/// runs, the warning is printed once, and each result (text and JSON) says the per-statement
/// profile is left out.
pub(super) fn db_dsn_without_pg_stat_statements_runs_and_says_so() {
    let dir = scratch_tmp();
    let bins = storlab_db::cluster::find_binaries(None).expect("PostgreSQL server binaries");
    let cluster = start_server(&bins, dir.path(), WITHOUT_STATEMENTS);
    let json = dir.path().join("db.json");
    let out = storlab()
        .args(["db", "--dsn", &cluster.conninfo("postgres")])
        .args(["--test", "cycle", "--scale", "300", "--clients", "2"])
        .args(["--duration", "1s", "--warmup", "0", "--json"])
        .arg(&json)
        .assert()
        .success()
        .get_output()
        .clone();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let why = "no per-statement block profile: pg_stat_statements is not in the server's \
               shared_preload_libraries";
    assert_eq!(stderr.matches(why).count(), 1, "warned once: {stderr}");
    assert_eq!(
        stdout.matches(&format!("note: {why}")).count(),
        4,
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for run in runs {
        assert!(run["metrics"]["iops"].as_f64().unwrap() > 0.0, "{run}");
        let statements = run["db"]["statements"].as_array();
        assert!(statements.is_none_or(|s| s.is_empty()), "{run}");
        let notes = run["db"]["notes"].as_array().unwrap();
        assert!(notes.iter().any(|n| n == why), "{notes:?}");
    }
    cluster.stop().unwrap();
}

/// A cluster for --dsn runs, with a role `bench` that must give its password.
struct PasswordServer {
    cluster: storlab_db::cluster::Cluster,
    psql: std::path::PathBuf,
}

const BENCH_PASSWORD: &str = "Bench-Pw-4711";

impl PasswordServer {
    fn start(dir: &std::path::Path) -> PasswordServer {
        let bins = storlab_db::cluster::find_binaries(None).expect("PostgreSQL server binaries");
        let cluster = start_server(&bins, dir, &[]);
        let server = PasswordServer {
            psql: bins.bindir.join("psql"),
            cluster,
        };
        let hba = server.cluster.data_dir().join("pg_hba.conf");
        let old = std::fs::read_to_string(&hba).unwrap();
        std::fs::write(&hba, format!("local all bench scram-sha-256\n{old}")).unwrap();
        server.sql(&format!(
            "CREATE ROLE bench LOGIN PASSWORD '{BENCH_PASSWORD}';
             GRANT CREATE ON DATABASE postgres TO bench;
             CREATE EXTENSION pg_stat_statements;
             SELECT pg_reload_conf();"
        ));
        server
    }

    fn sql(&self, sql: &str) -> String {
        let out = std::process::Command::new(&self.psql)
            .arg(self.cluster.conninfo("postgres"))
            .args(["-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn socket(&self) -> String {
        format!(
            "host={} port={}",
            self.cluster.socket_dir().display(),
            self.cluster.port()
        )
    }
}

fn dsn_run(dsn: &str) -> assert_cmd::Command {
    let mut cmd = storlab();
    cmd.args(["db", "--dsn", dsn]);
    cmd.args(["--test", "select-row", "--scale", "300", "--clients", "2"]);
    cmd.args(["--duration", "1s", "--warmup", "0"]);
    for var in [
        "PGPASSWORD",
        "PGPASSFILE",
        "PGSERVICE",
        "PGSERVICEFILE",
        "PGUSER",
        "PGHOST",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

pub(super) fn db_dsn_takes_passwords_from_the_environment_and_names_connect_failures() {
    let dir = scratch_tmp();
    let server = PasswordServer::start(dir.path());
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let bench = format!("{} user=bench dbname=postgres", server.socket());
    let never = |out: &std::process::Output, secret: &str| {
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!text.contains(secret), "the password is printed: {text}");
    };

    // No password anywhere: bad input saying where one can come from.
    dsn_run(&bench)
        .env("HOME", &home)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("asks for a password"));
    // A wrong one: the server's reason, never the password.
    let out = dsn_run(&bench)
        .env("HOME", &home)
        .env("PGPASSWORD", "Wrong-Pw-123")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "password authentication failed for user \"bench\"",
        ))
        .get_output()
        .clone();
    never(&out, "Wrong-Pw-123");
    // PGPASSWORD, ~/.pgpass (a socket matches `localhost`), and a service.
    dsn_run(&bench)
        .env("HOME", &home)
        .env("PGPASSWORD", BENCH_PASSWORD)
        .assert()
        .success();
    let pgpass = home.join(".pgpass");
    std::fs::write(
        &pgpass,
        format!("localhost:*:postgres:bench:{BENCH_PASSWORD}\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    dsn_run(&bench).env("HOME", &home).assert().success();
    let services = dir.path().join("services.conf");
    std::fs::write(
        &services,
        format!(
            "[lab]\nhost={}\nport={}\nuser=bench\ndbname=postgres\n",
            server.cluster.socket_dir().display(),
            server.cluster.port()
        ),
    )
    .unwrap();
    dsn_run("service=lab")
        .env("HOME", &home)
        .env("PGSERVICEFILE", &services)
        .assert()
        .success();
    assert_eq!(
        server.sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'storlab'"),
        "0",
        "each run dropped its schema"
    );

    // No such database; a refused connection (exit 1: nothing wrong with the input).
    let nodb = format!("{} user=storlab dbname=nosuchdb", server.socket());
    dsn_run(&nodb)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "database \"nosuchdb\" does not exist",
        ));
    let out = dsn_run("host=127.0.0.1 port=1 user=x dbname=y password=Refused-Pw-99")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "cannot connect to 127.0.0.1 port 1",
        ))
        .stderr(predicate::str::contains("connection refused"))
        .get_output()
        .clone();
    never(&out, "Refused-Pw-99");
    // --schema public and a user's schema are refused, naming them.
    server.sql("CREATE SCHEMA users_own");
    for schema in ["public", "users_own"] {
        dsn_run(&format!("{} user=storlab dbname=postgres", server.socket()))
            .args(["--schema", schema])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("--schema {schema}")));
    }
    server.cluster.stop().unwrap();
}
