use super::*;
use proptest::prelude::*;

/// Numeric attribute `name` of every `<tag ` element in `svg`.
fn attr_values(svg: &str, tag: &str, name: &str) -> Vec<f64> {
    let open = format!("<{tag} ");
    let key = format!(" {name}=\"");
    svg.split(&open)
        .skip(1)
        .filter_map(|el| {
            let el = &el[..el.find('>')?];
            let start = el.find(&key)? + key.len();
            let end = start + el[start..].find('"')?;
            el[start..end].parse().ok()
        })
        .collect()
}

fn panel(values: &[f64]) -> BarPanel {
    BarPanel {
        title: "IOPS".into(),
        bars: values
            .iter()
            .enumerate()
            .map(|(i, v)| Bar {
                label: format!("c{i}"),
                value: *v,
                range: None,
                color: "#0072B2".into(),
            })
            .collect(),
        reference: None,
        scale_max: None,
    }
}

#[test]
fn largest_bar_reaches_the_plot_height() {
    let svg = bar_panels(&[panel(&[10.0, 40.0, 20.0])], "t");
    let heights = attr_values(&svg, "rect", "height");
    assert_eq!(heights.len(), 3);
    assert_eq!(heights.iter().copied().fold(0.0, f64::max), BAR_PLOT_H);
    assert!((heights[0] - BAR_PLOT_H / 4.0).abs() < 0.11);
}

#[test]
fn zero_values_draw_no_negative_heights() {
    let svg = bar_panels(&[panel(&[0.0, 0.0, -3.0])], "t");
    let heights = attr_values(&svg, "rect", "height");
    assert_eq!(heights.len(), 3);
    assert!(heights.iter().all(|h| *h == 0.0), "{heights:?}");
    assert!(!svg.contains("NaN"));
}

#[test]
fn a_single_configuration_still_draws() {
    let svg = bar_panels(&[panel(&[123.0])], "t");
    assert_eq!(attr_values(&svg, "rect", "height"), vec![BAR_PLOT_H]);
    assert!(svg.contains(">c0</text>"));
}

#[test]
fn whiskers_and_shared_scale() {
    let mut p = panel(&[50.0]);
    p.bars[0].range = Some((40.0, 100.0));
    let svg = bar_panels(&[p], "t");
    // the whisker top (100) sets the scale: the bar is half the plot height
    assert_eq!(attr_values(&svg, "rect", "height"), vec![BAR_PLOT_H / 2.0]);
    assert_eq!(
        svg.matches("<line").count() - svg.matches("#e3e3e3").count(),
        5
    );
}

fn line(points: Vec<(f64, f64)>, knee: Option<usize>) -> Line {
    Line {
        name: "raid5".into(),
        color: "#0072B2".into(),
        points,
        knee,
        dashed: false,
    }
}

#[test]
fn line_chart_draws_points_knee_and_shade() {
    let chart = LineChart {
        lines: vec![line(vec![(-5.0, 10.0), (0.0, 20.0), (10.0, 40.0)], Some(2))],
        shade: Some((-5.0, 0.0)),
        ..LineChart::default()
    };
    let svg = line_chart(&chart, "t");
    assert_eq!(svg.matches("<polyline").count(), 1);
    // three points and the knee ring
    assert_eq!(attr_values(&svg, "circle", "r"), vec![3.0, 3.0, 3.0, 8.0]);
    assert!(svg.contains(">knee</text>") && svg.contains(">warm-up</text>"));
    let top = attr_values(&svg, "circle", "cy");
    assert_eq!(top[2], TOP, "the largest value reaches the top of the plot");
}

#[test]
fn single_point_log_chart_draws() {
    let chart = LineChart {
        lines: vec![line(vec![(0.0, 0.5)], None)],
        log_y: true,
        x_categories: vec!["p50".into()],
        ..LineChart::default()
    };
    let svg = line_chart(&chart, "t");
    assert_eq!(attr_values(&svg, "circle", "r"), vec![3.0]);
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
}

#[test]
fn heat_map_cells_darken_with_load() {
    assert_eq!(heat_color(0.0), "#f7fbff");
    assert_eq!(heat_color(100.0), "#08306b");
    let map = HeatMap {
        rows: vec!["r5-0.d0".into(), "r5-0.d1".into()],
        cols: vec!["random-write".into()],
        values: vec![vec![Some(90.0)], vec![None]],
        range: None,
    };
    let svg = heat_map(&map, "t");
    assert_eq!(svg.matches("<rect").count(), 1);
    assert!(svg.contains(">90%</text>"));
}

#[test]
fn stacked_bars_fit_the_axis() {
    let stacks = vec![Stack {
        label: "raid5".into(),
        parts: vec![(0, 60.0), (1, 30.0), (2, 10.0)],
    }];
    let names = ["IO:DataFileRead", "CPU", "other"]
        .map(String::from)
        .to_vec();
    let colors = ["#332288", "#88CCEE", "#BBBBBB"].map(String::from).to_vec();
    let svg = stacked_bars(&stacks, &names, &colors, "t");
    let widths = attr_values(&svg, "rect", "width");
    assert_eq!(widths.len(), 3);
    assert!((widths.iter().sum::<f64>() - 400.0).abs() < 0.2);
}

proptest! {
    #[test]
    fn bars_stay_inside_the_plot(values in proptest::collection::vec(0.0f64..1e7, 1..9)) {
        let svg = bar_panels(&[panel(&values)], "t");
        for (h, y) in attr_values(&svg, "rect", "height").iter().zip(attr_values(&svg, "rect", "y")) {
            prop_assert!(*h >= 0.0 && *h <= BAR_PLOT_H + 0.05);
            prop_assert!(y >= BAR_TOP - 0.05 && (y + h - (BAR_TOP + BAR_PLOT_H)).abs() < 0.11);
        }
    }
}

#[test]
fn heat_map_colours_span_the_observed_range_with_a_legend() {
    // 68% and 92% busy: on a 0..100 scale both are mid-blue; on the observed range they are
    // the lightest and the darkest colour, and the legend says which values those are.
    let map = HeatMap {
        rows: vec!["r5-0.d0".into(), "r10-0.d0".into()],
        cols: vec!["random-write".into()],
        values: vec![vec![Some(92.0)], vec![Some(68.0)]],
        range: None,
    };
    let svg = heat_map(&map, "t");
    assert!(
        svg.contains(&format!("fill=\"{}\"", heat_color(100.0))),
        "{svg}"
    );
    assert!(
        svg.contains(&format!("fill=\"{}\"", heat_color(0.0))),
        "{svg}"
    );
    assert!(svg.contains(">68%</text>") && svg.contains(">92%</text>"));
    assert!(svg.contains(">% busy</text>"), "a legend");
    // A shared range (maps compared side by side) overrides the map's own.
    let shared = HeatMap {
        range: Some((0.0, 100.0)),
        ..map
    };
    let svg = heat_map(&shared, "t");
    assert!(svg.contains(&format!("fill=\"{}\"", heat_color(92.0))));
    // Values that hardly differ are not stretched into a contrast: at least 10 points.
    assert_eq!(HeatMap::observed([50.0, 51.0]), Some((45.5, 55.5)));
}

#[test]
fn ratio_bars_are_labelled_and_centred_on_one() {
    let rows = vec![
        RatioRow {
            label: "random-write IOPS".into(),
            bars: vec![RatioBar {
                name: "raid10".into(),
                ratio: 1.96,
                color: "#E69F00".into(),
            }],
        },
        RatioRow {
            label: "sequential-write 1 MiB MB/s".into(),
            bars: vec![RatioBar {
                name: "raid10".into(),
                ratio: 1.0 / 1.73,
                color: "#E69F00".into(),
            }],
        },
    ];
    let svg = ratio_bars(&rows, 3.0, "raid5", "t");
    assert!(
        svg.contains(">2.0x</text>") && svg.contains(">0.58x</text>"),
        "{svg}"
    );
    assert!(svg.contains(">1x</text>") && svg.contains(">= raid5</text>"));
    assert_eq!(super::ratio::ratio_text(1.07), "+7%");
    assert_eq!(super::ratio::ratio_text(0.96), "-4%");
    assert_eq!(super::ratio::ratio_text(1.001), "±0%");
    // The gain and the loss are drawn on either side of 1x, equally long for 2x and 1/2x.
    // `x` is the first attribute of a rect, so it has no leading space to find it by.
    let spaced = svg.replace("<rect x=", "<rect  x=");
    let xs = attr_values(&spaced, "rect", "x");
    let ws = attr_values(&svg, "rect", "width");
    assert_eq!(xs.len(), 3, "the band and two bars");
    let (gain, loss) = ((xs[1], ws[1]), (xs[2], ws[2]));
    assert!((gain.0 - (loss.0 + loss.1)).abs() < 0.2, "both start at 1x");
    assert!(gain.1 > loss.1 * 1.1, "1.96x is longer than 1/1.73");
}
