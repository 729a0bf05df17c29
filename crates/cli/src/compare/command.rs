//! What runs one unit of a plan, typed: `storlab sim ...` on simulated arrays, `storlab io
//! ...` or `storlab db ...` on real targets. The binary runs the typed options through the same
//! code as the command; the command line is rendered only for display (the report shows it, so
//! every cell can be reproduced by hand).

use std::collections::BTreeMap;
use std::path::PathBuf;

use storlab_core::steady::Warmup;
use storlab_core::{ByteSize, TimeSpan};

use super::plan::{Target, TargetKind, UsersSweep, What, Workload};

/// An I/O workload, the same for `storlab sim` and `storlab io`.
#[derive(Debug, Clone, PartialEq)]
pub enum IoWork {
    /// `--profile NAME`.
    Profile(String),
    /// `--workload FILE`.
    File(PathBuf),
    /// `--profile NAME --sweep --sweep-max N [--max-p99-ms MS]`.
    Sweep {
        profile: String,
        max: u32,
        max_p99_ms: Option<f64>,
    },
}

/// A trace replay: `--trace FILE [--trace-format F] [--trace-outstanding N] [--trace-map M]...`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceWork {
    pub path: PathBuf,
    pub format: Option<String>,
    pub outstanding: Option<u32>,
    pub map: Vec<String>,
}

/// What a simulated unit runs.
#[derive(Debug, Clone, PartialEq)]
pub enum SimWork {
    /// I/O profiles or a workload file.
    Io(IoWork),
    /// `--db-test TEST [--db-data D] [--db-log L]` (sim's default placement without them) with these `[database]` keys set, and
    /// `--users-sweep` with its options when the cell sweeps the users.
    Db {
        test: String,
        data: Option<String>,
        log: Option<String>,
        database: BTreeMap<String, toml::Value>,
        users_sweep: Option<UsersSweep>,
    },
    /// `--trace FILE` and its options.
    Trace(TraceWork),
}

/// The subcommand of a unit and its own options.
#[derive(Debug, Clone, PartialEq)]
pub enum Subcommand {
    /// `storlab sim --array FILE ...`.
    Sim {
        array: PathBuf,
        work: SimWork,
        fail: Vec<String>,
    },
    /// `storlab io --target PATH --size N --engine E ...`.
    Io {
        target: PathBuf,
        size: ByteSize,
        engine: String,
        work: IoWork,
    },
    /// `storlab db --suite S --test T --data-dir D ...`.
    Db {
        suite: String,
        test: String,
        data_dir: PathBuf,
        wal_dir: Option<PathBuf>,
        clients: Option<u32>,
        scale: Option<u64>,
    },
}

/// One unit's options, typed, with the timing and seed every subcommand takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    pub command: Subcommand,
    pub duration: TimeSpan,
    pub warmup: Warmup,
    pub seed: u64,
}

/// A duration as the command line writes it: whole milliseconds when it is one, else
/// nanoseconds (never rounded).
fn span(t: TimeSpan) -> String {
    if t.0.is_multiple_of(1_000_000) {
        format!("{}ms", t.0 / 1_000_000)
    } else {
        format!("{}ns", t.0)
    }
}

fn push(a: &mut Vec<String>, xs: &[&str]) {
    a.extend(xs.iter().map(|s| s.to_string()));
}

impl IoWork {
    fn args(&self, a: &mut Vec<String>) {
        match self {
            IoWork::Profile(p) => push(a, &["--profile", p]),
            IoWork::File(f) => push(a, &["--workload", &f.display().to_string()]),
            IoWork::Sweep {
                profile,
                max,
                max_p99_ms,
            } => {
                push(a, &["--profile", profile, "--sweep"]);
                push(a, &["--sweep-max", &max.to_string()]);
                if let Some(c) = max_p99_ms {
                    push(a, &["--max-p99-ms", &c.to_string()]);
                }
            }
        }
    }
}

impl SimWork {
    fn args(&self, a: &mut Vec<String>) {
        match self {
            SimWork::Io(w) => w.args(a),
            SimWork::Db {
                test,
                data,
                log,
                database,
                users_sweep,
            } => {
                push(a, &["--db-test", test]);
                if let Some(d) = data {
                    push(a, &["--db-data", d]);
                }
                if let Some(l) = log {
                    push(a, &["--db-log", l]);
                }
                for (k, v) in database {
                    push(a, &["--db-set", &format!("{k}={v}")]);
                }
                if let Some(u) = users_sweep {
                    users_args(u, a);
                }
            }
            SimWork::Trace(t) => {
                push(a, &["--trace", &t.path.display().to_string()]);
                if let Some(f) = &t.format {
                    push(a, &["--trace-format", f]);
                }
                if let Some(n) = t.outstanding {
                    push(a, &["--trace-outstanding", &n.to_string()]);
                }
                for m in &t.map {
                    push(a, &["--trace-map", m]);
                }
            }
        }
    }
}

/// `--users-sweep` and the options a plan sets.
fn users_args(u: &UsersSweep, a: &mut Vec<String>) {
    push(a, &["--users-sweep"]);
    if !u.sessions.is_empty() {
        let list: Vec<String> = u.sessions.iter().map(u32::to_string).collect();
        push(a, &["--users", &list.join(",")]);
    }
    if let Some(ms) = u.max_response_ms {
        push(a, &["--max-response-ms", &ms.to_string()]);
    }
    if let Some(r) = &u.response {
        push(a, &["--response", r]);
    }
    if let Some(ms) = u.think_ms {
        push(a, &["--think-ms", &ms.to_string()]);
    }
}

impl Invocation {
    /// The storlab arguments (after `storlab`) that run the same thing, for display.
    pub fn args(&self) -> Vec<String> {
        let mut a: Vec<String> = Vec::new();
        match &self.command {
            Subcommand::Sim { array, work, fail } => {
                push(&mut a, &["sim", "--array", &array.display().to_string()]);
                work.args(&mut a);
                for f in fail {
                    push(&mut a, &["--fail", f]);
                }
            }
            Subcommand::Io {
                target,
                size,
                engine,
                work,
            } => {
                push(&mut a, &["io", "--target", &target.display().to_string()]);
                push(&mut a, &["--size", &size.0.to_string(), "--engine", engine]);
                work.args(&mut a);
            }
            Subcommand::Db {
                suite,
                test,
                data_dir,
                wal_dir,
                clients,
                scale,
            } => {
                push(&mut a, &["db", "--suite", suite, "--test", test]);
                push(&mut a, &["--data-dir", &data_dir.display().to_string()]);
                if let Some(w) = wal_dir {
                    push(&mut a, &["--wal-dir", &w.display().to_string()]);
                }
                if let Some(c) = clients {
                    push(&mut a, &["--clients", &c.to_string()]);
                }
                if let Some(s) = scale {
                    push(&mut a, &["--scale", &s.to_string()]);
                }
            }
        }
        push(&mut a, &["--duration", &span(self.duration)]);
        match self.warmup {
            Warmup::Fixed(t) => push(&mut a, &["--warmup", &span(t)]),
            Warmup::Auto { max } if max == storlab_core::steady::DEFAULT_WARMUP_MAX => {
                push(&mut a, &["--warmup", "auto"]);
            }
            Warmup::Auto { max } => push(&mut a, &["--warmup", "auto", "--warmup-max", &span(max)]),
        }
        push(&mut a, &["--seed"]);
        a.push(self.seed.to_string());
        a
    }
}

fn sim_work(t: &Target, what: &What) -> SimWork {
    match what {
        What::Db {
            test,
            database,
            users_sweep,
            ..
        } => SimWork::Db {
            test: test.clone(),
            data: t.db_data.clone(),
            log: t.db_log.clone(),
            database: database.clone(),
            users_sweep: users_sweep.clone(),
        },
        What::Trace(t) => SimWork::Trace(t.clone()),
        What::Io(w) => SimWork::Io(w.clone()),
    }
}

/// What runs workload `w` on target `t`, or None when it cannot run there.
pub(super) fn invocation(t: &Target, w: &Workload, seed: u64, repeat: u32) -> Option<Invocation> {
    let (duration, warmup) = w.timing(t);
    let slug = format!("{}-{}-{repeat}", t.name, w.name.replace('/', "-"));
    let command = match &t.kind {
        TargetKind::Sim { array, fail } => Subcommand::Sim {
            array: array.clone(),
            work: sim_work(t, &w.what),
            fail: fail.clone(),
        },
        TargetKind::Real {
            dir,
            wal_dir,
            io_target,
        } => match &w.what {
            What::Db {
                users_sweep: Some(_),
                ..
            } => return None,
            What::Db {
                test,
                clients,
                scale,
                ..
            } => {
                let (suite, name) = test.split_once('/')?;
                Subcommand::Db {
                    suite: suite.to_string(),
                    test: name.to_string(),
                    data_dir: dir.join(format!("storlab-compare-pg-{slug}")),
                    wal_dir: wal_dir
                        .as_ref()
                        .map(|wd| wd.join(format!("storlab-compare-wal-{slug}"))),
                    clients: *clients,
                    scale: *scale,
                }
            }
            What::Trace(_) => return None,
            What::Io(w) => Subcommand::Io {
                target: io_target
                    .clone()
                    .unwrap_or_else(|| dir.join(format!("storlab-compare-{slug}.dat"))),
                size: t.io_size,
                engine: t.engine.clone(),
                work: w.clone(),
            },
        },
    };
    Some(Invocation {
        command,
        duration,
        warmup,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::plan::parse_plan;

    const PLAN: &str = r#"
title = "t"
seed = 7
repeats = 2
[[targets]]
name = "a"
array = "arrays/a.toml"
fail = ["g-0.d1@5s"]
[[targets]]
name = "local"
data = "/srv/pg"
wal = "/srv/wal"
io_target = "/dev/sdz"
duration = "2s"
[[workloads]]
iogen = true
targets = ["a"]
[[workloads]]
db_test = "dpaws/update-row"
clients = 4
database = { tables = 15, row_bytes = [14, 805] }
[[workloads]]
sweep = "randread-8k"
max_p99_ms = 5
"#;

    #[test]
    fn units_are_storlab_command_lines() {
        let plan = parse_plan(PLAN, Path::new("plans/p.toml")).unwrap();
        let mut skipped = Vec::new();
        let units = plan.units(&mut skipped);
        // 10 IOgen profiles on a, update-row on both, the sweep on local only: x 2 repeats.
        assert_eq!(units.len(), (10 + 2 + 2) * 2);
        assert!(skipped.is_empty(), "{skipped:?}");
        let find = |t: &str, w: &str, r: u32| {
            units
                .iter()
                .find(|u| u.target == t && u.workload == w && u.repeat == r)
                .unwrap()
                .command()
        };
        // Durations are never rounded: 1.5 ms stays 1500000 ns.
        let odd = parse_plan(
            &PLAN.replace("duration = \"2s\"", "duration = \"1500us\""),
            Path::new("plans/p.toml"),
        )
        .unwrap();
        let unit = odd
            .units(&mut Vec::new())
            .into_iter()
            .find(|u| u.target == "local");
        let unit = unit.unwrap();
        assert_eq!(unit.invocation.duration.0, 1_500_000);
        assert!(
            unit.command().contains("--duration 1500000ns"),
            "{}",
            unit.command()
        );
        assert_eq!(
            find("a", "randwrite-8k", 1),
            "storlab sim --array plans/arrays/a.toml --profile randwrite-8k --fail g-0.d1@5s \
             --duration 30000ms --warmup 10000ms --seed 8"
        );
        assert_eq!(
            find("a", "dpaws/update-row", 0),
            "storlab sim --array plans/arrays/a.toml --db-test dpaws/update-row \
             --db-set 'row_bytes=[14, 805]' --db-set tables=15 --fail g-0.d1@5s \
             --duration 30000ms --warmup 10000ms --seed 7"
        );
        assert_eq!(
            find("local", "dpaws/update-row", 0),
            "storlab db --suite dpaws --test update-row --data-dir \
             /srv/pg/storlab-compare-pg-local-dpaws-update-row-0 --wal-dir \
             /srv/wal/storlab-compare-wal-local-dpaws-update-row-0 --clients 4 \
             --duration 2000ms --warmup 10000ms --seed 7"
        );
        let sweep = find("local", "sweep-randread-8k", 0);
        assert!(
            sweep.starts_with("storlab io --target /dev/sdz --size 1073741824 --engine psync")
                && sweep.contains("--sweep --sweep-max 64 --max-p99-ms 5"),
            "{sweep}"
        );
    }

    #[test]
    fn an_automatic_warmup_is_passed_on() {
        let text = PLAN.replace(
            "clients = 4\n",
            "clients = 4\ntargets = [\"a\"]\nwarmup = \"auto\"\n",
        );
        let plan = parse_plan(&text, Path::new("plans/p.toml")).unwrap();
        let units = plan.units(&mut Vec::new());
        let cmd = units
            .iter()
            .find(|u| u.target == "a" && u.workload == "dpaws/update-row")
            .unwrap()
            .command();
        assert!(
            cmd.ends_with("--duration 30000ms --warmup auto --seed 7"),
            "{cmd}"
        );
        let bad = PLAN.replace("clients = 4\n", "clients = 4\nwarmup = \"soon\"\n");
        let e = parse_plan(&bad, Path::new("plans/p.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("auto"), "{e}");
    }
}
