//! The log writer as a process needing a CPU (`log_writer_cpu`), in isolation: its burst
//! before each write lengthens the write cycle, commits that arrive meanwhile share the next
//! write, and on a busy host it waits in the run queue behind the sessions.

use storlab_core::result::Run;

use super::database::wait;
use super::oracle_engine::{class, run_split};

/// Update-row on a table the buffer cache holds (no reads), with no session CPU unless
/// `extra` gives some: the log writer's cycle alone paces the commits.
fn cached(extra: &str) -> Run {
    run_split(
        &format!(
            "test = \"dpaws/update-row\"\ntables = 1\nrow_bytes = 100\nsessions = 8\nrows = 100000\nbuffer = \"256MiB\"\n\
             cpu_per_block = \"0\"\ncpu_per_row = \"0\"\n\
             cpu_per_statement = \"0\"\ncpu_per_commit = \"0\"\n{extra}"
        ),
        5,
        5,
    )
}

fn log_writes_per_s(r: &Run) -> f64 {
    class(r, "log").metrics.write_iops
}

/// With sessions that use no CPU, the log writer is always busy: each cycle is its 2 ms
/// burst plus the write, back to back, so writes per second are 1 / (2 ms + write time);
/// the bursts never queue (the sessions leave the CPUs idle).
#[test]
fn the_log_writers_burst_paces_the_write_cycle_and_groups_the_commits() {
    let (plain, busy) = (cached(""), cached("log_writer_cpu = \"2ms\""));
    let (_, write_ms) = wait(&busy, "log file parallel write");
    let cycle_ms = 2.0 + write_ms;
    let writes = log_writes_per_s(&busy);
    assert!(
        (writes * cycle_ms / 1e3 - 1.0).abs() < 0.05,
        "{writes} writes/s; a cycle of {cycle_ms} ms allows {}",
        1e3 / cycle_ms
    );
    let (_, lgwr_ms) = wait(&busy, "log writer CPU and run queue");
    assert!((lgwr_ms - 2.0).abs() < 0.01, "no run queue: {lgwr_ms} ms");
    // The committers wait through the burst: log file sync covers it and the write.
    let (_, sync_ms) = wait(&busy, "log file sync");
    assert!(sync_ms >= cycle_ms * 0.95, "log file sync {sync_ms} ms");
    assert_eq!(
        wait(&plain, "log writer CPU and run queue"),
        (0.0, 0.0),
        "no burst, no event"
    );
}

/// Sessions committing every 10 ms or so (think time): a write of a tenth of a millisecond
/// carries about one commit; with the log writer's 2 ms burst before each write, the
/// commits that arrive during a cycle share the next write.
#[test]
fn a_longer_write_cycle_groups_more_commits() {
    let run = |extra: &str| cached(&format!("think = \"10ms\"\n{extra}"));
    let (plain, busy) = (run(""), run("log_writer_cpu = \"2ms\""));
    let per_write = |r: &Run| r.metrics.rows_per_s.unwrap_or(0.0) / log_writes_per_s(r);
    assert!(per_write(&plain) < 1.2, "{}", per_write(&plain));
    assert!(
        per_write(&busy) > 1.25,
        "commits per write {} with the burst, {} without",
        per_write(&busy),
        per_write(&plain)
    );
}

/// One CPU and sessions that each need 1 ms of it per row: the CPU bounds the rows at
/// 1,000 a second, the log writer's 0.2 ms burst waits in the run queue behind up to seven
/// sessions' bursts, so its cycle lasts milliseconds and gathers several commits per write;
/// with 16 CPUs the same burst never waits.
#[test]
fn on_a_busy_host_the_log_writer_waits_in_the_run_queue() {
    let run = |cpus: u32| {
        cached(&format!(
            "client_cpu = \"1ms\"\ncpus = {cpus}\nlog_writer_cpu = \"200us\""
        ))
    };
    let (one, many) = (run(1), run(16));
    let rows = one.metrics.rows_per_s.unwrap_or(0.0);
    assert!(rows <= 1_000.0 && rows > 900.0, "{rows} rows/s on one CPU");
    let (_, lgwr_one) = wait(&one, "log writer CPU and run queue");
    let (_, lgwr_many) = wait(&many, "log writer CPU and run queue");
    assert!(
        lgwr_one > 1.0,
        "the burst queues behind sessions: {lgwr_one} ms"
    );
    assert!((lgwr_many - 0.2).abs() < 0.01, "16 CPUs: {lgwr_many} ms");
    let per_write = rows / log_writes_per_s(&one);
    assert!(per_write > 2.0, "{per_write} commits per write");
}

/// Sessions that think between transactions ask for a CPU when their think time is over: a
/// thinking session holds no CPU. Eight sessions thinking 10 ms between bursts of 0.1 ms
/// keep two CPUs about 4% busy, so the log writer's 0.2 ms burst all but never waits; a
/// burst reserved when the think time began would hold a CPU idle through it and keep the
/// log writer waiting milliseconds.
#[test]
fn a_thinking_session_holds_no_cpu() {
    let run =
        cached("think = \"10ms\"\nclient_cpu = \"100us\"\ncpus = 2\nlog_writer_cpu = \"200us\"");
    let (_, lgwr_ms) = wait(&run, "log writer CPU and run queue");
    assert!(
        lgwr_ms < 0.2 * 1.2,
        "the log writer's 0.2 ms burst took {lgwr_ms} ms with the run queue"
    );
}
