//! Connection settings for `--dsn` as libpq would find them: the connection string first,
//! then the service file (`service=` or `PGSERVICE`), then the PG* environment variables,
//! then libpq's defaults (the local socket, port 5432, the OS user name, a database named as
//! the user), and the password from the password file (`passfile=`, `PGPASSFILE`, or
//! `~/.pgpass`) when none was given. tokio-postgres reads none of these by itself.
//!
//! No message made here contains a password.

mod files;
mod parse;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use tokio_postgres::config::{ChannelBinding, Host, SslMode, TargetSessionAttrs};
use tokio_postgres::Config;

use crate::flags;
use files::PassKey;

/// PG* environment variables and the keyword each fills (libpq's list, TLS files aside).
const ENV: [(&str, &str); 14] = [
    ("PGHOST", "host"),
    ("PGHOSTADDR", "hostaddr"),
    ("PGPORT", "port"),
    ("PGDATABASE", "dbname"),
    ("PGUSER", "user"),
    ("PGPASSWORD", "password"),
    ("PGPASSFILE", "passfile"),
    ("PGOPTIONS", "options"),
    ("PGAPPNAME", "application_name"),
    ("PGCONNECT_TIMEOUT", "connect_timeout"),
    ("PGSSLMODE", "sslmode"),
    ("PGTARGETSESSIONATTRS", "target_session_attrs"),
    ("PGCHANNELBINDING", "channel_binding"),
    ("PGSERVICE", "service"),
];

/// Where to look: the environment and the current user, passed in so tests can set them.
pub struct Lookup<'a> {
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub home: Option<PathBuf>,
    pub os_user: Option<String>,
}

impl Lookup<'static> {
    /// This process's environment, home directory and OS user.
    pub fn from_process() -> Lookup<'static> {
        Lookup {
            env: &|k| std::env::var(k).ok(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            os_user: os_user_name(),
        }
    }
}

/// The connection, ready for tokio-postgres, with what it is for messages.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub config: Config,
    /// `host H port P, database D as user U`: for messages (never the password).
    pub target: String,
    /// Things the user should know (a password file ignored and why).
    pub notes: Vec<String>,
}

/// Resolves `dsn` with what `lookup` provides; the error is a message for bad input.
pub fn resolve(dsn: &str, lookup: &Lookup) -> Result<Resolved, String> {
    let mut params: BTreeMap<String, String> = parse::parse(dsn)?.into_iter().collect();
    let service = params
        .get("service")
        .cloned()
        .or_else(|| (lookup.env)("PGSERVICE").filter(|s| !s.is_empty()));
    if let Some(name) = service {
        for (k, v) in service_settings(&name, lookup)? {
            params.entry(k).or_insert(v);
        }
    }
    for (var, key) in ENV {
        if let Some(v) = (lookup.env)(var).filter(|v| !v.is_empty()) {
            params.entry(key.to_string()).or_insert(v);
        }
    }
    if !params.contains_key("host") && !params.contains_key("hostaddr") {
        params.insert("host".into(), default_socket_dir());
    }
    if !params.contains_key("user") {
        let user = lookup
            .os_user
            .clone()
            .ok_or("no user name: give user= in the DSN or set PGUSER (the OS user has no name)")?;
        params.insert("user".into(), user);
    }
    let user = params["user"].clone();
    params.entry("dbname".into()).or_insert(user);
    params.entry("port".into()).or_insert("5432".into());
    let mut notes = Vec::new();
    if !params.contains_key("password") {
        let (password, note) = password_from_file(&params, lookup);
        notes.extend(note);
        if let Some(p) = password {
            params.insert("password".into(), p);
        }
    }
    let target = format!(
        "{} port {}, database {} as user {}",
        params
            .get("host")
            .or(params.get("hostaddr"))
            .map_or("", |h| h.as_str()),
        params["port"],
        params["dbname"],
        params["user"]
    );
    Ok(Resolved {
        config: build(&params)?,
        target,
        notes,
    })
}

/// Settings of service `name`: the user's file (`PGSERVICEFILE` or `~/.pg_service.conf`)
/// first, then the system's (`PGSYSCONFDIR`/pg_service.conf).
fn service_settings(name: &str, lookup: &Lookup) -> Result<Vec<(String, String)>, String> {
    let user_file = (lookup.env)("PGSERVICEFILE")
        .map(PathBuf::from)
        .or_else(|| lookup.home.as_ref().map(|h| h.join(".pg_service.conf")));
    let sysconf = (lookup.env)("PGSYSCONFDIR").unwrap_or_else(|| "/etc/postgresql-common".into());
    let system_file = PathBuf::from(sysconf).join("pg_service.conf");
    for file in user_file.iter().chain([&system_file]) {
        let Ok(text) =
            storlab_core::input::read_text_bounded(file, storlab_core::input::TEXT_MAX_BYTES)
        else {
            continue;
        };
        let found = files::service_section(&text, name)
            .map_err(|e| format!("service file {}: {e}", file.display()))?;
        if let Some(settings) = found {
            for (k, _) in &settings {
                if !parse::KEYWORDS.contains(&k.as_str()) {
                    return Err(format!(
                        "service file {}, service {name}: unknown connection option `{k}`",
                        file.display()
                    ));
                }
            }
            return Ok(settings);
        }
    }
    Err(format!(
        "service `{name}` (service= or PGSERVICE) is not defined in {} or {}",
        user_file.map_or("~/.pg_service.conf".into(), |f| f.display().to_string()),
        system_file.display()
    ))
}

/// The password file's password for the first host, and a note when the file was ignored.
fn password_from_file(
    params: &BTreeMap<String, String>,
    lookup: &Lookup,
) -> (Option<String>, Option<String>) {
    let path = match params.get("passfile") {
        Some(p) => PathBuf::from(p),
        None => match &lookup.home {
            Some(h) => h.join(".pgpass"),
            None => return (None, None),
        },
    };
    let first = |key: &str| {
        params
            .get(key)
            .and_then(|v| v.split(',').next())
            .unwrap_or("")
            .to_string()
    };
    let mut host = first("host");
    if host.is_empty() {
        host = first("hostaddr");
    }
    // libpq matches a Unix socket (or no host) as `localhost`.
    if host.is_empty() || host.starts_with('/') {
        host = "localhost".into();
    }
    let port = Some(first("port"))
        .filter(|p| !p.is_empty())
        .unwrap_or("5432".into());
    let key = PassKey {
        host: &host,
        port: &port,
        dbname: &params["dbname"],
        user: &params["user"],
    };
    files::pgpass(&path, &key)
}

/// libpq's default socket directory: Debian's, or /tmp elsewhere.
fn default_socket_dir() -> String {
    let debian = "/var/run/postgresql";
    if std::path::Path::new(debian).is_dir() {
        debian.into()
    } else {
        "/tmp".into()
    }
}

/// The tokio-postgres configuration of resolved keywords.
fn build(p: &BTreeMap<String, String>) -> Result<Config, String> {
    let mut c = Config::new();
    let list = |key: &str| -> Vec<String> {
        p.get(key).map_or(Vec::new(), |v| {
            v.split(',').map(|s| s.trim().to_string()).collect()
        })
    };
    for host in list("host") {
        if host.starts_with('/') {
            c.host_path(host);
        } else {
            c.host(host);
        }
    }
    for addr in list("hostaddr") {
        let ip = addr
            .parse()
            .map_err(|_| format!("hostaddr must be an IP address; got {addr:?}"))?;
        c.hostaddr(ip);
    }
    for port in list("port") {
        let n: u16 = match port.as_str() {
            "" => 5432,
            s => s
                .parse::<u64>()
                .ok()
                .filter(|&n| flags::PORT.check(&flags::count(n)).is_ok())
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| {
                    let bounds = flags::PORT.describe_bounds();
                    format!("port must be a number from {bounds}; got {s:?}")
                })?,
        };
        c.port(n);
    }
    c.user(&p["user"]).dbname(&p["dbname"]);
    if let Some(pw) = p.get("password") {
        c.password(pw.as_bytes());
    }
    if let Some(o) = p.get("options") {
        c.options(o);
    }
    if let Some(a) = p
        .get("application_name")
        .or(p.get("fallback_application_name"))
    {
        c.application_name(a);
    } else {
        c.application_name("storlab");
    }
    tuning(&mut c, p)?;
    Ok(c)
}

/// Time-outs, keep-alives, TLS mode, session attributes and channel binding.
fn tuning(c: &mut Config, p: &BTreeMap<String, String>) -> Result<(), String> {
    let secs = |key: &str, v: &str| {
        let n = v.trim().parse::<u64>().map_err(|_| {
            format!("{key} must be a whole number of seconds, 0 or more; got {v:?}")
        })?;
        flags::CONNINFO_SECONDS
            .check_flag(key, flags::count(n))
            .map(|()| n)
    };
    if let Some(v) = p.get("connect_timeout") {
        match secs("connect_timeout", v)? {
            0 => {}
            // libpq waits at least 2 s.
            n => {
                c.connect_timeout(Duration::from_secs(n.max(2)));
            }
        }
    }
    if let Some(v) = p.get("keepalives") {
        c.keepalives(v.trim() != "0");
    }
    if let Some(v) = p.get("keepalives_idle") {
        c.keepalives_idle(Duration::from_secs(secs("keepalives_idle", v)?.max(1)));
    }
    if let Some(v) = p.get("sslmode") {
        let mode = match v.as_str() {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" | "verify-ca" | "verify-full" => {
                return Err(format!(
                    "sslmode={v}: storlab connects without TLS; use sslmode=disable or prefer, \
                     a Unix socket, or a tunnel to the server"
                ))
            }
            _ => {
                return Err(format!(
                    "sslmode must be disable, allow or prefer; got {v:?}"
                ))
            }
        };
        c.ssl_mode(mode);
    }
    if let Some(v) = p.get("target_session_attrs") {
        c.target_session_attrs(match v.as_str() {
            "any" => TargetSessionAttrs::Any,
            "read-write" => TargetSessionAttrs::ReadWrite,
            "read-only" => TargetSessionAttrs::ReadOnly,
            _ => {
                return Err(format!(
                    "target_session_attrs must be any, read-write or read-only; got {v:?}"
                ))
            }
        });
    }
    if let Some(v) = p.get("channel_binding") {
        c.channel_binding(match v.as_str() {
            "disable" => ChannelBinding::Disable,
            "prefer" => ChannelBinding::Prefer,
            "require" => ChannelBinding::Require,
            _ => {
                return Err(format!(
                    "channel_binding must be disable, prefer or require; got {v:?}"
                ))
            }
        });
    }
    Ok(())
}

/// Why a connection failed, in words: the server's reason (authentication, no such
/// database, ...) or the network's (refused, no socket, timed out). Never the password.
pub fn connect_failure(target: &str, e: &tokio_postgres::Error) -> (bool, String) {
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        // 28xxx: authorization (bad password, no pg_hba.conf entry); 3D000: no such database.
        let bad_input = code.starts_with("28") || code == "3D000";
        return (
            bad_input,
            format!("cannot connect to {target}: {}", db.message()),
        );
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            let why = match io.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    "connection refused (is the server running and listening there?)".to_string()
                }
                std::io::ErrorKind::NotFound => {
                    "no server socket there (is the server running? is the socket directory \
                     right?)"
                        .to_string()
                }
                std::io::ErrorKind::TimedOut => "timed out".to_string(),
                _ => io.to_string(),
            };
            return (false, format!("cannot connect to {target}: {why}"));
        }
        source = s.source();
    }
    // tokio-postgres says "invalid configuration" and puts the reason in its source.
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text += &format!(": {s}");
        source = s.source();
    }
    if text.contains("password missing") {
        return (
            true,
            format!(
                "cannot connect to {target}: the server asks for a password and none was \
                 given: set PGPASSWORD, add a line to ~/.pgpass (mode 0600) or use a service"
            ),
        );
    }
    (false, format!("cannot connect to {target}: {text}"))
}

/// A host for messages.
pub fn host_name(h: &Host) -> String {
    match h {
        Host::Tcp(n) => n.clone(),
        Host::Unix(p) => p.display().to_string(),
    }
}

/// The OS user's name (libpq's default user).
fn os_user_name() -> Option<String> {
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: an all-zero passwd is a valid out parameter.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call and the buffer length is right.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
    if rc != 0 || result.is_null() {
        return None;
    }
    // SAFETY: getpwuid_r set pw_name to a NUL-terminated string inside `buf`.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    name.to_str().ok().map(str::to_string)
}

#[cfg(test)]
mod tests;
