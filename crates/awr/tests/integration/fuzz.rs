//! No input panics: the fixtures mutated (bytes flipped, lines dropped or repeated, cut
//! anywhere, numbers replaced by overflow marks) always give a characterization or an error.

use proptest::prelude::*;
use storlab_awr::parse_report;

use super::fixture;

const FIXTURES: [&str; 4] = [
    "acme-awr.txt",
    "shop-statspack.txt",
    "bank-awr.html",
    "minimal-awr.txt",
];

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Cut(usize),
    DropLine(usize),
    RepeatLine(usize),
    Overflow(usize),
    Insert(usize, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Cut),
        any::<usize>().prop_map(Mutation::DropLine),
        any::<usize>().prop_map(Mutation::RepeatLine),
        any::<usize>().prop_map(Mutation::Overflow),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..12)
        )
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
    ]
}

fn apply(mut bytes: Vec<u8>, m: &Mutation) -> Vec<u8> {
    let n = bytes.len().max(1);
    match m {
        Mutation::Flip(i, b) => {
            if let Some(x) = bytes.get_mut(i % n) {
                *x = *b;
            }
        }
        Mutation::Cut(i) => bytes.truncate(i % n),
        Mutation::Insert(i, v) => {
            let at = i % n;
            bytes.splice(at..at, v.iter().copied());
        }
        Mutation::DropLine(i) | Mutation::RepeatLine(i) | Mutation::Overflow(i) => {
            let mut lines: Vec<Vec<u8>> =
                bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
            let k = i % lines.len();
            match m {
                Mutation::DropLine(_) => {
                    lines.remove(k);
                }
                Mutation::RepeatLine(_) => {
                    let l = lines[k].clone();
                    lines.insert(k, l);
                }
                _ => {
                    let l: Vec<u8> = lines[k]
                        .iter()
                        .map(|c| if c.is_ascii_digit() { b'#' } else { *c })
                        .collect();
                    lines[k] = l;
                }
            }
            bytes = lines.join(&b'\n');
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn mutated_reports_never_panic(
        which in 0..FIXTURES.len(),
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        let mut bytes = std::fs::read(fixture(FIXTURES[which])).unwrap();
        for m in &mutations {
            bytes = apply(bytes, m);
        }
        match parse_report(&bytes, "mutated") {
            Ok((c, _)) => prop_assert!(c.validate("mutated").is_ok()),
            Err(e) => prop_assert!(e.to_string().starts_with("mutated: "), "{}", e),
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let mut report = String::from("WORKLOAD REPOSITORY report for\nLoad Profile\n");
        report.push_str(&text);
        let _ = parse_report(report.as_bytes(), "arbitrary");
        let _ = parse_report(format!("<html><table>{text}").as_bytes(), "arbitrary.html");
    }
}
