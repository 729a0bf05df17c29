use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;

use super::*;

fn with_env<T>(vars: &[(&str, &str)], home: Option<PathBuf>, f: impl FnOnce(&Lookup) -> T) -> T {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let env = move |k: &str| map.get(k).cloned();
    let lookup = Lookup {
        env: &env,
        home,
        os_user: Some("osuser".into()),
    };
    f(&lookup)
}

fn hosts(c: &Config) -> Vec<String> {
    c.get_hosts().iter().map(host_name).collect()
}

#[test]
fn the_dsn_wins_then_the_environment_then_defaults() {
    let r = with_env(
        &[
            ("PGHOST", "envhost"),
            ("PGPORT", "6000"),
            ("PGUSER", "envuser"),
        ],
        None,
        |l| resolve("host=db1 dbname=lab", l).unwrap(),
    );
    assert_eq!(hosts(&r.config), ["db1"]);
    assert_eq!(r.config.get_ports(), [6000]);
    assert_eq!(r.config.get_user(), Some("envuser"));
    assert_eq!(r.config.get_dbname(), Some("lab"));
    assert_eq!(r.target, "db1 port 6000, database lab as user envuser");

    let r = with_env(&[], None, |l| resolve("", l).unwrap());
    assert_eq!(r.config.get_user(), Some("osuser"));
    assert_eq!(
        r.config.get_dbname(),
        Some("osuser"),
        "database named as the user"
    );
    assert_eq!(r.config.get_ports(), [5432]);
    assert!(hosts(&r.config)[0].starts_with('/'), "the local socket");
}

#[test]
fn pgpassword_and_the_password_file_supply_the_password() {
    let r = with_env(&[("PGPASSWORD", "fromenv")], None, |l| {
        resolve("host=db1 user=bench dbname=lab", l).unwrap()
    });
    assert_eq!(r.config.get_password(), Some(&b"fromenv"[..]));

    let home = tempfile::tempdir().unwrap();
    let pgpass = home.path().join(".pgpass");
    std::fs::write(
        &pgpass,
        "db1:5432:lab:bench:fromfile\nlocalhost:*:*:bench:local\n",
    )
    .unwrap();
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let home_dir = Some(home.path().to_path_buf());
    let r = with_env(&[], home_dir.clone(), |l| {
        resolve("host=db1 user=bench dbname=lab", l).unwrap()
    });
    assert_eq!(r.config.get_password(), Some(&b"fromfile"[..]));
    // A socket matches `localhost`.
    let r = with_env(&[], home_dir.clone(), |l| {
        resolve("host=/run/pg user=bench dbname=x", l).unwrap()
    });
    assert_eq!(r.config.get_password(), Some(&b"local"[..]));
    // The DSN's password wins; PGPASSFILE points elsewhere.
    let r = with_env(&[], home_dir.clone(), |l| {
        resolve("host=db1 user=bench dbname=lab password=given", l).unwrap()
    });
    assert_eq!(r.config.get_password(), Some(&b"given"[..]));
    let other = home.path().join("other");
    std::fs::write(&other, "*:*:*:*:viaenv\n").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o600)).unwrap();
    let r = with_env(
        &[("PGPASSFILE", other.to_str().unwrap())],
        home_dir.clone(),
        |l| resolve("host=db1 user=bench dbname=lab", l).unwrap(),
    );
    assert_eq!(r.config.get_password(), Some(&b"viaenv"[..]));
    // Readable by others: ignored, with a note.
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o640)).unwrap();
    let r = with_env(&[], home_dir, |l| {
        resolve("host=db1 user=bench dbname=lab", l).unwrap()
    });
    assert_eq!(r.config.get_password(), None);
    assert!(r.notes[0].contains("chmod 0600"), "{:?}", r.notes);
}

#[test]
fn services_fill_what_the_dsn_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("services.conf");
    std::fs::write(
        &file,
        "[lab]\nhost=db7\nport=5439\ndbname=labdb\nuser=svc\n",
    )
    .unwrap();
    let vars = [
        ("PGSERVICEFILE", file.to_str().unwrap()),
        ("PGUSER", "envuser"),
    ];
    let r = with_env(&vars, None, |l| {
        resolve("service=lab dbname=mine", l).unwrap()
    });
    assert_eq!(hosts(&r.config), ["db7"]);
    assert_eq!(r.config.get_ports(), [5439]);
    assert_eq!(r.config.get_dbname(), Some("mine"), "the DSN wins");
    assert_eq!(
        r.config.get_user(),
        Some("svc"),
        "the service beats the environment"
    );
    let vars = [
        ("PGSERVICEFILE", file.to_str().unwrap()),
        ("PGSERVICE", "lab"),
    ];
    let r = with_env(&vars, None, |l| resolve("", l).unwrap());
    assert_eq!(hosts(&r.config), ["db7"]);
    let e = with_env(&vars, None, |l| resolve("service=nope", l).unwrap_err());
    assert!(
        e.contains("service `nope`") && e.contains("not defined"),
        "{e}"
    );
}

#[test]
fn bad_values_are_named_and_tls_is_refused() {
    let e = with_env(&[], None, |l| resolve("host=x port=abc", l).unwrap_err());
    assert!(e.contains("port must be a number"), "{e}");
    for port in ["0", "65536"] {
        let e = with_env(&[], None, |l| {
            resolve(&format!("host=x port={port}"), l).unwrap_err()
        });
        let said = format!(
            "port must be a number from {}; got \"{port}\"",
            flags::PORT.describe_bounds()
        );
        assert_eq!(e, said);
    }
    let e = with_env(&[("PGSSLMODE", "require")], None, |l| {
        resolve("host=x", l).unwrap_err()
    });
    assert!(
        e.contains("sslmode=require") && e.contains("without TLS"),
        "{e}"
    );
    let e = with_env(&[], None, |l| {
        resolve("host=x password=topsecret hostaddr=nope", l).unwrap_err()
    });
    assert!(!e.contains("topsecret"), "{e}");
}

#[test]
fn time_outs_are_checked_against_their_declared_bound() {
    let e = with_env(&[], None, |l| {
        resolve("host=x connect_timeout=90000", l).unwrap_err()
    });
    assert_eq!(e, "connect_timeout must be at most 86400 s; got 90000");
    let e = with_env(&[], None, |l| {
        resolve("host=x keepalives_idle=-5", l).unwrap_err()
    });
    assert!(
        e.starts_with("keepalives_idle must be a whole number"),
        "{e}"
    );
    assert!(with_env(&[], None, |l| resolve("host=x connect_timeout=86400", l)).is_ok());
}
