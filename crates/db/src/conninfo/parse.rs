//! Parsing a libpq connection string: `key=value` pairs or a `postgresql://` URI, into
//! (keyword, value) pairs. Messages give positions and keywords, never values (a value may be
//! a password, or part of one when quoting went wrong).

/// The keywords storlab understands (libpq's names).
pub const KEYWORDS: [&str; 17] = [
    "host",
    "hostaddr",
    "port",
    "user",
    "password",
    "passfile",
    "dbname",
    "service",
    "options",
    "application_name",
    "fallback_application_name",
    "connect_timeout",
    "sslmode",
    "target_session_attrs",
    "keepalives",
    "keepalives_idle",
    "channel_binding",
];

/// Parses either form; a string starting with `postgresql://` or `postgres://` is a URI.
pub fn parse(dsn: &str) -> Result<Vec<(String, String)>, String> {
    let pairs = match dsn
        .strip_prefix("postgresql://")
        .or_else(|| dsn.strip_prefix("postgres://"))
    {
        Some(rest) => parse_uri(rest)?,
        None => parse_pairs(dsn)?,
    };
    let secret = pairs.iter().any(|(k, _)| k == "password");
    for (i, (key, _)) in pairs.iter().enumerate() {
        if !KEYWORDS.contains(&key.as_str()) {
            // A stray word may be the tail of an unquoted password: named only when the
            // string holds no password.
            let which = if secret {
                format!("the {} setting", ordinal(i + 1))
            } else {
                format!("`{key}`")
            };
            return Err(format!(
                "unknown connection option ({which}); known options: {}",
                KEYWORDS.join(", ")
            ));
        }
    }
    Ok(pairs)
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `key = value` pairs separated by white space; values may be single-quoted; `\` escapes
/// the next character.
fn parse_pairs(s: &str) -> Result<Vec<(String, String)>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i >= chars.len() {
            return Ok(out);
        }
        let start = i;
        while i < chars.len() && chars[i] != '=' && !chars[i].is_whitespace() {
            i += 1;
        }
        let key: String = chars[start..i].iter().collect();
        skip_ws(&mut i);
        if i >= chars.len() || chars[i] != '=' {
            return Err(format!(
                "syntax error at character {}: expected key=value (a value with spaces must \
                 be single-quoted)",
                start + 1
            ));
        }
        if key.is_empty() {
            return Err(format!(
                "syntax error at character {}: `=` without a key before it",
                i + 1
            ));
        }
        i += 1;
        skip_ws(&mut i);
        let mut value = String::new();
        if i < chars.len() && chars[i] == '\'' {
            let quote_at = i;
            i += 1;
            loop {
                match chars.get(i) {
                    None => {
                        return Err(format!(
                            "unterminated quoted value of `{key}` starting at character {}",
                            quote_at + 1
                        ))
                    }
                    Some('\'') => break,
                    Some('\\') if i + 1 < chars.len() => {
                        value.push(chars[i + 1]);
                        i += 1;
                    }
                    Some(&c) => value.push(c),
                }
                i += 1;
            }
            i += 1;
        } else {
            while i < chars.len() && !chars[i].is_whitespace() {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                }
                value.push(chars[i]);
                i += 1;
            }
        }
        out.push((key, value));
    }
}

/// The part of a URI after `postgresql://`:
/// `[user[:password]@][host[:port][,...]][/dbname][?key=value&...]`, percent-encoded.
fn parse_uri(rest: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let (main, query) = match rest.split_once('?') {
        Some((m, q)) => (m, Some(q)),
        None => (rest, None),
    };
    let (authority, dbname) = match main.split_once('/') {
        Some((a, d)) => (a, Some(d)),
        None => (main, None),
    };
    let hosts = match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => {
            let (user, password) = match userinfo.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (userinfo, None),
            };
            if !user.is_empty() {
                out.push(("user".into(), decode(user, "the user name")?));
            }
            if let Some(p) = password {
                out.push(("password".into(), decode(p, "the password")?));
            }
            hosts
        }
        None => authority,
    };
    let (mut host_list, mut port_list) = (Vec::new(), Vec::new());
    for spec in hosts.split(',').filter(|h| !h.is_empty()) {
        let (host, port) = if let Some(v6) = spec.strip_prefix('[') {
            let (addr, after) = v6
                .split_once(']')
                .ok_or("URI: an IPv6 host in [ ] is not closed")?;
            (addr.to_string(), after.strip_prefix(':'))
        } else {
            match spec.rsplit_once(':') {
                Some((h, p)) => (decode(h, "a host")?, Some(p)),
                None => (decode(spec, "a host")?, None),
            }
        };
        host_list.push(host);
        port_list.push(port.unwrap_or("").to_string());
    }
    if host_list.iter().any(|h| !h.is_empty()) {
        out.push(("host".into(), host_list.join(",")));
    }
    if port_list.iter().any(|p| !p.is_empty()) {
        out.push(("port".into(), port_list.join(",")));
    }
    if let Some(d) = dbname.filter(|d| !d.is_empty()) {
        out.push(("dbname".into(), decode(d, "the database name")?));
    }
    for param in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = param
            .split_once('=')
            .ok_or("URI: a parameter after `?` has no `=`")?;
        let key = decode(k, "a parameter name")?;
        let value = decode(v, "a parameter value")?;
        out.retain(|(existing, _)| *existing != key);
        out.push((key, value));
    }
    Ok(out)
}

/// Percent-decoding; `what` names the part in messages (never its text).
fn decode(s: &str, what: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("URI: bad percent-encoding in {what}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("URI: {what} is not UTF-8 once decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn key_value_pairs_with_quotes_and_escapes() {
        let got =
            parse(r"host=db1  port = 5433 dbname='my lab' password='it\'s' user=a\ b").unwrap();
        assert_eq!(
            got,
            kv(&[
                ("host", "db1"),
                ("port", "5433"),
                ("dbname", "my lab"),
                ("password", "it's"),
                ("user", "a b"),
            ])
        );
        assert_eq!(parse("   ").unwrap(), kv(&[]));
    }

    #[test]
    fn errors_give_positions_and_keys_never_values() {
        let e = parse("host=db1 password=se cret").unwrap_err();
        assert!(e.contains("character 22"), "{e}");
        assert!(!e.contains("cret") && !e.contains("se "), "{e}");
        let e = parse("host=db1 password='secret").unwrap_err();
        assert!(e.contains("unterminated") && e.contains("password"), "{e}");
        assert!(!e.contains("secret"), "{e}");
        let e = parse("password=hunter2 hunter3=x").unwrap_err();
        assert!(e.contains("2nd setting") && !e.contains("hunter"), "{e}");
        let e = parse("dbnmae=lab").unwrap_err();
        assert!(e.contains("`dbnmae`"), "{e}");
        assert!(parse("=x").unwrap_err().contains("without a key"));
    }

    #[test]
    fn uris_are_percent_decoded() {
        let got =
            parse("postgresql://bench:p%40ss@db1:5433,db2/lab?application_name=x&sslmode=disable")
                .unwrap();
        assert_eq!(
            got,
            kv(&[
                ("user", "bench"),
                ("password", "p@ss"),
                ("host", "db1,db2"),
                ("port", "5433,"),
                ("dbname", "lab"),
                ("application_name", "x"),
                ("sslmode", "disable"),
            ])
        );
        let got = parse("postgres://%2Fvar%2Frun%2Fpostgresql/lab").unwrap();
        assert_eq!(
            got,
            kv(&[("host", "/var/run/postgresql"), ("dbname", "lab")])
        );
        assert_eq!(parse("postgresql://").unwrap(), kv(&[]));
        assert_eq!(
            parse("postgresql://[::1]:5432/x").unwrap(),
            kv(&[("host", "::1"), ("port", "5432"), ("dbname", "x")])
        );
        let e = parse("postgresql://u:sec%zzret@h/x").unwrap_err();
        assert!(e.contains("password") && !e.contains("sec"), "{e}");
    }
}
