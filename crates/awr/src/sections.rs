//! The facts of a report, read section by section from its tables: the header, Cache Sizes,
//! Load Profile, the top timed events, Host CPU, Time Model and Operating System Statistics
//! ([`crate::cpu`]), Instance Activity Stats, and the tablespace
//! and file I/O. Whatever a section lacks is left out and said in a warning; nothing here
//! fails.

use std::collections::BTreeMap;

use storlab_core::character::{Event, IoStat};

use crate::grid::{label_and_values, pairs, Row, Table};
use crate::number::{self, Scale};

/// A Load Profile line: per second and per transaction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Load {
    pub per_s: Option<f64>,
    pub per_txn: Option<f64>,
}

/// What a report says, as far as it was read.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Facts {
    pub db_name: Option<String>,
    pub instance: Option<String>,
    pub snap_ids: (Option<String>, Option<String>),
    /// Sessions connected at the begin and end snapshots.
    pub sessions: Vec<f64>,
    pub elapsed_s: Option<f64>,
    pub db_time_s: Option<f64>,
    pub cpus: Option<f64>,
    pub cpu_busy_pct: Option<f64>,
    pub buffer_cache_bytes: Option<f64>,
    pub block_bytes: Option<f64>,
    pub log_buffer_bytes: Option<f64>,
    /// Load Profile lines by normalized label (`redo size`, `logical read`, `transaction`).
    pub load: BTreeMap<String, Load>,
    pub events: Vec<Event>,
    /// Instance Activity Stats totals by statistic name (lowercase).
    pub activity: BTreeMap<String, f64>,
    pub tablespaces: Vec<IoStat>,
    pub files: Vec<IoStat>,
    /// Online log switches over the interval (Instance Activity Stats - Thread Activity,
    /// `log switches (derived)`).
    pub log_switches: Option<f64>,
    /// Time Model Statistics: seconds over the interval by lowercase statistic name.
    pub time_model: BTreeMap<String, f64>,
    /// Operating System Statistics: values by uppercase statistic name.
    pub os_stats: BTreeMap<String, f64>,
    /// Sections read, as the report names them.
    pub found: Vec<&'static str>,
    pub warnings: Vec<String>,
}

/// The sections read, in report order, as the report names them.
pub(crate) const SECTIONS: [&str; 11] = [
    "header",
    "Cache Sizes",
    "Load Profile",
    "Top Timed Events",
    "Host CPU",
    "Time Model Statistics",
    "Operating System Statistics",
    "Instance Activity Stats",
    "Thread Activity",
    "Tablespace IO Stats",
    "File IO Stats",
];

impl Facts {
    /// A number of a cell; an overflowed column (`#####`) is a warning naming where.
    pub(crate) fn num(
        &mut self,
        token: &str,
        scale: Scale,
        at: impl FnOnce() -> String,
    ) -> Option<f64> {
        match number::value(token, scale) {
            Ok(v) => v,
            Err(()) => {
                self.warnings.push(format!(
                    "{}: the value overflowed its column (#####) and was left out",
                    at()
                ));
                None
            }
        }
    }

    pub(crate) fn found(&mut self, section: &'static str) {
        if !self.found.contains(&section) {
            self.found.push(section);
        }
    }
}

/// `Logical read (blocks):` and `Logical reads:` alike: `logical read`.
pub(crate) fn normalize(label: &str) -> String {
    let mut out = String::new();
    let mut depth = 0u32;
    for c in label.to_lowercase().chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ':' => {}
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    let joined = words.join(" ");
    joined.strip_suffix('s').unwrap_or(&joined).to_string()
}

/// Reads every section it knows from `tables`.
pub(crate) fn read(tables: &[Table]) -> Facts {
    let mut f = Facts::default();
    for t in tables {
        header(&mut f, t);
        if t.titled("cache sizes") {
            cache_sizes(&mut f, t);
        } else if t.titled("load profile") {
            load_profile(&mut f, t);
        } else if t.titled("top 5 timed") || t.titled("top 10 foreground") {
            top_events(&mut f, t);
        } else if t.titled("host cpu") {
            host_cpu(&mut f, t);
        } else if crate::cpu::is_time_model(t) {
            crate::cpu::time_model(&mut f, t);
        } else if crate::cpu::is_os_stats(t) {
            crate::cpu::os_stats(&mut f, t);
        } else if activity_title(&t.title) {
            activity(&mut f, t);
        } else if t.title.to_ascii_lowercase().contains("thread activity") {
            thread_activity(&mut f, t);
        } else if t.titled("tablespace io stats") {
            let io = io_stats(&mut f, t, "Tablespace IO Stats");
            f.tablespaces.extend(io);
        } else if t.titled("file io stats") {
            let io = io_stats(&mut f, t, "File IO Stats");
            f.files.extend(io);
        }
    }
    f
}

/// Instance Activity Stats, or Key / Other Instance Activity Stats (12c), not the absolute
/// values or the thread activity.
fn activity_title(title: &str) -> bool {
    let t = title.to_ascii_lowercase();
    t.contains("instance activity stats") && !t.contains("absolute") && !t.contains("thread")
}

/// `Num CPUs: 8` on a line of its own (older Statspack headers), when no table gave the CPUs.
pub(crate) fn cpus_from_lines(f: &mut Facts, report: &str) {
    if f.cpus.is_some() {
        return;
    }
    for line in report.lines() {
        let tokens: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        for (label, values) in pairs(&tokens) {
            if label.to_ascii_lowercase().ends_with("cpus") {
                if let Some(v) = values.first() {
                    f.cpus = f.num(v, Scale::Count, || "header: CPUs".into());
                    f.found("header");
                    return;
                }
            }
        }
    }
}

/// The header tables: database and instance, host CPUs, snapshots and the interval.
fn header(f: &mut Facts, t: &Table) {
    if let Some(c) = t.column(|h| h == "db name") {
        f.db_name = t.rows.first().map(|r| r.cell(c).to_string());
        f.found("header");
    }
    if let Some(c) = t.column(|h| h == "instance") {
        f.instance = t.rows.first().map(|r| r.cell(c).to_string());
    }
    if let Some(c) = t.column(|h| h == "cpus" || h == "num cpus") {
        if let Some(row) = t.rows.first() {
            f.cpus = f.num(row.cell(c), Scale::Count, || "header: CPUs".into());
        }
    }
    let Some(id) = t.column(|h| h == "snap id") else {
        return;
    };
    f.found("header");
    let sessions = t.column(|h| h == "sessions");
    for row in &t.rows {
        let label = row
            .tokens
            .first()
            .map_or(String::new(), |s| s.to_lowercase());
        if label == "begin" || label == "end" {
            let snap = Some(row.cell(id).to_string()).filter(|s| !s.is_empty());
            if label == "begin" {
                f.snap_ids.0 = snap;
            } else {
                f.snap_ids.1 = snap;
            }
            if let Some(c) = sessions {
                if let Some(n) = f.num(row.cell(c), Scale::Count, || "header: Sessions".into()) {
                    f.sessions.push(n);
                }
            }
        }
        for (label, values) in pairs(&row.tokens) {
            let minutes = values.iter().any(|v| v.contains("min"));
            let factor = if minutes { 60.0 } else { 1.0 };
            let Some(v) = values.first() else { continue };
            let at = || format!("header: {label}");
            match label.to_lowercase().as_str() {
                "elapsed" => f.elapsed_s = f.num(v, Scale::Count, at).map(|x| x * factor),
                "db time" => f.db_time_s = f.num(v, Scale::Count, at).map(|x| x * factor),
                _ => {}
            }
        }
    }
}

fn cache_sizes(f: &mut Facts, t: &Table) {
    f.found("Cache Sizes");
    for row in &t.rows {
        for (label, values) in pairs(&row.tokens) {
            let Some(v) = values.first() else { continue };
            let at = || format!("Cache Sizes: {label}");
            match label.to_lowercase().as_str() {
                "buffer cache" => f.buffer_cache_bytes = f.num(v, Scale::Bytes, at),
                "std block size" => f.block_bytes = f.num(v, Scale::Bytes, at),
                "log buffer" => f.log_buffer_bytes = f.num(v, Scale::Bytes, at),
                _ => {}
            }
        }
    }
}

fn load_profile(f: &mut Facts, t: &Table) {
    f.found("Load Profile");
    for row in &t.rows {
        let (label, values) = label_and_values(row);
        if label.is_empty() || values.is_empty() {
            continue;
        }
        let key = normalize(&label);
        let per_s = f.num(&values[0], Scale::Count, || {
            format!("Load Profile: {label} per second")
        });
        let per_txn = match values.get(1) {
            Some(v) => f.num(v, Scale::Count, || {
                format!("Load Profile: {label} per transaction")
            }),
            None => None,
        };
        f.load.entry(key).or_insert(Load { per_s, per_txn });
    }
}

fn top_events(f: &mut Facts, t: &Table) {
    let time = t.column(|h| {
        h.contains("time") && (h.contains("(s)") || h.contains("sec")) && !h.contains('%')
    });
    let Some(time) = time else { return };
    f.found("Top Timed Events");
    let waits = t.column(|h| h.contains("waits"));
    let avg = t.column(|h| h.contains("avg") && !h.contains('%'));
    let pct = t.column(|h| h.contains('%'));
    let class = t.column(|h| h.contains("class"));
    for row in &t.rows {
        let name = row.cell(0).to_string();
        let at = |what: &str| format!("Top Timed Events: {name} {what}");
        let Some(time_s) = f.num(row.cell(time), Scale::Count, || at("time")) else {
            continue;
        };
        if name.is_empty() || f.events.iter().any(|e| e.name == name) {
            continue;
        }
        let mut cell = |col: Option<usize>, scale, what: &str| {
            col.and_then(|c| f.num(row.cell(c), scale, || at(what)))
        };
        let event = Event {
            waits: cell(waits, Scale::Count, "waits"),
            time_s,
            avg_ms: cell(avg, Scale::Millis, "average wait"),
            pct_db_time: cell(pct, Scale::Count, "% DB time"),
            wait_class: class
                .map(|c| row.cell(c).to_string())
                .filter(|s| !s.is_empty()),
            name,
        };
        f.events.push(event);
    }
}

fn host_cpu(f: &mut Facts, t: &Table) {
    f.found("Host CPU");
    if let Some(c) = t.column(|h| h.contains("%idle") || h.contains("% idle")) {
        if let Some(row) = t.rows.first() {
            let idle = f.num(row.cell(c), Scale::Count, || "Host CPU: %Idle".into());
            f.cpu_busy_pct = idle.map(|i| (100.0 - i).clamp(0.0, 100.0));
        }
    }
    let title: Vec<String> = t
        .title_line
        .split_whitespace()
        .map(str::to_string)
        .collect();
    for (label, values) in pairs(&title) {
        if label.to_lowercase().ends_with("cpus") && f.cpus.is_none() {
            if let Some(v) = values.first() {
                f.cpus = f.num(v, Scale::Count, || "Host CPU: CPUs".into());
            }
        }
    }
    if let Some(c) = t.column(|h| h == "cpus") {
        if let (Some(row), None) = (t.rows.first(), f.cpus) {
            f.cpus = f.num(row.cell(c), Scale::Count, || "Host CPU: CPUs".into());
        }
    }
}

fn activity(f: &mut Facts, t: &Table) {
    let Some(total) = t.column(|h| h == "total") else {
        return;
    };
    f.found("Instance Activity Stats");
    for row in &t.rows {
        let name = row.cell(0).to_lowercase();
        if name.is_empty() {
            continue;
        }
        let v = f.num(row.cell(total), Scale::Count, || {
            format!("Instance Activity Stats: {name}")
        });
        if let Some(v) = v {
            f.activity.entry(name).or_insert(v);
        }
    }
}

/// Instance Activity Stats - Thread Activity: the log switches over the interval.
fn thread_activity(f: &mut Facts, t: &Table) {
    let Some(total) = t.column(|h| h == "total") else {
        return;
    };
    f.found("Thread Activity");
    for row in &t.rows {
        if row.cell(0).to_lowercase().starts_with("log switches") {
            f.log_switches = f.num(row.cell(total), Scale::Count, || {
                "Thread Activity: log switches (derived)".into()
            });
        }
    }
}

/// Tablespace or file I/O rows: one row each (HTML), or a name line followed by a line of
/// numbers (text).
fn io_stats(f: &mut Facts, t: &Table, section: &'static str) -> Vec<IoStat> {
    let reads = t.column(|h| h == "reads");
    if reads.is_none() {
        return Vec::new();
    }
    f.found(section);
    let name_col = t.column(|h| h == "tablespace");
    let file_col = t.column(|h| h == "filename" || h == "file name");
    let mut out = Vec::new();
    let mut pending: Option<(String, Option<String>)> = None;
    for row in &t.rows {
        let all_numbers =
            !row.tokens.is_empty() && row.tokens.iter().all(|t| number::is_numeric(t));
        let named = match name_col {
            Some(c) if !row.cell(c).is_empty() && !all_numbers => Some((
                row.cell(c).to_string(),
                file_col
                    .map(|c| row.cell(c).to_string())
                    .filter(|s| !s.is_empty()),
            )),
            _ => None,
        };
        if let Some((ts, file)) = named {
            out.push(io_row(f, t, row, ts, file, section));
        } else if all_numbers {
            if let Some((ts, file)) = pending.take() {
                out.push(io_row(f, t, row, ts, file, section));
            }
        } else if let Some((first, rest)) = row.tokens.split_first() {
            let file = (!rest.is_empty()).then(|| rest.join(" "));
            pending = Some((first.clone(), file));
        }
    }
    out
}

fn io_row(
    f: &mut Facts,
    t: &Table,
    row: &Row,
    tablespace: String,
    file: Option<String>,
    section: &str,
) -> IoStat {
    let mut get = |pred: fn(&str) -> bool, scale, what: &str| {
        t.column(pred).and_then(|c| {
            f.num(row.cell(c), scale, || {
                format!("{section}: {tablespace} {what}")
            })
        })
    };
    IoStat {
        reads: get(|h| h == "reads", Scale::Count, "reads"),
        reads_per_s: get(
            |h| (h.contains("reads/s") || h.contains("rds/s")) && !h.contains("1-bk"),
            Scale::Count,
            "reads/s",
        ),
        read_avg_ms: get(
            |h| h.contains("rd(ms)") && !h.contains("1-bk"),
            Scale::Millis,
            "Av Rd(ms)",
        ),
        blocks_per_read: get(|h| h.contains("blks/rd"), Scale::Count, "Av Blks/Rd"),
        writes: get(|h| h == "writes", Scale::Count, "writes"),
        writes_per_s: get(
            |h| h.contains("writes") && h.ends_with("/s"),
            Scale::Count,
            "writes/s",
        ),
        buffer_waits: get(|h| h == "buffer waits", Scale::Count, "buffer waits"),
        buffer_wait_avg_ms: get(|h| h.contains("buf wt"), Scale::Millis, "Av Buf Wt(ms)"),
        tablespace,
        file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activity_tables_of_every_release_are_read_but_not_absolute_values() {
        assert!(activity_title(
            "Instance Activity Stats  DB/Inst: A/a  Snaps: 1-2"
        ));
        assert!(activity_title("Key Instance Activity Stats"));
        assert!(activity_title("Other Instance Activity Stats"));
        assert!(!activity_title("Instance Activity Stats - Absolute Values"));
        assert!(!activity_title("Instance Activity Stats - Thread Activity"));
    }

    #[test]
    fn load_profile_labels_of_every_release_normalize_alike() {
        assert_eq!(normalize("Logical read (blocks):"), "logical read");
        assert_eq!(normalize("Logical reads"), "logical read");
        assert_eq!(normalize("DB Time(s)"), "db time");
        assert_eq!(normalize("Executes (SQL):"), "execute");
        assert_eq!(normalize("Redo size (bytes):"), "redo size");
        assert_eq!(normalize("Transactions:"), "transaction");
        assert_eq!(normalize("Hard parses (SQL):"), "hard parse");
    }
}
