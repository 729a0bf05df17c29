//! LUNs carved from RAID groups and virtual disks.
//!
//! A LUN is a slice `[offset, offset + size)` of its group's address space. Group address 0
//! is the start of every member disk, the outer edge on a hard disk, and a striped group's
//! addresses advance over its disks in step: a LUN at offset `o` of a RAID 5 group of `k`
//! data disks starts at about `o / k` on each member, so its I/O seeks across the slice it
//! holds and transfers at the rate of the zones under it.
//!
//! Placement: LUNs with an `offset` take their slice first; the others are placed in file
//! order, each in the first free space from the outer edge that holds it (with no `offset`
//! anywhere, one after the other from address 0). A LUN without `size` takes the rest of the
//! free space it starts in. A group no LUN names is one LUN of its own name.

use super::LunFile;
use super::LunSpec;
use crate::config::resolve::GroupSpec;
use crate::config::ConfigError;
use storlab_core::ByteSize;

/// A LUN's slice of a group, in sectors, before it is checked against the others.
#[derive(Clone, Copy)]
struct Slice {
    group: usize,
    offset: Option<u64>,
    sectors: Option<u64>,
}

/// LUNs: the explicit ones, then one LUN for every group no explicit LUN uses (named like it).
pub(in crate::config) fn resolve_luns(
    luns: &[LunFile],
    groups: &[GroupSpec],
    file: &str,
) -> Result<Vec<LunSpec>, ConfigError> {
    let slices = (luns.iter().enumerate())
        .map(|(i, l)| slice_of(luns, i, l, groups, file))
        .collect::<Result<Vec<_>, _>>()?;
    // Taken extents of each group, `(start, end, LUN index)`, sorted by start.
    let mut taken: Vec<Vec<(u64, u64, usize)>> = vec![Vec::new(); groups.len()];
    let mut placed = vec![(0u64, 0u64); luns.len()];
    place_fixed(&slices, luns, groups, file, &mut taken, &mut placed)?;
    for (i, s) in slices.iter().enumerate() {
        if s.offset.is_none() {
            placed[i] = allocate(i, s, &luns[i], &groups[s.group], file, &mut taken[s.group])?;
        }
    }
    let mut out: Vec<LunSpec> = (luns.iter().zip(&slices).zip(&placed))
        .map(|((l, s), &(offset, sectors))| LunSpec {
            name: l.name.clone(),
            group: s.group as u32,
            offset_sectors: offset,
            sectors,
        })
        .collect();
    for (g, spec) in groups.iter().enumerate() {
        if !taken[g].is_empty() {
            continue;
        }
        if let Some(j) = luns.iter().position(|l| l.name == spec.name) {
            return Err(ConfigError::invalid(
                file,
                format!("luns[{j}].name"),
                format!(
                    "two LUNs are named {:?}: luns[{j}] and the LUN of group {:?} (a group \
                     no [[luns]] entry carves is one LUN of its own name)",
                    spec.name, spec.name
                ),
            ));
        }
        out.push(LunSpec {
            name: spec.name.clone(),
            group: g as u32,
            offset_sectors: 0,
            sectors: spec.layout.capacity_sectors(),
        });
    }
    Ok(out)
}

/// Checks LUN `i`'s name and group and converts its size and offset to sectors.
fn slice_of(
    luns: &[LunFile],
    i: usize,
    l: &LunFile,
    groups: &[GroupSpec],
    file: &str,
) -> Result<Slice, ConfigError> {
    let key = |k: &str| format!("luns[{i}].{k}");
    let group = groups
        .iter()
        .position(|g| g.name == l.group)
        .ok_or_else(|| {
            ConfigError::invalid(
                file,
                key("group"),
                format!("no RAID group or virtual disk named {:?}", l.group),
            )
        })?;
    if let Some(j) = luns[..i].iter().position(|o| o.name == l.name) {
        return Err(ConfigError::invalid(
            file,
            key("name"),
            format!("two LUNs are named {:?}: luns[{j}] and luns[{i}]", l.name),
        ));
    }
    if let Some(o) = l.offset.filter(|o| o.0 % 512 != 0) {
        return Err(ConfigError::invalid(
            file,
            key("offset"),
            format!("must be a multiple of 512 bytes; got {} bytes", o.0),
        ));
    }
    Ok(Slice {
        group,
        offset: l.offset.map(|o| o.0 / 512),
        sectors: l.size.map(|s| s.0 / 512),
    })
}

/// Places the LUNs with an `offset`, group by group in address order: each must lie inside
/// its group and clear of the others. One without `size` reaches the next one or the end.
fn place_fixed(
    slices: &[Slice],
    luns: &[LunFile],
    groups: &[GroupSpec],
    file: &str,
    taken: &mut [Vec<(u64, u64, usize)>],
    placed: &mut [(u64, u64)],
) -> Result<(), ConfigError> {
    let mut fixed: Vec<(usize, u64, usize)> = (slices.iter().enumerate())
        .filter_map(|(i, s)| s.offset.map(|o| (s.group, o, i)))
        .collect();
    fixed.sort_unstable();
    for (n, &(g, start, i)) in fixed.iter().enumerate() {
        let cap = groups[g].layout.capacity_sectors();
        let group = &luns[i].group;
        let past_end = |k: &str, what: String| {
            ConfigError::invalid(
                file,
                format!("luns[{i}].{k}"),
                format!(
                    "{what} goes past the end of {group}, which holds {} ({} bytes)",
                    ByteSize(cap * 512),
                    cap * 512
                ),
            )
        };
        let offset_text = ByteSize(start * 512);
        if start >= cap {
            return Err(past_end("offset", format!("offset {offset_text}")));
        }
        let next = (fixed.get(n + 1))
            .filter(|&&(h, _, _)| h == g)
            .map_or(cap, |&(_, o, _)| o);
        let end = match slices[i].sectors {
            Some(s) => start.saturating_add(s),
            None => next.max(start + 1),
        };
        if end > cap {
            let size = luns[i].size.unwrap_or_default();
            return Err(past_end(
                "size",
                format!("offset {offset_text} + size {size}"),
            ));
        }
        if let Some(&(s, e, j)) = taken[g].last().filter(|&&(_, e, _)| e > start) {
            return Err(ConfigError::invalid(
                file,
                format!("luns[{i}].offset"),
                format!(
                    "{} overlaps luns[{j}] ({}) in {group}: LUNs of one group must not share \
                     addresses",
                    extent(start, end),
                    extent(s, e)
                ),
            ));
        }
        taken[g].push((start, end, i));
        placed[i] = (start, end - start);
    }
    Ok(())
}

/// Places LUN `i` (no `offset`) in the first free space of its group that holds it.
fn allocate(
    i: usize,
    s: &Slice,
    l: &LunFile,
    group: &GroupSpec,
    file: &str,
    taken: &mut Vec<(u64, u64, usize)>,
) -> Result<(u64, u64), ConfigError> {
    let cap = group.layout.capacity_sectors();
    // Free extents in address order.
    let mut free = Vec::with_capacity(taken.len() + 1);
    let mut at = 0;
    for &(start, end, _) in taken.iter() {
        free.push((at, start));
        at = end;
    }
    free.push((at, cap));
    let fits = |&&(a, b): &&(u64, u64)| b > a && s.sectors.is_none_or(|n| n > 0 && b - a >= n);
    let Some(&(a, b)) = free.iter().find(fits) else {
        let largest = free.iter().map(|&(a, b)| b.saturating_sub(a)).max();
        return Err(ConfigError::invalid(
            file,
            format!("luns[{i}].size"),
            format!(
                "{} does not fit: {} of {} bytes of {} are free in one piece",
                l.size.unwrap_or_default(),
                largest.unwrap_or(0) * 512,
                cap * 512,
                l.group
            ),
        ));
    };
    let sectors = s.sectors.unwrap_or(b - a);
    let k = taken.partition_point(|&(start, _, _)| start < a);
    taken.insert(k, (a, a + sectors, i));
    Ok((a, sectors))
}

/// `[a, b)` in bytes, for messages.
fn extent(a: u64, b: u64) -> String {
    format!("bytes {} to {}", a * 512, b * 512)
}

#[cfg(test)]
mod tests;
