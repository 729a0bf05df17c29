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
    let mut appends = m.new_appends();
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

/// A table of 1,000,000 rows in 10,000 blocks (100 rows a block) with its primary key of
/// 900 leaves in 1,000 blocks, and a 905-row log table in 10 blocks without an index; the
/// transaction's steps replace `STEPS`.
const KEYED: &str = r#"
name = "k"
engine = "postgresql"
sessions = 1
[[transactions]]
name = "t"
weight = 1.0
logical_reads = 4.0
cpu_ms = 0.01
STEPS
[[segments]]
name = "items_pk"
kind = "index"
size = 8192000
table = "items"
levels = 3
leaf_blocks = 900
share = 0.5
[[segments]]
name = "items"
kind = "table"
size = 81920000
rows = 1000000
share = 0.5
[[segments]]
name = "log"
kind = "table"
size = 81920
rows = 905
share = 0.0
[instance]
cpus = 1
buffer_cache = "1m"
"#;

fn keyed(steps: &str) -> WorkloadMix {
    mix(&KEYED.replace("STEPS", steps))
}

/// The first key the next execution's step draws (after the type's draw).
fn next_key(rng: &Rng, rows: u64) -> u64 {
    let mut r = rng.clone();
    r.unit_f64();
    r.below(rows)
}

#[test]
fn an_update_by_key_changes_the_heap_block_and_the_leaf_holding_the_key() {
    let m = keyed(
        "[[transactions.steps]]\ntable = \"items\"\nreach = \"key\"\nchanges = \"table+index\"",
    );
    let (pk, items) = (&m.segments[0], &m.segments[1]);
    let mut rng = Rng::from_seed(3);
    let (mut carry, mut appends, mut out) = (m.new_carry(), m.new_appends(), Vec::new());
    for _ in 0..200 {
        let key = next_key(&rng, 1_000_000);
        let op = m.plan(&mut rng, &mut carry, &mut appends, &mut out);
        assert!(op.commits);
        let leaf = pk.first_block + 100 + key * 900 / 1_000_000;
        let heap = items.first_block + key / 100;
        let changed: Vec<u64> = out.iter().filter(|e| e.1).map(|e| e.0).collect();
        assert_eq!(changed, [leaf, heap], "key {key}: {out:?}");
        // The root, one block of the middle level, the leaf, the heap block.
        assert_eq!(out.len(), 4);
        assert_eq!(
            out[0],
            (pk.first_block + 1, false),
            "the root after the header"
        );
        assert!(out[1].0 > pk.first_block + 1 && out[1].0 < pk.first_block + 100);
    }
    // By default a key step changes nothing; `table` changes the heap block only.
    let read = keyed("[[transactions.steps]]\ntable = \"items\"\nreach = \"key\"");
    let op = read.plan(&mut rng, &mut carry, &mut appends, &mut out);
    assert!(!op.commits && out.iter().all(|e| !e.1));
    let update =
        keyed("[[transactions.steps]]\ntable = \"items\"\nreach = \"key\"\nchanges = \"table\"");
    let key = next_key(&rng, 1_000_000);
    update.plan(&mut rng, &mut carry, &mut appends, &mut out);
    let changed: Vec<u64> = out.iter().filter(|e| e.1).map(|e| e.0).collect();
    assert_eq!(changed, [update.segments[1].first_block + key / 100]);
}

#[test]
fn a_range_visits_consecutive_leaves_and_heap_blocks() {
    let m = keyed("[[transactions.steps]]\ntable = \"items\"\nreach = \"range\"\nrows = 5000");
    let (pk, items) = (&m.segments[0], &m.segments[1]);
    let mut rng = Rng::from_seed(5);
    let (mut carry, mut appends, mut out) = (m.new_carry(), m.new_appends(), Vec::new());
    for _ in 0..100 {
        let key = next_key(&rng, 1_000_000 - 5000 + 1);
        m.plan(&mut rng, &mut carry, &mut appends, &mut out);
        let leaves: Vec<u64> = out[2..]
            .iter()
            .map(|e| e.0)
            .filter(|&b| b < items.first_block)
            .collect();
        let heap: Vec<u64> = out
            .iter()
            .map(|e| e.0)
            .filter(|&b| b >= items.first_block)
            .collect();
        // 5,000 keys at 1,111 a leaf: at most ⌈5000 / 1111⌉ + 1 leaves, consecutive, from the
        // one holding the first key.
        assert!(leaves.len() <= 5000usize.div_ceil(1111) + 1, "{leaves:?}");
        assert_eq!(leaves[0], pk.first_block + 100 + key * 900 / 1_000_000);
        assert!(leaves.windows(2).all(|w| w[1] == w[0] + 1));
        // 5,000 rows at 100 a block: 50 blocks, 51 when the first key is not a block's first.
        let want = if key.is_multiple_of(100) { 50 } else { 51 };
        assert_eq!(heap.len(), want, "key {key}");
        assert_eq!(heap[0], items.first_block + key / 100);
        assert!(heap.windows(2).all(|w| w[1] == w[0] + 1));
        assert!(out.iter().all(|e| !e.1));
    }
}

#[test]
fn appends_fill_the_tables_last_block_then_its_growth_room() {
    let m = keyed("[[transactions.steps]]\ntable = \"log\"\nreach = \"append\"");
    let log = &m.segments[2];
    // 10 blocks: a growth room of 3 blocks; no other table grows.
    assert_eq!((log.blocks, log.reserve_blocks), (10, 3));
    assert_eq!(m.segments[1].reserve_blocks, 0);
    let mut rng = Rng::from_seed(9);
    let (mut carry, mut appends, mut out) = (m.new_carry(), m.new_appends(), Vec::new());
    let mut blocks = Vec::new();
    for _ in 0..400 {
        let op = m.plan(&mut rng, &mut carry, &mut appends, &mut out);
        assert!(op.commits);
        assert_eq!(out.len(), 1, "no index: the heap block only");
        assert!(out[0].1 && out[0].0 & NEW_BLOCK != 0, "written and created");
        blocks.push(out[0].0 & !NEW_BLOCK);
    }
    // 905 rows at 91 a block (905 / 10 rounded up): rows 819 to 904 in block 9, which
    // the first 5 appends fill; then blocks 10 to 12, the growth room of 273 rows, after
    // which the appends wrap to row 905.
    let first = log.first_block;
    let in_block = |b: u64| blocks.iter().filter(|&&x| x == first + b).count();
    assert_eq!(blocks[..5], [first + 9; 5]);
    assert_eq!(blocks[5], first + 10);
    assert_eq!(blocks[273], first + 9, "wrapped");
    assert_eq!(in_block(9), 10);
    assert_eq!(in_block(10), 2 * 91);
    assert_eq!(in_block(11), 91 + 31);
    assert_eq!(in_block(12), 273 - 5 - 2 * 91);
}

#[test]
fn a_declared_room_replaces_the_quarter_and_redo_goes_row_by_row() {
    let steps = "[[transactions.steps]]\ntable = \"items\"\nreach = \"range\"\nrows = 7\n\
                 changes = \"table\"\n[[transactions.steps]]\ntable = \"log\"\nreach = \"append\"\n\
                 rows = 3\n[[transactions.steps]]\ntable = \"items\"\nreach = \"key\"";
    let c = Characterization::from_toml(&KEYED.replace("STEPS", steps), "t.toml").unwrap();
    let redo = RowRedo {
        changed_row: 100,
        inserted_row: vec![0, 0, 40],
    };
    let m = WorkloadMix::with_rooms(&c, &[5, 6, 20], redo).unwrap();
    // Only the appended table grows, by the room given (the index and a table that never
    // grows take none, whatever is given for them).
    let reserves: Vec<u64> = m.segments.iter().map(|s| s.reserve_blocks).collect();
    assert_eq!(reserves, [0, 0, 20]);
    assert_eq!(m.blocks, 1000 + 10_000 + 10 + 20);
    let mut rng = Rng::from_seed(2);
    let (mut carry, mut appends, mut out) = (m.new_carry(), m.new_appends(), Vec::new());
    for _ in 0..50 {
        let op = m.plan(&mut rng, &mut carry, &mut appends, &mut out);
        // 7 rows changed at 100 bytes, 3 inserted at 40, the read row none; the type's
        // average (`redo_bytes`, 0 here) is not used.
        assert_eq!(op.log_bytes, 7 * 100 + 3 * 40);
        assert_eq!(op.rows, 7 + 3 + 1);
    }
    assert!(carry.iter().all(|c| c.iter().all(|&x| x == 0.0)));
    // The same characterization laid out plainly: the quarter, and the average redo.
    let plain = WorkloadMix::new(&c, 1).unwrap();
    assert_eq!(plain.segments[2].reserve_blocks, 3);
    let op = plain.plan(&mut rng, &mut carry, &mut appends, &mut out);
    assert_eq!(op.log_bytes, 0);
    assert!(!plain.single_rows() && !m.single_rows());
}

#[test]
fn only_single_row_key_steps_with_row_redo_plan_alone() {
    let c = Characterization::from_toml(
        &KEYED.replace(
            "STEPS",
            "[[transactions.steps]]\ntable = \"items\"\nreach = \"key\"\nchanges = \"table\"",
        ),
        "t.toml",
    )
    .unwrap();
    let redo = || RowRedo {
        changed_row: 1,
        inserted_row: vec![0; 3],
    };
    assert!(WorkloadMix::with_rooms(&c, &[0; 3], redo())
        .unwrap()
        .single_rows());
    assert!(!WorkloadMix::new(&c, 1).unwrap().single_rows());
}
