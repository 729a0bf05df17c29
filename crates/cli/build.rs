//! Records the git commit storlab is built from (`unknown` outside a checkout), and has
//! Cargo run this again whenever HEAD moves: a commit, a checkout, a merge or a reset
//! rewrites the HEAD file of the checkout (or worktree), the ref file HEAD points to, or
//! `packed-refs` (a ref packed by `git gc` and then moved). Those are found through git
//! itself, so a worktree (whose `.git` is a file) and a packed ref are followed too.
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `git ARGS` prints (trimmed), if it succeeds.
fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The files whose change moves HEAD. A loose ref that does not exist yet (the ref is
/// packed) is watched through its directory, where git creates it.
fn head_files() -> Vec<PathBuf> {
    // Relative answers are relative to this directory, where Cargo runs the script.
    let here = std::env::current_dir().unwrap_or_default();
    let (Some(git_dir), Some(common)) = (
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) else {
        return Vec::new();
    };
    let (git_dir, common) = (here.join(git_dir), here.join(common));
    let mut files = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
        let loose = common.join(&reference);
        match loose.exists() {
            true => files.push(loose),
            false => files.extend(loose.parent().map(Path::to_path_buf)),
        }
    }
    files.retain(|f| f.exists());
    files
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=STORLAB_GIT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    for f in head_files() {
        println!("cargo:rerun-if-changed={}", f.display());
    }
}
