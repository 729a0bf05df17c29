use super::*;

#[test]
fn every_simulated_test_is_declared_and_every_declared_one_is_simulated() {
    for name in DbTest::NAMES {
        let test = DbTest::parse(name).expect("parses");
        assert_eq!(test.def().name, name);
    }
    for def in dbtest::DB_TESTS.iter().filter(|d| d.simulated) {
        let query = crate::db::query::find(def.name).is_some();
        assert!(DbTest::parse(def.name).is_some() || query, "{}", def.name);
    }
}

#[test]
fn every_declared_key_is_accepted_and_every_accepted_key_is_declared() {
    let declared: Vec<&str> = DATABASE_KEYS.iter().map(|k| k.name).collect();
    assert_eq!(keys::serde_fields::<Raw>(), declared.as_slice());
    for key in DATABASE_KEYS {
        if let Some(v) = keys::default_value(key) {
            key.check(&v)
                .unwrap_or_else(|e| panic!("default of {}: {e}", key.name));
        } else {
            assert!(
                !matches!(key.default, keys::Default::Value(_)),
                "default of {} does not parse",
                key.name
            );
        }
    }
}
