//! Validation and geometry of ASM-like disk groups.

use super::{Layout, VolumeError};

/// Validates an ASM geometry and returns its capacity and layout.
pub(super) fn layout(
    au: u64,
    copies: u8,
    failure_groups: &[Vec<u32>],
    member_sectors: &[u64],
) -> Result<(u64, Layout), VolumeError> {
    if !(1..=3).contains(&copies) {
        return Err(VolumeError::BadCopies { got: copies });
    }
    if !au.is_power_of_two() || !(2048..=131_072).contains(&au) {
        return Err(VolumeError::BadAllocationUnit { got: au });
    }
    let fg = failure_groups.len();
    if fg < usize::from(copies) {
        return Err(VolumeError::TooFewFailureGroups { copies, got: fg });
    }
    let s = failure_groups[0].len();
    for (g, group) in failure_groups.iter().enumerate() {
        if group.is_empty() {
            return Err(VolumeError::EmptyFailureGroup { group: g as u32 });
        }
        if group.len() != s {
            return Err(VolumeError::UnequalFailureGroups {
                first: s,
                other: group.len(),
            });
        }
    }
    let n = member_sectors.len();
    let mut group_of = vec![u32::MAX; n];
    let mut disks = Vec::with_capacity(n);
    for (g, group) in failure_groups.iter().enumerate() {
        let g = g as u32;
        for &member in group {
            let slot = group_of
                .get_mut(member as usize)
                .ok_or(VolumeError::NoSuchMember {
                    group: g,
                    member,
                    members: n,
                })?;
            if *slot == g {
                return Err(VolumeError::MemberRepeated { member, group: g });
            }
            if *slot != u32::MAX {
                return Err(VolumeError::MemberInTwoGroups {
                    member,
                    first: *slot,
                    second: g,
                });
            }
            *slot = g;
            disks.push(member);
        }
    }
    if let Some(m) = group_of.iter().position(|&g| g == u32::MAX) {
        return Err(VolumeError::MemberInNoGroup { member: m as u32 });
    }
    // au <= 2^17 and copies <= 3: no overflow.
    let needed = au * u64::from(copies);
    let (small, &sectors) = member_sectors
        .iter()
        .enumerate()
        .min_by_key(|&(_, &x)| x)
        .ok_or(VolumeError::TooFewMembers {
            what: "an ASM disk group",
            min: 1,
            got: 0,
        })?;
    if sectors < needed {
        return Err(VolumeError::MembersTooSmall {
            member: small as u32,
            sectors,
            needed,
            copies,
            au_sectors: au,
        });
    }
    let rows = sectors / needed;
    let capacity = rows
        .checked_mul(n as u64)
        .and_then(|x| x.checked_mul(au))
        .ok_or(VolumeError::CapacityOverflow)?;
    let layout = Layout::Asm {
        au,
        copies,
        groups: fg as u64,
        per_group: s as u64,
        disks,
        group_of,
    };
    Ok((capacity, layout))
}
