use storlab_core::result::TargetKind::Sim;
use storlab_report::synthetic::{cell, run};
use storlab_report::{findings, Finding};

use crate::support::{hostile_study, raid_study};

fn sentence<'a>(f: &'a [Finding], config: &str) -> &'a Finding {
    f.iter()
        .find(|x| x.text.starts_with(&format!("{config}: ")) && x.metric != "lat_p99_ms")
        .unwrap_or_else(|| panic!("no sentence for {config} in {f:#?}"))
}

#[test]
fn raid10_gains_are_stated_with_their_size() {
    let f = findings(&raid_study(["raid5", "raid10"]));
    let s = sentence(&f, "raid10");
    assert!(s.text.contains("+100% random-write IOPS"), "{}", s.text);
    assert!(s.text.contains("+7% update-row rows/s"), "{}", s.text);
    assert!(s.text.contains("reads within 1%"), "{}", s.text);
    assert_eq!(s.workload, "randwrite-8k");
    assert_eq!(s.metric, "iops");
    assert!((s.delta_pct - 100.0).abs() < 1e-9);
    assert_eq!(s.anchor, "chart-relative");
}

#[test]
fn swapping_the_configurations_flips_the_signs() {
    let f = findings(&raid_study(["raid10", "raid5"]));
    let s = sentence(&f, "raid5");
    assert!(
        s.text.contains("random-write IOPS 100% better on raid10"),
        "{}",
        s.text
    );
    assert!(
        s.text.contains("update-row rows/s 7% better on raid10"),
        "{}",
        s.text
    );
    assert!(!s.text.contains('+'), "{}", s.text);
    assert!((s.delta_pct + 50.0).abs() < 1e-9);
}

#[test]
fn equal_results_are_within() {
    let mut study = raid_study(["raid5", "raid10"]);
    study.cells.retain(|c| c.workload == "randread-8k");
    let f = findings(&study);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].text, "raid10: reads within 1%");
}

#[test]
fn large_p99_differences_get_their_own_finding() {
    let f = findings(&raid_study(["raid5", "raid10"]));
    let lat: Vec<&Finding> = f.iter().filter(|x| x.metric == "lat_p99_ms").collect();
    assert_eq!(lat.len(), 1, "{lat:#?}");
    assert_eq!(lat[0].workload, "randwrite-8k");
    assert_eq!(
        lat[0].text,
        "raid10: p99 latency lower for random-write (50%, 14.00 vs 28.00 ms)"
    );
    assert!(lat[0].anchor.ends_with("-pct"));
}

#[test]
fn each_workload_is_compared_with_the_first_configuration_that_ran_it() {
    // raid5 ran only the I/O profiles; raid10 and a third ran the rest: the third is compared
    // with raid10 there, and its sentence says so.
    let mut study = raid_study(["raid5", "raid10"]);
    let mut third: Vec<_> = study
        .cells
        .iter()
        .filter(|c| c.configuration == "raid10")
        .cloned()
        .collect();
    for c in &mut third {
        c.configuration = "other".into();
    }
    study.configurations.push(study.configurations[1].clone());
    study.configurations[2].name = "other".into();
    study
        .cells
        .retain(|c| !(c.configuration == "raid5" && c.workload == "randwrite-8k"));
    study.cells.extend(third);
    let f = findings(&study);
    let other = f
        .iter()
        .find(|x| x.text.starts_with("other"))
        .expect("a sentence about other");
    assert!(
        other.text.starts_with("other (against raid5, raid10):"),
        "{}",
        other.text
    );
}

#[test]
fn failed_cells_are_named() {
    let f = findings(&hostile_study());
    let fail = f
        .iter()
        .find(|x| x.anchor == "failed-cells")
        .expect("failure finding");
    assert!(
        fail.text.contains("seqwrite-1m failed on raid10"),
        "{}",
        fail.text
    );
    assert!(fail.text.contains("disk <full>"), "{}", fail.text);
}

#[test]
fn repeats_are_averaged_and_sequential_uses_mbps() {
    let mut study = raid_study(["raid5", "raid10"]);
    study.cells.clear();
    for (name, rep, iops) in [("raid5", 1, 90.0), ("raid5", 2, 110.0), ("raid10", 1, 80.0)] {
        study.cells.push(cell(
            name,
            rep,
            run(name, Sim, "seqwrite-1m", iops, 1024.0, 5.0),
        ));
    }
    let f = findings(&study);
    let s = sentence(&f, "raid10");
    assert_eq!(s.metric, "mbps");
    assert!((s.delta_pct + 20.0).abs() < 1e-9, "{}", s.delta_pct);
    assert!(
        s.text
            .contains("sequential-write 1 MiB MB/s 25% better on raid5"),
        "{}",
        s.text
    );
}

#[test]
fn the_demo_study_reads_like_the_example() {
    let f = findings(&storlab_report::synthetic::demo_study());
    let s = sentence(&f, "raid10");
    assert!(
        s.text
            .starts_with("raid10: +96% random-write IOPS, +7% update-row rows/s"),
        "{}",
        s.text
    );
    assert!(s.text.contains("reads within 2%"), "{}", s.text);
    assert!(
        s.text
            .contains("sequential-write 1 MiB MB/s 4% better on raid5"),
        "{}",
        s.text
    );
}
