//! Writes the generated reference tables into docs/ (docs/config.md, docs/models.md,
//! docs/db.md): `cargo run --release -p storlab-sim --example docs [DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs"),
        PathBuf::from,
    );
    for (name, text) in storlab_sim::config::docs::files() {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("docs: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
