//! Writes the sample report of the demonstration study to `target/report-sample/`
//! (report.html and the CSV files), for a human to look at:
//! `cargo run --release -p storlab-report --example sample`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("report-sample");
    let study = storlab_report::synthetic::demo_study();
    std::fs::create_dir_all(&dir)?;
    let html = dir.join("report.html");
    std::fs::write(&html, storlab_report::render_html(&study))?;
    println!("{}", html.display());
    for (name, text) in storlab_report::csv::files(&study) {
        let path = dir.join(name);
        std::fs::write(&path, text)?;
        println!("{}", path.display());
    }
    for a in storlab_report::answers(&study) {
        println!("{}", a.question);
        for s in a.sentences {
            println!("  - {s}");
        }
    }
    Ok(())
}
