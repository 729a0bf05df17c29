//! The array's internal components (back-end loops, controller processors, internal links)
//! of a simulated run, and the line naming the busiest.

use storlab_core::result::ComponentMetrics;

use super::{num, render_left};

/// A table of the components with the busiest named under it; empty when there are none.
pub fn table(components: &[ComponentMetrics]) -> String {
    let rows: Vec<Vec<String>> = components
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                num(c.util_pct, 1),
                num(c.ops_per_s, 0),
                num(c.mbps, 1),
                num(c.wait_ms, 3),
                num(c.service_ms, 3),
            ]
        })
        .collect();
    let Some(busiest) = busiest(components) else {
        return String::new();
    };
    let mut out = render_left(
        &[
            "component",
            "busy %",
            "ops/s",
            "MB/s",
            "wait ms",
            "service ms",
        ],
        &rows,
        1,
    );
    out += &format!("  {busiest}\n");
    out
}

/// "busiest component: back-end loop0, 97.1% busy ..."; None without components.
pub fn busiest(components: &[ComponentMetrics]) -> Option<String> {
    let c = components
        .iter()
        .max_by(|a, b| a.util_pct.total_cmp(&b.util_pct))?;
    Some(format!(
        "busiest component: {}, {:.1}% busy ({:.1} MB/s, {:.3} ms mean wait)",
        c.name, c.util_pct, c.mbps, c.wait_ms
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, util_pct: f64) -> ComponentMetrics {
        ComponentMetrics {
            name: name.into(),
            kind: "back_end".into(),
            util_pct,
            mbps: 390.0,
            ..Default::default()
        }
    }

    #[test]
    fn the_busiest_component_is_named_under_the_table() {
        let t = table(&[part("back-end loop0", 41.0), part("back-end loop1", 97.3)]);
        assert!(
            t.ends_with("  busiest component: back-end loop1, 97.3% busy (390.0 MB/s, 0.000 ms mean wait)\n"),
            "{t}"
        );
        assert!(t.contains("back-end loop0"), "{t}");
        assert_eq!(table(&[]), "");
    }
}
