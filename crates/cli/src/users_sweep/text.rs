//! The users sweep as text: one table row per user count, then the answer line.

use storlab_core::result::UsersSweep;

use crate::table::{num, render};

/// The points as a table.
pub fn table(s: &UsersSweep) -> String {
    let stat = format!("{} ms", s.statistic);
    let rows: Vec<Vec<String>> = s
        .points
        .iter()
        .map(|p| {
            let busiest = |all: &[storlab_core::result::DeviceUtil]| {
                all.first().map_or("-".into(), |d| {
                    format!("{} {}%", d.name, num(d.util_pct, 0))
                })
            };
            let device = busiest(&p.devices);
            vec![
                p.users.to_string(),
                num(p.tx_per_s, 1),
                p.rows_per_s.map_or("-".into(), |r| num(r, 0)),
                num(p.response_ms.mean, 2),
                num(p.response_ms.p95, 2),
                num(p.response_ms.p99, 2),
                p.cpu_util_pct.map_or("-".into(), |u| num(u, 0)),
                device,
                busiest(&p.stations),
                if p.passes { "yes" } else { "no" }.into(),
                if p.partial {
                    "partial".into()
                } else if p.steady {
                    "yes".into()
                } else {
                    "no".into()
                },
            ]
        })
        .collect();
    let under = format!("{stat} <= {}", num(s.max_response_ms, 0));
    render(
        &[
            "users",
            "tx/s",
            "rows/s",
            "mean ms",
            "p95 ms",
            "p99 ms",
            "CPU %",
            "busiest device",
            "busiest station",
            &under,
            "steady",
        ],
        &rows,
    )
}

/// "carries 48 users under p95 100 ms; knee at 40 users (N* = ...)".
pub fn answer(s: &UsersSweep) -> String {
    let target = format!("{} {} ms", s.statistic, num(s.max_response_ms, 0));
    let last = s.points.last();
    let carries = match (s.max_users, s.points.first()) {
        (None, Some(p)) => format!(
            "carries no user count measured under {target}: {} user(s) already see {} {} ms",
            p.users,
            s.statistic,
            num(stat_of(s, p), 2)
        ),
        (None, None) => "no point was measured".to_string(),
        (Some(n), _) if last.is_some_and(|p| p.users == n) => {
            format!("carries at least {n} users under {target} (every count measured met it)")
        }
        (Some(n), _) => format!("carries {n} users under {target}"),
    };
    let knee = match (&s.knee, s.knee_users) {
        (Some(k), Some(n)) => format!(
            "; knee at {n} users (N* = (D {} ms + Z {} ms) / D_max {} ms of {}{})",
            num(k.demand_ms, 3),
            num(s.think_ms, 1),
            num(k.bottleneck_demand_ms, 3),
            k.bottleneck,
            if k.bottleneck == "throughput" {
                ": no utilisation measured, a lower bound"
            } else {
                ""
            }
        ),
        _ => String::new(),
    };
    format!("{carries}{knee}")
}

fn stat_of(s: &UsersSweep, p: &storlab_core::result::UsersPoint) -> f64 {
    match s.statistic.as_str() {
        "mean" => p.response_ms.mean,
        "p99" => p.response_ms.p99,
        _ => p.response_ms.p95,
    }
}
