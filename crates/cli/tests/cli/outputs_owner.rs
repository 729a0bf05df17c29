//! Output files storlab did not write are never replaced, whatever command or flag names
//! them: an existing file without storlab's mark (a result's schema, a page's generator
//! mark, a TOML or Markdown file's first line, a CSV's header), an input of the same run
//! (by any name), a link to nowhere, two flags naming one file: exit 2 before the run, the
//! file left as it was. Storlab's own outputs are replaced.

use std::path::Path;

use predicates::prelude::*;

use super::{example, storlab};

const PRECIOUS: &str = "precious\n";

/// `storlab sim` of an hour of simulated time (exit 2 at once, or it would take minutes).
fn hour_long_sim() -> assert_cmd::Command {
    let mut cmd = storlab();
    cmd.args(["sim", "--array", &example("midrange-raid5.toml")])
        .args(["--profile", "randread-8k", "--duration", "3600s"]);
    cmd
}

/// A users sweep of an hour of simulated time per point.
fn hour_long_sweep() -> assert_cmd::Command {
    let mut cmd = storlab();
    cmd.args(["sim", "--array", &example("midrange-raid5.toml")])
        .args(["--db-test", "update-row", "--users-sweep", "--users", "1,2"])
        .args(["--duration", "3600s"]);
    cmd
}

/// A short `storlab sim` writing `--json json`.
fn short_sim(json: &Path) -> assert_cmd::assert::Assert {
    storlab()
        .args(["sim", "--array", &example("midrange-raid5.toml")])
        .args([
            "--profile",
            "randread-8k",
            "--duration",
            "1s",
            "--warmup",
            "0",
        ])
        .arg("--json")
        .arg(json)
        .assert()
}

/// Expects exit 2 before anything ran, naming `flag`, `path` and `reason`, and `path`
/// holding what it held.
fn refused(cmd: &mut assert_cmd::Command, flag: &str, path: &Path, reason: &str) {
    let before = std::fs::read(path).ok();
    cmd.assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!(
            "{flag} {}",
            path.display()
        )))
        .stderr(predicate::str::contains(reason));
    assert_eq!(
        std::fs::read(path).ok(),
        before,
        "{} changed",
        path.display()
    );
}

const NOT_OURS: &str = "was not written by storlab";

#[test]
fn a_result_file_storlab_did_not_write_is_refused_before_the_run_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.json");
    std::fs::write(&p, PRECIOUS).unwrap();
    refused(
        hour_long_sim().arg("--json").arg(&p),
        "--json",
        &p,
        NOT_OURS,
    );
    let other = dir.path().join("other.json");
    std::fs::write(&other, "{\"schema\": \"someone-else/1\", \"runs\": []}\n").unwrap();
    refused(
        hour_long_sim().arg("--json").arg(&other),
        "--json",
        &other,
        "remove the file or name another path",
    );
    // Through a symbolic link, the file it points at is judged; a link to nowhere is refused.
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&p, &link).unwrap();
    refused(
        hour_long_sim().arg("--json").arg(&link),
        "--json",
        &link,
        NOT_OURS,
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), PRECIOUS);
    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink(dir.path().join("nowhere.json"), &dangling).unwrap();
    refused(
        hour_long_sim().arg("--json").arg(&dangling),
        "--json",
        &dangling,
        "does not exist",
    );
    assert!(!dir.path().join("nowhere.json").exists());
    // The other commands' result files are held to the same rule.
    let target = dir.path().join("t.dat");
    refused(
        storlab()
            .args(["io", "--duration", "3600s", "--size", "1MiB", "--target"])
            .arg(&target)
            .arg("--json")
            .arg(&p),
        "--json",
        &p,
        NOT_OURS,
    );
    assert!(!target.exists(), "io created nothing");
    refused(
        storlab()
            .args(["db", "--duration", "3600s", "--data-dir"])
            .arg(dir.path().join("pg"))
            .arg("--json")
            .arg(&p),
        "--json",
        &p,
        NOT_OURS,
    );
    refused(
        storlab().args(["validate", "--json"]).arg(&p),
        "--json",
        &p,
        NOT_OURS,
    );
}

#[test]
fn storlab_replaces_its_own_result_file() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r.json");
    short_sim(&r).success();
    let first = std::fs::read_to_string(&r).unwrap();
    std::fs::write(&r, first.replace("randread-8k", "edited-by-hand")).unwrap();
    short_sim(&r).success();
    let second = std::fs::read_to_string(&r).unwrap();
    assert!(
        second.contains("randread-8k") && !second.contains("edited-by-hand"),
        "not replaced"
    );
}

#[test]
fn an_input_of_the_run_is_never_an_output_by_any_name() {
    let dir = tempfile::tempdir().unwrap();
    let array = dir.path().join("a.toml");
    std::fs::copy(example("midrange-raid5.toml"), &array).unwrap();
    let mut cmd = storlab();
    cmd.current_dir(dir.path())
        .args(["sim", "--array", "a.toml", "--profile", "randread-8k"])
        .args(["--duration", "3600s", "--json", "./sub/../a.toml"]);
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let array_text = std::fs::read_to_string(&array).unwrap();
    refused(
        &mut cmd,
        "--json",
        Path::new("./sub/../a.toml"),
        "is the --array file of this run",
    );
    assert_eq!(std::fs::read_to_string(&array).unwrap(), array_text);
    // A storlab result read as an input is not replaced by the run that reads it either.
    let r = dir.path().join("r.json");
    short_sim(&r).success();
    let before = std::fs::read_to_string(&r).unwrap();
    refused(
        storlab()
            .args(["sim", "--array", &example("midrange-raid5.toml")])
            .args(["--duration", "3600s", "--workload-from"])
            .arg(&r)
            .arg("--json")
            .arg(&r),
        "--json",
        &r,
        "is the --workload-from file",
    );
    assert_eq!(std::fs::read_to_string(&r).unwrap(), before);
    // The target of storlab io, before it exists.
    let target = dir.path().join("t.dat");
    refused(
        storlab()
            .args(["io", "--duration", "3600s", "--size", "1MiB", "--target"])
            .arg(&target)
            .arg("--json")
            .arg(&target),
        "--json",
        &target,
        "is the --target file",
    );
    assert!(!target.exists());
}

#[test]
fn two_flags_naming_one_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = hour_long_sweep();
    cmd.arg("--json")
        .arg(&out)
        .arg("--users-html")
        .arg(dir.path().join("./out"));
    cmd.assert()
        .code(2)
        .stderr(predicate::str::contains("is also the --json file"));
    assert!(!out.exists());
}

#[test]
fn pages_tables_and_models_storlab_did_not_write_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mine = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let page = mine(
        "page.html",
        "<html><head><title>mine</title></head></html>\n",
    );
    refused(
        hour_long_sweep().arg("--users-html").arg(&page),
        "--users-html",
        &page,
        NOT_OURS,
    );
    let readme = mine("README.md", "# My project\n\nWords.\n");
    refused(
        storlab().args(["validate", "--markdown"]).arg(&readme),
        "--markdown",
        &readme,
        NOT_OURS,
    );
    let drives = format!("{}/../../references/drives", env!("CARGO_MANIFEST_DIR"));
    refused(
        storlab()
            .args(["validate", "--drives", &drives, "--html"])
            .arg(&page),
        "--html",
        &page,
        NOT_OURS,
    );
    let list = mine("drives.json", "[{\"drive\": \"mine\"}]\n");
    refused(
        storlab()
            .args(["validate", "--drives", &drives, "--json"])
            .arg(&list),
        "--json",
        &list,
        NOT_OURS,
    );
    let model = mine("model.toml", "# my drive\n[disk_models.x]\n");
    let diskspecs = format!("{drives}/atlas_III.diskspecs");
    refused(
        storlab()
            .args(["drive", "import", &diskspecs, "--out"])
            .arg(&model),
        "--out",
        &model,
        NOT_OURS,
    );
    // The fitted array that validate --local writes beside its --json file.
    let beside = mine("local.array.toml", "name = \"mine\"\n");
    refused(
        storlab()
            .args(["validate", "--local", "--json"])
            .arg(dir.path().join("local.json")),
        "--json",
        &beside,
        NOT_OURS,
    );
    // A capture's --out, refused before the server is asked for anything.
    let profile = mine("profile.toml", "# tuned by hand\nname = \"x\"\n");
    refused(
        storlab()
            .args([
                "db",
                "--dsn",
                "host=/tmp/storlab-no-such-socket port=5999 dbname=x",
            ])
            .args(["--capture", "5s", "--out"])
            .arg(&profile),
        "--out",
        &profile,
        NOT_OURS,
    );
}

/// A JSON file whose `schema` is not its first key is the user's, whatever it says; a 2 GiB
/// one (sparse) is refused before the run without being read whole, as a result file and as
/// other JSON (a capture's `.json` `--out`, refused by its size with the bound).
#[test]
fn a_json_file_without_a_results_head_or_over_the_bound_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let second = dir.path().join("second.json");
    std::fs::write(
        &second,
        "{\"runs\": [], \"schema\": \"storlab.results/1\"}\n",
    )
    .unwrap();
    refused(
        hour_long_sim().arg("--json").arg(&second),
        "--json",
        &second,
        NOT_OURS,
    );
    let big = dir.path().join("big.json");
    std::fs::write(&big, "{\"data\": [").unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&big).unwrap();
    file.set_len(2 << 30).unwrap();
    refused(
        hour_long_sim().arg("--json").arg(&big),
        "--json",
        &big,
        NOT_OURS,
    );
    refused(
        storlab()
            .args([
                "db",
                "--dsn",
                "host=/tmp/storlab-no-such-socket port=5999 dbname=x",
            ])
            .args(["--capture", "5s", "--out"])
            .arg(&big),
        "--out",
        &big,
        "holds 2147483648 bytes, more than storlab writes there (at most 64 MiB)",
    );
}

#[test]
fn storlab_replaces_its_own_imported_drive() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("atlas.toml");
    let diskspecs = format!(
        "{}/../../references/drives/atlas_III.diskspecs",
        env!("CARGO_MANIFEST_DIR")
    );
    for _ in 0..2 {
        storlab()
            .args(["drive", "import", &diskspecs, "--out"])
            .arg(&out)
            .assert()
            .success();
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("[disk_models.atlas_III]"), "{text}");
}
