//! A characterization read from a report written out as TOML and JSON and read back.

use storlab_core::character::Characterization;

use super::read;

#[test]
fn the_characterization_round_trips_through_toml_and_json() {
    for name in ["acme-awr.txt", "shop-statspack.txt", "bank-awr.html"] {
        let (c, _) = read(name);
        let toml = c.to_toml();
        assert_eq!(
            Characterization::from_toml(&toml, "x.toml"),
            Ok(c.clone()),
            "{toml}"
        );
        // serde_json reads a float to within one unit in the last place (without its
        // `float_roundtrip` feature), so JSON agrees to 1e-15 rather than bit for bit.
        let back = Characterization::from_json(&c.to_json(), "x.json").expect("reads back");
        let (a, b) = (json(&back), json(&c));
        assert!(same_within(&a, &b), "{a}\n{b}");
    }
}

fn json(c: &Characterization) -> serde_json::Value {
    serde_json::from_str(&c.to_json()).expect("JSON")
}

fn same_within(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            (x - y).abs() <= 1e-15 * x.abs().max(y.abs())
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_within(x, y))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_within(v, w)))
        }
        _ => a == b,
    }
}
