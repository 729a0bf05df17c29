//! What the simulated database reports: its I/O by role, rows per second in the series, its
//! figures of the measured window (rows/s, tx/min, WAL, commit latency, transaction
//! response time, waits) and its
//! effective parameters.
//!
//! Wait events carry PostgreSQL's names, or Oracle's with `engine = "oracle"`: `db file
//! sequential read`, `log file sync` (sessions waiting for their commit's redo), `free buffer
//! waits` (a session writing a dirty victim), `log file switch (archiving needed)`, `log
//! file switch (checkpoint incomplete)` (commits behind a log write held until its group's
//! checkpoint completes), `log buffer space` (a session whose redo does not fit in the log
//! buffer), and the
//! log writer's own `log file parallel write` (its time as a share of the window, its mean
//! the time of one write to every member).

use storlab_core::histogram::round_to;
use storlab_core::host_stats::HostStats;
use storlab_core::result::{ClassMetrics, CommitMetrics, WaitEvent};

use storlab_core::character::Engine;

use super::{DbEngine, DbIo, DbStats};
use crate::db::layout::Segment;
use crate::metrics::{round3, INTERVAL_NS};

/// A wait event: `ns` waited over `n` waits, as a share of `total_ns` session time and a
/// mean per wait.
pub(super) fn wait_event(event: &str, ns: u64, n: u64, total_ns: f64) -> WaitEvent {
    WaitEvent {
        event: event.to_string(),
        time_pct: round_to(100.0 * ns as f64 / total_ns, 1),
        avg_ms: Some(if n == 0 {
            0.0
        } else {
            round3(ns as f64 / n as f64 / 1e6)
        }),
        avg_from: None,
    }
}

impl DbEngine {
    /// Counts a completed database I/O under its role (measured window only).
    pub(super) fn record(&mut self, io: DbIo, write: bool, bytes: u64, latency_ns: u64, now: u64) {
        let role = match io {
            DbIo::Log => &mut self.log_io,
            DbIo::LogMember(i) => &mut self.member_io[i as usize],
            DbIo::ArchiveRead | DbIo::ArchiveWrite => &mut self.archive_io,
            DbIo::TempWrite(_) | DbIo::TempRead(_) | DbIo::TempWriteback => match &mut self.temp {
                Some(t) => &mut t.io,
                None => &mut self.data_io,
            },
            // A job's sort runs count in the temp class.
            DbIo::Job(i) if self.job.as_ref().is_some_and(|j| j.temp_stream(i)) => {
                match &mut self.temp {
                    Some(t) => &mut t.io,
                    None => &mut self.data_io,
                }
            }
            _ => &mut self.data_io,
        };
        role.record(now, write, bytes, latency_ns);
    }

    /// All the database's host I/O: its roles merged (same window start).
    pub(crate) fn host_stats(&self) -> HostStats {
        let db = self;
        let mut all = db.data_io.clone();
        all.merge(&db.log_io);
        all.merge(&db.archive_io);
        for m in &db.member_io {
            all.merge(m);
        }
        if let Some(t) = &db.temp {
            all.merge(&t.io);
        }
        all
    }

    /// The database's I/O by role: data files and log, the log with its group commit figures.
    pub(crate) fn classes(&self, secs: f64) -> Vec<ClassMetrics> {
        let db = self;
        let names = |p: &crate::config::Placement| p.names.join(",");
        let commits = db.stats.commit_waits;
        let log_writes = db.log_io.write.count();
        let archive = db.spec.archive.as_ref().map(|a| ClassMetrics {
            name: "archive".into(),
            target: names(a),
            metrics: db.archive_io.metrics(secs),
            commit: None,
        });
        let mut classes = vec![
            ClassMetrics {
                name: "data".into(),
                target: names(&db.spec.data),
                metrics: db.data_io.metrics(secs),
                commit: None,
            },
            ClassMetrics {
                name: "log".into(),
                target: names(&db.spec.log),
                metrics: db.log_io.metrics(secs),
                commit: db.spec.test.writes().then(|| CommitMetrics {
                    committers: db.spec.sessions,
                    commits_per_s: round3(commits as f64 / secs),
                    latency_ms: db.commit_latency.summary_ms(),
                    mean_batch: if log_writes == 0 {
                        0.0
                    } else {
                        round3(commits as f64 / log_writes as f64)
                    },
                }),
            },
        ];
        // Further log members, each its own class (`log2`, `log3` ...): every log write
        // goes to each of them.
        for (i, (m, io)) in db.spec.log_members.iter().zip(&db.member_io).enumerate() {
            classes.push(ClassMetrics {
                name: format!("log{}", i + 2),
                target: names(m),
                metrics: io.metrics(secs),
                commit: None,
            });
        }
        classes.extend(archive);
        classes.extend(db.temp_class(secs));
        classes
    }

    /// The warm-up is over: the database's figures restart (`now_ns`: the new window's start).
    pub(crate) fn reset_stats(&mut self, now_ns: u64) {
        self.stats = DbStats::default();
        self.commit_latency.reset();
        self.tx_times.reset();
        self.rows_by_second.clear();
        self.data_io = HostStats::new(now_ns);
        self.log_io = HostStats::new(now_ns);
        self.archive_io = HostStats::new(now_ns);
        if let Some(o) = self.oracle.as_mut() {
            o.checkpoint_blocks = 0;
            o.cold_end_blocks = 0;
            o.undo_blocks_written = 0;
            o.space.reset();
            o.switch.reset();
            o.cleanout.left = 0;
            o.cleanout.delayed = 0;
            o.wasted_at_reset = self.log.wasted;
            o.write_ahead.reset();
        }
        self.hint_reset();
        for m in &mut self.member_io {
            *m = HostStats::new(now_ns);
        }
        if let Some(t) = self.temp.as_mut() {
            t.reset(now_ns);
        }
    }

    /// The buffer cache's hits and accesses counted so far.
    pub(crate) fn cache_counts(&self) -> (u64, u64) {
        (self.stats.hits, self.stats.accesses)
    }

    /// Rows per second in each interval of the series.
    pub(crate) fn series(&self, series: &mut [storlab_core::result::SeriesPoint]) {
        let db = self;
        let secs = INTERVAL_NS as f64 / 1e9;
        for (i, p) in series.iter_mut().enumerate() {
            let rows = db.rows_by_second.get(i).copied().unwrap_or(0);
            p.rows_per_s = Some(round_to(rows as f64 / secs, 1));
        }
    }

    /// Database figures of the measured window into `m`.
    pub(crate) fn metrics(&self, m: &mut storlab_core::result::Metrics, secs: f64) {
        let db = self;
        let st = &db.stats;
        m.rows_per_s = Some(round_to(st.rows as f64 / secs, 1));
        if db.spec.test.writes() {
            m.tx_per_min = Some(round_to(st.txns as f64 * 60.0 / secs, 1));
            m.wal_mb_per_s = Some(round3(st.log_bytes as f64 / 1e6 / secs));
            m.commit_ms = Some(db.commit_latency.summary_ms());
        }
        let (all, types) = db.tx_times.metrics(secs);
        m.tx_latency_ms = Some(all);
        m.transactions = types;
        let total = f64::from(db.spec.sessions) * secs * 1e9;
        let wait = |event: &str, ns: u64, n: u64| wait_event(event, ns, n, total);
        let oracle = db.spec.engine == Engine::Oracle;
        let name = |pg: &'static str, ora: &'static str| if oracle { ora } else { pg };
        let (read_wait_ns, read_waits) = db.single_read_waits();
        let mut waits = vec![
            wait(
                name("IO:DataFileRead", "db file sequential read"),
                read_wait_ns,
                read_waits,
            ),
            // A commit held for archiving waits on the archiver, not the log device: the
            // two events split the commit time.
            wait(
                name("IO:WALSync", "log file sync"),
                st.commit_wait_ns
                    .saturating_sub(st.archive_session_ns)
                    .saturating_sub(db.oracle.as_ref().map_or(0, |o| o.switch.session_ns)),
                st.commit_waits,
            ),
            // Oracle: a session writing a dirty buffer itself, or waiting for the writer to
            // free one.
            wait(
                name("IO:DataFileWrite", "free buffer waits"),
                st.victim_wait_ns + st.free_buffer_wait_ns,
                st.victim_waits + st.free_buffer_waits,
            ),
            wait(
                name("LWLock:BufferContent", "buffer busy waits"),
                db.pins.wait_ns,
                db.pins.waits,
            ),
            wait("CPU", st.cpu_ns, st.ops),
            wait("CPU:RunQueue", st.runqueue_ns, st.ops),
            WaitEvent {
                // Avg: how long the log writer was held each time.
                avg_ms: wait("", st.archive_hold_ns, st.archive_holds).avg_ms,
                ..wait(
                    name(
                        "LogSwitch:ArchiveNeeded",
                        "log file switch (archiving needed)",
                    ),
                    st.archive_session_ns,
                    1,
                )
            },
        ];
        if oracle {
            // The log writer's own time, as a share of the window (one writer).
            waits.push(WaitEvent {
                time_pct: round_to(100.0 * st.log_write_ns as f64 / (secs * 1e9), 1),
                ..wait("log file parallel write", st.log_write_ns, st.log_writes)
            });
            if let Some(o) = db.oracle.as_ref() {
                waits.push(wait("log buffer space", o.space.wait_ns, o.space.waits));
                // Avg: how long the log writer was held each time.
                let s = &o.switch;
                waits.push(WaitEvent {
                    avg_ms: wait("", s.hold_ns, s.holds).avg_ms,
                    ..wait("log file switch (checkpoint incomplete)", s.session_ns, 1)
                });
            }
            if st.log_writer_cpu_ns > 0 {
                // The log writer's CPU and run-queue time, as a share of the window.
                let ns = st.log_writer_cpu_ns + st.log_writer_runqueue_ns;
                waits.push(WaitEvent {
                    time_pct: round_to(100.0 * ns as f64 / (secs * 1e9), 1),
                    ..wait("log writer CPU and run queue", ns, st.log_writes)
                });
            }
            waits.extend(db.scan_wait_events(total));
        }
        waits.extend(db.temp_wait_events(total));
        waits.retain(|w| w.time_pct > 0.0 || w.avg_ms.is_some_and(|a| a > 0.0));
        waits.sort_by(|a, b| b.time_pct.total_cmp(&a.time_pct));
        m.waits = waits;
        db.job_metrics(m, secs);
        db.query_metrics(m);
    }

    /// The effective parameters, with figures measured over the `secs` of the window.
    pub(crate) fn parameters(&self, secs: f64) -> Option<serde_json::Value> {
        let db = self;
        let mut v = serde_json::to_value(&db.spec).ok()?;
        if let Some(o) = v.as_object_mut() {
            if db.spec.engine == Engine::Postgresql {
                // Oracle's keys only: PostgreSQL's parameters read as they always have.
                o.remove("engine");
                o.remove("log_buffer_bytes");
            }
            if let Some(c) = db.spec.character.as_ref() {
                o.insert(
                    "test".into(),
                    format!("characterization:{}", c.workload.name).into(),
                );
                db.character_parameters(o, secs);
                db.temp_parameters(o, secs);
            } else {
                db.layout_parameters(o);
            }
            // Measured in the window: what the transactions did per execution as planned,
            // block accesses the buffer cache served, and buffer misses the host's file
            // cache served.
            let st = &db.stats;
            o.insert("per_transaction".into(), st.planned.json());
            let pct = |n: u64, of: u64| round_to(100.0 * n as f64 / of.max(1) as f64, 1);
            o.insert("buffer_hit_pct".into(), pct(st.hits, st.accesses).into());
            let misses = st.accesses - st.hits;
            // Buffer misses whose victim was dirty: the session wrote it before reading
            // (PostgreSQL's backend writes; the writer's job is to keep this low).
            o.insert(
                "dirty_victim_pct".into(),
                pct(st.victim_waits, misses).into(),
            );
            if db.spec.os_cache_blocks > 0 {
                o.insert("os_cache_hit_pct".into(), pct(st.os_hits, misses).into());
            }
            o.insert(
                "writer_blocks_per_s".into(),
                round_to(st.writer_blocks as f64 / secs.max(1e-9), 1).into(),
            );
            if let Some(ora) = db.oracle.as_ref() {
                // Sessions' waits for a free buffer, and the writer's largest backlog (it
                // holds at most the cache's buffers while each stays pinned until written).
                o.insert(
                    "free_buffer_waits_per_s".into(),
                    round_to(st.free_buffer_waits as f64 / secs.max(1e-9), 1).into(),
                );
                o.insert(
                    "writer_backlog_max_blocks".into(),
                    st.writer_backlog_max_blocks.into(),
                );
                // Of them, those the incremental checkpoint wrote.
                o.insert(
                    "checkpoint_queue_blocks_per_s".into(),
                    round_to(ora.checkpoint_blocks as f64 / secs.max(1e-9), 1).into(),
                );
                // The checkpoint position's largest lag behind the log's end at a writer
                // round, as a share of a log file (the incremental checkpoint keeps it
                // near 90%).
                o.insert(
                    "checkpoint_lag_max_pct".into(),
                    round_to(
                        100.0 * ora.switch.lag_max as f64 / db.spec.log_file_bytes.max(1) as f64,
                        1,
                    )
                    .into(),
                );
                // And those it took from the cold end of the cache.
                o.insert(
                    "cold_end_blocks_per_s".into(),
                    round_to(ora.cold_end_blocks as f64 / secs.max(1e-9), 1).into(),
                );
                // And of all the writer wrote, the undo blocks.
                o.insert(
                    "undo_blocks_written_per_s".into(),
                    round_to(ora.undo_blocks_written as f64 / secs.max(1e-9), 1).into(),
                );
                // Blocks commits left uncleaned, and visits that cleaned one out (delayed
                // block cleanout); bytes of partly filled redo blocks skipped (redo wastage).
                let per_s = |n: u64| round_to(n as f64 / secs.max(1e-9), 1);
                o.insert(
                    "cleanouts_left_per_s".into(),
                    per_s(ora.cleanout.left).into(),
                );
                o.insert(
                    "delayed_cleanouts_per_s".into(),
                    per_s(ora.cleanout.delayed).into(),
                );
                o.insert(
                    "redo_wastage_bytes_per_s".into(),
                    per_s(db.log.wasted - ora.wasted_at_reset).into(),
                );
                db.write_ahead_parameters(o, secs);
            }
            db.hint_parameters(o, secs);
        }
        db.job_parameters(&mut v);
        Some(v)
    }

    /// The built-in tests' tables in the page space.
    fn layout_parameters(&self, o: &mut serde_json::Map<String, serde_json::Value>) {
        let db = self;
        let layout = crate::db::layout::Layout::new(&db.spec.tables);
        let segs = &layout.segments;
        let sum = |f: &dyn Fn(&Segment) -> u64| segs.iter().map(f).sum::<u64>();
        o.insert(
            "index_levels".into(),
            segs.iter().map(|g| g.level_blocks.len()).max().into(),
        );
        o.insert("keys_per_leaf".into(), segs[0].table.keys_per_leaf().into());
        o.insert("rows_per_block".into(), segs[0].rows_per_block.into());
        o.insert("heap_blocks".into(), sum(&|g| g.table.heap_blocks()).into());
        o.insert(
            "index_blocks".into(),
            sum(&|g| g.table.index_blocks()).into(),
        );
        o.insert("database_bytes".into(), (db.page_blocks * 8192).into());
    }
}
