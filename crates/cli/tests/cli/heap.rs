//! The restart with a huge-page heap (crates/cli/src/heap.rs), on request only: with
//! `STORLAB_HUGE_HEAP=1`, where the kernel gives huge pages on request, the restarted program
//! starts with glibc's tunable added to the user's and the user's value saved for its
//! children. Without the switch (the default), with another value, or with a user's own heap
//! tunable, nothing restarts.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::example;

fn thp_on_request() -> bool {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|s| s.contains("[madvise]"))
}

/// A simulation that runs until killed, with `envs` set (None: removed) over an environment
/// without any of the variables involved.
fn long_sim(envs: &[(&str, Option<&str>)]) -> Child {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("storlab"));
    c.args(["sim", "--array", &example("midrange-raid5.toml")])
        .args(["--profile", "randread-8k", "--duration", "600000s"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for k in [
        "GLIBC_TUNABLES",
        "STORLAB_HUGE_HEAP",
        "STORLAB_SAVED_TUNABLES",
    ] {
        c.env_remove(k);
    }
    for &(k, v) in envs {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.spawn().expect("storlab starts")
}

/// The environment the process started its current program with, once `done` holds of it,
/// or after about `wait` (polled) when it never does.
fn start_env(child: &Child, wait: Duration, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    const POLL: Duration = Duration::from_millis(20);
    let mut polls = wait.as_millis() / POLL.as_millis();
    loop {
        let env: Vec<String> = std::fs::read(format!("/proc/{}/environ", child.id()))
            .unwrap_or_default()
            .split(|&b| b == 0)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect();
        if done(&env) || polls == 0 {
            return env;
        }
        polls -= 1;
        std::thread::sleep(POLL);
    }
}

fn has(env: &[String], var: &str) -> bool {
    env.iter().any(|v| v == var)
}

fn restarted(env: &[String]) -> bool {
    env.iter().any(|v| v.starts_with("STORLAB_SAVED_TUNABLES="))
}

#[test]
fn restarts_once_with_the_tunable_added_to_the_users() {
    let on_request = thp_on_request();
    for (user, want) in [
        (None, "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"),
        (
            Some("glibc.malloc.arena_max=4"),
            "GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1",
        ),
    ] {
        let mut child = long_sim(&[("GLIBC_TUNABLES", user), ("STORLAB_HUGE_HEAP", Some("1"))]);
        let wait = Duration::from_secs(if on_request { 10 } else { 1 });
        let env = start_env(&child, wait, restarted);
        child.kill().unwrap();
        child.wait().unwrap();
        if on_request {
            // The loader may cut the variable's value at its colons in place as it reads it.
            let whole = env.join("\n").replace("\nglibc.", ":glibc.");
            assert!(whole.split('\n').any(|v| v == want), "{user:?}: {env:?}");
            let saved = match user {
                None => "STORLAB_SAVED_TUNABLES=-".to_string(),
                Some(u) => format!("STORLAB_SAVED_TUNABLES=={u}"),
            };
            assert!(has(&env, &saved), "{user:?}: {env:?}");
        } else {
            assert!(!restarted(&env), "no huge pages on request, yet: {env:?}");
        }
    }
}

#[test]
fn no_restart_by_default_nor_over_the_users_heap_tunable() {
    for envs in [
        // The default: no switch.
        [("STORLAB_HUGE_HEAP", None), ("GLIBC_TUNABLES", None)],
        [("STORLAB_HUGE_HEAP", Some("0")), ("GLIBC_TUNABLES", None)],
        [("STORLAB_HUGE_HEAP", Some("yes")), ("GLIBC_TUNABLES", None)],
        [
            ("STORLAB_HUGE_HEAP", Some("1")),
            ("GLIBC_TUNABLES", Some("glibc.malloc.hugetlb=0")),
        ],
    ] {
        let mut child = long_sim(&envs);
        // A restart happens before the arguments are read, in a few milliseconds.
        let env = start_env(&child, Duration::from_millis(500), restarted);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!restarted(&env), "{envs:?}: {env:?}");
        assert!(!env.is_empty(), "{envs:?}: the environment was read");
    }
}
