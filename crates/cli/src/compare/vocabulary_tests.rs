//! A test name means the same work in `storlab db` and `storlab sim`: a plan that pairs a
//! real database cell with a simulated one compares like with like.

use std::path::Path;

use storlab_core::dbtest::{Access, DB_TESTS};
use storlab_sim::config::database_workload;

#[test]
fn a_test_name_means_the_same_work_in_storlab_db_and_storlab_sim() {
    let array =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/arrays/enterprise-raid5.toml");
    let system = crate::sim_cmd::load_array(&array).unwrap();
    let simulated: Vec<_> = DB_TESTS.iter().filter(|d| d.simulated && d.real).collect();
    assert!(simulated.len() >= 7);
    for def in simulated {
        let real = storlab_db::suites::find(def.suite(), def.test()).unwrap();
        let [real] = real.as_slice() else {
            panic!("{}: {real:?}", def.name)
        };
        let section: toml::Table = toml::from_str(&format!(
            "test = \"{}\"\ndata = \"datavol\"\nlog = \"logvol\"\nrows = 1000000",
            def.name
        ))
        .unwrap();
        let w = database_workload(def.name.into(), section, "t", &system).unwrap();
        let sim = w.database.unwrap();
        assert_eq!(real.def, def, "{}", def.name);
        assert_eq!(sim.test.name(), real.name);
        assert_eq!(sim.sessions, real.default_clients, "{}", def.name);
        assert_eq!(sim.range_rows, def.rows_per_op.max(1), "{}", def.name);
        assert_eq!(sim.think_ns, def.think_ms * 1_000_000, "{}", def.name);
        assert_eq!(sim.test.writes(), def.access.writes(), "{}", def.name);
        assert_eq!(sim.test.ranged(), def.ranged(), "{}", def.name);
        if def.access == Access::Insert {
            assert_eq!(sim.rows_per_commit, def.rows_per_commit, "{}", def.name);
        }
    }
    // The range tests touch 10,000 rows per statement on both sides.
    let range = storlab_db::suites::find("dpaws", "update-range").unwrap();
    assert_eq!(range[0].def.rows_per_op, 10_000);
}
