//! A shipped drive (the Cheetah 4LP) copied with another layout and a synthetic trace, and
//! the demerit `validate --drives` gives it: what the layout tests (drives_g2, drives_g4)
//! compare.

use std::path::Path;

use serde_json::Value;

use super::storlab;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The Cheetah 4LP's description in `dir` with the layout `layout` on a drive of
/// `cylinders` cylinders, 2 surfaces and `blocks` blocks, the files `extra` (name, text)
/// beside it, and a trace of 400 reads and writes: request `i` with `i % 10` = k below
/// `hot.len()` falls in hot range k (first block, span), the others spread over the drive.
pub fn write_cheetah(
    dir: &Path,
    layout: &str,
    (cylinders, blocks): (u32, u64),
    extra: &[(&str, &str)],
    hot: &[(u64, u64)],
) {
    let src = format!("{REPO}/references/drives");
    for name in ["cheetah4LP.diskspecs", "cheetah4LP.seek", "cheetah4LP.parv"] {
        std::fs::copy(format!("{src}/{name}"), dir.join(name)).expect("copy");
    }
    let mut model = std::fs::read_to_string(format!("{src}/cheetah4LP.model")).expect("model");
    let at = model.find("Layout Model = ").expect("layout") + "Layout Model = ".len();
    let (mut depth, mut end) = (0, at);
    for (i, c) in model[at..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => {
                end = at + i + 1;
                break;
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    model.replace_range(at..end, layout);
    for (key, value) in [
        ("Number of data surfaces", "2".to_string()),
        ("Number of cylinders", cylinders.to_string()),
        ("Block count", blocks.to_string()),
    ] {
        let k = model.find(key).expect("key");
        let e = k + model[k..].find(',').expect("comma");
        model.replace_range(k..e, &format!("{key} = {value}"));
    }
    std::fs::write(dir.join("cheetah4LP.model"), model).expect("write model");
    for (name, text) in extra {
        std::fs::write(dir.join(name), text).expect("write a file beside the drive");
    }
    let mut trace = String::new();
    let mut x = 12_345u64;
    for i in 0..400 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let op = if i % 3 == 0 { "W" } else { "R" };
        let lbn = match hot.get(i % 10) {
            Some(&(first, span)) => first + (x >> 33) % span,
            None => (x >> 33) % (blocks - 10),
        };
        trace += &format!(
            "{op} Miss {lbn} {} 6000 {}\n",
            1 + (x >> 20) % 8,
            (x >> 40) % 3000
        );
    }
    std::fs::write(dir.join("cheetah4LP.trace"), trace).expect("write trace");
}

/// The demerit `storlab validate --drives DIR` gives the one drive in `dir`.
pub fn demerit(dir: &Path) -> f64 {
    let json = dir.join("out.json");
    let out = storlab()
        .args(["validate", "--drives"])
        .arg(dir)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&out.stdout);
    let text = std::fs::read_to_string(&json).expect("json written");
    let v: Value = serde_json::from_str(&text).expect("JSON");
    v[0]["demerit_ms"]
        .as_f64()
        .unwrap_or_else(|| panic!("a demerit: {said}"))
}

/// `storlab drive import` of the Cheetah copy in `dir`: the TOML it writes.
pub fn imported(dir: &Path) -> String {
    let out = dir.join("drive.toml");
    storlab()
        .args(["drive", "import"])
        .arg(dir.join("cheetah4LP.diskspecs"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    std::fs::read_to_string(&out).expect("toml")
}

/// `storlab drive import` of the Cheetah copy in `dir`: refused with exit code 2, with no
/// panic, saying each of `what`.
pub fn import_refused(dir: &Path, what: &[&str]) {
    let out = storlab()
        .args(["drive", "import"])
        .arg(dir.join("cheetah4LP.diskspecs"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what:?}: {err}");
    for w in what {
        assert!(err.contains(w), "`{w}` not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}
