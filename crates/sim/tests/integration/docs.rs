//! docs/config.md, docs/models.md and docs/db.md are what the declarations give; the
//! result's event kinds are all explained.

use std::path::Path;

use storlab_sim::config::docs::{files, REFRESH};

#[test]
fn the_generated_docs_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    for (name, want) in files() {
        let path = dir.join(name);
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale or missing: run `{REFRESH}` and commit the result",
            path.display()
        );
    }
}

/// Every kind of event the simulator notes (`.note("kind", ...)` in its sources) is
/// explained in the documentation of `SimEvent::kind` and in docs/simulator.md.
#[test]
fn every_event_kind_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = [
        "../core/src/result/sim_metrics.rs",
        "../../docs/simulator.md",
    ];
    let mut sources = vec![root.join("src")];
    let mut kinds = std::collections::BTreeSet::new();
    while let Some(dir) = sources.pop() {
        for entry in std::fs::read_dir(&dir).expect("source dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for (at, call) in text.match_indices(".note(") {
                let rest = text[at + call.len()..].trim_start();
                if let Some(kind) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
                    kinds.insert(kind.to_string());
                }
            }
        }
    }
    assert!(kinds.contains("rebuild_start"), "{kinds:?}");
    for file in docs {
        let doc = std::fs::read_to_string(root.join(file)).expect("the documentation");
        let missing: Vec<&String> = (kinds.iter())
            .filter(|k| !doc.contains(&format!("`{k}`")))
            .collect();
        assert!(missing.is_empty(), "{file} does not explain {missing:?}");
    }
}
