//! From a report's facts to a characterization: the Load Profile per transaction makes the
//! transaction type `average`, Instance Activity Stats split its logical reads, Little's law
//! gives the think time, the tablespace I/O gives the segments and their shares.

use storlab_core::character::keys_table::MAX_THINK_MS;
use storlab_core::character::{
    Characterization, Engine, Instance, Observed, Segment, SegmentKind, SegmentSize, Transaction,
};
use storlab_core::ByteSize;

use crate::sections::{Facts, SECTIONS};
use crate::{Error, Format, ReadReport};

/// Block size when the report does not give it.
const DEFAULT_BLOCK_BYTES: u32 = 8192;
/// Log buffer when the report does not give it.
const DEFAULT_LOG_BUFFER_BYTES: u64 = 16 << 20;
/// Share of logical reads on index blocks when Instance Activity Stats are missing.
const DEFAULT_INDEX_SHARE: f64 = 0.5;

pub(crate) struct Ctx<'a> {
    pub(crate) f: &'a Facts,
    pub(crate) tps: f64,
    pub(crate) warnings: Vec<String>,
}

impl Ctx<'_> {
    pub(crate) fn per_s(&self, key: &str) -> Option<f64> {
        self.f.load.get(key).and_then(|l| l.per_s)
    }

    /// Per transaction. Both columns are printed with the same decimals, so the larger one
    /// has more significant digits: per second over transactions per second when there is
    /// at least one transaction per second, else the per-transaction column.
    pub(crate) fn per_txn(&self, key: &str) -> Option<f64> {
        let l = self.f.load.get(key)?;
        let from_rate = l.per_s.map(|s| s / self.tps);
        if self.tps >= 1.0 {
            from_rate.or(l.per_txn)
        } else {
            l.per_txn.or(from_rate)
        }
    }

    pub(crate) fn stat(&self, name: &str) -> Option<f64> {
        self.f.activity.get(name).copied()
    }

    /// An Instance Activity statistic per second of the interval.
    fn stat_per_s(&self, name: &str) -> Option<f64> {
        Some(self.stat(name)? / self.f.elapsed_s.filter(|e| *e > 0.0)?)
    }
}

/// Transactions per second and logical reads per transaction: without them there is nothing
/// to characterize (the reason, naming a possible truncation).
fn essentials(f: &Facts, complete: bool) -> Result<(f64, f64), String> {
    let truncated = if complete {
        ""
    } else {
        " (the report has no 'End of Report' line: it may be truncated)"
    };
    if !f.found.contains(&"Load Profile") {
        return Err(format!("no Load Profile section{truncated}"));
    }
    let tps = f
        .load
        .get("transaction")
        .and_then(|l| l.per_s)
        .ok_or_else(|| format!("the Load Profile has no Transactions line{truncated}"))?;
    if tps <= 0.0 {
        return Err(format!(
            "the Load Profile shows {tps} transactions per second: there is nothing to \
             characterize per transaction"
        ));
    }
    let cx = Ctx {
        f,
        tps,
        warnings: Vec::new(),
    };
    let logical_reads = cx
        .per_txn("logical read")
        .ok_or_else(|| format!("the Load Profile has no Logical reads line{truncated}"))?;
    Ok((tps, logical_reads))
}

pub(crate) fn build(
    f: Facts,
    format: Format,
    file: &str,
    complete: bool,
) -> Result<(Characterization, ReadReport), Error> {
    let (tps, logical_reads) = essentials(&f, complete).map_err(|reason| Error::BadInput {
        file: file.to_string(),
        reason,
    })?;
    let mut cx = Ctx {
        f: &f,
        tps,
        warnings: f.warnings.clone(),
    };
    if !complete {
        cx.warnings.push(
            "the report has no 'End of Report' line: it may be truncated; sections after the \
             cut are missing"
                .into(),
        );
    }
    let mut transaction = transaction(&mut cx, logical_reads);
    let segments = segments(&mut cx);
    let instance = instance(&mut cx);
    let sessions = sessions(&mut cx);
    transaction.think_ms = think_ms(&mut cx, sessions);
    let block = block_bytes(&mut cx);
    transaction.temp_bytes = crate::temp::temp_bytes(&mut cx, block);
    let kind = match format {
        Format::StatspackText => "statspack",
        Format::AwrText | Format::AwrHtml => "awr",
    };
    let mut c = Characterization {
        name: name(&f),
        engine: Engine::Oracle,
        source: format!("{kind}:{file}"),
        sessions,
        block_bytes: block,
        transactions: vec![transaction],
        segments,
        instance,
        observed: Some(observed(&cx)),
    };
    // Where the changes fall, calibrated to the tablespaces' writes (a note says so).
    crate::changes::derive(&mut c, &mut cx.warnings);
    c.validate(file).map_err(|source| Error::Invalid {
        file: file.to_string(),
        source,
    })?;
    let report = read_report(&c, format, cx.warnings, &f.found);
    Ok((c, report))
}

fn read_report(
    c: &Characterization,
    format: Format,
    mut warnings: Vec<String>,
    found: &[&str],
) -> ReadReport {
    let missing: Vec<String> = SECTIONS
        .iter()
        .filter(|s| !found.contains(s))
        .map(|s| s.to_string())
        .collect();
    let unknowns = c.unknowns();
    if !unknowns.is_empty() {
        warnings.push(format!(
            "AWR and Statspack reports give no segment sizes: fill in {} before simulating",
            unknowns.join(", ")
        ));
    }
    let size_estimates: Vec<(String, u64)> = crate::size_estimates(c)
        .into_iter()
        .filter(|(name, _)| {
            c.segments
                .iter()
                .any(|s| s.name == *name && s.size == SegmentSize::Unknown)
        })
        .collect();
    if !size_estimates.is_empty() {
        let args: Vec<String> = size_estimates
            .iter()
            .map(|(name, bytes)| format!("--segment-size {name}={}KiB", bytes.div_ceil(1024)))
            .collect();
        warnings.push(format!(
            "sizes that reproduce the report's physical reads per tablespace in its buffer \
             cache (visits uniform within each segment; an estimate): {}",
            args.join(" ")
        ));
    }
    ReadReport {
        format,
        found: found.iter().map(|s| s.to_string()).collect(),
        missing,
        warnings,
        unknowns,
        size_estimates,
    }
}

fn name(f: &Facts) -> String {
    let db = f
        .db_name
        .clone()
        .filter(|s| !s.is_empty())
        .or(f.instance.clone())
        .unwrap_or_else(|| "database".into());
    match &f.snap_ids {
        (Some(b), Some(e)) => format!("{db} snaps {b}-{e}"),
        _ => db,
    }
}

fn block_bytes(cx: &mut Ctx) -> u32 {
    match cx.f.block_bytes {
        Some(b) if (512.0..=65_536.0).contains(&b) && (b as u32).is_power_of_two() => b as u32,
        _ => {
            cx.warnings.push(format!(
                "no Std Block Size (a power of two, 512 to 65536) in Cache Sizes: block_bytes = \
                 {DEFAULT_BLOCK_BYTES} assumed"
            ));
            DEFAULT_BLOCK_BYTES
        }
    }
}

/// The one transaction type: the Load Profile per transaction, its block changes and redo
/// less the undo's (the simulated Oracle adds those).
fn transaction(cx: &mut Ctx, logical_reads: f64) -> Transaction {
    let (index_share, scan_share) = read_split(cx, logical_reads);
    let db_block_changes = cx
        .per_txn("block change")
        .or_else(|| Some(cx.stat_per_s("db block changes")? / cx.tps))
        .unwrap_or(0.0);
    let (blocks_changed, redo_bytes) = crate::changes::without_undo(
        db_block_changes,
        cx.per_txn("redo size").unwrap_or(0.0),
        &mut cx.warnings,
    );
    Transaction {
        name: "average".into(),
        weight: 1.0,
        logical_reads,
        index_share,
        scan_share,
        blocks_changed,
        rows_inserted: 0.0,
        redo_bytes,
        cpu_ms: crate::cpu::cpu_ms(cx),
        statements: cx.per_txn("execute").unwrap_or(1.0),
        think_ms: 0.0,
        temp_bytes: 0.0,
        physical_reads: cx.per_txn("physical read"),
        physical_writes: cx.per_txn("physical write"),
        steps: Vec::new(),
    }
}

/// Index and scan shares of the logical reads, from Instance Activity Stats: blocks of full
/// scans are `table scan blocks gotten`; table blocks reached through an index are `table
/// fetch by rowid`; the rest of the gets (index blocks, and the undo blocks of consistent
/// reads) are counted as index visits.
fn read_split(cx: &mut Ctx, logical_reads: f64) -> (f64, f64) {
    let gets = cx
        .stat("session logical reads")
        .or_else(|| Some(cx.stat("consistent gets")? + cx.stat("db block gets").unwrap_or(0.0)));
    let (Some(gets), Some(scan)) = (gets, cx.stat("table scan blocks gotten")) else {
        cx.warnings.push(format!(
            "no Instance Activity Stats (consistent gets, table scan blocks gotten): \
             index_share = {DEFAULT_INDEX_SHARE} and scan_share = 0 assumed"
        ));
        return (DEFAULT_INDEX_SHARE, 0.0);
    };
    if gets <= 0.0 {
        return (0.0, 0.0);
    }
    let by_rowid = cx.stat("table fetch by rowid").unwrap_or(0.0);
    let scan_share = (scan / gets).clamp(0.0, 1.0);
    let index_share = (1.0 - (scan + by_rowid) / gets).clamp(0.0, 1.0);
    let lp_total = logical_reads * cx.tps * cx.f.elapsed_s.unwrap_or(0.0);
    if lp_total > 0.0 && (gets / lp_total - 1.0).abs() > 0.05 {
        cx.warnings.push(format!(
            "Instance Activity Stats count {gets} logical reads, the Load Profile {lp_total:.0} \
             over the interval: the shares may be off"
        ));
    }
    (index_share, scan_share)
}

/// Sessions: the average connected at the two snapshots.
fn sessions(cx: &mut Ctx) -> u32 {
    let s = &cx.f.sessions;
    if !s.is_empty() {
        let avg = s.iter().sum::<f64>() / s.len() as f64;
        return avg.round().clamp(1.0, 100_000.0) as u32;
    }
    let active = cx.per_s("db time").unwrap_or(1.0);
    cx.warnings.push(format!(
        "no Sessions in the snapshot table: sessions = the average active sessions ({})",
        active.ceil().max(1.0)
    ));
    active.ceil().clamp(1.0, 100_000.0) as u32
}

/// Think time by Little's law: each session's cycle (sessions / transactions per second) is
/// its time in the database per transaction (DB time per second / transactions per second)
/// plus its think time.
fn think_ms(cx: &mut Ctx, sessions: u32) -> f64 {
    let db_time_per_txn_s = cx.per_s("db time").unwrap_or(0.0) / cx.tps;
    let cycle_s = f64::from(sessions) / cx.tps;
    let think = ((cycle_s - db_time_per_txn_s) * 1000.0).max(0.0);
    if think > MAX_THINK_MS {
        cx.warnings.push(format!(
            "the think time by Little's law ({think:.0} ms) is above {MAX_THINK_MS} ms: most \
             sessions were idle; capped"
        ));
        return MAX_THINK_MS;
    }
    think
}

fn segment_kind(tablespace: &str) -> SegmentKind {
    let t = tablespace.to_ascii_uppercase();
    if t.contains("UNDO") || t.starts_with("RBS") {
        SegmentKind::Undo
    } else if t.contains("TEMP") {
        SegmentKind::Temp
    } else if t.contains("IDX") || t.contains("INDX") || t.contains("INDEX") || t.ends_with("_IX") {
        SegmentKind::Index
    } else {
        SegmentKind::Table
    }
}

/// A segment per tablespace, its share the tablespace's part of the I/O requests, and the
/// redo log; sizes unknown (AWR gives none).
fn segments(cx: &mut Ctx) -> Vec<Segment> {
    let io = |s: &storlab_core::character::IoStat| {
        let r = s.reads.or(s.reads_per_s).unwrap_or(0.0);
        let w = s.writes.or(s.writes_per_s).unwrap_or(0.0);
        (r + w).max(0.0)
    };
    let mut tablespaces: Vec<(String, f64)> = Vec::new();
    for s in &cx.f.tablespaces {
        if !tablespaces.iter().any(|(n, _)| *n == s.tablespace) {
            tablespaces.push((s.tablespace.clone(), io(s)));
        }
    }
    if tablespaces.is_empty() {
        cx.warnings.push(
            "no Tablespace IO Stats: placement not known; one segment `data` holds all accesses"
                .into(),
        );
        tablespaces.push(("data".into(), 1.0));
    }
    let total: f64 = tablespaces.iter().map(|(_, n)| n).sum();
    let n = tablespaces.len() as f64;
    let mut out: Vec<Segment> = tablespaces
        .into_iter()
        .map(|(name, count)| {
            let share = if total > 0.0 { count / total } else { 1.0 / n };
            Segment::plain(
                &name,
                segment_kind(&name),
                SegmentSize::Unknown,
                &name,
                share,
            )
        })
        .collect();
    // Make the shares sum to 1 exactly despite rounding: the largest takes the remainder.
    let sum: f64 = out.iter().map(|s| s.share).sum();
    if let Some(top) = out.iter_mut().max_by(|a, b| a.share.total_cmp(&b.share)) {
        top.share = (top.share + 1.0 - sum).clamp(0.0, 1.0);
    }
    if !out.iter().any(|s| s.name == "redo") {
        out.push(Segment::plain(
            "redo",
            SegmentKind::Log,
            SegmentSize::Unknown,
            "redo",
            0.0,
        ));
    }
    out
}

fn instance(cx: &mut Ctx) -> Instance {
    let f = cx.f;
    let cpus = match f.cpus {
        Some(c) if c >= 1.0 => c.min(4096.0) as u32,
        _ => {
            cx.warnings.push(
                "no CPUs in the header or Host CPU: cpus = 1 assumed; set instance.cpus".into(),
            );
            1
        }
    };
    let buffer_cache = f.buffer_cache_bytes.unwrap_or_else(|| {
        cx.warnings
            .push("no Buffer Cache in Cache Sizes: set instance.buffer_cache".into());
        0.0
    });
    let log_buffer = f
        .log_buffer_bytes
        .unwrap_or(DEFAULT_LOG_BUFFER_BYTES as f64);
    let db_time_per_s = cx
        .per_s("db time")
        .or_else(|| Some(f.db_time_s? / f.elapsed_s.filter(|e| *e > 0.0)?));
    let cpu_busy_pct = crate::cpu::cpu_busy_pct(cx, cpus);
    Instance {
        cpus,
        cpu_busy_pct,
        buffer_cache: ByteSize(buffer_cache.max(0.0) as u64),
        log_buffer: ByteSize(log_buffer.max(0.0) as u64),
        db_time_per_s,
        settings: {
            let mut settings = log_settings(cx);
            crate::cpu::log_writer_settings(cx, &mut settings);
            settings
        },
    }
}

const MIB: f64 = 1_048_576.0;

/// The online log file's size (whole MiB): the redo of the interval over its log switches (Thread
/// Activity), when the report gives both.
fn log_settings(cx: &mut Ctx) -> std::collections::BTreeMap<String, String> {
    let mut settings = std::collections::BTreeMap::new();
    let f = cx.f;
    let redo = cx.per_s("redo size").zip(f.elapsed_s).map(|(r, e)| r * e);
    match (redo, f.log_switches) {
        (Some(redo), Some(n)) if n >= 1.0 && redo > 0.0 => {
            // Whole MiB, as log files are created (and as the simulated log writes them).
            let bytes = ((redo / n / MIB).round().max(1.0) * MIB) as u64;
            settings.insert("log_file_size".into(), bytes.to_string());
        }
        _ => cx.warnings.push(
            "no log switches (Thread Activity): the log file size is not known (the simulated \
             database takes its log_file_size)"
                .into(),
        ),
    }
    settings
}

fn observed(cx: &Ctx) -> Observed {
    let f = cx.f;
    Observed {
        elapsed_s: f.elapsed_s,
        transactions_per_s: Some(cx.tps),
        logical_reads_per_s: cx.per_s("logical read"),
        physical_reads_per_s: cx.per_s("physical read"),
        physical_writes_per_s: cx.per_s("physical write"),
        redo_bytes_per_s: cx.per_s("redo size"),
        block_changes_per_s: cx.per_s("block change"),
        user_calls_per_s: cx.per_s("user call"),
        executes_per_s: cx.per_s("execute"),
        parses_per_s: cx.per_s("parse"),
        rollbacks_per_s: cx.per_s("rollback"),
        db_cpu_per_s: cx
            .per_s("db cpu")
            .or_else(|| Some(f.db_cpu_s()? / f.elapsed_s.filter(|e| *e > 0.0)?)),
        background_cpu_per_s: f
            .background_cpu_s()
            .zip(f.elapsed_s.filter(|e| *e > 0.0))
            .map(|(s, e)| s / e),
        direct_reads_per_s: cx.stat_per_s("physical reads direct"),
        index_fetches_per_s: cx.stat_per_s("index fetch by key"),
        events: f.events.clone(),
        tablespaces: f.tablespaces.clone(),
        files: f.files.clone(),
    }
}
