//! `storlab compare`: a plan with real and simulated targets end to end, resuming after
//! Ctrl-C, and the report rendered in a real browser.

use std::path::Path;

use predicates::prelude::*;

use super::{example, scratch_dir, storlab};

/// A plan over two simulated arrays and, when `real_dir` is given, this machine's disk.
fn plan(dir: &Path, real_dir: Option<&Path>) -> std::path::PathBuf {
    let mut text = format!(
        "title = \"test plan\"\nseed = 3\nduration = \"3s\"\nwarmup = \"1s\"\n\
         [[targets]]\nname = \"raid5\"\narray = \"{}\"\ndb_data = \"datavol\"\nprice_per_disk = 100\n\
         [[targets]]\nname = \"raid10\"\narray = \"{}\"\ndb_data = \"datavol\"\nprice_per_disk = 100\n",
        example("midrange-raid5.toml"),
        example("midrange-raid10.toml"),
    );
    if let Some(d) = real_dir {
        text += &format!(
            "[[targets]]\nname = \"local\"\ndir = \"{}\"\nio_size = \"64MiB\"\nduration = \"1s\"\nwarmup = \"0s\"\n",
            d.display()
        );
        // The simulated RAID 5 against this machine on purpose; without this question the
        // report keeps them apart.
        text +=
            "[[questions]]\ntitle = \"RAID 5 or RAID 10?\"\ntargets = [\"raid5\", \"raid10\"]\n\
                 [[questions]]\ntitle = \"Does the model match this machine?\"\n\
                 targets = [\"raid5\", \"local\"]\n";
    }
    text += "[[workloads]]\nprofile = \"randwrite-8k\"\n\
             [[workloads]]\nprofile = \"randread-8k\"\n\
             [[workloads]]\ndb_test = \"dpaws/select-row\"\nclients = 2\nscale = 500\n\
             database = { sessions = 8, rows = 100000 }\n";
    let path = dir.join("plan.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The sentences printed under `question` in the answers.
fn answer(stdout: &str, question: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| l.trim() != question)
        .skip(1)
        .map_while(|l| l.strip_prefix("    - "))
        .map(str::to_string)
        .collect()
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_plan_with_real_and_simulated_targets_runs_end_to_end() {
    let dir = scratch_dir();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let plan = plan(dir.path(), Some(&real));
    let out = dir.path().join("out");
    let run = storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("test plan"))
        .stdout(predicate::str::contains("report:"));
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    // Each question is answered, first with a sentence on the target compared with the first
    // one. The simulated pair's answer is the same on every run and speaks of the random
    // writes; how this machine compares depends on the speeds it measured, so only that its
    // answer compares this machine with the model: each sentence leads with the faster of the
    // two, and this machine is named.
    let sims = answer(&stdout, "RAID 5 or RAID 10?");
    assert!(
        sims.first().is_some_and(|s| s.starts_with("raid10 ")),
        "{stdout}"
    );
    assert!(sims.iter().any(|s| s.contains("random-write")), "{stdout}");
    let machine = answer(&stdout, "Does the model match this machine?");
    assert!(!machine.is_empty(), "{stdout}");
    assert!(
        machine
            .iter()
            .all(|s| s.starts_with("local ") || s.starts_with("raid5 ")),
        "{stdout}"
    );
    assert!(machine.iter().any(|s| s.contains("local")), "{stdout}");
    // results.json is the common schema, one run per cell: 3 workloads x 3 targets.
    let r = read_json(&out.join("results.json"));
    assert_eq!(r["schema"], "storlab.results/1");
    let results: storlab_core::result::Results =
        serde_json::from_value(r.clone()).expect("results.json parses as the schema");
    assert_eq!(results.runs.len(), 9);
    let kinds: Vec<_> = results.runs.iter().map(|x| x.target.kind).collect();
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == storlab_core::result::TargetKind::Real)
            .count(),
        3
    );
    // Every real file and cluster the plan created is gone.
    assert_eq!(
        std::fs::read_dir(&real).unwrap().count(),
        0,
        "real dir left empty"
    );
    // The CSVs carry the documented columns.
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let header = summary.lines().next().unwrap();
    assert_eq!(
        header,
        "configuration,workload,repeat,kind,iops,read_iops,write_iops,mbps,lat_mean_ms,lat_p99_ms,rows_per_s,tx_per_min,wal_mb_per_s,error"
    );
    assert_eq!(summary.lines().count(), 10);
    assert!(summary.contains("local,dpaws/select-row,0,real"));
    for f in ["devices.csv", "arrays.csv", "waits.csv", "capacity.csv"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for name in ["raid5", "raid10", "local"] {
        assert!(html.contains(name));
    }
    // Simulated and real results of the same workload side by side.
    assert!(html.contains("Simulated vs real"), "sim-vs-real section");
}

fn strip_out(s: &str, out: &Path) -> String {
    s.replace(&out.display().to_string(), "OUT")
}

#[test]
fn an_interrupted_plan_resumes_without_rerunning_finished_cells() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path(), None);
    let out = dir.path().join("out");
    // Interrupt once the first cell is stored.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storlab"))
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let cells = out.join("cells");
    let mut waited_ms = 0;
    let stored_cells = |dir: &Path| -> Vec<std::fs::DirEntry> {
        std::fs::read_dir(dir).map_or(Vec::new(), |d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .collect()
        })
    };
    while stored_cells(&cells).is_empty() {
        assert!(waited_ms < 60_000, "no cell stored");
        std::thread::sleep(std::time::Duration::from_millis(20));
        waited_ms += 20;
    }
    unsafe_sigint(child.id());
    let status = child.wait().unwrap();
    assert!(!status.success(), "an interrupted plan does not exit 0");
    let stored = stored_cells(&cells);
    assert!(
        !stored.is_empty() && stored.len() < 6,
        "{} cells",
        stored.len()
    );
    let before: Vec<(String, std::time::SystemTime)> = stored
        .iter()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().modified().unwrap(),
            )
        })
        .collect();
    // Re-run: the stored cells are taken as they are, the rest run.
    storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("from an earlier run"));
    for (name, mtime) in &before {
        let now = std::fs::metadata(cells.join(name))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(&now, mtime, "{name} was not run again");
    }
    // The report equals a fresh run's, apart from the output directory in the command.
    let fresh = dir.path().join("fresh");
    storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&fresh)
        .assert()
        .success();
    let a = strip_out(
        &std::fs::read_to_string(out.join("report.html")).unwrap(),
        &out,
    );
    let b = strip_out(
        &std::fs::read_to_string(fresh.join("report.html")).unwrap(),
        &fresh,
    );
    assert!(a == b, "resumed and fresh reports differ");
}

fn unsafe_sigint(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn bad_plans_exit_2_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("title = \"t\"\n[[targets]]\nname = \"a\"\n[[workloads]]\nprofile = \"randread-8k\"\n", "targets[0].array"),
        (
            &format!("title = \"t\"\n[[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"x\"\nsweep = \"y\"\n", example("midrange-raid5.toml")),
            "workloads[0].profile",
        ),
        (
            &format!("title = \"t\"\n[[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"randread-8k\"\ntargets = [\"b\"]\n", example("midrange-raid5.toml")),
            "no target named",
        ),
        ("title = \"t\"\ncolour = 1\n", "unknown field"),
        (
            &format!("title = \"t\"\n[[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"randread-8k\"\n[[questions]]\ntitle = \"q\"\ntargets = [\"a\", \"b\"]\n", example("midrange-raid5.toml")),
            "questions[0].targets: no target named \"b\"",
        ),
        (
            &format!("title = \"t\"\n[[targets]]\nname = \"a\"\narray = \"{}\"\n[[workloads]]\nprofile = \"randread-8k\"\n[[questions]]\ntitle = \"q\"\ntargets = []\n", example("midrange-raid5.toml")),
            "questions[0].targets: name one target",
        ),
    ];
    for (text, needle) in cases {
        let p = dir.path().join("bad.toml");
        std::fs::write(&p, text).unwrap();
        storlab()
            .arg("compare")
            .arg(&p)
            .arg("--out")
            .arg(dir.path().join("out"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("bad.toml"))
            .stderr(predicate::str::contains(needle));
    }
    // A cell that fails (an unknown profile) is recorded with its reason; the rest runs.
    let p = dir.path().join("partly.toml");
    std::fs::write(
        &p,
        format!(
            "title = \"t\"\nduration = \"2s\"\nwarmup = \"0s\"\n[[targets]]\nname = \"a\"\narray = \"{}\"\n\
             [[workloads]]\nprofile = \"randread-9k\"\n[[workloads]]\nprofile = \"randread-8k\"\n",
            example("midrange-raid5.toml")
        ),
    )
    .unwrap();
    let out = dir.path().join("partly");
    storlab()
        .arg("compare")
        .arg(&p)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(
        summary.contains("randread-9k") && summary.contains("unknown profile"),
        "{summary}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("unknown profile"));
}

/// The report in a real browser (Debian's chromium, which `make test` installs): rendered
/// headless to a screenshot and a DOM dump.
#[test]
fn the_report_renders_in_a_real_browser() {
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("a headless browser: apt-get install chromium (make test installs it)");
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path(), None);
    let out = dir.path().join("out");
    storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report = out.join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no request can leave the page"
    );
    let url = format!("file://{}", report.display());
    let common = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
    ];
    let shot = dir.path().join("shot.png");
    let status = std::process::Command::new(browser)
        .args(common)
        .arg(format!("--screenshot={}", shot.display()))
        .args(["--window-size=1280,2000", &url])
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    // A blank page compresses to a few KiB; charts, tables and text do not.
    let size = std::fs::metadata(&shot).unwrap().len();
    assert!(size > 40_000, "screenshot of {size} bytes looks blank");
    let dom = std::process::Command::new(browser)
        .args(common)
        .args(["--dump-dom", &url])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    for name in ["raid5", "raid10"] {
        assert!(dom.contains(name), "{name} in the rendered page");
    }
    let svgs: Vec<&str> = dom
        .split("<svg")
        .skip(1)
        .map(|s| s.split("</svg>").next().unwrap())
        .collect();
    assert!(svgs.len() >= 5, "{} charts", svgs.len());
    for (i, svg) in svgs.iter().enumerate() {
        let marks = ["<rect", "<path", "<polyline", "<circle", "<line"];
        assert!(
            marks.iter().any(|m| svg.contains(m)),
            "chart {i} draws nothing"
        );
    }
}

#[test]
fn trace_replays_run_on_simulated_targets_only() {
    let dir = scratch_dir();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let trace = format!(
        "{}/../sim/tests/fixtures/traces/spc.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let plan = dir.path().join("trace.toml");
    std::fs::write(
        &plan,
        format!(
            "title = \"traces\"\nduration = \"30s\"\nwarmup = \"0s\"\n\
             [[targets]]\nname = \"raid5\"\narray = \"{}\"\n\
             [[targets]]\nname = \"local\"\ndir = \"{}\"\n\
             [[workloads]]\ntrace = \"{trace}\"\ntrace_format = \"spc\"\ntrace_outstanding = 4\n",
            example("midrange-raid5.toml"),
            real.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    storlab()
        .arg("compare")
        .arg(&plan)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "trace-spc on local: not applicable",
        ));
    let r = read_json(&out.join("results.json"));
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "the trace ran on the simulated target only");
    assert!(runs[0]["metrics"]["ios"].as_u64().unwrap() > 0);
    let study = read_json(&out.join("study.json"));
    let command = study["cells"][0]["command"].as_str().unwrap();
    assert!(
        command.contains("--trace ") && command.contains("--trace-format spc"),
        "{command}"
    );
}

#[test]
fn the_example_plans_parse_and_the_demo_asks_its_three_questions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/plans");
    let mut demo = None;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = e.path();
        let text = std::fs::read_to_string(&path).unwrap();
        let plan = storlab_cli::plan::parse_plan(&text, &path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        if path.file_name().is_some_and(|n| n == "demo.toml") {
            demo = Some(plan);
        }
    }
    let demo = demo.expect("examples/plans/demo.toml");
    let asked: Vec<(&str, Vec<&str>)> = demo
        .questions
        .iter()
        .map(|q| {
            (
                q.title.as_str(),
                q.targets.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        asked,
        [
            (
                "RAID 5 or RAID 10 on the mid-range array?",
                vec!["raid5", "raid10"]
            ),
            (
                "SSDs mirrored with HDDs: does reading from the SSDs (preferred read) pay?",
                vec!["asm-noprfg", "asm-prfg"]
            ),
            ("What does this machine's disk do?", vec!["local-disk"]),
        ]
    );
    // --sim-only leaves the question about this machine out.
    let mut sim = demo.clone();
    sim.simulated_only();
    assert_eq!(sim.questions.len(), 2);
}
