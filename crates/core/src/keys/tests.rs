//! Declarations, defaults, bounds and their messages.

use super::*;

const KEYS: [Key; 3] = [
    Key::new("tables", Kind::Count, Default::Value("1"), "tables").int(1, 1000),
    Key::new("buffer", Kind::Size, Default::Value("\"128MiB\""), "cache").int(0, 1 << 40),
    Key::new("every", Kind::Time, Default::Required, "interval").int(0, 1_000_000_000),
];

#[test]
fn defaults_fill_in_and_bounds_name_the_value() {
    let mut t: toml::Table = toml::from_str("tables = 0\nevery = \"2s\"").unwrap();
    fill_defaults(&mut t, &KEYS);
    assert_eq!(t["buffer"].as_str(), Some("128MiB"));
    assert_eq!(t["tables"].as_integer(), Some(0));
    let (key, reason) = check_table(&t, &KEYS).unwrap_err();
    assert_eq!(
        (key, reason.as_str()),
        ("tables", "must be at least 1 and at most 1000; got 0")
    );
    t.insert("tables".into(), toml::Value::Integer(3));
    let (key, reason) = check_table(&t, &KEYS).unwrap_err();
    assert_eq!(
        (key, reason.as_str()),
        ("every", "must be at most 1 s; got 2 s")
    );
    t.insert("buffer".into(), toml::Value::String("2t".into()));
    t.insert("every".into(), toml::Value::String("1ms".into()));
    let (key, reason) = check_table(&t, &KEYS).unwrap_err();
    assert_eq!(key, "buffer");
    assert!(reason.starts_with("must be at most 1"), "{reason}");
}

#[test]
fn a_section_refuses_unknown_keys_missing_keys_and_wrong_types() {
    let section = |text: &str| {
        let mut t: toml::Table = toml::from_str(text).unwrap();
        check_section(&mut t, &KEYS).map(|()| t)
    };
    let (key, reason) = section("every = \"1ms\"\ncolour = 1").unwrap_err();
    assert_eq!(key, "colour");
    assert!(
        reason.contains("allowed: tables, buffer, every"),
        "{reason}"
    );
    let (key, reason) = section("tables = 2").unwrap_err();
    assert_eq!(
        (key.as_str(), reason.as_str()),
        ("every", "is required (interval)")
    );
    let (key, reason) = section("every = \"1ms\"\ntables = \"two\"").unwrap_err();
    assert_eq!(key, "tables");
    assert_eq!(reason, "must be a whole number, 0 or more; got \"two\"");
    let (key, reason) = section("every = \"soon\"").unwrap_err();
    assert_eq!(key, "every");
    assert!(reason.starts_with("must be a duration"), "{reason}");
    let filled = section("every = \"1ms\"").unwrap();
    assert_eq!(filled["tables"].as_integer(), Some(1));
    let choice = Key::new(
        "level",
        Kind::Choice(&["raid5", "raid6"]),
        Default::Required,
        "",
    );
    assert_eq!(
        choice.check(&toml::Value::String("raid7".into())),
        Err("must be one of \"raid5\", \"raid6\"; got \"raid7\"".to_string())
    );
    let rate = Key::new("rate", Kind::Number, Default::Required, "").float(0.01, 1e7);
    assert_eq!(
        rate.unit("MB/s").check(&toml::Value::Float(1e-300)),
        Err("must be at least 0.01 and at most 10000000 MB/s; got 1e-300".to_string())
    );
}

#[test]
fn exclusive_bounds_refuse_the_bound_itself_and_say_so() {
    let step = Key::new("head_switch_ms", Kind::Number, Default::Required, "")
        .float_below(0.0, 1000.0)
        .unit("ms");
    assert_eq!(step.check(&toml::Value::Float(999.9)), Ok(()));
    assert_eq!(step.check(&toml::Value::Float(0.0)), Ok(()));
    assert_eq!(
        step.check(&toml::Value::Float(1000.0)),
        Err("must be at least 0 and below 1000 ms; got 1000".to_string())
    );
    assert_eq!(step.describe_bounds(), "0 to below 1000");
    let rate = Key::new("rate_iops", Kind::Number, Default::Required, "")
        .float_above(0.0, 1e7)
        .unit("IO/s");
    assert_eq!(
        rate.check(&toml::Value::Integer(0)),
        Err("must be above 0 and at most 10000000 IO/s; got 0".to_string())
    );
    assert_eq!(rate.check(&toml::Value::Float(1e7)), Ok(()));
    assert_eq!(rate.describe_bounds(), "above 0, at most 10000000");
    let weight = Key::new("weight", Kind::Number, Default::Required, "").float_above(0.0, f64::MAX);
    assert_eq!(weight.check(&toml::Value::Float(1e300)), Ok(()));
    assert_eq!(
        weight.check(&toml::Value::Float(f64::INFINITY)),
        Err("must be finite and above 0; got inf".to_string())
    );
    assert_eq!(weight.describe_bounds(), "above 0");
    let open = Key::new("share", Kind::Number, Default::Required, "").float_between(0.0, 1.0);
    assert_eq!(
        open.check(&toml::Value::Float(f64::NAN)),
        Err("must be above 0 and below 1; got NaN".to_string())
    );
    assert_eq!(open.describe_bounds(), "above 0, below 1");
    for key in [step, rate, weight, open] {
        for (value, bound) in key.values_outside() {
            let v: toml::Table = toml::from_str(&format!("v = {value}")).unwrap();
            let reason = key.check(&v["v"]).unwrap_err();
            assert!(reason.contains(&bound), "{value}: {reason}");
        }
    }
}

#[test]
fn serde_fields_lists_a_structs_keys() {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: u32,
        #[serde(default)]
        b_c: String,
    }
    assert_eq!(serde_fields::<S>(), ["a", "b_c"]);
    assert!(serde_fields::<u32>().is_empty());
    let table = markdown_table(&KEYS);
    assert!(
        table.contains("| `tables` | integer | `1` | 1 to 1000 |  | tables |"),
        "{table}"
    );
}

#[test]
fn help_texts_say_durations_in_their_largest_whole_unit() {
    let words: Vec<String> = [
        7 * 86_400_000_000_000,
        86_400_000_000_000,
        7_200_000_000_000,
        600_000_000_000,
        90_000_000_000,
        1_500_000_000,
        1_000_000,
    ]
    .into_iter()
    .map(span_words)
    .collect();
    assert_eq!(
        words,
        ["7 days", "1 day", "2 h", "10 min", "90 s", "1.5 s", "1 ms"]
    );
    let day = 86_400_000_000_000;
    let capture = Key::new("capture", Kind::Time, Default::Required, "c").int(1_000_000_000, day);
    assert_eq!(capture.bounds_in_words(), "1 s to 1 day");
    assert_eq!(capture.describe_bounds(), "1 s to 86400 s");
    let warmup = Key::new("warmup", Kind::Time, Default::Required, "w").int(0, 7 * day);
    assert_eq!(warmup.bounds_in_words(), "at most 7 days");
    assert_eq!(KEYS[0].bounds_in_words(), "1 to 1000");
}
