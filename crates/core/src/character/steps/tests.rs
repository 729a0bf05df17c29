use super::super::keys_table::STEP_KEYS;
use super::super::{CharacterError, Characterization};
use super::*;
use crate::keys;

/// An OLTP-like workload: reads of 5 keys, or 2 updates and an append to an unindexed
/// history table; `EXTRA` is replaced by more keys of the write type.
const OLTP_LIKE: &str = r#"
name = "oltp-like"
engine = "postgresql"
sessions = 8

[[transactions]]
name = "read"
weight = 0.6
logical_reads = 20.0
cpu_ms = 0.1
[[transactions.steps]]
table = "*"
reach = "key"
times = 5

[[transactions]]
name = "write"
weight = 0.4
logical_reads = 9.0
cpu_ms = 0.1
[[transactions.steps]]
table = "*"
reach = "key"
changes = "table"
times = 2
[[transactions.steps]]
table = "history"
reach = "append"
EXTRA

[[segments]]
name = "items_pk"
kind = "index"
size = "4m"
table = "items"
levels = 3
share = 0.4
[[segments]]
name = "items"
kind = "table"
size = "100m"
rows = 200000
share = 0.5
[[segments]]
name = "history"
kind = "table"
size = "8m"
rows = 1
share = 0.1

[instance]
cpus = 2
buffer_cache = "32m"
"#;

fn read(extra: &str) -> Result<Characterization, CharacterError> {
    Characterization::from_toml(&OLTP_LIKE.replace("EXTRA", extra), "w.toml")
}

fn invalid(from: &str, to: &str) -> (String, String) {
    let text = OLTP_LIKE.replace("EXTRA", "");
    assert!(text.contains(from), "{from}");
    match Characterization::from_toml(&text.replacen(from, to, 1), "w.toml") {
        Err(CharacterError::Invalid { key, reason, .. }) => (key, reason),
        other => panic!("{to}: expected an invalid key, got {other:?}"),
    }
}

#[test]
fn steps_read_with_their_defaults_and_round_trip() {
    let c = read("").expect("parses");
    let reads = &c.transactions[0].steps;
    assert_eq!(reads.len(), 1);
    assert_eq!((reads[0].rows, reads[0].times), (1, 5));
    assert_eq!(
        reads[0].changes(),
        Changes::Nothing,
        "a key step reads by default"
    );
    let writes = &c.transactions[1].steps;
    assert_eq!(writes[0].changes(), Changes::Table);
    assert_eq!(writes[1].reach, Reach::Append);
    assert_eq!(
        writes[1].changes(),
        Changes::TableAndIndex,
        "an append writes"
    );
    assert!(writes.iter().all(Step::writes) && !reads[0].writes());
    assert_eq!(c.segments[0].table.as_deref(), Some("items"));
    assert_eq!(
        (c.segments[0].levels, c.segments[0].leaf_blocks),
        (Some(3), None)
    );
    assert_eq!(c.segments[1].rows, Some(200_000));
    assert_eq!(indexed_tables(&c), [1], "history has no primary key");
    assert_eq!(primary_key(&c, "items"), Some(0));
    assert_eq!(
        Characterization::from_toml(&c.to_toml(), "a.toml"),
        Ok(c.clone())
    );
    assert_eq!(
        Characterization::from_json(&c.to_json(), "a.json"),
        Ok(c.clone())
    );
    c.validate("a.toml").expect("valid");
    assert_eq!(
        keys::serde_fields::<Step>(),
        STEP_KEYS.iter().map(|k| k.name).collect::<Vec<_>>()
    );
}

#[test]
fn step_errors_name_the_step_and_the_reason() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "table = \"history\"\nreach = \"append\"",
            "table = \"history\"\nreach = \"key\"",
            "transactions[1].steps[1].reach",
            "a key step needs a primary key on \"history\"",
        ),
        (
            "table = \"history\"",
            "table = \"nowhere\"",
            "transactions[1].steps[1].table",
            "\"nowhere\" is not a table segment with `rows`",
        ),
        (
            "reach = \"append\"",
            "reach = \"append\"\nchanges = \"none\"",
            "transactions[1].steps[1].changes",
            "an append changes the blocks it writes",
        ),
        (
            "times = 5",
            "times = 5\nrows = 300000",
            "transactions[0].steps[0].rows",
            "must be at most the 200000 rows of \"items\"; got 300000",
        ),
        (
            "times = 5",
            "times = 0",
            "transactions[0].steps[0].times",
            "must be at least 1",
        ),
        (
            "reach = \"key\"\ntimes = 5",
            "reach = \"scan\"\ntimes = 5",
            "transactions[0].steps[0].reach",
            "must be one of \"key\", \"range\", \"append\"",
        ),
        (
            "times = 5",
            "times = 5\nwhere = 1",
            "transactions[0].steps[0].where",
            "unknown key",
        ),
        (
            "levels = 3\n",
            "",
            "segments[0].levels",
            "is required for a primary key",
        ),
        (
            "table = \"items\"\nlevels",
            "table = \"history_pk\"\nlevels",
            "segments[0].table",
            "\"history_pk\" is not a table segment with `rows`",
        ),
        (
            "rows = 200000",
            "",
            "segments[0].table",
            "\"items\" is not a table segment with `rows`",
        ),
        (
            "table = \"items\"\n",
            "",
            "segments[0].levels",
            "needs the index's `table`",
        ),
        (
            "size = \"8m\"\nrows = 1",
            "size = \"8m\"\nrows = 1\nlevels = 2",
            "segments[2].levels",
            "only an index segment takes it",
        ),
        (
            "size = \"4m\"\n",
            "size = \"4m\"\nrows = 5\n",
            "segments[0].rows",
            "only a table segment",
        ),
    ];
    for (from, to, key, reason) in cases {
        let (k, r) = invalid(from, to);
        assert_eq!(&k, key, "{to}: {r}");
        assert!(r.contains(reason), "{to}: {r}");
    }
    // "*" needs a table with rows and a primary key.
    let (k, r) = invalid("table = \"items\"\nlevels = 3\n", "levels = 3\n");
    assert_eq!(k, "segments[0].levels");
    assert!(r.contains("needs the index's `table`"), "{r}");
}
