//! Building the arrays from the specification: devices (members, disk groups, spares) and
//! RAID groups.

use super::{ArrayGroup, ArrayPart};
use crate::config::SystemSpec;
use crate::device::{Device, DiskModel, Mechanism};
use crate::raid::FailedDisks;
use crate::rng::{Purpose, Rng};
use crate::slab::Slab;

/// Devices of one owner (a RAID group or a disk group): members then spares.
fn add_devices(
    devices: &mut Vec<Device>,
    spindles: &mut Rng,
    owner: &str,
    (disks, spares): (u32, u32),
    model_name: &str,
    model: &DiskModel,
) -> Result<(Vec<u32>, Vec<u32>), String> {
    let mut members = Vec::new();
    let mut spare_ids = Vec::new();
    let names = (0..disks)
        .map(|d| (format!("{owner}.d{d}"), false))
        .chain((0..spares).map(|s| (format!("{owner}.spare{s}"), true)));
    let prototype = Mechanism::new(model, 0)?;
    for (name, spare) in names {
        let mech = prototype.for_drive(spindles.next_u64());
        let id = devices.len() as u32;
        devices.push(Device::new(name, model_name.to_string(), mech));
        if spare {
            spare_ids.push(id);
        } else {
            members.push(id);
        }
    }
    Ok((members, spare_ids))
}

impl ArrayPart {
    /// The devices of every disk group, then each RAID group with its own members and spares
    /// (a group on a disk group uses that group's members and spare pool).
    pub fn build(spec: &SystemSpec, seed: u64) -> Result<ArrayPart, String> {
        let mut devices = Vec::new();
        let mut spare_pools = Vec::new();
        let mut spindles = Rng::derive(seed, Purpose::Spindle, 0);
        let mut dg_devices = Vec::new();
        for dg in &spec.disk_groups {
            let (members, spares) = add_devices(
                &mut devices,
                &mut spindles,
                &dg.name,
                (dg.disks, dg.spares),
                &dg.model_name,
                &dg.model,
            )?;
            dg_devices.push((members, spare_pools.len() as u32));
            spare_pools.push(spares);
        }
        let mut groups = Vec::new();
        for g in &spec.groups {
            let (members, pool) = match g.disk_group {
                Some(dg) => {
                    let (all, pool) = &dg_devices[dg as usize];
                    (all[..g.layout.disks() as usize].to_vec(), *pool)
                }
                None => {
                    let (members, spares) = add_devices(
                        &mut devices,
                        &mut spindles,
                        &g.name,
                        (g.layout.disks(), g.spares),
                        &g.model_name,
                        &g.model,
                    )?;
                    spare_pools.push(spares);
                    (members, spare_pools.len() as u32 - 1)
                }
            };
            groups.push(ArrayGroup {
                layout: g.layout.clone(),
                members,
                disk_offset: g.disk_offset_sectors,
                failed: FailedDisks::none(),
                health: None,
                spare_pool: pool,
                mirror_read: g.mirror_read,
                round_robin: 0,
                stats: Default::default(),
            });
        }
        let back_ends = super::backend::BackEnds::build(spec, devices.len());
        let device_arrays = crate::config::back_ends::device_arrays(spec);
        for (d, &a) in devices.iter_mut().zip(&device_arrays) {
            if let Some(q) = spec.arrays[a as usize].controllers.disk_queue_depth {
                d.limit_queue(q);
            }
        }
        Ok(ArrayPart {
            back_ends,
            devices,
            groups,
            areqs: Slab::new(),
            ops: Slab::new(),
            spare_pools,
            rebuilds: Vec::new(),
            pacers: Vec::new(),
            reserves: (spec.disk_groups.iter())
                .map(|dg| vec![0; dg.disks as usize])
                .collect(),
            reads: Vec::new(),
            write: Default::default(),
            vec_pool: Vec::new(),
        })
    }
}
