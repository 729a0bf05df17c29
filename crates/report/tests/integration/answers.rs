use storlab_core::result::TargetKind::{Real, Sim};
use storlab_report::synthetic::{cell, config, demo_study, run};
use storlab_report::{answers, render_html, Question, Study};

use crate::support::raid_study;

/// [`raid_study`] plus two more simulated arrays, `noprfg` and `prfg`, where `prfg` has 5x
/// the random-read IOPS; the plan asks two questions.
fn two_questions() -> Study {
    let mut s = raid_study(["raid5", "raid10"]);
    for (name, iops) in [("noprfg", 1000.0), ("prfg", 5000.0)] {
        s.configurations.push(config(name, Sim));
        s.cells
            .push(cell(name, 1, run(name, Sim, "randread-8k", iops, 8.0, 4.0)));
    }
    s.questions = vec![
        Question {
            title: "RAID 5 or RAID 10?".into(),
            configurations: vec!["raid5".into(), "raid10".into()],
        },
        Question {
            title: "Does the preferred read pay?".into(),
            configurations: vec!["noprfg".into(), "prfg".into()],
        },
    ];
    s
}

#[test]
fn two_questions_give_two_answers_with_the_computed_ratios() {
    let study = two_questions();
    let a = answers(&study);
    assert_eq!(a.len(), 2, "{a:#?}");
    assert_eq!(a[0].question, "RAID 5 or RAID 10?");
    assert_eq!(
        a[0].sentences,
        [
            "raid10 has 2.0x the random-write IOPS of raid5 (2,000 vs 1,000) and runs \
             update-row 7% faster (1,070 vs 1,000 rows/s).",
            "The other 1 I/O workload is within 2%."
        ]
    );
    assert_eq!(
        a[1].sentences,
        ["prfg has 5.0x the random-read IOPS of noprfg (5,000 vs 1,000)."]
    );
    // Configurations of different questions are never compared.
    for s in a.iter().flat_map(|a| &a.sentences) {
        assert!(!(s.contains("raid") && s.contains("prfg")), "{s}");
    }
    let html = render_html(&study);
    assert_eq!(html.matches("<div class=\"question\"").count(), 2);
    let second = &html[html.find("id=\"question-2\"").expect("second answer")..];
    assert!(second.contains("prfg has 5.0x the random-read IOPS of noprfg"));
    assert!(
        second.contains("id=\"chart-relative-q2\""),
        "its own ratio chart"
    );
    assert!(
        html.find("id=\"question-1\"") < html.find("id=\"configurations\"").or(Some(usize::MAX)),
        "answers come first"
    );
}

#[test]
fn database_differences_within_the_noise_are_said_as_a_bound() {
    let mut study = raid_study(["raid5", "raid10"]);
    for c in study
        .cells
        .iter_mut()
        .filter(|c| c.configuration == "raid10")
    {
        let r = c.run.as_mut().expect("a run");
        if let Some(rows) = r.metrics.rows_per_s.as_mut() {
            *rows = 1013.0;
        }
    }
    let a = answers(&study);
    assert_eq!(
        a[0].sentences[0],
        "raid10 has 2.0x the random-write IOPS of raid5 (2,000 vs 1,000) but changes \
         update-row throughput by less than 2%."
    );
}

#[test]
fn this_machine_is_described_on_its_own() {
    let study = demo_study();
    let a = answers(&study);
    assert_eq!(a.len(), 2);
    assert_eq!(a[1].configurations, ["local-disk"]);
    let text = a[1].sentences.join(" ");
    assert!(
        text.starts_with(
            "local-disk (real) measured random-read 182 IOPS (p99 150 ms) and random-write \
             420 IOPS (p99 66.5 ms)."
        ),
        "{text}"
    );
    assert!(text.contains("It ran update-row at 950 rows/s."), "{text}");
    assert!(text.contains("1 of its cells failed"), "{text}");
    assert!(
        !text.contains("raid5"),
        "no comparison with a simulated array: {text}"
    );
}

#[test]
fn real_and_simulated_are_compared_only_when_a_question_pairs_them() {
    let mut study = demo_study();
    study.questions.clear();
    let html = render_html(&study);
    assert!(!html.contains("id=\"sim-vs-real\""));
    let titles: Vec<String> = answers(&study).into_iter().map(|a| a.question).collect();
    assert_eq!(titles, ["raid10 against raid5", "This machine: local-disk"]);
    study.questions.push(Question {
        title: "Does the model match this disk?".into(),
        configurations: vec!["raid5".into(), "local-disk".into()],
    });
    let html = render_html(&study);
    let section = &html[html.find("id=\"sim-vs-real\"").expect("paired on purpose")..];
    let table = &section[..section.find("</table>").expect("a table")];
    assert!(table.contains("raid5") && table.contains("local-disk"));
    assert!(!table.contains("raid10"), "raid10 is in no such question");
}

#[test]
fn cost_follows_the_figure_that_differs() {
    // Random reads are equal (within 2%); random writes differ 1.96x: the cost is per
    // random-write IOPS.
    let html = render_html(&demo_study());
    let cost = &html[html.find("total cost").expect("cost table")..];
    let head = &cost[..cost.find("</tr>").expect("header row")];
    assert!(head.contains("<th>random-write IOPS</th>"), "{head}");
    assert!(head.contains("<th>cost per IOPS</th>"), "{head}");
    assert!(cost.contains("random-write is the workload whose headline figure differs most"));
}

#[test]
fn long_tables_fold_behind_a_summary_line() {
    let html = render_html(&demo_study());
    let commands = &html[html.find("<section id=\"commands\"").expect("commands")..];
    assert!(
        commands.starts_with("<section id=\"commands\"><h2>Commands</h2><details><summary>"),
        "{}",
        &commands[..200]
    );
    let tables = &html[html.find("<section id=\"tables\"").expect("tables")..];
    assert!(
        tables.contains("<details><summary>"),
        "iostat and device tables fold"
    );
    let cost = &tables[tables.find("Capacity and cost</h3>").expect("cost")..];
    assert!(
        cost.starts_with("Capacity and cost</h3><table>"),
        "three rows stay open"
    );
}

#[test]
fn a_real_disk_next_to_simulated_arrays_keeps_its_own_charts() {
    // Without questions the real configuration gets its own question, and its charts their
    // own ids: the simulated arrays' charts do not draw it.
    let mut study = demo_study();
    study.questions.clear();
    study.configurations.push(config("other-disk", Real));
    study.cells.push(cell(
        "other-disk",
        1,
        run("other-disk", Real, "randread-8k", 190.0, 8.0, 40.0),
    ));
    let html = render_html(&study);
    let bars = html
        .split("<figure")
        .find(|f| f.contains("id=\"chart-w0-randread-8k\""))
        .expect("random-read bars");
    assert!(!bars.contains("local-disk"), "simulated arrays only");
    let real = html
        .split("<figure")
        .find(|f| f.contains("id=\"chart-w0-randread-8k-q2\""))
        .expect("the real disks' random-read bars");
    assert!(real.contains("local-disk") && real.contains("other-disk"));
    assert!(!real.contains(">raid5<"));
}

/// [`raid_study`] whose update-row runs carry a commit p99 (raid5 9 ms, raid10 2.1 ms) and,
/// when `tx`, a transaction response time p99 (raid5 12 ms, raid10 3.5 ms).
fn raid_study_with_db_latency(tx: bool) -> Study {
    let mut study = raid_study(["raid5", "raid10"]);
    for c in &mut study.cells {
        let r10 = c.configuration == "raid10";
        let r = c.run.as_mut().expect("a run");
        if r.metrics.rows_per_s.is_none() {
            continue;
        }
        let p99 = |v: f64| storlab_core::LatencySummaryMs {
            mean: v / 3.0,
            p99: v,
            ..Default::default()
        };
        r.metrics.commit_ms = Some(p99(if r10 { 2.1 } else { 9.0 }));
        if tx {
            r.metrics.tx_latency_ms = Some(p99(if r10 { 3.5 } else { 12.0 }));
        }
    }
    study
}

#[test]
fn database_answers_quote_the_transaction_response_time() {
    let a = answers(&raid_study_with_db_latency(true));
    assert_eq!(
        a[0].sentences[0],
        "raid10 has 2.0x the random-write IOPS of raid5 (2,000 vs 1,000) and runs \
         update-row 7% faster (1,070 vs 1,000 rows/s, transaction p99 3.5 vs 12 ms)."
    );
    // Runs without response times (older result files) fall back to the commit latency.
    let a = answers(&raid_study_with_db_latency(false));
    assert!(
        a[0].sentences[0].ends_with("(1,070 vs 1,000 rows/s, commit p99 2.1 vs 9 ms)."),
        "{}",
        a[0].sentences[0]
    );
    // A configuration described on its own quotes its transaction p99 too.
    let mut study = raid_study_with_db_latency(true);
    study.questions = vec![Question {
        title: "What does RAID 10 do?".into(),
        configurations: vec!["raid10".into()],
    }];
    let text = answers(&study)[0].sentences.join(" ");
    assert!(
        text.contains("update-row at 1,070 rows/s (transaction p99 3.5 ms)"),
        "{text}"
    );
}
