//! `storlab db --dsn DSN --capture 60s --out profile.json`: a live server's workload,
//! captured read-only, written as a characterization (JSON or TOML by the file's extension).
//! The file is written whole (a temporary file renamed) only after the capture succeeded; an
//! interrupted capture writes nothing.

use std::path::Path;

use storlab_core::character::Characterization;
use storlab_db::{capture, Capture, CaptureOptions};

use crate::cli::DbArgs;
use crate::error::CliError;
use crate::output::{Format, Output};
use crate::table::{num, render};

/// The format `--out` asks for: true for JSON, false for TOML.
fn json_format(out: &Path) -> Result<bool, CliError> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("json") => Ok(true),
        Some("toml") => Ok(false),
        _ => Err(CliError::BadInput(format!(
            "--out {}: name a .json or a .toml file (the extension picks the format)",
            out.display()
        ))),
    }
}

pub(super) fn run(a: &DbArgs) -> Result<(), CliError> {
    let (Some(span), Some(dsn), Some(out)) = (a.capture, a.dsn.as_ref(), a.out.as_ref()) else {
        return Err(CliError::BadInput(
            "--capture needs --dsn DSN and --out FILE".into(),
        ));
    };
    let json = json_format(out)?;
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(CliError::BadInput(format!(
            "--out {}: directory {} does not exist",
            out.display(),
            dir.display()
        )));
    }
    let output = output(out, json);
    output.check(&[])?;
    let got = capture(&CaptureOptions {
        dsn: dsn.clone(),
        interval_ns: span.0,
        cpus: a.cpus,
    })?;
    for w in &got.warnings {
        eprintln!("storlab: warning: {w}");
    }
    let name = out.display().to_string();
    got.characterization.validate(&name).map_err(|e| {
        CliError::Failed(format!("the captured characterization breaks a rule: {e}"))
    })?;
    let text = if json {
        got.characterization.to_json() + "\n"
    } else {
        toml_text(&got)
    };
    output.write(text.as_bytes())?;
    print!("{}", summary(&got.characterization));
    println!("characterization: {name}");
    Ok(())
}

/// TOML under a line saying where it came from (the server's settings are in
/// `[instance.settings]`).
fn toml_text(got: &Capture) -> String {
    String::from("# Captured by `storlab db --capture`.\n\n") + &got.characterization.to_toml()
}

/// The `--out` file: TOML under its first line, or JSON that is a characterization captured
/// from a server (`source` "pg-capture:...").
fn output(out: &Path, json: bool) -> Output {
    let format = match json {
        true => Format::Json(|v| {
            v.get("source")
                .and_then(|s| s.as_str())
                .is_some_and(|s| s.starts_with("pg-capture:"))
                && serde_json::from_value::<Characterization>(v.clone()).is_ok()
        }),
        false => Format::Toml,
    };
    Output::new("--out", out, format)
}

/// The captured workload on a few lines.
fn summary(c: &Characterization) -> String {
    let t = &c.transactions[0];
    let o = c.observed.clone().unwrap_or_default();
    let opt = |v: Option<f64>, d: usize| v.map_or("-".into(), |v| num(v, d));
    let mut out = format!("{} | {}\n", c.name, c.source);
    out += &render(
        &[
            "tx/s",
            "logical rd/tx",
            "phys rd/tx",
            "phys wr/tx",
            "WAL B/tx",
            "changed/tx",
            "stmts/tx",
            "CPU ms/tx",
            "sessions",
            "active",
        ],
        &[vec![
            opt(o.transactions_per_s, 1),
            num(t.logical_reads, 1),
            opt(t.physical_reads, 2),
            opt(t.physical_writes, 2),
            num(t.redo_bytes, 0),
            num(t.blocks_changed, 2),
            num(t.statements, 2),
            num(t.cpu_ms, 3),
            c.sessions.to_string(),
            opt(c.instance.db_time_per_s, 2),
        ]],
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_picks_the_format_and_others_are_refused() {
        assert!(json_format(Path::new("p.json")).unwrap());
        assert!(!json_format(Path::new("dir/p.TOML")).unwrap());
        let e = json_format(Path::new("p.txt")).unwrap_err();
        assert!(e.to_string().contains(".json or a .toml"), "{e}");
        assert!(json_format(Path::new("p")).is_err());
    }
}
