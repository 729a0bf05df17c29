//! The connection of `storlab db --dsn`: the DSN (key=value pairs or a URI) resolved as libpq
//! resolves it, with the user's connection service file and password file. The input is the
//! DSN, the service file and the password file, separated by lines `%%`; the files are
//! written to a directory of this process that PGSERVICEFILE, PGPASSFILE and PGSYSCONFDIR
//! name.
#![no_main]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use storlab_db::conninfo::{resolve, Lookup};

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("storlab-fuzz-conn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        dir
    })
}

fn write(name: &str, text: &str) -> String {
    let path = dir().join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Only its owner may read a password file, or it is ignored.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path.display().to_string()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, "\n%%\n");
    let dsn = parts.next().unwrap_or("");
    let service_file = write("pg_service.conf", parts.next().unwrap_or(""));
    let pass_file = write("pgpass", parts.next().unwrap_or(""));
    let sysconf = dir().display().to_string();
    let env = move |key: &str| match key {
        "PGSERVICEFILE" => Some(service_file.clone()),
        "PGPASSFILE" => Some(pass_file.clone()),
        "PGSYSCONFDIR" => Some(sysconf.clone()),
        _ => None,
    };
    let lookup = Lookup {
        env: &env,
        home: None,
        os_user: Some("fuzz".into()),
    };
    let _ = resolve(dsn, &lookup);
});
