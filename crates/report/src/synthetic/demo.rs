//! The demonstration study: two simulated 14-disk arrays (RAID 5, RAID 10) compared, and a
//! real disk on its own.

use super::*;

const RAID5_GROUPS: [(&str, usize); 2] = [("r5-0", 7), ("r5-1", 7)];
const RAID10_GROUPS: [(&str, usize); 2] = [("r10-0", 6), ("r10-1", 8)];

fn sim_run(cfg: &str, wl: &str, iops: f64, block: f64, lat: f64, seed: u64) -> Run {
    let mut r = run(cfg, TargetKind::Sim, wl, iops, block, lat);
    let raid5 = cfg == "raid5";
    let groups: &[(&str, usize)] = if raid5 { &RAID5_GROUPS } else { &RAID10_GROUPS };
    let util = if wl.starts_with("randwrite") && raid5 {
        92.0
    } else {
        68.0
    };
    r.devices = devices(groups, util, iops / 10.0, seed);
    r.arrays = groups
        .iter()
        .map(|(g, _)| {
            let level = if raid5 { "raid5" } else { "raid10" };
            array(g, level, iops / 3.0, raid5)
        })
        .collect();
    r.series = series(iops, false, seed);
    r
}

fn sim_db(cfg: &str, wl: &str, rows: f64, lat: f64, seed: u64) -> Run {
    let mut r = sim_run(cfg, wl, rows * 2.5, 8.0, lat, seed);
    r.workload.kind = WorkloadKind::Db;
    r.metrics.rows_per_s = Some(rows);
    r.metrics.tx_per_min = Some(rows * 60.0);
    r.metrics.wal_mb_per_s = Some(rows * 0.0004);
    r.metrics.waits = waits(lat);
    r.series = series(rows, true, seed);
    r
}

/// A point of a load sweep on a device of `capacity` IOPS: outstanding `k`.
fn sweep_point(cfg: &str, capacity: f64, k: u32, seed: u64) -> Run {
    let kf = f64::from(k);
    let iops = capacity * kf / (kf + 6.0);
    let lat = kf / iops * 1000.0;
    let mut r = sim_run(cfg, "oltp-60-40", iops, 5.5, lat, seed + u64::from(k));
    r.workload.parameters = serde_json::json!([{
        "name": "oltp-60-40", "pattern": "random", "read_pct": 60.0,
        "block_sizes": [{"size": "2k", "weight": 75.0}, {"size": "16k", "weight": 25.0}],
        "jobs": 1, "iodepth": k, "rate_iops": null,
    }]);
    r.metrics.latency_ms.p99 = lat * (2.5 + kf / 16.0);
    r.series.clear();
    r
}

fn real_iostat(r_s: f64, w_s: f64, device: &str) -> DeviceIostat {
    let f = |k: f64| IostatFigures {
        r_s: r_s * k,
        w_s: w_s * k,
        rmb_s: r_s * k * 0.008,
        wmb_s: w_s * k * 0.008,
        r_await_ms: 5.0 * k,
        w_await_ms: 1.5 * k,
        aqu_sz: 2.0 * k,
        util_pct: (70.0 * k).min(100.0),
    };
    DeviceIostat {
        device: device.into(),
        samples: 60,
        min: f(0.7),
        avg: f(1.0),
        max: f(1.3),
    }
}

fn real_runs() -> Vec<Cell> {
    let disk = "local-disk";
    let mut rr = run(disk, TargetKind::Real, "randread-8k", 182.0, 8.0, 43.0);
    rr.iostat = vec![real_iostat(182.0, 0.0, "sdb")];
    let mut rw = run(disk, TargetKind::Real, "randwrite-8k", 420.0, 8.0, 19.0);
    rw.iostat = vec![real_iostat(0.0, 420.0, "sdb")];
    let mut db = db_run(disk, TargetKind::Real, "dpaws/update-row", 950.0, 3.1);
    db.metrics.waits = waits(7.5);
    db.series = series(950.0, true, 77);
    db.db = Some(storlab_core::result::DbEvidence {
        server_version: "16.2".into(),
        roles: vec![
            RoleIostat {
                role: "data".into(),
                path: "/srv/pg/data".into(),
                devices: vec![real_iostat(310.0, 120.0, "sdb")],
            },
            RoleIostat {
                role: "wal".into(),
                path: "/srv/pg/wal".into(),
                devices: vec![real_iostat(0.0, 480.0, "sdc")],
            },
        ],
        ..Default::default()
    });
    let err = "target /srv/scratch has 2.1 GB free; seqwrite-1m needs 8 GB \
               (raise --size or pick another target)";
    vec![
        cell(disk, 1, rr),
        cell(disk, 1, rw),
        cell(disk, 1, db),
        failed_cell(disk, "seqwrite-1m", 1, err),
    ]
}

fn configurations() -> Vec<Configuration> {
    let mut r5 = config("raid5", TargetKind::Sim);
    r5.description = Some("two RAID 5 6+P groups, 14 x 146 GB 15K rpm, 2 GB write cache".into());
    r5.disks = Some(14);
    r5.usable_gb = Some(12.0 * 146.0);
    r5.price_per_disk = Some(450.0);
    let mut r10 = config("raid10", TargetKind::Sim);
    r10.description = Some("RAID 10 3+3 and 4+4, 14 x 146 GB 15K rpm, 2 GB write cache".into());
    r10.disks = Some(14);
    r10.usable_gb = Some(7.0 * 146.0);
    r10.price_per_disk = Some(450.0);
    let mut real = config("local-disk", TargetKind::Real);
    real.description = Some("one 10K SAS disk, ext4, io_uring".into());
    real.disks = Some(1);
    real.usable_gb = Some(600.0);
    vec![r5, r10, real]
}

/// A study comparing RAID 5, RAID 10 (simulated) and a real disk over five workloads, with
/// repeats, a load sweep and one failed cell: what the sample report is drawn from.
pub fn demo_study() -> Study {
    let mut cells = Vec::new();
    // (workload, raid5 IOPS, raid10 IOPS, block KiB, raid5 ms, raid10 ms)
    let io = [
        ("randread-8k", 2800.0, 2850.0, 8.0, 22.8, 22.4),
        ("randwrite-8k", 700.0, 1372.0, 8.0, 91.0, 46.5),
        ("seqwrite-1m", 295.6, 284.2, 1024.0, 27.0, 28.1),
    ];
    for (k, (wl, a, b, bs, la, lb)) in io.into_iter().enumerate() {
        for rep in 1..=2u32 {
            let s = k as u64 * 10 + u64::from(rep);
            let j = 1.0 + 0.01 * jitter(s);
            cells.push(cell("raid5", rep, sim_run("raid5", wl, a * j, bs, la, s)));
            cells.push(cell(
                "raid10",
                rep,
                sim_run("raid10", wl, b * j, bs, lb, s + 5),
            ));
        }
    }
    for rep in 1..=2u32 {
        let j = 1.0 + 0.015 * jitter(u64::from(rep) + 50);
        let s = 60 + u64::from(rep);
        cells.push(cell(
            "raid5",
            rep,
            sim_db("raid5", "dpaws/update-row", 1800.0 * j, 4.4, s),
        ));
        cells.push(cell(
            "raid10",
            rep,
            sim_db("raid10", "dpaws/update-row", 1926.0 * j, 4.1, s),
        ));
    }
    for k in [1, 2, 4, 8, 16, 32, 64] {
        cells.push(cell("raid5", 1, sweep_point("raid5", 2300.0, k, 200)));
        cells.push(cell("raid10", 1, sweep_point("raid10", 2900.0, k, 300)));
    }
    cells.extend(real_runs());
    Study {
        title: "RAID 5 vs RAID 10 on the mid-range array".into(),
        configurations: configurations(),
        workloads: [
            "randread-8k",
            "randwrite-8k",
            "seqwrite-1m",
            "dpaws/update-row",
            "oltp-60-40",
        ]
        .map(String::from)
        .to_vec(),
        cells,
        meta: meta(),
        questions: vec![
            crate::model::Question {
                title: "RAID 5 or RAID 10 on the mid-range array?".into(),
                configurations: vec!["raid5".into(), "raid10".into()],
            },
            crate::model::Question {
                title: "What does this machine's disk do?".into(),
                configurations: vec!["local-disk".into()],
            },
        ],
        users_sweeps: Vec::new(),
    }
}
