//! The password file (`~/.pgpass`, `PGPASSFILE`) and the connection service file
//! (`pg_service.conf`), read as libpq reads them.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// What to look up in the password file.
pub struct PassKey<'a> {
    /// Host name, or `localhost` for a Unix socket (as libpq matches it).
    pub host: &'a str,
    pub port: &'a str,
    pub dbname: &'a str,
    pub user: &'a str,
}

/// The password of the first line of `path` matching `key`, if any. Lines are
/// `hostname:port:database:username:password`; `*` in one of the first four fields matches
/// anything; `\` escapes `:` and `\`; lines starting with `#` are comments. The file is
/// ignored (with the returned note saying why) if it is not a plain file or if its group or
/// others have any access: only its owner may read it.
pub fn pgpass(path: &Path, key: &PassKey) -> (Option<String>, Option<String>) {
    let Ok(meta) = std::fs::metadata(path) else {
        return (None, None);
    };
    if !meta.is_file() {
        let note = format!(
            "password file {} is not a plain file; ignored",
            path.display()
        );
        return (None, Some(note));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        let note = format!(
            "password file {} has group or world access (mode {:o}); ignored: run \
             `chmod 0600 {}` so that only its owner (uid {}) can read it",
            path.display(),
            meta.permissions().mode() & 0o777,
            path.display(),
            meta.uid()
        );
        return (None, Some(note));
    }
    let Ok(text) =
        storlab_core::input::read_text_bounded(path, storlab_core::input::TEXT_MAX_BYTES)
    else {
        return (None, None);
    };
    (pgpass_match(&text, key), None)
}

/// The first matching line's password in the text of a password file.
pub fn pgpass_match(text: &str, key: &PassKey) -> Option<String> {
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let fields = split_escaped(line);
        if fields.len() < 5 {
            continue;
        }
        let want = [key.host, key.port, key.dbname, key.user];
        let matches = fields[..4]
            .iter()
            .zip(want)
            .all(|((raw, text), w)| raw == "*" || text == w);
        if matches {
            // The password is everything after the fourth separator.
            return Some(
                fields[4..]
                    .iter()
                    .map(|(_, t)| t.as_str())
                    .collect::<Vec<_>>()
                    .join(":"),
            );
        }
    }
    None
}

/// Fields separated by unescaped `:`: (raw text, unescaped text).
fn split_escaped(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let (mut raw, mut text) = (String::new(), String::new());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                raw.push(c);
                if let Some(n) = chars.next() {
                    raw.push(n);
                    text.push(n);
                }
            }
            ':' => out.push((std::mem::take(&mut raw), std::mem::take(&mut text))),
            _ => {
                raw.push(c);
                text.push(c);
            }
        }
    }
    out.push((raw, text));
    out
}

/// The settings of `[service]` in a service file's text: `None` when the section is absent,
/// `Err` (line number and reason) for a line that is not `key=value`.
pub fn service_section(text: &str, service: &str) -> Result<Option<Vec<(String, String)>>, String> {
    let mut found = None;
    let mut inside = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if inside {
                break;
            }
            inside = name.trim() == service;
            if inside {
                found = Some(Vec::new());
            }
            continue;
        }
        if !inside {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            return Err(format!("line {}: expected key=value", n + 1));
        };
        let key = k.trim().to_string();
        if key == "service" {
            return Err(format!(
                "line {}: a service cannot name another service",
                n + 1
            ));
        }
        if let Some(list) = found.as_mut() {
            list.push((key, v.trim().to_string()));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: PassKey = PassKey {
        host: "db1",
        port: "5432",
        dbname: "lab",
        user: "bench",
    };

    #[test]
    fn pgpass_lines_match_with_wildcards_and_escapes() {
        let text = "# comment\n\
                    db2:5432:lab:bench:wrong\n\
                    db1:*:lab:bench:pa\\:ss:word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(pgpass_match(text, &KEY).as_deref(), Some("pa:ss:word"));
        let other = PassKey { host: "db9", ..KEY };
        assert_eq!(pgpass_match(text, &other).as_deref(), Some("fallback"));
        // An escaped star is a literal star, not a wildcard.
        let literal = "db1:5432:\\*:bench:x\n";
        assert_eq!(pgpass_match(literal, &KEY), None);
        let star_db = PassKey { dbname: "*", ..KEY };
        assert_eq!(pgpass_match(literal, &star_db).as_deref(), Some("x"));
        // Short lines are skipped.
        assert_eq!(pgpass_match("db1:5432:lab\n", &KEY), None);
    }

    #[test]
    fn pgpass_readable_by_others_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pgpass");
        std::fs::write(&path, "*:*:*:*:secret\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (pw, note) = pgpass(&path, &KEY);
        assert_eq!(pw, None);
        let note = note.unwrap();
        assert!(
            note.contains("chmod 0600") && !note.contains("secret"),
            "{note}"
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(pgpass(&path, &KEY), (Some("secret".into()), None));
        assert_eq!(pgpass(&dir.path().join("none"), &KEY), (None, None));
        assert!(pgpass(dir.path(), &KEY)
            .1
            .unwrap()
            .contains("not a plain file"));
    }

    #[test]
    fn service_sections_are_read() {
        let text = "# services\n[lab]\nhost = db1\nport=5433\n\n[other]\nhost=db2\n";
        let lab = service_section(text, "lab").unwrap().unwrap();
        assert_eq!(
            lab,
            vec![
                ("host".into(), "db1".into()),
                ("port".into(), "5433".into())
            ]
        );
        assert_eq!(service_section(text, "none").unwrap(), None);
        assert!(service_section("[x]\nbad line\n", "x")
            .unwrap_err()
            .contains("line 2"));
        assert!(service_section("[x]\nservice=y\n", "x").is_err());
    }
}
