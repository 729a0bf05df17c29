//! The characterization of a capture window: the differences of two snapshots, the sampled
//! sessions and the server's settings, turned into one average transaction type, the data
//! set, the instance and what was observed (see docs/workload-characterization.md, "Capturing
//! a live PostgreSQL server", for every field's source).

use std::collections::BTreeMap;

use storlab_core::character::{
    Characterization, Engine, Event, Instance, Observed, Segment, SegmentKind, SegmentSize,
    Transaction,
};
use storlab_core::host_stats::round3;
use storlab_core::ByteSize;

use super::snapshot::{ClusterCounters, DbCounters, StatementCounters};

/// Relations kept as segments of their own, the largest first; the rest are summed.
pub(crate) const TOP_SEGMENTS: usize = 20;

/// Client backends of the database, sampled during the window (the capture's own excluded).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SessionTally {
    pub samples: u64,
    /// Sum over samples of the connected and of the active sessions.
    pub connected: u64,
    pub active: u64,
    /// Active sessions by event (`CPU` when active without a wait event): (class, count).
    pub events: BTreeMap<String, (String, u64)>,
    /// Seconds between samples.
    pub interval_s: f64,
}

impl SessionTally {
    fn mean(&self, sum: u64) -> f64 {
        sum as f64 / self.samples.max(1) as f64
    }
}

/// One relation's figures over the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RelWindow {
    pub name: String,
    pub index: bool,
    pub tablespace: String,
    pub bytes: u64,
    /// Heap blocks (for tables), times the sequential scans in the window: blocks scanned.
    pub scanned_blocks: f64,
    /// Blocks accessed (hit + read) in the window.
    pub accesses: f64,
}

/// What the server is and how it is set up.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ServerInfo {
    pub version: String,
    pub database: String,
    /// Where, for `source` (`host H port P, database D as user U`).
    pub target: String,
    pub block_bytes: u32,
    pub shared_buffers_bytes: u64,
    pub wal_buffers_bytes: u64,
    pub max_wal_size_bytes: u64,
    /// Host CPUs, and whether they were counted on this machine (a local server).
    pub cpus: Option<u32>,
    /// The settings of [`storlab_core::character::settings::SETTINGS_KEYS`] as the server
    /// reports them.
    pub settings: Vec<(String, String)>,
}

/// The differences over the window and what was sampled in it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Window {
    pub secs: f64,
    pub db: DbCounters,
    pub cluster: ClusterCounters,
    pub statements: Option<StatementCounters>,
    /// Transactions the capture itself committed in the connected database in the window.
    pub own_transactions: f64,
    pub sessions: SessionTally,
    pub relations: Vec<RelWindow>,
    pub server: ServerInfo,
}

/// Bytes the window's statements wrote to temporary files: pg_stat_statements'
/// `temp_blks_written` summed over the statements (every block of every pass of a sort or
/// hash, as the simulator writes and reads them back), else pg_stat_database's `temp_bytes`
/// (the temporary files' sizes, where a multi-pass sort's reused blocks count once).
fn temp_bytes(w: &Window) -> f64 {
    match &w.statements {
        Some(s) => s.temp_written * w.server.block_bytes.max(1) as f64,
        None => w.db.temp_bytes,
    }
}

/// The characterization of `w` and the warnings to print; an error when no transaction ran.
pub(crate) fn characterize(w: &Window) -> Result<(Characterization, Vec<String>), String> {
    let mut warnings = Vec::new();
    let tx = (w.db.commits + w.db.rollbacks - w.own_transactions).max(0.0);
    if tx < 1.0 {
        return Err(format!(
            "no transactions committed or rolled back in database {} during the {} s capture \
             (besides storlab's own): nothing to characterize; capture while the workload runs",
            w.server.database,
            round3(w.secs)
        ));
    }
    let secs = w.secs.max(1e-9);
    let tps = tx / secs;
    let per = |v: f64| round3(v / tx);
    let (logical, physical_reads) = match &w.statements {
        Some(s) => (s.hit + s.read, s.read),
        None => (w.db.blks_hit + w.db.blks_read, w.db.blks_read),
    };
    // Blocks turned dirty miss a block changed again while dirty; one WAL record per block
    // change (less one commit record per transaction) counts those.
    let by_wal = (w.cluster.wal_records - tx).max(0.0);
    let changed = w
        .statements
        .as_ref()
        .map_or(by_wal, |s| s.dirtied.max(by_wal));
    let statements = match &w.statements {
        Some(s) => per(s.calls),
        None => {
            warnings.push(
                "statements: unknown without pg_stat_statements; 1 per transaction assumed".into(),
            );
            1.0
        }
    };
    let t = &w.sessions;
    let active = t.mean(t.active);
    let on_cpu = t.events.get("CPU").map_or(0, |(_, n)| *n) as f64 / t.samples.max(1) as f64;
    let sessions = t.mean(t.connected).round().clamp(1.0, 100_000.0) as u32;
    let think_ms = ((sessions as f64 - active) / tps * 1e3).max(0.0);
    let (index_share, scan_share) = shares(&w.relations);
    let transaction = Transaction {
        name: "average".into(),
        weight: 1.0,
        logical_reads: per(logical),
        index_share,
        scan_share,
        blocks_changed: per(changed),
        rows_inserted: per(w.db.tup_inserted),
        redo_bytes: per(w.cluster.wal_bytes),
        cpu_ms: round3(on_cpu / tps * 1e3),
        statements,
        think_ms: round3(think_ms),
        temp_bytes: per(temp_bytes(w)),
        physical_reads: Some(per(physical_reads)),
        physical_writes: Some(per(w.cluster.blocks_written)),
        steps: Vec::new(),
    };
    let cpus = w.server.cpus.unwrap_or_else(|| {
        warnings.push(
            "instance.cpus: the server's CPUs cannot be counted over SQL (pg_read_file of \
             /proc/cpuinfo is not permitted) and the server is not on this machine; 1 is \
             written: give --cpus N, or set it before simulating"
                .into(),
        );
        1
    });
    let rate = |v: f64| Some(round3(v / secs));
    let observed = Observed {
        elapsed_s: Some(round3(w.secs)),
        transactions_per_s: rate(tx),
        logical_reads_per_s: rate(logical),
        physical_reads_per_s: rate(physical_reads),
        physical_writes_per_s: rate(w.cluster.blocks_written),
        redo_bytes_per_s: rate(w.cluster.wal_bytes),
        block_changes_per_s: rate(changed),
        executes_per_s: w.statements.as_ref().and_then(|s| rate(s.calls)),
        rollbacks_per_s: rate(w.db.rollbacks),
        db_cpu_per_s: Some(round3(on_cpu)),
        events: events(t),
        ..Observed::default()
    };
    let c = Characterization {
        name: format!("{} on PostgreSQL {}", w.server.database, w.server.version),
        engine: Engine::Postgresql,
        source: format!("pg-capture:{}", w.server.target),
        sessions,
        block_bytes: w.server.block_bytes,
        transactions: vec![transaction],
        segments: segments(w, &mut warnings),
        instance: Instance {
            cpus,
            cpu_busy_pct: None,
            buffer_cache: ByteSize(w.server.shared_buffers_bytes),
            log_buffer: ByteSize(w.server.wal_buffers_bytes),
            db_time_per_s: Some(round3(active)),
            settings: w.server.settings.iter().cloned().collect(),
        },
        observed: Some(observed),
    };
    Ok((c, warnings))
}

/// Index share and scan share of the relations' block accesses in the window.
fn shares(rels: &[RelWindow]) -> (f64, f64) {
    let total: f64 = rels.iter().map(|r| r.accesses).sum();
    if total <= 0.0 {
        return (0.0, 0.0);
    }
    let index: f64 = rels.iter().filter(|r| r.index).map(|r| r.accesses).sum();
    let scanned: f64 = rels.iter().map(|r| r.scanned_blocks).sum();
    (
        round3((index / total).clamp(0.0, 1.0)),
        round3((scanned / total).clamp(0.0, 1.0)),
    )
}

/// Sampled events, the largest first: time is samples times the interval.
fn events(t: &SessionTally) -> Vec<Event> {
    let active = t.active.max(1) as f64;
    let mut v: Vec<Event> = t
        .events
        .iter()
        .map(|(name, (class, n))| Event {
            name: name.clone(),
            waits: None,
            time_s: round3(*n as f64 * t.interval_s),
            avg_ms: None,
            pct_db_time: Some(round3(100.0 * *n as f64 / active)),
            wait_class: Some(class.clone()),
        })
        .collect();
    v.sort_by(|a, b| b.time_s.total_cmp(&a.time_s).then(a.name.cmp(&b.name)));
    v.truncate(10);
    v
}

/// The largest relations as segments, the others summed into `other tables` and `other
/// indexes`, and the WAL as a log segment with no share of the block accesses.
fn segments(w: &Window, warnings: &mut Vec<String>) -> Vec<Segment> {
    let mut rels = w.relations.clone();
    rels.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
    let mut kept: Vec<RelWindow> = rels.iter().take(TOP_SEGMENTS).cloned().collect();
    for index in [false, true] {
        let rest: Vec<&RelWindow> = rels
            .iter()
            .skip(TOP_SEGMENTS)
            .filter(|r| r.index == index)
            .collect();
        if !rest.is_empty() {
            kept.push(RelWindow {
                name: if index {
                    "other indexes"
                } else {
                    "other tables"
                }
                .into(),
                index,
                tablespace: rest[0].tablespace.clone(),
                bytes: rest.iter().map(|r| r.bytes).sum(),
                scanned_blocks: 0.0,
                accesses: rest.iter().map(|r| r.accesses).sum(),
            });
        }
    }
    let block = u64::from(w.server.block_bytes.max(1));
    let mut out: Vec<Segment> = Vec::new();
    if kept.is_empty() {
        warnings.push(
            "segments: the database has no user tables; one segment `data` of unknown size \
             is written: set its size before simulating"
                .into(),
        );
        out.push(segment(
            "data",
            SegmentKind::Table,
            SegmentSize::Unknown,
            "",
            1.0,
        ));
    } else {
        let by_access: f64 = kept.iter().map(|r| r.accesses).sum();
        let by_size: f64 = kept.iter().map(|r| r.bytes as f64).sum();
        let weight = |r: &RelWindow| {
            if by_access > 0.0 {
                r.accesses / by_access
            } else if by_size > 0.0 {
                r.bytes as f64 / by_size
            } else {
                1.0 / kept.len() as f64
            }
        };
        for r in &kept {
            let kind = if r.index {
                SegmentKind::Index
            } else {
                SegmentKind::Table
            };
            let size = SegmentSize::Known(ByteSize(r.bytes.max(block)));
            out.push(segment(&r.name, kind, size, &r.tablespace, weight(r)));
        }
        // The shares sum to 1 exactly: the rounding goes to the largest.
        let sum: f64 = out.iter().map(|s| s.share).sum();
        if let Some(top) = out.iter_mut().max_by(|a, b| a.share.total_cmp(&b.share)) {
            top.share = (top.share + 1.0 - sum).clamp(0.0, 1.0);
        }
    }
    let wal = SegmentSize::Known(ByteSize(w.server.max_wal_size_bytes.max(block)));
    out.push(segment("wal", SegmentKind::Log, wal, "wal", 0.0));
    out
}

fn segment(name: &str, kind: SegmentKind, size: SegmentSize, ts: &str, share: f64) -> Segment {
    Segment::plain(
        name,
        kind,
        size,
        if ts.is_empty() { name } else { ts },
        share,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window() -> Window {
        let mut events = BTreeMap::new();
        events.insert("CPU".to_string(), ("CPU".to_string(), 50));
        events.insert("IO:WalSync".to_string(), ("IO".to_string(), 150));
        Window {
            secs: 10.0,
            db: DbCounters {
                commits: 1010.0,
                blks_hit: 9000.0,
                blks_read: 1000.0,
                tup_inserted: 500.0,
                temp_bytes: 8_192_000.0,
                ..DbCounters::default()
            },
            cluster: ClusterCounters {
                wal_records: 3000.0,
                wal_bytes: 200_000.0,
                blocks_written: 100.0,
                ..ClusterCounters::default()
            },
            statements: None,
            own_transactions: 10.0,
            sessions: SessionTally {
                samples: 100,
                connected: 400,
                active: 200,
                events,
                interval_s: 0.1,
            },
            relations: vec![
                RelWindow {
                    name: "public.t".into(),
                    tablespace: "pg_default".into(),
                    bytes: 1 << 20,
                    scanned_blocks: 100.0,
                    accesses: 600.0,
                    ..RelWindow::default()
                },
                RelWindow {
                    name: "public.t_pkey".into(),
                    index: true,
                    tablespace: "pg_default".into(),
                    bytes: 1 << 19,
                    accesses: 400.0,
                    ..RelWindow::default()
                },
            ],
            server: ServerInfo {
                version: "17.2".into(),
                database: "app".into(),
                target: "host /tmp port 5432, database app as user me".into(),
                block_bytes: 8192,
                shared_buffers_bytes: 128 << 20,
                wal_buffers_bytes: 4 << 20,
                max_wal_size_bytes: 1 << 30,
                cpus: Some(4),
                settings: vec![("checkpoint_timeout".into(), "5min".into())],
            },
        }
    }

    #[test]
    fn per_transaction_figures_are_the_window_over_the_transactions() {
        let (c, warnings) = characterize(&window()).unwrap();
        c.validate("capture").unwrap();
        let t = &c.transactions[0];
        // 1000 transactions: the capture's own 10 left out.
        assert_eq!(c.observed.as_ref().unwrap().transactions_per_s, Some(100.0));
        assert_eq!(t.logical_reads, 10.0);
        assert_eq!(t.physical_reads, Some(1.0));
        assert_eq!(t.redo_bytes, 200.0);
        assert_eq!(t.rows_inserted, 0.5);
        assert_eq!(
            t.temp_bytes, 8192.0,
            "8,192,000 temp bytes over 1000 transactions"
        );
        assert_eq!(t.blocks_changed, 2.0, "3000 WAL records less 1000 commits");
        assert_eq!((t.index_share, t.scan_share), (0.4, 0.1));
        // 0.5 sessions on CPU at 100 tps: 5 ms; 4 connected, 2 active: 20 ms of think time.
        assert_eq!((t.cpu_ms, t.think_ms, c.sessions), (5.0, 20.0, 4));
        assert_eq!(c.segments.len(), 3);
        assert!((c.segments[0].share - 0.6).abs() < 1e-9);
        assert_eq!(c.segments[2].kind, SegmentKind::Log);
        assert!(warnings.iter().any(|w| w.contains("pg_stat_statements")));
    }

    #[test]
    fn statements_win_over_the_database_counters_and_many_relations_are_summed() {
        let mut w = window();
        w.statements = Some(StatementCounters {
            calls: 2000.0,
            hit: 4000.0,
            read: 0.0,
            dirtied: 1500.0,
            temp_written: 3000.0,
            ..StatementCounters::default()
        });
        w.relations = (0..30)
            .map(|i| RelWindow {
                name: format!("public.t{i}"),
                index: i % 2 == 1,
                bytes: 1000 * (i + 1),
                accesses: 1.0,
                ..RelWindow::default()
            })
            .collect();
        let (c, warnings) = characterize(&w).unwrap();
        c.validate("capture").unwrap();
        let t = &c.transactions[0];
        // 1500 blocks dirtied, but 2000 WAL records besides the commits.
        assert_eq!(
            (t.logical_reads, t.blocks_changed, t.statements),
            (4.0, 2.0, 2.0)
        );
        // Temp: the statements' 3000 blocks written over 1000 transactions, not the
        // database's 8,192,000 bytes of temp files.
        assert_eq!(t.temp_bytes, 3.0 * 8192.0);
        assert_eq!(c.segments.len(), TOP_SEGMENTS + 3);
        assert!(c.segments.iter().any(|s| s.name == "other indexes"));
        assert!(!warnings.iter().any(|w| w.contains("pg_stat_statements")));
    }

    #[test]
    fn an_idle_database_is_an_error_naming_it() {
        let mut w = window();
        w.db.commits = 10.0;
        let e = characterize(&w).unwrap_err();
        assert!(
            e.contains("database app") && e.contains("no transactions"),
            "{e}"
        );
    }
}
