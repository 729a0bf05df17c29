//! The CPU a report gives, from the Load Profile, Time Model and Operating System Statistics.

use storlab_awr::parse_report;

use super::{close, fixture, has_warning, read};

/// The CPU a report gives: the sessions' per transaction from the Load Profile's DB CPU (Time
/// Model's when the Load Profile has none), the host's CPUs, the background CPU, and the log
/// writer's CPU per write (all background CPU over the redo writes: 288 s over 720,000).
#[test]
fn cpu_from_the_time_model_and_the_os_statistics() {
    let (c, r) = read("acme-awr.txt");
    assert!(r.found.contains(&"Time Model Statistics".to_string()));
    assert!(r.found.contains(&"Operating System Statistics".to_string()));
    assert_close!(c.transactions[0].cpu_ms, 24.0);
    assert_eq!(c.instance.cpus, 16);
    let o = c.observed.as_ref().unwrap();
    assert_close!(o.db_cpu_per_s.unwrap(), 6.0);
    assert_close!(o.background_cpu_per_s.unwrap(), 288.0 / 3600.0);
    assert_eq!(
        c.instance
            .settings
            .get("log_writer_cpu_us")
            .map(String::as_str),
        Some("400")
    );

    let text = std::fs::read_to_string(fixture("acme-awr.txt")).unwrap();
    // Without the Load Profile's DB CPU, the header's CPUs and Host CPU: Time Model's DB CPU
    // (21,600 s over 900,000 transactions), NUM_CPUS, and BUSY_TIME over BUSY_TIME + IDLE_TIME.
    let cut: String = text
        .lines()
        .filter(|l| !l.contains("DB CPU(s):") && !l.starts_with("acmedb01"))
        .map(|l| l.replace("CPUs:   16", "").replace("Host CPU", "Host Load"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (c, r) = parse_report(cut.as_bytes(), "cut.txt").unwrap();
    assert!(!r.found.contains(&"Host CPU".to_string()), "{:?}", r.found);
    assert_close!(c.transactions[0].cpu_ms, 24.0);
    assert_eq!(c.instance.cpus, 16);
    assert_close!(c.instance.cpu_busy_pct.unwrap(), 45.0);
    let o = c.observed.as_ref().unwrap();
    assert_close!(o.db_cpu_per_s.unwrap(), 6.0);

    // Without redo writes the log writer's CPU is not known, and a warning says so.
    let cut: String = text
        .lines()
        .filter(|l| !l.starts_with("redo writes"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (c, r) = parse_report(cut.as_bytes(), "cut.txt").unwrap();
    assert!(!c.instance.settings.contains_key("log_writer_cpu_us"));
    assert!(has_warning(&r, "no redo writes"), "{:?}", r.warnings);
}
