//! `[[back_ends]]`: the array's back-end adapters and the loops or buses behind them, each
//! with a bandwidth and the disks on it. Every transfer to or from a disk on a back end
//! occupies it for bytes / bandwidth, one transfer at a time in arrival order, shared by every
//! disk on it. Disks on no back end have no such limit (the array as it was without them).
//!
//! A disk is named as the results name it: `group.dN` (a member), `group.spareN`, or a range
//! `group.dA-dB`; the name of a RAID group or disk group alone stands for all its disks,
//! spares included. Each disk may be on one back end at most.

use serde::{Deserialize, Serialize};

use super::links::{resolve_links, RawLink, Section};
use super::resolve::SystemSpec;
use super::ConfigError;

/// One `[[back_ends]]` entry as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackEndFile {
    /// Name used in results (`loop0`).
    pub name: String,
    /// Bandwidth, MB/s.
    pub mbps: f64,
    /// The disks on it: groups, disk groups, `group.dN`, `group.dA-dB`, `group.spareN`.
    pub disks: Vec<String>,
}

/// A back end, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct BackEndSpec {
    /// Name.
    pub name: String,
    /// Nanoseconds per byte carried.
    pub ns_per_byte: f64,
    /// Indices of its devices, in the order the array builds them ([`device_names`]).
    pub devices: Vec<u32>,
}

/// Every device's name in the order the array builds them: each disk group's members then
/// spares, then each RAID group's own (groups on a disk group have none of their own).
pub fn device_names(spec: &SystemSpec) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut add = |owner: &str, disks: u32, spares: u32| {
        out.extend((0..disks).map(|d| (owner.to_string(), format!("{owner}.d{d}"))));
        out.extend((0..spares).map(|s| (owner.to_string(), format!("{owner}.spare{s}"))));
    };
    for dg in &spec.disk_groups {
        add(&dg.name, dg.disks, dg.spares);
    }
    for g in spec.groups.iter().filter(|g| g.disk_group.is_none()) {
        add(&g.name, g.layout.disks(), g.spares);
    }
    out
}

/// The array of every device, in the order of [`device_names`].
pub fn device_arrays(spec: &SystemSpec) -> Vec<u32> {
    let mut out = Vec::new();
    for dg in &spec.disk_groups {
        out.extend(std::iter::repeat_n(
            dg.array,
            (dg.disks + dg.spares) as usize,
        ));
    }
    for g in spec.groups.iter().filter(|g| g.disk_group.is_none()) {
        let array = spec.array_of_controller(g.controller) as u32;
        out.extend(std::iter::repeat_n(
            array,
            (g.layout.disks() + g.spares) as usize,
        ));
    }
    out
}

/// The devices one entry of `disks` names; an error message when it names none.
fn devices_named(names: &[(String, String)], entry: &str) -> Result<Vec<u32>, String> {
    let all_of = |owner: &str| -> Vec<u32> {
        (names.iter().enumerate())
            .filter(|(_, (o, _))| o == owner)
            .map(|(i, _)| i as u32)
            .collect()
    };
    let whole = all_of(entry);
    if !whole.is_empty() {
        return Ok(whole);
    }
    let find = |name: &str| names.iter().position(|(_, n)| n == name).map(|i| i as u32);
    if let Some(i) = find(entry) {
        return Ok(vec![i]);
    }
    let range = entry.rsplit_once(".d").and_then(|(owner, r)| {
        let (a, b) = r.split_once("-d").or_else(|| r.split_once('-'))?;
        Some((owner, a.parse::<u32>().ok()?, b.parse::<u32>().ok()?))
    });
    if let Some((owner, a, b)) = range.filter(|(_, a, b)| a <= b) {
        let ids: Option<Vec<u32>> = (a..=b).map(|d| find(&format!("{owner}.d{d}"))).collect();
        if let Some(ids) = ids {
            return Ok(ids);
        }
    }
    Err(format!(
        "{entry:?} names no disk: give a RAID group or disk group name, `group.dN`, \
         `group.spareN` or `group.dA-dB` with disks that exist"
    ))
}

/// Resolves the back ends against the system's devices: every entry names disks that exist,
/// no disk is on two back ends, names are unique.
pub(super) fn resolve_back_ends(
    raw: &[BackEndFile],
    spec: &SystemSpec,
    file: &str,
) -> Result<Vec<BackEndSpec>, ConfigError> {
    let names = device_names(spec);
    let links: Vec<RawLink> = (raw.iter())
        .map(|b| RawLink {
            name: &b.name,
            mbps: b.mbps,
            members: &b.disks,
        })
        .collect();
    let section = Section {
        file,
        key: "back_ends",
        links: "back ends",
        members_key: "disks",
        member: "disk",
        count: names.len(),
    };
    let taken = |d: u32, back_end: &str| {
        let disk = &names[d as usize].1;
        format!("disk {disk} is already on back end {back_end:?}; a disk is on one back end")
    };
    let back_ends = resolve_links(&links, &section, |e| devices_named(&names, e), taken)?;
    let arrays = device_arrays(spec);
    for (i, b) in back_ends.iter().enumerate() {
        let first = b.members[0] as usize;
        if let Some(&d) = (b.members.iter()).find(|&&d| arrays[d as usize] != arrays[first]) {
            let reason = format!(
                "disks {} and {} are in different arrays; a back end belongs to one array",
                names[first].1, names[d as usize].1
            );
            let key = format!("back_ends[{i}].disks");
            return Err(ConfigError::invalid(file, key, reason));
        }
    }
    Ok((back_ends.into_iter())
        .map(|l| BackEndSpec {
            name: l.name,
            ns_per_byte: l.ns_per_byte,
            devices: l.members,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::config::parse_array;

    const TWO_GROUPS: &str = "name = \"t\"\n[[raid_groups]]\nname = \"g\"\ncount = 2\n\
        level = \"raid5\"\ndisks = 4\nspares = 1\ndisk_model = \"hdd-10k\"\n";

    fn back_ends(extra: &str) -> Result<Vec<(String, Vec<u32>)>, String> {
        let spec =
            parse_array(&format!("{TWO_GROUPS}{extra}"), "t.toml").map_err(|e| e.to_string())?;
        Ok(spec
            .back_ends
            .into_iter()
            .map(|b| (b.name, b.devices))
            .collect())
    }

    #[test]
    fn groups_disks_and_ranges_name_their_devices() {
        let got = back_ends(
            "[[back_ends]]\nname = \"l0\"\nmbps = 200\ndisks = [\"g-0\"]\n\
             [[back_ends]]\nname = \"l1\"\nmbps = 200\ndisks = [\"g-1.d1-d2\", \"g-1.spare0\"]\n",
        )
        .expect("valid");
        assert_eq!(got[0], ("l0".to_string(), vec![0, 1, 2, 3, 4]));
        assert_eq!(got[1], ("l1".to_string(), vec![6, 7, 9]));
    }

    #[test]
    fn a_disk_on_two_back_ends_or_a_missing_disk_is_refused() {
        let twice = back_ends(
            "[[back_ends]]\nname = \"l0\"\nmbps = 200\ndisks = [\"g-0\"]\n\
             [[back_ends]]\nname = \"l1\"\nmbps = 200\ndisks = [\"g-0.d3\"]\n",
        )
        .expect_err("twice");
        assert!(
            twice.contains("back_ends[1].disks") && twice.contains("g-0.d3"),
            "{twice}"
        );
        let missing =
            back_ends("[[back_ends]]\nname = \"l0\"\nmbps = 200\ndisks = [\"g-0.d4-d9\"]\n")
                .expect_err("missing");
        assert!(missing.contains("names no disk"), "{missing}");
    }
}
