//! The file of `storlab sim --workload-from` (a characterization in TOML or JSON, a captured
//! PostgreSQL profile, an AWR or Statspack report, a `storlab db` result) told apart by its
//! contents and read, then made into the simulated database's workload on a shipped array;
//! a result file is also read as `--profile-from` reads it.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use storlab_cli::sim_cmd::workload_from::characterization_from_bytes;
use storlab_sim::config::character_workload;
use storlab_sim::db::measured::MeasuredProfile;
use storlab_sim::db::scan_path::multiblock_read_count;
use storlab_sim::{parse_array, SystemSpec};

fn system() -> &'static SystemSpec {
    static SYSTEM: OnceLock<SystemSpec> = OnceLock::new();
    SYSTEM.get_or_init(|| {
        let text = include_str!("../../examples/arrays/enterprise-mixed.toml");
        parse_array(text, "enterprise-mixed.toml").unwrap_or_else(|e| panic!("{e}"))
    })
}

/// What `--workload-from` does with the characterization: checks it and places its database
/// on the array's default data and log volumes.
fn simulate(bytes: &[u8], file: &Path) {
    let Ok((c, _notes)) = characterization_from_bytes(bytes.to_vec(), file) else {
        return;
    };
    let name = file.display().to_string();
    if c.validate(&name).is_err() {
        return;
    }
    let (data, log) = system().default_db_targets();
    let mut db = toml::Table::new();
    db.insert("data".into(), toml::Value::Array(vec![data.into()]));
    db.insert("log".into(), toml::Value::Array(vec![log.into()]));
    let mbrc = multiblock_read_count(c.engine, u64::from(c.block_bytes));
    let _ = character_workload(&c, db, &name, system(), mbrc);
}

/// What `--profile-from` does with a result file: each run's test's measured profile.
fn profiles(bytes: &[u8]) {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return;
    };
    let Ok(results) = storlab_cli::output::results_from_json(json, bytes, Path::new("r.json"))
    else {
        return;
    };
    for run in &results.runs {
        let _ = MeasuredProfile::from_results(&results, &run.workload.name, "r.json");
    }
}

fuzz_target!(|data: &[u8]| {
    // Named as a user names it: JSON `.json`, anything else `.toml`.
    let json = data.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'{');
    simulate(data, Path::new(if json { "w.json" } else { "w.toml" }));
    if json {
        profiles(data);
    }
});
