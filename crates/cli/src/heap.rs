//! Transparent huge pages for the heap, on request: `STORLAB_HUGE_HEAP=1`.
//!
//! The simulator touches a few megabytes of small structures at random on every event (disk
//! queues, requests, buffer frames, dirty-page summaries). On 4 KiB pages they span about a
//! thousand pages, more than the processor's first-level TLB holds; on 2 MiB pages, a handful.
//! Where the kernel gives huge pages only to memory that asks for them (transparent huge
//! pages in `madvise` mode, the usual default), glibc's allocator asks for its heap only when
//! its `glibc.malloc.hugetlb=1` tunable is set, and the loader reads tunables once, when the
//! program starts.
//!
//! So with `STORLAB_HUGE_HEAP=1` in its environment, `storlab` starts itself again, once,
//! with the tunable added (case 2's simulated database ran about 3% faster so), and at once
//! gives its environment back the variable's earlier value, so the programs it starts
//! (PostgreSQL, fio) see the user's environment. Without the variable (or with any other
//! value) nothing restarts: a program that executes itself again surprises debuggers,
//! profilers and process supervisors, and the gain is small. Setting `GLIBC_TUNABLES=
//! glibc.malloc.hugetlb=1` by hand gives the same heap without a restart. Results never
//! depend on it: only how the kernel backs the memory changes.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// Set in the restarted process: the user's `GLIBC_TUNABLES` ("=" and its value) or "-" for
/// none, to give back.
const SAVED: &str = "STORLAB_SAVED_TUNABLES";
const TUNABLES: &str = "GLIBC_TUNABLES";
const HUGE_HEAP: &str = "glibc.malloc.hugetlb=1";
/// The environment variable that asks for the restart.
const SWITCH: &str = "STORLAB_HUGE_HEAP";

/// True when the switch's value asks for the huge-page heap: exactly `1`.
fn requested(switch: Option<&OsStr>) -> bool {
    switch.is_some_and(|v| v == "1")
}

/// Called first in `main`: in the restarted process, restores the environment; otherwise,
/// when `STORLAB_HUGE_HEAP=1` asks for it, restarts with the tunable when that can help.
/// Returns only when no restart happened (or it failed, which leaves the run as it would be
/// without it).
pub fn use_huge_pages() {
    if let Some(saved) = std::env::var_os(SAVED) {
        std::env::remove_var(SAVED);
        match restored(&saved) {
            Some(v) => std::env::set_var(TUNABLES, v),
            None => std::env::remove_var(TUNABLES),
        }
        return;
    }
    if cfg!(not(all(target_os = "linux", target_env = "gnu")))
        || !requested(std::env::var_os(SWITCH).as_deref())
        || !thp_on_request(
            &std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                .unwrap_or_default(),
        )
    {
        return;
    }
    let user = std::env::var_os(TUNABLES);
    let Some(tunables) = with_huge_heap(user.as_deref()) else {
        return;
    };
    let mut args = std::env::args_os();
    let (Some(argv0), Ok(exe)) = (args.next(), std::env::current_exe()) else {
        return;
    };
    use std::os::unix::process::CommandExt;
    // exec returns only if it failed; the run then goes on in this process.
    let _ = std::process::Command::new(exe)
        .arg0(argv0)
        .args(args)
        .env(TUNABLES, tunables)
        .env(SAVED, saved(user.as_deref()))
        .exec();
}

/// True when the kernel's transparent huge page mode (the sysfs `enabled` file) is
/// `madvise`: huge pages for memory that asks. (`always` gives them anyway, `never` not at
/// all; either way a restart gains nothing.)
fn thp_on_request(enabled: &str) -> bool {
    enabled.contains("[madvise]")
}

/// The tunables with the huge-page heap added to the user's; None when the user's already
/// say something about it (their choice stands).
fn with_huge_heap(user: Option<&OsStr>) -> Option<OsString> {
    match user {
        None => Some(HUGE_HEAP.into()),
        Some(u) if u.is_empty() => Some(HUGE_HEAP.into()),
        Some(u) if contains(u.as_bytes(), b"glibc.malloc.hugetlb") => None,
        Some(u) => {
            let mut v = u.as_bytes().to_vec();
            v.push(b':');
            v.extend_from_slice(HUGE_HEAP.as_bytes());
            Some(OsString::from_vec(v))
        }
    }
}

/// The user's tunables encoded for [`SAVED`].
fn saved(user: Option<&OsStr>) -> OsString {
    match user {
        None => "-".into(),
        Some(u) => {
            let mut v = b"=".to_vec();
            v.extend_from_slice(u.as_bytes());
            OsString::from_vec(v)
        }
    }
}

/// The user's tunables decoded from [`SAVED`] (None: there were none).
fn restored(saved: &OsStr) -> Option<OsString> {
    saved
        .as_bytes()
        .strip_prefix(b"=")
        .map(|v| OsString::from_vec(v.to_vec()))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tunable_joins_the_users_and_never_overrides_them() {
        assert_eq!(with_huge_heap(None).unwrap(), HUGE_HEAP);
        assert_eq!(with_huge_heap(Some(OsStr::new(""))).unwrap(), HUGE_HEAP);
        assert_eq!(
            with_huge_heap(Some(OsStr::new("glibc.malloc.arena_max=2"))).unwrap(),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"
        );
        // The user asked for something about the heap's pages: theirs stands.
        assert_eq!(
            with_huge_heap(Some(OsStr::new("glibc.malloc.hugetlb=0"))),
            None
        );
        assert_eq!(
            with_huge_heap(Some(OsStr::new("a=1:glibc.malloc.hugetlb=2"))),
            None
        );
    }

    #[test]
    fn the_users_tunables_come_back_as_they_were() {
        for user in [
            None,
            Some(""),
            Some("glibc.malloc.arena_max=2"),
            Some("-"),
            Some("=x"),
        ] {
            let user = user.map(OsStr::new);
            assert_eq!(restored(&saved(user)).as_deref(), user, "{user:?}");
        }
    }

    #[test]
    fn only_the_switch_set_to_one_asks_for_it() {
        assert!(requested(Some(OsStr::new("1"))));
        for v in [None, Some(""), Some("0"), Some("yes"), Some("11")] {
            assert!(!requested(v.map(OsStr::new)), "{v:?}");
        }
    }

    #[test]
    fn only_the_madvise_mode_restarts() {
        assert!(thp_on_request("always [madvise] never\n"));
        assert!(!thp_on_request("[always] madvise never\n"));
        assert!(!thp_on_request("always madvise [never]\n"));
        assert!(!thp_on_request(""));
    }
}
