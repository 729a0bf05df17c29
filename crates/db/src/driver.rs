//! The client driver: one async task and one connection per client, prepared statements,
//! per-client random streams, latency per statement kind, commit latency, per-second counts.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use storlab_core::host_stats::INTERVAL_NS;
use storlab_core::rng::{Purpose, Rng};
use storlab_core::LatencyHistogram;
use tokio_postgres::{CancelToken, Client, Config, NoTls, Statement};

use crate::error::DbError;
use crate::suites::{self, Op, TestDef};

/// What one operation did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Outcome {
    /// Rows processed.
    pub rows: u64,
    /// Time of the COMMIT, when the operation committed explicitly.
    pub commit_ns: Option<u64>,
    /// Statement kind for the latency breakdown.
    pub label: &'static str,
    /// Transaction type, when the test has several (`read`, `write` of the OLTP mix); else
    /// the test's one type (its declared access: `read`, `update`, `insert`, `bulk`).
    pub tx_type: Option<&'static str>,
    /// Nothing left to do (batched delete ran out of rows).
    pub exhausted: bool,
    /// Pause before the client's next operation (not counted in its latency).
    pub think: Duration,
    /// Bytes written, for tests measured in MB/s.
    pub bytes: u64,
}

impl Outcome {
    pub(crate) fn rows(rows: u64) -> Outcome {
        Outcome {
            rows,
            commit_ns: None,
            label: "statement",
            tx_type: None,
            exhausted: false,
            think: Duration::ZERO,
            bytes: 0,
        }
    }
}

/// What one client measured in the window.
#[derive(Default)]
pub(crate) struct ClientResult {
    pub latency: BTreeMap<&'static str, LatencyHistogram>,
    /// Response time of each transaction type: from sending the transaction's first
    /// statement to its commit being acknowledged (think time left out).
    pub transactions: BTreeMap<&'static str, LatencyHistogram>,
    /// Every operation's response time (each operation is one transaction).
    pub all: LatencyHistogram,
    pub commits: LatencyHistogram,
    pub rows: u64,
    pub ops: u64,
    pub bytes: u64,
    /// Operations and rows per second of the window.
    pub per_second: Vec<(u64, u64)>,
    pub error: Option<String>,
}

impl ClientResult {
    pub(crate) fn merge(&mut self, o: &ClientResult) {
        for (k, h) in &o.latency {
            self.latency.entry(k).or_default().merge(h);
        }
        for (k, h) in &o.transactions {
            self.transactions.entry(k).or_default().merge(h);
        }
        self.all.merge(&o.all);
        self.commits.merge(&o.commits);
        self.rows += o.rows;
        self.ops += o.ops;
        self.bytes += o.bytes;
        if self.per_second.len() < o.per_second.len() {
            self.per_second.resize(o.per_second.len(), (0, 0));
        }
        for (a, b) in self.per_second.iter_mut().zip(&o.per_second) {
            a.0 += b.0;
            a.1 += b.1;
        }
        if self.error.is_none() {
            self.error.clone_from(&o.error);
        }
    }
}

/// The run's clock and stop signal, shared by the clients. An automatic warm-up moves the
/// measured window once the run is steady; until then the clients count what they complete
/// in `warm` (operations, rows, latency ns) for the steady-state test.
#[derive(Clone)]
pub(crate) struct Window {
    bounds: Arc<std::sync::RwLock<(Instant, Instant)>>,
    pub warm: Arc<[std::sync::atomic::AtomicU64; 3]>,
    pub stop: Arc<AtomicBool>,
}

impl Window {
    /// Measures from `measure_from` to `end`.
    pub fn new(measure_from: Instant, end: Instant) -> Window {
        Window {
            bounds: Arc::new(std::sync::RwLock::new((measure_from, end))),
            warm: Arc::default(),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Start and end of the measured window.
    pub fn bounds(&self) -> (Instant, Instant) {
        *self.bounds.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the measured window (the end of an automatic warm-up).
    pub fn set_bounds(&self, measure_from: Instant, end: Instant) {
        *self.bounds.write().unwrap_or_else(|e| e.into_inner()) = (measure_from, end);
    }

    pub fn measure_from(&self) -> Instant {
        self.bounds().0
    }

    pub fn end(&self) -> Instant {
        self.bounds().1
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || storlab_io::signal::stop_requested()
            || Instant::now() >= self.end()
    }
}

/// Connects a client; its connection runs on the runtime.
pub(crate) async fn connect(config: &Config) -> Result<Client, DbError> {
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

async fn prepare(c: &Client, op: Op, schema: &str) -> Result<Vec<Statement>, DbError> {
    match op {
        Op::DpawsUpdateRow | Op::DpawsUpdateRange | Op::DpawsSelectRow | Op::DpawsSelectRange => {
            suites::dpaws::prepare(c, op, schema).await
        }
        Op::OltpMix => suites::oltp::prepare(c, schema).await,
        _ => suites::orabench::prepare(c, op, schema).await,
    }
}

async fn one_op(
    c: &Client,
    op: Op,
    st: &[Statement],
    schema: &str,
    rng: &mut Rng,
    scale: u64,
) -> Result<Outcome, DbError> {
    match op {
        Op::DpawsUpdateRow | Op::DpawsUpdateRange | Op::DpawsSelectRow | Op::DpawsSelectRange => {
            suites::dpaws_op(c, op, st, rng, scale).await
        }
        Op::OltpMix => suites::oltp_op(c, st, rng, scale).await,
        _ => suites::orabench_op(c, op, st, schema, rng, scale).await,
    }
}

/// What every client of a test is given.
#[derive(Clone)]
pub(crate) struct ClientSpec {
    pub config: Config,
    pub test: TestDef,
    pub schema: String,
    pub scale: u64,
    pub seed: u64,
    pub window: Window,
    /// Think time over the test's own.
    pub think: Option<crate::options::Think>,
    /// Each client has its session publish its statistics when it stops
    /// (`pg_stat_force_next_flush`, PostgreSQL 15 on).
    pub flush_stats: bool,
}

/// Asks the session to publish its pending statistics as its statement ends, before the
/// client sees the result. A backend publishes them at most once a second otherwise: up to
/// the last second of a client's WAL and commits (half of a 2 s window) would reach
/// pg_stat_wal and pg_stat_database only as its session ends, after the window's closing
/// snapshot. The read of pg_class gives a session whose only pending statistics are its
/// transaction counts something to publish them with (it would skip even a forced flush),
/// and `pg_stat` in the text keeps the statement out of the window's statements, as
/// storlab's own monitoring.
const FLUSH_STATS_SQL: &str = "SELECT pg_stat_force_next_flush() \
     FROM (SELECT 1 FROM pg_catalog.pg_class LIMIT 1) AS one";

/// A test's clients, spread over a few OS threads that each run a single-threaded runtime
/// (as pgbench's `-j` threads each drive their share of connections).
///
/// tokio-postgres hands every request from the client's task to its connection's task and the
/// reply back. On one thread those hand-offs are queue pushes. On the work-stealing runtime
/// the clients used before, they woke parked workers (a futex call and a context switch each,
/// dear on a virtual machine): up to twice pgbench's context switches per transaction and
/// about 1.5 times its client CPU, against pgbench's count of switches now.
pub(crate) struct ClientThreads {
    threads: Vec<std::thread::JoinHandle<ClientResult>>,
}

impl ClientThreads {
    /// Starts `clients` clients on at most as many threads as the machine has CPUs; client
    /// `i` runs on thread `i % threads`.
    pub(crate) fn start(clients: u32, spec: &ClientSpec) -> Result<ClientThreads, DbError> {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        let count = cpus.min(clients).max(1);
        let mut threads = Vec::new();
        for t in 0..count {
            let spec = spec.clone();
            let mine: Vec<u32> = (t..clients).step_by(count as usize).collect();
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| DbError::Failed(format!("cannot start a client runtime: {e}")))?;
            let thread = std::thread::Builder::new()
                .name(format!("storlab-clients-{t}"))
                .spawn(move || rt.block_on(run_clients(mine, spec)))
                .map_err(|e| DbError::Failed(format!("cannot start a client thread: {e}")))?;
            threads.push(thread);
        }
        Ok(ClientThreads { threads })
    }

    /// True when every client has stopped (the window ended, or they all failed).
    pub(crate) fn finished(&self) -> bool {
        self.threads.iter().all(|t| t.is_finished())
    }

    /// Waits for the clients (stop them first through the window) and merges their results.
    pub(crate) async fn join(self) -> ClientResult {
        let joined = tokio::task::spawn_blocking(move || {
            let mut total = ClientResult::default();
            for t in self.threads {
                match t.join() {
                    Ok(r) => total.merge(&r),
                    Err(_) => {
                        total
                            .error
                            .get_or_insert_with(|| "a client thread panicked".into());
                    }
                }
            }
            total
        })
        .await;
        joined.unwrap_or_else(|e| ClientResult {
            error: Some(format!("joining the client threads failed: {e}")),
            ..ClientResult::default()
        })
    }
}

/// Cancel tokens of one thread's clients, for a stop requested in the middle of a statement.
type Cancels = Arc<std::sync::Mutex<Vec<CancelToken>>>;

/// One thread's clients, each its own task, until the window ends; their results merged.
/// On Ctrl-C or SIGTERM every client's running statement is cancelled on the server, so a
/// long one (a full scan) does not hold the stop up.
async fn run_clients(indexes: Vec<u32>, spec: ClientSpec) -> ClientResult {
    let cancels: Cancels = Arc::default();
    let tasks: Vec<_> = indexes
        .into_iter()
        .map(|i| {
            let s = spec.clone();
            tokio::spawn(client_loop(s, i, cancels.clone()))
        })
        .collect();
    let watcher = tokio::spawn(cancel_on_stop(cancels));
    let mut total = ClientResult::default();
    for t in tasks {
        match t.await {
            Ok(r) => total.merge(&r),
            Err(e) => {
                total
                    .error
                    .get_or_insert_with(|| format!("client task failed: {e}"));
            }
        }
    }
    watcher.abort();
    total
}

/// Cancels the clients' statements once a stop is requested (polled every 50 ms).
async fn cancel_on_stop(cancels: Cancels) {
    while !storlab_io::signal::stop_requested() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let tokens: Vec<CancelToken> = match cancels.lock() {
        Ok(list) => list.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    for t in tokens {
        let _ = t.cancel_query(NoTls).await;
    }
}

/// One client's loop until the window ends.
async fn client_loop(spec: ClientSpec, index: u32, cancels: Cancels) -> ClientResult {
    let mut r = ClientResult::default();
    match client_body(&spec, index, &cancels, &mut r).await {
        // A statement cancelled because of the stop is not a failure.
        Err(_) if storlab_io::signal::stop_requested() => {}
        Err(e) => r.error = Some(e.to_string()),
        Ok(()) => {}
    }
    r
}

/// One pause of a client between transactions.
fn think_time(t: crate::options::Think, rng: &mut Rng) -> Duration {
    let ns = if t.exponential {
        rng.exp(t.mean_ns as f64)
            .min(crate::options::MAX_THINK_NS as f64 * 10.0)
    } else {
        t.mean_ns as f64
    };
    Duration::from_nanos(ns as u64)
}

async fn client_body(
    spec: &ClientSpec,
    index: u32,
    cancels: &Cancels,
    r: &mut ClientResult,
) -> Result<(), DbError> {
    let (test, schema, scale, w) = (spec.test, spec.schema.as_str(), spec.scale, &spec.window);
    let c = connect(&spec.config).await?;
    if let Ok(mut list) = cancels.lock() {
        list.push(c.cancel_token());
    }
    let st = prepare(&c, test.op, schema).await?;
    let mut rng = Rng::derive(spec.seed, Purpose::Job, index as u64);
    // Think times from a stream of their own: the operations stay those of the same seed.
    let mut think_rng = Rng::derive(spec.seed, Purpose::Arrival, index as u64);
    while !w.stopping() {
        let t0 = Instant::now();
        let out = one_op(&c, test.op, &st, schema, &mut rng, scale).await?;
        let t1 = Instant::now();
        let (measure_from, end) = w.bounds();
        if t1 < measure_from {
            let ns = t1.duration_since(t0).as_nanos() as u64;
            for (counter, n) in w.warm.iter().zip([1, out.rows, ns]) {
                counter.fetch_add(n, Ordering::Relaxed);
            }
        }
        if t1 >= measure_from && t1 <= end {
            let ns = t1.duration_since(t0).as_nanos() as u64;
            r.all.record(ns);
            r.latency.entry(out.label).or_default().record(ns);
            let tx_type = out.tx_type.unwrap_or(test.def.access.name());
            r.transactions.entry(tx_type).or_default().record(ns);
            if let Some(c) = out.commit_ns {
                r.commits.record(c);
            }
            r.rows += out.rows;
            r.ops += 1;
            r.bytes += out.bytes;
            let i = (t1.duration_since(measure_from).as_nanos() as u64 / INTERVAL_NS) as usize;
            if i >= r.per_second.len() {
                r.per_second.resize(i + 1, (0, 0));
            }
            r.per_second[i].0 += 1;
            r.per_second[i].1 += out.rows;
        }
        if out.exhausted {
            break;
        }
        let think = match spec.think {
            Some(t) => think_time(t, &mut think_rng),
            None => out.think,
        };
        if !think.is_zero() {
            tokio::time::sleep(think).await;
        }
    }
    if spec.flush_stats {
        c.batch_execute(FLUSH_STATS_SQL).await?;
    }
    Ok(())
}
