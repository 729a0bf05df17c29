//! A directory for a test's files, removed with everything in it when the test ends, passed
//! or failed (the guard is dropped while a failing test unwinds too).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh directory `storlab-<tag>-<pid>-<n>` under the system's temporary directory,
/// removed when dropped.
pub(crate) struct TestDir(PathBuf);

impl TestDir {
    pub(crate) fn new(tag: &str) -> TestDir {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("storlab-{tag}-{}-{n}", std::process::id()));
        // A directory of this name is a leftover of a killed run of the same pid: start empty.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        TestDir(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::TestDir;

    #[test]
    fn a_test_dir_is_fresh_and_removed_with_its_files_when_dropped() {
        let (a, b) = (TestDir::new("test-dir"), TestDir::new("test-dir"));
        assert_ne!(a.path(), b.path());
        std::fs::create_dir(a.path().join("sub")).unwrap();
        std::fs::write(a.path().join("sub/f"), "x").unwrap();
        let kept = a.path().to_path_buf();
        drop(a);
        assert!(!kept.exists());
        let on_panic = b.path().to_path_buf();
        let unwound = std::panic::catch_unwind(move || {
            let _held = b;
            panic!("a failing test");
        });
        assert!(unwound.is_err() && !on_panic.exists());
    }
}
