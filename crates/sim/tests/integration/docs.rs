//! docs/config.md, docs/models.md and docs/db.md are what the declarations give.

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
