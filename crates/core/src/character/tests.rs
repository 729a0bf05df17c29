use super::keys_table::*;
use super::*;
use crate::keys;
use crate::ByteSize;

const EXAMPLE: &str = r#"
name = "order entry"
engine = "oracle"
source = "hand"
sessions = 200
block_bytes = 8192

[[transactions]]
name = "new order"
weight = 0.45
logical_reads = 120.0
index_share = 0.7
scan_share = 0.05
blocks_changed = 14.0
rows_inserted = 12.0
redo_bytes = 6000.0
cpu_ms = 4.0
statements = 30.0
think_ms = 100.0
physical_reads = 3.5

[[transactions]]
name = "stock level"
weight = 0.55
logical_reads = 400
cpu_ms = 9

[[segments]]
name = "orders"
kind = "table"
size = "40g"
access = "hot:0.1/0.9"
share = 0.75

[[segments]]
name = "orders_pk"
kind = "index"
size = "unknown"
tablespace = "idx"
access = "zipf:0.99"
share = 0.25

[instance]
cpus = 16
buffer_cache = "8g"
db_time_per_s = 12.5

[observed]
transactions_per_s = 850.0

[[observed.events]]
name = "db file sequential read"
waits = 1200000
time_s = 3000.0
avg_ms = 2.5
pct_db_time = 40.1
wait_class = "User I/O"

[[observed.tablespaces]]
tablespace = "USERS"
reads_per_s = 300.0
read_avg_ms = 4.2
"#;

fn example() -> Characterization {
    Characterization::from_toml(EXAMPLE, "w.toml").expect("the example parses")
}

fn invalid(text: &str) -> (String, String) {
    match Characterization::from_toml(text, "w.toml") {
        Err(CharacterError::Invalid { file, key, reason }) => {
            assert_eq!(file, "w.toml");
            (key, reason)
        }
        other => panic!("expected an invalid key, got {other:?}"),
    }
}

#[test]
fn an_example_reads_with_its_defaults_filled_in() {
    let c = example();
    assert_eq!(c.engine, Engine::Oracle);
    assert_eq!(c.sessions, 200);
    let t = &c.transactions[1];
    assert_eq!((t.logical_reads, t.cpu_ms), (400.0, 9.0));
    assert_eq!(
        (t.index_share, t.statements, t.physical_reads),
        (0.0, 1.0, None)
    );
    assert_eq!(c.transactions[0].physical_reads, Some(3.5));
    assert_eq!(c.segments[0].tablespace, "orders", "defaults to the name");
    assert_eq!(c.segments[0].size, SegmentSize::Known(ByteSize(40 << 30)));
    assert_eq!(
        c.segments[0].access,
        Access::Hot {
            data: 0.1,
            accesses: 0.9
        }
    );
    assert_eq!(c.instance.log_buffer, ByteSize(16 << 20));
    assert_eq!(c.instance.cpu_busy_pct, None);
    let o = c.observed.as_ref().expect("observed");
    assert_eq!(o.events[0].waits, Some(1.2e6));
    assert_eq!(o.tablespaces[0].read_avg_ms, Some(4.2));
    assert_eq!(c.unknowns(), ["segments[1].size (orders_pk)"]);
}

#[test]
fn temp_bytes_read_with_their_bound_and_stay_out_of_files_when_zero() {
    let c = example();
    assert_eq!(
        c.transactions[0].temp_bytes, 0.0,
        "the default: no temp I/O"
    );
    assert!(!c.to_toml().contains("temp_bytes"), "zero is not written");
    let text = EXAMPLE.replace("think_ms = 100.0", "think_ms = 100.0\ntemp_bytes = 1048576");
    let c = Characterization::from_toml(&text, "w.toml").expect("parses");
    assert_eq!(c.transactions[0].temp_bytes, 1_048_576.0);
    assert_eq!(Characterization::from_toml(&c.to_toml(), "a.toml"), Ok(c));
    let (key, reason) = invalid(&EXAMPLE.replace("think_ms = 100.0", "temp_bytes = -1.0"));
    assert_eq!(key, "transactions[0].temp_bytes");
    assert!(reason.contains("at least 0"), "{reason}");
}

#[test]
fn toml_and_json_round_trip_with_the_same_keys() {
    let c = example();
    let toml_text = c.to_toml();
    assert_eq!(
        Characterization::from_toml(&toml_text, "a.toml"),
        Ok(c.clone())
    );
    let json = c.to_json();
    assert_eq!(Characterization::from_json(&json, "a.json"), Ok(c.clone()));
    assert_eq!(Characterization::from_text(&json, "A.JSON"), Ok(c.clone()));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["transactions"][0]["index_share"], 0.7);
    assert_eq!(v["segments"][1]["size"], "unknown");
    c.validate("a.toml").expect("valid");
}

#[test]
fn errors_name_the_key_path_the_bound_and_the_value() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("index_share = 0.7", "index_share = 1.5", "transactions[0].index_share", "must be at least 0 and at most 1; got 1.5"),
        ("sessions = 200", "sessions = 0", "sessions", "must be at least 1 and at most 100000 sessions; got 0"),
        ("cpus = 16", "cpus = 5000", "instance.cpus", "must be at least 1 and at most 4096 CPUs; got 5000"),
        ("cpu_ms = 9", "cpu_ms = nan", "transactions[1].cpu_ms", "must be at least 0 and at most 1000000000 ms; got NaN"),
        ("avg_ms = 2.5", "avg_ms = -1.0", "observed.events[0].avg_ms", "must be at least 0 and at most 10000000 ms; got -1"),
        ("block_bytes = 8192", "block_bytes = 12288", "block_bytes", "must be a power of two; got 12288"),
        ("weight = 0.55", "weight = 0.65", "transactions",
         "the weights of the transaction types must sum to 1 (within 0.000001); got 1.1; divide each by 1.1"),
        ("share = 0.25", "share = 0.5", "segments", "the shares of the segments must sum to 1"),
        ("cpu_ms = 4.0", "cpu_ms = 4.0\ncolour = 1", "transactions[0].colour", "unknown key (allowed: name, weight,"),
        ("read_avg_ms = 4.2", "read_avg_ms = 4.2\nfoo = 1", "observed.tablespaces[0].foo", "unknown key"),
        ("cpus = 16", "cpus = \"many\"", "instance.cpus", "must be a whole number, 0 or more; got \"many\""),
        ("engine = \"oracle\"", "engine = \"db2\"", "engine", "must be one of \"oracle\", \"postgresql\"; got \"db2\""),
        ("access = \"zipf:0.99\"", "access = \"zipf:20\"", "segments[1].access", "at most 10; got 20"),
        ("size = \"40g\"", "size = \"40q\"", "segments[0].size", "or \"unknown\""),
        ("name = \"stock level\"", "name = \"new order\"", "transactions", "two entries are named \"new order\""),
        ("name = \"orders_pk\"", "name = \" \"", "segments[1].name", "must not be empty"),
    ];
    for (from, to, key, reason) in cases {
        assert!(EXAMPLE.contains(from), "{from}");
        let (k, r) = invalid(&EXAMPLE.replacen(from, to, 1));
        assert_eq!(&k, key, "{to}: {r}");
        assert!(r.starts_with(reason) || r.contains(reason), "{to}: {r}");
    }
}

#[test]
fn missing_sections_and_json_nulls_are_named() {
    let no_tx = "name = \"x\"\nengine = \"oracle\"\nsessions = 1\nsegments = []\n[instance]\ncpus = 1\nbuffer_cache = 0";
    assert_eq!(invalid(no_tx).0, "transactions");
    let empty = no_tx.replace("segments = []", "segments = []\ntransactions = []");
    assert_eq!(
        invalid(&empty),
        ("transactions".into(), "needs at least one entry".into())
    );
    let no_instance = EXAMPLE.replace("[instance]", "[other]");
    assert_eq!(invalid(&no_instance).0, "other");
    let json = example()
        .to_json()
        .replacen("\"cpu_ms\": 4.0", "\"cpu_ms\": null", 1);
    match Characterization::from_json(&json, "w.json") {
        Err(CharacterError::Invalid { key, reason, .. }) => {
            assert_eq!(key, "transactions[0].cpu_ms");
            assert!(reason.contains("leave the key out"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let bad = Characterization::from_toml("name = ", "w.toml").unwrap_err();
    assert!(
        matches!(bad, CharacterError::Parse { ref file, .. } if file == "w.toml"),
        "{bad}"
    );
}

#[test]
fn validate_checks_a_characterization_built_in_code() {
    let mut c = example();
    c.transactions[0].scan_share = -0.5;
    let e = c.validate("built").unwrap_err();
    assert_eq!(
        e.to_string(),
        "built: transactions[0].scan_share: must be at least 0 and at most 1; got -0.5"
    );
}

#[test]
fn every_declared_key_is_accepted_and_every_accepted_key_is_declared() {
    let names = |ks: &[keys::Key]| ks.iter().map(|k| k.name).collect::<Vec<_>>();
    assert_eq!(
        keys::serde_fields::<Characterization>(),
        names(CHARACTERIZATION_KEYS)
    );
    assert_eq!(keys::serde_fields::<Transaction>(), names(TRANSACTION_KEYS));
    assert_eq!(keys::serde_fields::<Segment>(), names(SEGMENT_KEYS));
    assert_eq!(keys::serde_fields::<Instance>(), names(INSTANCE_KEYS));
    assert_eq!(keys::serde_fields::<Observed>(), names(OBSERVED_KEYS));
    assert_eq!(keys::serde_fields::<Event>(), names(EVENT_KEYS));
    assert_eq!(keys::serde_fields::<IoStat>(), names(IO_KEYS));
    for (_, section) in SECTIONS {
        for key in *section {
            if let Some(v) = keys::default_value(key) {
                key.check(&v)
                    .unwrap_or_else(|e| panic!("default of {}: {e}", key.name));
            } else {
                assert!(
                    !matches!(key.default, keys::Default::Value(_)),
                    "{}",
                    key.name
                );
            }
        }
    }
}

#[test]
fn the_docs_list_every_key_as_declared() {
    let doc = include_str!("../../../../docs/workload-characterization.md");
    for (heading, section) in SECTIONS {
        let table = keys::markdown_table(section);
        assert!(
            doc.contains(&table),
            "docs/workload-characterization.md: the table of {heading} differs from the \
             declarations; it should read:\n{table}"
        );
    }
}

mod round_trip {
    use super::*;
    use proptest::prelude::*;

    fn transaction() -> impl Strategy<Value = Transaction> {
        (
            "\\PC{1,12}",
            (0.0..1e6f64, 0.0..=1.0f64, 0.0..=1.0f64, 0.0..1e4f64),
            (
                0.0..1e6f64,
                0.0..1e7f64,
                0.0..1e5f64,
                0.0..1e3f64,
                0.0..1e5f64,
            ),
            proptest::option::of(0.0..1e4f64),
        )
            .prop_map(
                |(name, (lr, ix, sc, bc), (ri, rb, cpu, st, th), pr)| Transaction {
                    name,
                    weight: 0.0,
                    logical_reads: lr,
                    index_share: ix,
                    scan_share: sc,
                    blocks_changed: bc,
                    rows_inserted: ri,
                    redo_bytes: rb,
                    cpu_ms: cpu,
                    statements: st,
                    think_ms: th,
                    temp_bytes: pr.map_or(0.0, |p| p * 1000.0),
                    physical_reads: pr,
                    physical_writes: None,
                    steps: Vec::new(),
                },
            )
    }

    fn segment() -> impl Strategy<Value = Segment> {
        let access = prop_oneof![
            Just(Access::Uniform),
            (0.01..10.0f64).prop_map(|theta| Access::Zipf { theta }),
            (0.01..0.99f64, 0.01..0.99f64)
                .prop_map(|(data, accesses)| Access::Hot { data, accesses }),
        ];
        let size = prop_oneof![
            Just(SegmentSize::Unknown),
            (0u64..1 << 45).prop_map(|b| SegmentSize::Known(ByteSize(b))),
        ];
        ("[a-z_]{1,10}", size, "\\PC{0,8}", access).prop_map(|(name, size, tablespace, access)| {
            Segment {
                access,
                ..Segment::plain(name, SegmentKind::Table, size, tablespace, 0.0)
            }
        })
    }

    fn characterization() -> impl Strategy<Value = Characterization> {
        (
            proptest::collection::vec(transaction(), 1..4),
            proptest::collection::vec(segment(), 1..4),
            (1u32..100_000, 9u32..17, 1u32..4096, 0u64..1 << 40),
        )
            .prop_filter_map(
                "unique names",
                |(mut ts, mut ss, (sessions, shift, cpus, cache))| {
                    let n = ts.len() as f64;
                    for (i, t) in ts.iter_mut().enumerate() {
                        t.name = format!("{i} {}", t.name);
                        t.weight = 1.0 / n;
                    }
                    let m = ss.len() as f64;
                    for (i, s) in ss.iter_mut().enumerate() {
                        s.name = format!("{i}{}", s.name);
                        s.share = 1.0 / m;
                    }
                    Some(Characterization {
                        name: "generated".into(),
                        engine: Engine::Postgresql,
                        source: "hand".into(),
                        sessions,
                        block_bytes: 1 << shift,
                        transactions: ts,
                        segments: ss,
                        instance: Instance {
                            cpus,
                            cpu_busy_pct: None,
                            buffer_cache: ByteSize(cache),
                            log_buffer: ByteSize(16 << 20),
                            db_time_per_s: Some(1.5),
                            settings: Default::default(),
                        },
                        observed: None,
                    })
                },
            )
    }

    proptest! {
        #[test]
        fn any_valid_characterization_reads_back_from_toml_unchanged(c in characterization()) {
            prop_assert_eq!(c.validate("generated"), Ok(()));
            prop_assert_eq!(Characterization::from_toml(&c.to_toml(), "g.toml"), Ok(c.clone()));
            let back = Characterization::from_json(&c.to_json(), "g.json");
            prop_assert!(back.is_ok(), "{:?}", back);
        }
    }
}

#[test]
fn instance_settings_are_declared_keys_written_and_read_back() {
    let with = EXAMPLE.replace(
        "db_time_per_s = 12.5\n",
        "db_time_per_s = 12.5\n[instance.settings]\nshared_buffers = \"128MB\"\n\
         checkpoint_timeout = \"5min\"\n",
    );
    let c = Characterization::from_toml(&with, "w.toml").expect("settings parse");
    assert_eq!(c.instance.settings["shared_buffers"], "128MB");
    assert_eq!(
        settings::checkpoint_timeout_ns(&c.instance.settings),
        Some(300_000_000_000)
    );
    let again = Characterization::from_toml(&c.to_toml(), "again.toml").expect("round trip");
    assert_eq!(again, c);
    let json = Characterization::from_text(&c.to_json(), "again.json").expect("JSON");
    assert_eq!(json, c);
    // Without the table: none, and nothing written.
    assert!(example().instance.settings.is_empty());
    assert!(!example().to_toml().contains("settings"));
    // An undeclared key, or a value that is not text, is named.
    let (key, _) = invalid(&with.replace("shared_buffers =", "shared_bufers ="));
    assert_eq!(key, "instance.settings.shared_bufers");
    let (key, _) = invalid(&with.replace("\"128MB\"", "128"));
    assert_eq!(key, "instance.settings.shared_buffers");
}
