use super::*;

fn mix(text: &str) -> WorkloadMix {
    let c = Characterization::from_toml(text, "t.toml").unwrap();
    WorkloadMix::new(&c, 16).unwrap()
}

const BASE: &str = r#"
name = "t"
engine = "oracle"
sessions = 1
[[transactions]]
name = "a"
weight = 1.0
logical_reads = 10.5
index_share = 0.4
blocks_changed = 2.25
rows_inserted = 16.0
redo_bytes = 1000.5
cpu_ms = 1.0
[[segments]]
name = "t"
kind = "table"
size = "80m"
share = 0.6
access = "hot:0.1/0.9"
[[segments]]
name = "i"
kind = "index"
size = "8m"
share = 0.4
access = "zipf:0.99"
[instance]
cpus = 1
buffer_cache = "1m"
"#;

#[test]
fn fractional_averages_are_carried_not_rounded_away() {
    let m = mix(BASE);
    let mut rng = Rng::from_seed(1);
    let mut carry = m.new_carry();
    let mut appends = vec![0; m.segments.len()];
    let mut out = Vec::new();
    let (mut visits, mut changed, mut new, mut log) = (0, 0, 0, 0);
    for _ in 0..400 {
        let op = m.plan(&mut rng, &mut carry, &mut appends, &mut out);
        visits += out.iter().filter(|e| e.0 & NEW_BLOCK == 0).count();
        changed += out.iter().filter(|e| e.0 & NEW_BLOCK == 0 && e.1).count();
        new += out.iter().filter(|e| e.0 & NEW_BLOCK != 0).count();
        log += op.log_bytes;
        assert!(op.commits);
    }
    assert_eq!(visits, 4200, "10.5 visits a transaction");
    assert_eq!(changed, 900, "2.25 changed blocks a transaction");
    assert_eq!(
        new, 100,
        "16 rows of 128 bytes: a quarter of a block a transaction"
    );
    assert_eq!(log, 400_200);
}

#[test]
fn only_a_growing_table_reserves_room_and_index_visits_stay_on_indexes() {
    let m = mix(BASE);
    let t = &m.segments[0];
    assert_eq!(t.blocks, 10_240);
    assert_eq!(t.reserve_blocks, 2_560);
    assert_eq!(m.segments[1].reserve_blocks, 0);
    assert_eq!(m.segments[1].first_block, 12_800);
    let fixed = mix(&BASE.replace("rows_inserted = 16.0", ""));
    assert_eq!(fixed.segments[0].reserve_blocks, 0, "no inserts: no room");
    assert_eq!(fixed.blocks, 10_240 + 1_024);
}

#[test]
fn zipf_puts_the_most_accesses_on_the_first_ranks() {
    let z = Zipf::new(1000, 0.99);
    let mut rng = Rng::from_seed(7);
    let mut first = 0;
    for _ in 0..100_000 {
        let k = z.sample(&mut rng);
        assert!((1..=1000).contains(&k));
        first += u64::from(k == 1);
    }
    // P(1) = 1 / H(1000, 0.99), about 0.13.
    let h: f64 = (1..=1000).map(|k| (k as f64).powf(-0.99)).sum();
    let want = 100_000.0 / h;
    assert!(
        (first as f64 - want).abs() < 0.05 * want,
        "{first} vs {want}"
    );
}
