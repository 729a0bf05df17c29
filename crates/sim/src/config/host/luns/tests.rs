use crate::config::{parse_array, ConfigError, SystemSpec};

/// A RAID 5 group of 5 disks of 300 GB (hdd-10k): 4 data disks, 1.2 TB.
const GROUP: &str = "name = \"t\"\n[[raid_groups]]\nname = \"g\"\nlevel = \"raid5\"\ndisks = 5\n\
                     disk_model = \"hdd-10k\"\n";

fn lun(name: &str, extra: &str) -> String {
    format!("[[luns]]\nname = \"{name}\"\ngroup = \"g\"\n{extra}\n")
}

fn parse(luns: &[String]) -> Result<SystemSpec, ConfigError> {
    parse_array(&format!("{GROUP}{}", luns.concat()), "carve.toml")
}

fn invalid(luns: &[String]) -> (String, String) {
    match parse(luns) {
        Err(ConfigError::Invalid { file, key, reason }) => {
            assert_eq!(file, "carve.toml");
            (key, reason)
        }
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

/// `(name, offset, sectors)` of each LUN.
fn slices(s: &SystemSpec) -> Vec<(String, u64, u64)> {
    (s.luns.iter())
        .map(|l| (l.name.clone(), l.offset_sectors, l.sectors))
        .collect()
}

const GIB: u64 = 2 * 1024 * 1024;

#[test]
fn luns_without_offsets_follow_one_another_from_the_outer_edge() {
    let s = parse(&[
        lun("a", "size = \"10g\""),
        lun("b", "size = \"5g\""),
        lun("c", ""),
    ])
    .unwrap();
    let cap = s.groups[0].layout.capacity_sectors();
    assert_eq!(
        slices(&s),
        [
            ("a".into(), 0, 10 * GIB),
            ("b".into(), 10 * GIB, 5 * GIB),
            ("c".into(), 15 * GIB, cap - 15 * GIB)
        ]
    );
}

#[test]
fn offsets_take_their_slice_first_and_the_others_fill_the_gaps_in_file_order() {
    let s = parse(&[
        lun("inner", "size = \"10g\"\noffset = \"130g\""),
        lun("a", "size = \"4g\""),
        lun("mid", "size = \"10g\"\noffset = \"5g\""),
        lun("b", "size = \"2g\""),
        lun("rest", ""),
    ])
    .unwrap();
    let cap = s.groups[0].layout.capacity_sectors();
    assert_eq!(
        slices(&s),
        [
            ("inner".into(), 130 * GIB, 10 * GIB),
            ("a".into(), 0, 4 * GIB),
            ("mid".into(), 5 * GIB, 10 * GIB),
            // 1 GiB is free before `mid`: too small, so after it.
            ("b".into(), 15 * GIB, 2 * GIB),
            // The first free space: the last GiB before `mid`.
            ("rest".into(), 4 * GIB, GIB),
        ]
    );
    assert!(cap > 140 * GIB, "{cap}");
    // An offset without a size reaches the next LUN.
    let s = parse(&[
        lun("x", "offset = \"1g\""),
        lun("y", "offset = \"3g\"\nsize = \"1g\""),
    ])
    .unwrap();
    assert_eq!(slices(&s)[0], ("x".into(), GIB, 2 * GIB));
}

#[test]
fn overlapping_luns_are_refused_naming_both() {
    let (key, reason) = invalid(&[
        lun("a", "size = \"10g\"\noffset = \"0\""),
        lun("b", "size = \"10g\"\noffset = \"9g\""),
    ]);
    assert_eq!(key, "luns[1].offset");
    assert!(reason.contains("overlaps luns[0]"), "{reason}");
    assert!(reason.contains("bytes 0 to 10737418240"), "{reason}");
}

#[test]
fn luns_past_the_end_of_their_group_are_refused_with_its_size() {
    let cap_bytes = parse(&[]).unwrap().groups[0].layout.capacity_sectors() * 512;
    let (key, reason) = invalid(&[lun("a", "size = \"100g\"\noffset = \"1100g\"")]);
    assert_eq!(key, "luns[0].size");
    assert!(reason.contains("goes past the end of g"), "{reason}");
    assert!(reason.contains(&format!("{cap_bytes} bytes")), "{reason}");
    let (key, reason) = invalid(&[lun("a", "offset = \"2t\"")]);
    assert_eq!(key, "luns[0].offset");
    assert!(reason.contains("offset 2t goes past the end"), "{reason}");
    let (key, reason) = invalid(&[lun("a", "size = \"1000g\""), lun("b", "size = \"1000g\"")]);
    assert_eq!(key, "luns[1].size");
    assert!(reason.contains("does not fit"), "{reason}");
    let (key, reason) = invalid(&[lun("a", "offset = \"1000\"")]);
    assert_eq!(key, "luns[0].offset");
    assert!(reason.contains("multiple of 512 bytes"), "{reason}");
}
