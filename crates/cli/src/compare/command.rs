//! The storlab command line of one unit of a plan: `storlab sim ...` on simulated arrays,
//! `storlab io ...` or `storlab db ...` on real targets, so every cell of a report can be
//! reproduced by hand.

use storlab_core::steady::Warmup;
use storlab_core::TimeSpan;

use super::plan::{Target, TargetKind, What, Workload};

fn span(t: TimeSpan) -> String {
    format!("{}ms", t.0 / 1_000_000)
}

/// The arguments of an I/O workload, the same for `storlab sim` and `storlab io`: a profile,
/// a workload file, or a sweep of a profile.
fn io_workload_args(what: &What) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    match what {
        What::Profile(p) => a.extend(["--profile".into(), p.clone()]),
        What::File(f) => a.extend(["--workload".into(), f.display().to_string()]),
        What::Sweep {
            profile,
            max,
            max_p99_ms,
        } => {
            a.extend(["--profile".into(), profile.clone(), "--sweep".into()]);
            a.extend(["--sweep-max".into(), max.to_string()]);
            if let Some(c) = max_p99_ms {
                a.extend(["--max-p99-ms".into(), c.to_string()]);
            }
        }
        What::Db { .. } | What::Trace { .. } => unreachable!("not an I/O workload"),
    }
    a
}

/// The storlab arguments of workload `w` on target `t`, or None when it cannot run there.
pub(super) fn args(t: &Target, w: &Workload, seed: u64, repeat: u32) -> Option<Vec<String>> {
    let mut a: Vec<String> = Vec::new();
    let mut push = |xs: &[&str]| a.extend(xs.iter().map(|s| s.to_string()));
    let (duration, warmup) = w.timing(t);
    let timing = [
        "--duration".to_string(),
        span(duration),
        "--warmup".to_string(),
        match warmup {
            Warmup::Fixed(t) => span(t),
            Warmup::Auto { .. } => "auto".to_string(),
        },
        "--seed".to_string(),
        seed.to_string(),
    ];
    let slug = format!("{}-{}-{repeat}", t.name, w.name.replace('/', "-"));
    match (&t.kind, &w.what) {
        (TargetKind::Sim { array, fail }, what) => {
            push(&["sim", "--array", &array.display().to_string()]);
            match what {
                What::Profile(_) | What::File(_) | What::Sweep { .. } => {
                    io_workload_args(what).iter().for_each(|x| push(&[x]));
                }
                What::Db { test, database, .. } => {
                    push(&["--db-test", test]);
                    push(&["--db-data", t.db_data.as_deref().unwrap_or("all")]);
                    if let Some(l) = &t.db_log {
                        push(&["--db-log", l]);
                    }
                    for (k, v) in database {
                        push(&["--db-set", &format!("{k}={v}")]);
                    }
                }
                What::Trace {
                    path,
                    format,
                    outstanding,
                    map,
                } => {
                    push(&["--trace", &path.display().to_string()]);
                    if let Some(f) = format {
                        push(&["--trace-format", f]);
                    }
                    if let Some(n) = outstanding {
                        push(&["--trace-outstanding", &n.to_string()]);
                    }
                    for m in map {
                        push(&["--trace-map", m]);
                    }
                }
            }
            for f in fail {
                push(&["--fail", f]);
            }
        }
        (
            TargetKind::Real {
                dir,
                wal_dir,
                io_target,
            },
            what,
        ) => match what {
            What::Profile(_) | What::File(_) | What::Sweep { .. } => {
                let file = io_target
                    .clone()
                    .unwrap_or_else(|| dir.join(format!("storlab-compare-{slug}.dat")));
                push(&["io", "--target", &file.display().to_string()]);
                push(&["--size", &format!("{}", t.io_size.0), "--engine", &t.engine]);
                io_workload_args(what).iter().for_each(|x| push(&[x]));
            }
            What::Db {
                test,
                clients,
                scale,
                ..
            } => {
                let (suite, name) = test.split_once('/').expect("checked SUITE/TEST");
                push(&["db", "--suite", suite, "--test", name]);
                let data = dir.join(format!("storlab-compare-pg-{slug}"));
                push(&["--data-dir", &data.display().to_string()]);
                if let Some(wd) = wal_dir {
                    let wal = wd.join(format!("storlab-compare-wal-{slug}"));
                    push(&["--wal-dir", &wal.display().to_string()]);
                }
                if let Some(c) = clients {
                    push(&["--clients", &c.to_string()]);
                }
                if let Some(s) = scale {
                    push(&["--scale", &s.to_string()]);
                }
            }
            What::Trace { .. } => return None,
        },
    }
    a.extend(timing);
    Some(a)
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
        assert_eq!(
            find("a", "randwrite-8k", 1),
            "storlab sim --array plans/arrays/a.toml --profile randwrite-8k --fail g-0.d1@5s \
             --duration 30000ms --warmup 10000ms --seed 8"
        );
        assert_eq!(
            find("a", "dpaws/update-row", 0),
            "storlab sim --array plans/arrays/a.toml --db-test dpaws/update-row --db-data all \
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
