//! A users sweep ("how many users can this storage carry") as HTML: the response time and
//! the throughput against users, the target as a dashed line, the largest count under it
//! and the knee (Kleinrock's N*) marked, with the two asymptotes of the throughput curve
//! whose meeting point the knee is; then the points as a table.

use storlab_core::result::{UsersPoint, UsersSweep};

use crate::svg::{config_color, esc, fmt_num, Linear, Svg};

const W: f64 = 560.0;
const H: f64 = 220.0;
const LEFT: f64 = 56.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 40.0;

/// The chosen statistic of a point, ms.
fn stat(s: &UsersSweep, p: &UsersPoint) -> f64 {
    match s.statistic.as_str() {
        "mean" => p.response_ms.mean,
        "p99" => p.response_ms.p99,
        _ => p.response_ms.p95,
    }
}

/// One panel: `y` of every point against users, a dashed horizontal line at `level` and
/// the vertical marks (knee, answer).
struct Panel<'a> {
    title: String,
    y: &'a dyn Fn(&UsersPoint) -> f64,
    level: Option<(f64, &'a str)>,
    rising: Option<f64>,
}

fn panel(s: &UsersSweep, p: &Panel) -> String {
    let (pw, ph) = (W - LEFT - 16.0, H - TOP - BOTTOM);
    let max_users = s
        .points
        .iter()
        .map(|p| f64::from(p.users))
        .fold(1.0, f64::max);
    let x = Linear::fit([max_users, s.knee_users.map_or(0.0, f64::from)], pw);
    let ys = s.points.iter().map(|q| (p.y)(q));
    let ceiling = s.knee.as_ref().filter(|_| p.rising.is_some());
    let ceiling = ceiling.map(|k| 1.1e3 / k.bottleneck_demand_ms);
    let y = Linear::fit(ys.chain(p.level.map(|l| l.0 * 1.1)).chain(ceiling), ph);
    let at = |u: f64, v: f64| (LEFT + x.len(u), TOP + ph - y.len(v));
    let mut svg = Svg::new(W, H);
    svg.text(LEFT, 14.0, "start", "title", &p.title, 0.0);
    for t in y.ticks() {
        let (_, py) = at(0.0, t);
        svg.line((LEFT, py), (LEFT + pw, py), "#e5e5e5", None);
        svg.text(LEFT - 6.0, py + 4.0, "end", "tick", &fmt_num(t), 0.0);
    }
    for t in x.ticks() {
        let (px, _) = at(t, 0.0);
        svg.text(px, TOP + ph + 16.0, "middle", "tick", &fmt_num(t), 0.0);
    }
    svg.text(LEFT + pw / 2.0, H - 6.0, "middle", "axis", "users", 0.0);
    if let Some((level, name)) = p.level {
        svg.line(at(0.0, level), at(x.max, level), "#c0392b", Some("6 4"));
        svg.text(LEFT + pw, at(0.0, level).1 - 4.0, "end", "tick", name, 0.0);
    }
    if let (Some(k), Some(slope)) = (&s.knee, p.rising) {
        // The asymptotes: N / (D + Z) and 1 / D_max, meeting at N*.
        let top = 1e3 / k.bottleneck_demand_ms;
        svg.line(
            at(0.0, 0.0),
            at(k.n_star, slope * k.n_star),
            "#999",
            Some("2 3"),
        );
        svg.line(at(k.n_star, top), at(x.max, top), "#999", Some("2 3"));
    }
    marks(s, &mut svg, &|u| at(u, 0.0).0, (TOP, TOP + ph));
    let pts: Vec<(f64, f64)> = s
        .points
        .iter()
        .map(|q| at(f64::from(q.users), (p.y)(q)))
        .collect();
    svg.polyline(&pts, config_color(0), None);
    for (q, c) in s.points.iter().zip(&pts) {
        let fill = if q.passes { config_color(0) } else { "#fff" };
        let tip = format!("{} users: {}", q.users, fmt_num((p.y)(q)));
        svg.circle(*c, 3.5, fill, config_color(0), Some(&tip));
    }
    svg.finish(&p.title)
}

/// The knee and the answer as vertical lines, labelled on the side with room.
fn marks(s: &UsersSweep, svg: &mut Svg, px: &dyn Fn(f64) -> f64, (top, bottom): (f64, f64)) {
    let mut mark = |n: u32, label: String, color: &str, dash: Option<&str>, dy: f64| {
        let x = px(f64::from(n));
        svg.line((x, top), (x, bottom), color, dash);
        let (tx, anchor) = if x > W * 0.7 {
            (x - 4.0, "end")
        } else {
            (x + 4.0, "start")
        };
        svg.text(tx, top + dy, anchor, "tick", &label, 0.0);
    };
    if let Some(n) = s.knee_users {
        mark(n, format!("knee {n}"), "#8e44ad", Some("4 3"), 10.0);
    }
    if let Some(n) = s.max_users {
        let all = s.points.last().is_some_and(|p| p.users == n);
        let label = format!("carries {}{n}", if all { "\u{2265} " } else { "" });
        mark(n, label, "#27ae60", None, 24.0);
    }
}

/// The answer in one sentence.
pub fn answer(s: &UsersSweep) -> String {
    let target = format!("{} {} ms", s.statistic, fmt_num(s.max_response_ms));
    let carries = match s.max_users {
        Some(n) => format!("Carries {n} users under {target}"),
        None => format!("No user count measured stays under {target}"),
    };
    let knee = match (&s.knee, s.knee_users) {
        (Some(k), Some(n)) => format!(
            "; knee at {n} users (N* = (D {} ms + Z {} ms) / D_max {} ms of {})",
            fmt_num(k.demand_ms),
            fmt_num(s.think_ms),
            fmt_num(k.bottleneck_demand_ms),
            k.bottleneck
        ),
        _ => String::new(),
    };
    format!("{carries}{knee}.")
}

/// "data-0.d3 48%", or "-" when none was measured.
fn busiest(all: &[storlab_core::result::DeviceUtil]) -> String {
    all.first().map_or("-".into(), |d| {
        format!("{} {}%", esc(&d.name), fmt_num(d.util_pct))
    })
}

/// The charts and the table of a users sweep, as an HTML fragment.
pub fn section(s: &UsersSweep) -> String {
    let response = Panel {
        title: format!("{} response time, ms", s.statistic),
        y: &|p| stat(s, p),
        level: Some((s.max_response_ms, "target")),
        rising: None,
    };
    let slope = s.knee.as_ref().map(|k| 1e3 / (k.demand_ms + s.think_ms));
    let throughput = Panel {
        title: "throughput, transactions/s".into(),
        y: &|p| p.tx_per_s,
        level: None,
        rising: slope,
    };
    let rows: String = s
        .points
        .iter()
        .map(|p| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                p.users,
                fmt_num(p.tx_per_s),
                fmt_num(p.response_ms.mean),
                fmt_num(p.response_ms.p95),
                fmt_num(p.response_ms.p99),
                p.cpu_util_pct.map_or("-".into(), fmt_num),
                busiest(&p.devices),
                busiest(&p.stations),
                if p.passes { "yes" } else { "no" },
                if p.steady { "yes" } else { "no" },
            )
        })
        .collect();
    format!(
        "<p class=\"answer\">{}</p><p>Filled points meet the target; the dotted lines are \
         the throughput's asymptotes N / (D + Z) and 1 / D_max, which meet at the knee.</p>\
         {}{}<table><thead><tr><th>users</th><th>tx/s</th><th>mean ms</th><th>p95 ms</th>\
         <th>p99 ms</th><th>CPU %</th><th>busiest device</th><th>busiest station</th>\
         <th>meets target</th>\
         <th>steady</th></tr></thead><tbody>{rows}</tbody></table>",
        esc(&answer(s)),
        panel(s, &response),
        panel(s, &throughput),
    )
}

/// A self-contained page (inline CSS and SVG, no scripts, no URLs) of one users sweep.
pub fn page(s: &UsersSweep, title: &str) -> String {
    let body = format!(
        "<section id=\"users-sweep\"><h2>How many users</h2>{}</section>",
        section(s)
    );
    crate::html::document(&format!("Users sweep: {title}"), None, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use storlab_core::result::Knee;
    use storlab_core::LatencySummaryMs;

    fn sweep() -> UsersSweep {
        let point = |users: u32, tx_per_s: f64, p95: f64| UsersPoint {
            users,
            tx_per_s,
            rows_per_s: None,
            response_ms: LatencySummaryMs {
                mean: p95 / 2.0,
                p95,
                ..Default::default()
            },
            passes: p95 <= 100.0,
            cpu_util_pct: Some(50.0),
            devices: Vec::new(),
            stations: Vec::new(),
            steady: true,
            partial: false,
        };
        UsersSweep {
            statistic: "p95".into(),
            max_response_ms: 100.0,
            think_ms: 0.0,
            points: vec![
                point(1, 100.0, 10.0),
                point(40, 900.0, 60.0),
                point(80, 1000.0, 150.0),
            ],
            max_users: Some(40),
            knee_users: Some(10),
            knee: Some(Knee {
                n_star: 10.0,
                demand_ms: 10.0,
                bottleneck_demand_ms: 1.0,
                bottleneck: "cpu".into(),
            }),
        }
    }

    #[test]
    fn the_page_shows_the_answer_the_target_and_the_knee() {
        let page = page(&sweep(), "dpaws/update-row on raid5");
        assert!(page.contains("Carries 40 users under p95 100 ms; knee at 10 users"));
        assert_eq!(page.matches("<svg").count(), 2);
        assert!(page.contains(">target<") && page.contains(">knee 10<"));
        assert!(page.contains(">carries 40<"));
        // Self-contained: no scripts, no URLs.
        assert!(!page.contains("<script") && !page.contains("http"));
        assert_eq!(page, super::page(&sweep(), "dpaws/update-row on raid5"));
    }
}
