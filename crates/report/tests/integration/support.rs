//! Small synthetic studies.

use storlab_core::result::TargetKind::{Real, Sim};
use storlab_report::synthetic::{cell, config, db_run, failed_cell, meta, run};
use storlab_report::{Question, Study};

/// RAID 5 and RAID 10 (in `order`) on random reads and writes and update-row: RAID 10 has
/// 2x the random-write IOPS, 1.07x the update-row rows/s and the same reads (within 1%).
pub fn raid_study(order: [&str; 2]) -> Study {
    let mut cells = Vec::new();
    for name in order {
        let r10 = name == "raid10";
        let (w, rows, read) = if r10 {
            (2000.0, 1070.0, 3030.0)
        } else {
            (1000.0, 1000.0, 3000.0)
        };
        let wlat = if r10 { 4.0 } else { 8.0 };
        cells.push(cell(
            name,
            1,
            run(name, Sim, "randread-8k", read, 8.0, 10.0),
        ));
        cells.push(cell(name, 1, run(name, Sim, "randwrite-8k", w, 8.0, wlat)));
        cells.push(cell(
            name,
            1,
            db_run(name, Sim, "dpaws/update-row", rows, 2.0),
        ));
    }
    Study {
        title: "RAID 5 vs RAID 10".into(),
        configurations: order.iter().map(|n| config(n, Sim)).collect(),
        workloads: ["randread-8k", "randwrite-8k", "dpaws/update-row"]
            .map(String::from)
            .to_vec(),
        cells,
        meta: meta(),
        questions: Vec::new(),
        users_sweeps: Vec::new(),
    }
}

/// [`raid_study`] plus a failed cell and a real configuration with a hostile name, which a
/// question (hostile too) compares with raid5 on purpose.
pub fn hostile_study() -> Study {
    let mut s = raid_study(["raid5", "raid10"]);
    let evil = "<b>x</b>";
    s.configurations.push(config(evil, Real));
    s.cells.push(cell(
        evil,
        1,
        run(evil, Real, "randread-8k", 150.0, 8.0, 30.0),
    ));
    s.cells.push(failed_cell(
        "raid10",
        "seqwrite-1m",
        1,
        "disk <full> & \"gone\"",
    ));
    s.workloads.push("seqwrite-1m".into());
    s.questions = vec![
        Question {
            title: "RAID 5 or RAID 10?".into(),
            configurations: vec!["raid5".into(), "raid10".into()],
        },
        Question {
            title: "Does the <i>model</i> match & \"this\" disk?".into(),
            configurations: vec!["raid5".into(), evil.into()],
        },
    ];
    s
}
