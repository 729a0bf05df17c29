//! The reference tables of docs/: every array and workload key (docs/config.md), every disk
//! model parameter with the built-in models' values (docs/models.md), every database test and
//! `[database]` key (docs/db.md), rendered from the declarations the parsers use.
//!
//! `cargo run --release -p storlab-sim --example docs` writes them; a test fails when the
//! files in docs/ differ from what the declarations give.

mod selects_write;

use storlab_core::dbtest::{find_job, DB_TESTS, JOB_NAMES, JOB_TESTS};
use storlab_core::keys::{markdown_table, Key};
use storlab_core::profile::IO_STREAM_KEYS;

use super::database::{DATABASE_KEYS, JOB_KEYS};
use super::keys::{Section, ARRAY_SECTIONS, HDD_KEYS, SSD_KEYS, WORKLOAD_SECTIONS};
use crate::device::models::{builtin_model, BUILTIN_MODELS};

/// The command that rewrites the generated docs.
pub const REFRESH: &str = "cargo run --release -p storlab-sim --example docs";

fn header(title: &str) -> String {
    format!(
        "# {title}\n\n<!-- Generated from the code by `{REFRESH}`; edit the declarations, not this \
         file. -->\n\n"
    )
}

fn sections(out: &mut String, sections: &[Section]) {
    for s in sections {
        *out += &format!(
            "### `{}`\n\n{}\n\n{}\n",
            s.path,
            s.about,
            markdown_table(s.keys)
        );
    }
}

/// docs/config.md.
pub fn config_md() -> String {
    let mut out = header("Configuration keys");
    out += "Sizes take units (`512MiB`, `2g`, or bytes), durations too (`5ms`, `2m`). Unknown \
            keys are errors. Bounds are checked when a file is loaded; messages name the file, \
            the key, the bound and the value found.\n\n## Array files (`--array`)\n\n";
    sections(&mut out, ARRAY_SECTIONS);
    out += "## Workload files (`--workload`)\n\n";
    sections(&mut out, WORKLOAD_SECTIONS);
    out += "The `[database]` section of a workload file: see [db.md](db.md). Disk model \
            parameters: see [models.md](models.md).\n\n";
    out += "## I/O workload files (`storlab io --workload`)\n\n### `[[streams]]`\n\nOne \
            class of real I/O: the keys of a simulated stream's profile (above, from \
            `profile` on; `name` names the class), plus:\n\n";
    out += &markdown_table(IO_STREAM_KEYS);
    out
}

/// The built-in models of `kind` with their parameter values, one column each.
fn builtin_table(kind: &str, keys: &[Key]) -> String {
    let models: Vec<(&str, toml::Table)> = BUILTIN_MODELS
        .iter()
        .filter_map(|name| {
            let table = toml::Table::try_from(builtin_model(name)?).ok()?;
            let of_kind = table.get("kind").and_then(|k| k.as_str()) == Some(kind);
            of_kind.then_some((*name, table))
        })
        .collect();
    let mut out = String::from("| parameter |");
    for (name, _) in &models {
        out += &format!(" `{name}` |");
    }
    out += "\n|---|";
    out += &"---|".repeat(models.len());
    out += "\n";
    for key in keys {
        out += &format!("| `{}` |", key.name);
        for (_, table) in &models {
            let v = table.get(key.name).map_or(String::new(), |v| v.to_string());
            out += &format!(" {} |", v.trim_matches('"'));
        }
        out += "\n";
    }
    out
}

/// docs/models.md.
pub fn models_md() -> String {
    let mut out = header("Disk models");
    out += "An array names a model per group (`disk_model = \"hdd-10k\"`): a built-in, or its \
            own under `[disk_models.NAME]`, either complete (`kind = \"hdd\"` or `\"ssd\"` and \
            every parameter) or `base = \"hdd-10k\"` plus the parameters that differ.\n\n";
    out += "## Hard disk drives (`kind = \"hdd\"`)\n\n";
    out += &markdown_table(HDD_KEYS);
    out += "\n## Solid-state drives (`kind = \"ssd\"`)\n\n";
    out += &markdown_table(SSD_KEYS);
    out += "\n## Built-in models\n\n### Hard disk drives\n\n";
    out += &builtin_table("hdd", HDD_KEYS);
    out += &hdd_sources();
    out += "\n### Solid-state drives\n\n";
    out += &builtin_table("ssd", SSD_KEYS);
    out
}

/// Where the built-in HDD figures come from, and how the models relate to the real drives
/// `storlab validate --drives` replays.
fn hdd_sources() -> String {
    let mut out =
        "\n#### Where the figures come from\n\n| parameters | source |\n|---|---|\n".to_string();
    for (keys, source) in crate::device::models::HDD_SOURCES {
        let keys: Vec<String> = keys.split(", ").map(|k| format!("`{k}`")).collect();
        out += &format!("| {} | {source} |\n", keys.join(", "));
    }
    out += "\nThe built-in models have a datasheet's figures and none of the measured tables \
            (`seek_curve`, `zone_table`, `sparing`, `command_overheads_ms`, the buffer's \
            segments and rules). The six real drives in references/drives are older \
            (5,400-10,000 rpm SCSI drives of the 1990s), so no built-in model is one of them; \
            what they show is the error of the datasheet form itself: `storlab validate \
            --drives` replays each trace twice, through the drive's measured parameters and \
            through its datasheet form (the same summary figures a built-in model has), and \
            prints both demerits (column `datasheet`; `datasheet_demerit_ms` in the JSON; the \
            dashed line of the `--html` picture). Expect a built-in model to be about that far \
            from a real drive of its class at one request at a time; import a drive's own \
            description (`storlab drive import`) when the distribution matters.\n";
    out
}

/// docs/db.md.
pub fn db_md() -> String {
    let mut out = header("Database tests and keys");
    out += "A test name means the same work in `storlab db --suite S --test T` (a real \
            PostgreSQL) and in `storlab sim --db-test S/T` or a workload's `[database]` section \
            (the simulated database): the same rows per statement, rows per commit, think time \
            and clients when none are given. `dpaws/cycle` runs the four DPAWS tests in turn \
            (`storlab db`); in the simulator a `[database]` section's `after` runs tests \
            before its own on the same database (see [Tests in turn](#tests-in-turn-on-one-database)).\n\n\
            ## Tests\n\n\
            | test | clients | rows per statement | rows per commit | think | does | tables | \
            row bytes | simulated | what it does |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for d in DB_TESTS {
        let [lo, hi] = d.row_bytes;
        let bytes = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo} to {hi}")
        };
        let count = |n: u64| {
            if n == 0 {
                "-".to_string()
            } else {
                n.to_string()
            }
        };
        out += &format!(
            "| `{}` | {} | {} | {} | {} ms | {} | {} | {bytes} | {} | {} |\n",
            d.name,
            d.default_clients,
            count(d.rows_per_op),
            count(d.rows_per_commit),
            d.think_ms,
            d.access.name(),
            d.tables,
            if d.simulated {
                "yes"
            } else if JOB_NAMES.contains(&d.name) {
                "as a job"
            } else {
                "no"
            },
            d.summary
        );
    }
    out += &super::database::characters_md();
    out += &queries_md();
    out += "\n## The `[database]` section of a workload file\n\n";
    out += &markdown_table(DATABASE_KEYS);
    out += AFTER;
    out += selects_write::SELECTS_WRITE;
    out += CPU_SOURCES;
    out += &jobs_md();
    out
}

/// `after`: tests run in turn on one database.
const AFTER: &str = "\n### Tests in turn on one database\n\n\
    A benchmark cycle runs its tests one after another on the same database (DPAWS: update \
    row, update range, select row, select range), so each test starts where the previous one \
    left the database. `after` does that in the simulator:\n\n\
    ```toml\n[database]\ntest = \"dpaws/select-row\"\n\
    after = [\"dpaws/update-row\", \"dpaws/update-range\"]\n\
    # or, with their own sessions and durations:\n\
    # after = [{ test = \"dpaws/update-row\", sessions = 80, duration = \"5m\" }, \"dpaws/update-range\"]\n```\n\n\
    Each test of `after` runs in turn with its sessions (default: its clients) for its \
    `duration`; then `test` runs its warm-up and its measured window, the only one reported. \
    Nothing is reset between tests: the buffer cache and its dirty blocks, the database \
    writer and the checkpoints, the log's position, the host's and the array's caches and \
    their dirty data, and with `engine = \"oracle\"` the undo and the blocks commits left \
    for the next visitor to clean out (a select that visits one cleans it out: it dirties \
    the block and generates redo, so selects after updates write), and with \
    `engine = \"postgresql\"` the heap blocks whose tuples' hint bits no one has set yet (a \
    select that reads one sets them and dirties it): see Why selects write, below. The default duration is the run's warm-up: the time the run allows a test to \
    reach steady state. With `--warmup auto` (the default of `storlab sim` for a database) \
    each test of `after` needs its own `duration`, and the automatic warm-up, with its \
    steady-state test, starts when they are over. The reported `warmup_s` counts the tests before \
    and the warm-up. The tests share the section's tables and keys (`rows`, `row_bytes`, \
    `range_rows`, `buffer`, ...), so only tests whose tables do not grow (the DPAWS tests) \
    run in turn; a measured profile (`--profile-from`) applies to `test` alone.\n";

/// Where the default CPU costs per statement and per commit come from.
const CPU_SOURCES: &str = "\n### Where the CPU costs come from\n\n\
    `cpu_per_statement` (10 us) and `cpu_per_commit` (6 us) were measured on PostgreSQL 15.18 \
    (Debian) on the lab's host (AMD EPYC, a virtual machine with 2 CPUs), not fitted to any \
    study. pgbench ran tiny scripts with prepared statements (`-M prepared`), 2 clients over a \
    Unix socket, 100,000 transactions each; the server's CPU is the user and system time of \
    all its processes, exited backends included (the postmaster's `cutime` and `cstime` in \
    `/proc`), over the run, divided by the 200,000 transactions; three rounds.\n\n\
    | script | what it costs | us per transaction (3 rounds) |\n|---|---|---|\n\
    | `SELECT 1;` | one user call: a cached statement that visits no block, no transaction \
    id | 12.1, 10.1, 9.9 |\n\
    | `BEGIN; SELECT 1; COMMIT;` | three user calls, no transaction id | 32.8, 31.7, 25.8 |\n\
    | `SELECT txid_current();` | one user call and a commit, its record written and flushed \
    | 17.9, 15.8, 16.6 |\n\
    | `BEGIN; SELECT txid_current(); COMMIT;` | three user calls and that commit | 35.1, \
    35.4, 43.5 |\n\n\
    Per statement: 12.1, 10.1 and 9.9 us from the first script, 10.9, 10.6 and 8.6 from the \
    second (a third of each): median 10.3, so 10 us. Per commit: the third less the first \
    (5.8, 5.7, 6.7 us) and the fourth less the second (2.3, 3.7, 17.8): median 5.7, so 6 us. \
    These are a current CPU's costs; the studies' servers of 2005 to 2008 were slower per \
    call, which a workload states with these keys. `storlab db` reports the measured \
    server's CPU per transaction (`db.server_cpu_ns_per_op`, the same `/proc` times over the \
    window), and `--profile-from` such a result carries it into the simulation in place of \
    the assumed costs.\n";

/// The jobs, and the keys they add to `[database]`.
fn jobs_md() -> String {
    let mut out = "\n## Jobs\n\n\
        A job is fixed-size work the simulated database runs once, to completion, reported as \
        elapsed time (`metrics.elapsed_s`; `metrics.job` says whether it finished, the share \
        done and its I/O per volume). `--duration` is its time limit: a job that reaches it \
        is reported incomplete (exit 1, the result written). A job has no warm-up and one \
        session; steady state does not apply to it. A job spends `cpu_per_block` and \
        `cpu_per_row` of host CPU on the blocks and rows it processes (a load's rows and \
        blocks, an index build's scan, each batch of an update or delete; creating and \
        copying files spend none: `metrics.job.cpu_s`); a delete changes every index of the \
        table (its primary key), an update only the index of an updated column \
        (`indexed_update`), leaves not in the buffer cache read first (`index_reads`); a \
        batch waits for free buffers while the database writer holds more than 40% of the \
        buffer cache unwritten (`free_buffer_waits`). An index build's sorted runs take the \
        temp path (`temp`, the `temp` class).\n\n\
        | job | rows per commit | what it does |\n|---|---|---|\n"
        .to_string();
    for name in JOB_NAMES {
        let Some(d) = find_job(name) else {
            continue;
        };
        let commit = match d.rows_per_commit {
            0 => "-".to_string(),
            n => n.to_string(),
        };
        let summary = if JOB_TESTS.iter().any(|j| j.name == name) {
            d.summary.to_string()
        } else {
            format!(
                "{} (the real suite's test; simulated: delete every row of a table of `rows` \
                 rows in a full scan and its entry in every index, committing every \
                 `rows_per_commit`)",
                d.summary
            )
        };
        out += &format!("| `{name}` | {commit} | {summary} |\n");
    }
    out += "\nJobs add these keys to `[database]` (`rows`, `row_bytes`, `engine`, the log keys \
            above, and `rows_per_commit`, whose default is then the job's, apply as well):\n\n";
    out += &markdown_table(JOB_KEYS);
    out += "\n## Analytic queries\n\n\
            `orabench/analytic-query` scans a fact and a dimension table in full, hash-joins \
            them and sorts the result: a transaction of a characterization whose temp bytes \
            follow from these sizes (a grace hash join writes both sides once per \
            partitioning pass beyond `work_mem`; an external sort writes its input once per \
            merge level). These keys set them in `[database]`:\n\n";
    out += &markdown_table(crate::db::query::QUERY_KEYS);
    out
}

/// The built-in analytic queries: their shapes and the temp I/O they spill.
fn queries_md() -> String {
    let mib = |b: u64| b >> 20;
    let mut out = String::from(
        "\n## Analytic queries\n\n\
         A built-in query runs as a workload characterization of one transaction type, \
         `query`: each execution scans its two tables whole (multiblock reads, or Oracle's \
         direct path reads when a table exceeds a tenth of the buffer cache), then writes \
         what its hash join and its sort spill to temp and reads it back (`direct path write \
         temp` and `direct path read temp` with `engine = \"oracle\"`, `IO:BufFileWrite` and \
         `IO:BufFileRead` otherwise; the `temp` class of the results). Its elapsed time is the \
         transaction's response time (mean and percentiles per type). A grace hash join whose \
         build side B exceeds the work memory M writes both inputs once per partitioning pass \
         (⌈log_F(B/M)⌉ passes, fan-out F = M over the temp I/O size); a sort of S > M writes \
         S once per merge level but the last. The queries are simulated only: `storlab db` \
         has no statements for them.\n\n\
         | test | fact (probe) MiB | dimension (build) MiB | sorted MiB | work memory MiB | \
         buffer cache MiB | temp per query MiB (1 MiB I/Os) |\n|---|---|---|---|---|---|---|\n",
    );
    for q in crate::db::query::QUERIES {
        out += &format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            q.name,
            mib(q.probe_bytes),
            mib(q.build_bytes),
            mib(q.sort_bytes),
            mib(q.work_mem_bytes),
            mib(q.buffer_bytes),
            mib(q.temp_bytes(1 << 20))
        );
    }
    out
}

/// Every generated file: (name under docs/, contents).
pub fn files() -> Vec<(&'static str, String)> {
    vec![
        ("config.md", config_md()),
        ("models.md", models_md()),
        ("db.md", db_md()),
    ]
}
