//! The connection of `storlab db --dsn`: the DSN (key=value pairs or a URI) resolved as libpq
//! resolves it, with the user's connection service file and password file. The input is the
//! DSN, the service file and the password file, separated by lines `%%`; the files are
//! written to a scratch directory of this input that PGSERVICEFILE, PGPASSFILE and
//! PGSYSCONFDIR name.
#![no_main]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use storlab_db::conninfo::{resolve, Lookup};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
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
    let scratch = storlab_fuzz::Scratch::new("conn");
    let mut parts = text.splitn(3, "\n%%\n");
    let dsn = parts.next().unwrap_or("");
    let service_file = write(scratch.path(), "pg_service.conf", parts.next().unwrap_or(""));
    let pass_file = write(scratch.path(), "pgpass", parts.next().unwrap_or(""));
    let sysconf = scratch.path().display().to_string();
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
