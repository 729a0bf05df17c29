//! The database tests: each suite's tests declared once, for `storlab db` (which runs them on
//! a real PostgreSQL) and for the simulator's database model (which runs the same names on a
//! simulated stack). A name means the same work on both sides: the same rows per statement,
//! the same clients when none are given, the same think time and commit interval. The tests
//! the simulator runs declare their transactions in [`mix`]: the simulator plans their
//! operations from that declaration.

pub mod mix;

/// What an operation of a test does to the rows it touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reads rows by primary key (one row, or a range of consecutive keys).
    Read,
    /// Updates rows by primary key and commits.
    Update,
    /// Inserts rows at the end of a table, committing every `rows_per_commit`.
    Insert,
    /// A transaction mix: point reads, and updates with an insert into a history table.
    Mix,
    /// Bulk work on whole tables or large slices (scans, COPY, insert-select, deletes, DDL).
    Bulk,
}

impl Access {
    /// The test changes data (and so writes the log and commits).
    pub fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }

    /// Lower-case name for tables and messages.
    pub fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Update => "update",
            Access::Insert => "insert",
            Access::Mix => "read/update mix",
            Access::Bulk => "bulk",
        }
    }
}

/// One test of a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DbTestDef {
    /// `suite/test`, as both `storlab db --suite S --test T` and `storlab sim --db-test` name it.
    pub name: &'static str,
    /// Clients (sessions) when none are given.
    pub default_clients: u32,
    /// Rows one statement reads or changes (range tests: the consecutive keys of the range).
    pub rows_per_op: u64,
    /// Rows per commit (0: the test does not commit per operation).
    pub rows_per_commit: u64,
    /// Think time between a client's operations, ms.
    pub think_ms: u64,
    /// What each operation does.
    pub access: Access,
    /// Tables the suite creates for this test.
    pub tables: &'static str,
    /// Row size of the suite's tables, bytes: `[smallest, largest]` (equal for one size),
    /// spread evenly over the tables.
    pub row_bytes: [u64; 2],
    /// Runs once (the timed unit is the whole statement sequence), not in a loop.
    pub once: bool,
    /// The simulator's database model runs it (else only `storlab db` does).
    pub simulated: bool,
    /// `storlab db` runs it on a real PostgreSQL (else only the simulator does).
    pub real: bool,
    /// One sentence for `--test list` and the docs.
    pub summary: &'static str,
    /// What the simulator's sessions run: the test's transaction types, each with its
    /// statements ([`mix`]); empty for the tests it runs otherwise (jobs, queries) or not at
    /// all.
    pub mix: &'static [mix::TxType],
}

impl DbTestDef {
    /// The suite (`dpaws`).
    pub fn suite(&self) -> &'static str {
        self.name.split_once('/').map_or(self.name, |(s, _)| s)
    }

    /// The test within its suite (`update-row`).
    pub fn test(&self) -> &'static str {
        self.name.split_once('/').map_or(self.name, |(_, t)| t)
    }

    /// Tables the suite creates for it: DPAWS's 15, one for the others.
    pub fn table_count(&self) -> u32 {
        if self.suite() == "dpaws" {
            DPAWS_TABLES
        } else {
            1
        }
    }

    /// Its operations touch a range of consecutive keys.
    pub fn ranged(&self) -> bool {
        self.rows_per_op > 1 && matches!(self.access, Access::Read | Access::Update)
    }
}

/// The suites, in the order they are listed.
pub const SUITES: [&str; 3] = ["dpaws", "orabench", "oltp"];

/// DPAWS: tables.
pub const DPAWS_TABLES: u32 = 15;
/// DPAWS: rows each range test statement touches.
pub const DPAWS_RANGE_ROWS: u64 = 10_000;
/// DPAWS: row sizes, smallest and largest.
pub const DPAWS_ROW_BYTES: [u64; 2] = [14, 805];
/// OLTP: think time between a client's transactions, ms.
pub const OLTP_THINK_MS: u64 = 10;

const DPAWS: &str = "15 tables dpaws_01 .. dpaws_15, bigint primary key";
const OB_BIG: &str = "ob_big, range-partitioned in 32 partitions on id";
const OB_LOAD: &str = "ob_load (identity primary key)";
const OLTP: &str = "oltp_item (primary key) and oltp_hist (appended)";
const OB_QUERY: &str = "fact (512 MiB) joined to dimension (128 MiB)";

const fn def(
    name: &'static str,
    default_clients: u32,
    (rows_per_op, rows_per_commit): (u64, u64),
    access: Access,
    (tables, row_bytes): (&'static str, [u64; 2]),
    (once, simulated): (bool, bool),
    summary: &'static str,
) -> DbTestDef {
    DbTestDef {
        name,
        default_clients,
        rows_per_op,
        rows_per_commit,
        think_ms: 0,
        access,
        tables,
        row_bytes,
        once,
        simulated,
        real: true,
        summary,
        mix: &[],
    }
}

/// A test the simulator runs as the transaction mix `mix`.
const fn with_mix(mut d: DbTestDef, mix: &'static [mix::TxType]) -> DbTestDef {
    d.mix = mix;
    d
}

/// A test only the simulator runs.
const fn simulated_only(mut d: DbTestDef) -> DbTestDef {
    d.real = false;
    d
}

const fn oltp(name: &'static str, clients: u32, summary: &'static str) -> DbTestDef {
    let mut d = def(
        name,
        clients,
        (1, 3),
        Access::Mix,
        (OLTP, [100, 100]),
        (false, true),
        summary,
    );
    d.think_ms = OLTP_THINK_MS;
    d.mix = &mix::OLTP;
    d
}

/// Every test of every suite (`dpaws/cycle` is not a test: it runs the four DPAWS tests in
/// turn).
pub const DB_TESTS: &[DbTestDef] = &[
    with_mix(
        def(
            "dpaws/update-row",
            80,
            (1, 1),
            Access::Update,
            (DPAWS, DPAWS_ROW_BYTES),
            (false, true),
            "update one random row of a random table by primary key, commit",
        ),
        &mix::UPDATE_ROW,
    ),
    with_mix(
        def(
            "dpaws/update-range",
            32,
            (DPAWS_RANGE_ROWS, DPAWS_RANGE_ROWS),
            Access::Update,
            (DPAWS, DPAWS_ROW_BYTES),
            (false, true),
            "update 10,000 consecutive rows of a random table, commit",
        ),
        &mix::UPDATE_RANGE,
    ),
    with_mix(
        def(
            "dpaws/select-row",
            80,
            (1, 0),
            Access::Read,
            (DPAWS, DPAWS_ROW_BYTES),
            (false, true),
            "select one random row of a random table by primary key",
        ),
        &mix::SELECT_ROW,
    ),
    with_mix(
        def(
            "dpaws/select-range",
            32,
            (DPAWS_RANGE_ROWS, 0),
            Access::Read,
            (DPAWS, DPAWS_ROW_BYTES),
            (false, true),
            "select 10,000 consecutive rows of a random table",
        ),
        &mix::SELECT_RANGE,
    ),
    with_mix(
        def(
            "orabench/load-conventional",
            8,
            (1, 2),
            Access::Insert,
            (OB_LOAD, [270, 270]),
            (false, true),
            "insert rows one statement each at the end of a table, commit every 2",
        ),
        &mix::LOAD,
    ),
    def(
        "orabench/load-bulk",
        4,
        (10_000, 10_000),
        Access::Bulk,
        (OB_LOAD, [270, 270]),
        (false, false),
        "COPY batches of 10,000 rows",
    ),
    def(
        "orabench/select-random",
        32,
        (1, 0),
        Access::Read,
        (OB_BIG, [300, 300]),
        (false, false),
        "select one row of the big table by primary key",
    ),
    def(
        "orabench/update-random",
        32,
        (1, 1),
        Access::Update,
        (OB_BIG, [300, 300]),
        (false, false),
        "update one row of the big table by primary key, commit",
    ),
    def(
        "orabench/scan-full",
        1,
        (0, 0),
        Access::Bulk,
        (OB_BIG, [300, 300]),
        (false, false),
        "a full scan of the big table",
    ),
    def(
        "orabench/aggregate",
        1,
        (0, 0),
        Access::Bulk,
        (OB_BIG, [300, 300]),
        (false, false),
        "a grouped aggregate over the big table",
    ),
    def(
        "orabench/plpgsql",
        4,
        (0, 0),
        Access::Bulk,
        (OB_BIG, [300, 300]),
        (false, false),
        "a server-side PL/pgSQL loop of 10,000 iterations",
    ),
    def(
        "orabench/insert-select",
        2,
        (10_000, 10_000),
        Access::Bulk,
        (OB_BIG, [300, 300]),
        (false, false),
        "insert-select of a 10,000-row slice of the big table",
    ),
    def(
        "orabench/delete-batched",
        1,
        (1_000, 1_000),
        Access::Bulk,
        ("ob_del", [270, 270]),
        (false, false),
        "delete rows in batches of 1,000, committing each batch",
    ),
    def(
        "orabench/drop-column",
        1,
        (0, 0),
        Access::Bulk,
        (OB_BIG, [300, 300]),
        (true, false),
        "drop a column of a copy of a partition, then checkpoint (once)",
    ),
    def(
        "orabench/create-table-size",
        1,
        (0, 0),
        Access::Bulk,
        (OB_BIG, [300, 300]),
        (true, false),
        "write a new table of a given size (once)",
    ),
    oltp(
        "oltp/medium",
        50,
        "60% read transactions of 5 primary-key reads, 40% write transactions updating 2 rows \
         and inserting 1; 10 ms think time; 50 clients",
    ),
    oltp("oltp/heavy", 100, "the oltp/medium mix with 100 clients"),
    // Analytic queries: each run is one query, its elapsed time the transaction's response.
    simulated_only(def(
        "orabench/analytic-query",
        4,
        (0, 0),
        Access::Bulk,
        (OB_QUERY, [100, 100]),
        (false, true),
        "full scans of a fact and a dimension table, a hash join whose build side exceeds the \
         work memory and a sort spilling to temp; its elapsed time is the response time \
         (simulated only)",
    )),
];

// Jobs: fixed-size work run once to completion and reported as elapsed time (the
// maintenance tests of the published studies). Only the simulator runs the `job/` names;
// `orabench/delete-batched` is the real suite's test of the same work (delete every row of
// a table in batches, committing each), so the simulator runs it under that name.

/// The suite of the jobs that have no test in `storlab db`'s suites.
pub const JOB_SUITE: &str = "job";

const fn job(name: &'static str, rows_per_commit: u64, summary: &'static str) -> DbTestDef {
    def(
        name,
        1,
        (0, rows_per_commit),
        Access::Bulk,
        ("job_t", [300, 300]),
        (true, true),
        summary,
    )
}

/// The jobs only the simulator runs (`orabench/delete-batched`, in [`DB_TESTS`], is a job
/// too: see [`JOB_NAMES`]).
pub const JOB_TESTS: &[DbTestDef] = &[
    job(
        "job/create-tablespace",
        0,
        "create a tablespace of `files` data files of `size` each at once, formatted by \
         large sequential writes",
    ),
    job(
        "job/copy-file",
        0,
        "copy a file of `size` from the `source` volume to the data volume, `outstanding` \
         I/Os in flight",
    ),
    job(
        "job/load-direct",
        0,
        "load `rows` rows of `row_bytes` read from a file on `source` by direct path: \
         formatted blocks written above the high-water mark, minimal redo",
    ),
    job(
        "job/load-conventional",
        2,
        "load `rows` rows of `row_bytes` read from a file on `source` through the buffer \
         cache, with redo and undo, committing every `rows_per_commit`",
    ),
    job(
        "job/index-build",
        0,
        "build an index on a table of `rows` rows: full scan with multiblock reads, sort in \
         `sort_memory` (sorted runs written and read once when it does not fit), index \
         written by direct path",
    ),
    job(
        "job/update-all",
        200_000,
        "update a column no index covers (`indexed_update = true`: a column with an index of \
         its own, whose entry moves in it) in every row of a table of `rows` rows in a full \
         scan, committing every `rows_per_commit`",
    ),
];

/// Every job's name: the jobs of [`JOB_TESTS`] and the real suites' tests that are jobs.
pub const JOB_NAMES: [&str; 7] = [
    "job/create-tablespace",
    "job/copy-file",
    "job/load-direct",
    "job/load-conventional",
    "job/index-build",
    "job/update-all",
    "orabench/delete-batched",
];

/// The job named `name` (a [`JOB_TESTS`] entry, or a real suite's test that is a job).
pub fn find_job(name: &str) -> Option<&'static DbTestDef> {
    if !JOB_NAMES.contains(&name) {
        return None;
    }
    JOB_TESTS
        .iter()
        .find(|d| d.name == name)
        .or_else(|| find(name))
}

/// The test named `suite/test`.
pub fn find(name: &str) -> Option<&'static DbTestDef> {
    DB_TESTS.iter().find(|d| d.name == name)
}

/// The tests of `suite`, in declaration order.
pub fn suite_tests(suite: &str) -> impl Iterator<Item = &'static DbTestDef> + '_ {
    DB_TESTS.iter().filter(move |d| d.suite() == suite)
}

/// Row size of table `k` (0-based) of `tables` whose sizes spread evenly over `row_bytes`.
pub fn row_bytes_of_table(row_bytes: [u64; 2], k: u64, tables: u64) -> u64 {
    let [lo, hi] = row_bytes;
    if tables > 1 {
        lo + hi.saturating_sub(lo) * k / (tables - 1)
    } else {
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_belongs_to_a_listed_suite_once() {
        for d in DB_TESTS {
            assert!(SUITES.contains(&d.suite()), "{}", d.name);
            assert_eq!(DB_TESTS.iter().filter(|e| e.name == d.name).count(), 1);
            assert!(d.default_clients >= 1, "{}", d.name);
            assert!(d.row_bytes[0] <= d.row_bytes[1], "{}", d.name);
        }
        assert_eq!(suite_tests("dpaws").count(), 4);
        assert_eq!(
            find("dpaws/update-range").map(|d| d.rows_per_op),
            Some(10_000)
        );
        assert!(find("dpaws/update-range").is_some_and(|d| d.ranged()));
        assert!(DB_TESTS.iter().all(|d| d.real || d.simulated));
        assert!(find("orabench/analytic-query").is_some_and(|d| d.simulated && !d.real));
        assert!(!find("dpaws/update-row").is_some_and(|d| d.ranged()));
        assert_eq!(row_bytes_of_table(DPAWS_ROW_BYTES, 14, 15), 805);
        assert_eq!(row_bytes_of_table(DPAWS_ROW_BYTES, 0, 15), 14);
    }

    #[test]
    fn a_mix_is_declared_for_the_tests_the_sessions_run_and_agrees_with_the_test() {
        for d in DB_TESTS.iter().filter(|d| !d.mix.is_empty()) {
            assert!(d.simulated, "{}", d.name);
            let writes = d.mix.iter().any(|t| t.writes());
            assert_eq!(writes, d.access.writes(), "{}", d.name);
            assert_eq!(d.mix.len() > 1, d.access == Access::Mix, "{}", d.name);
            let ranged = d
                .mix
                .iter()
                .flat_map(|t| t.statements)
                .any(|s| s.rows == mix::Rows::Range);
            assert_eq!(ranged, d.ranged(), "{}", d.name);
        }
        let with_mix: Vec<&str> = DB_TESTS
            .iter()
            .filter(|d| !d.mix.is_empty())
            .map(|d| d.name)
            .collect();
        assert_eq!(with_mix.len(), 7, "{with_mix:?}");
        assert!(find("orabench/analytic-query").is_some_and(|d| d.mix.is_empty()));
    }

    #[test]
    fn every_job_is_declared_once_and_runs_once() {
        for name in JOB_NAMES {
            let d = find_job(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(d.name, name);
            let in_suites = DB_TESTS.iter().filter(|e| e.name == name).count();
            let in_jobs = JOB_TESTS.iter().filter(|e| e.name == name).count();
            assert_eq!(in_suites + in_jobs, 1, "{name}");
            assert!(in_jobs == 0 || d.suite() == JOB_SUITE, "{name}");
        }
        assert_eq!(JOB_TESTS.len() + 1, JOB_NAMES.len());
        assert!(JOB_TESTS.iter().all(|d| d.once && d.simulated));
        assert_eq!(
            find_job("orabench/delete-batched").map(|d| d.rows_per_commit),
            Some(1_000)
        );
        assert!(find_job("dpaws/update-row").is_none());
        assert!(
            find("job/copy-file").is_none(),
            "jobs stay out of the suites"
        );
    }
}
