//! Building the runtime system from its specification: devices (members, disk groups,
//! spares), groups, controllers, paths, LUNs, targets and jobs.

use std::collections::VecDeque;

use storlab_core::LatencyHistogram;

use super::state::*;
use super::{Model, RunOptions, Stack};
use crate::cache::{DirtyPages, SegmentCache};
use crate::config::resolve::PAGE_SECTORS;
use crate::config::{FailureSpec, SystemSpec, WorkloadSpec};
use crate::db::DbEngine;
use crate::device::{Device, DiskModel, Mechanism};
use crate::engine::{EventQueue, SimTime};
use crate::metrics::HostStats;
use crate::raid::FailedDisks;
use crate::rng::{Purpose, Rng};
use crate::slab::Slab;
use crate::volume::{Volume, VolumeKind};

/// Devices of one owner (a RAID group or a disk group): members then spares.
fn add_devices(
    devices: &mut Vec<Device>,
    spindles: &mut Rng,
    owner: &str,
    disks: u32,
    spares: u32,
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

impl Model {
    /// Builds the system and its workload. `failures` are the file's plus the command line's.
    pub fn new(
        spec: &SystemSpec,
        workload: &WorkloadSpec,
        failures: &[FailureSpec],
        opts: RunOptions,
    ) -> Result<Model, String> {
        let c = &spec.controllers;
        let mut devices = Vec::new();
        let mut spare_pools = Vec::new();
        let mut spindles = Rng::derive(opts.seed, Purpose::Spindle, 0);
        let mut dg_devices = Vec::new();
        for dg in &spec.disk_groups {
            let (members, spares) = add_devices(
                &mut devices,
                &mut spindles,
                &dg.name,
                dg.disks,
                dg.spares,
                &dg.model_name,
                &dg.model,
            )?;
            dg_devices.push((members, spare_pools.len() as u32));
            spare_pools.push(spares);
        }
        // The read caches' keys: (group, segment of the group).
        let max_segments = (spec.groups.iter())
            .map(|g| g.layout.capacity_sectors().div_ceil(c.segment_sectors))
            .max()
            .unwrap_or(0);
        let mut ctrls: Vec<CtrlRt> = (0..c.count)
            .map(|_| CtrlRt {
                cache: SegmentCache::new(c.read_cache_segments, spec.groups.len(), max_segments),
                inflight: Default::default(),
                dirty_pages: 0,
                destaging_pages: 0,
                destage_active: false,
                waiters: VecDeque::new(),
                cpu_free_at: SimTime(0),
                mirror_free_at: SimTime(0),
                mirror: c.mirror_writes,
                write_through: false,
                groups: Vec::new(),
                next_group: 0,
                destage_room: 0,
                failed: false,
            })
            .collect();
        let mut groups = Vec::new();
        for (gi, g) in spec.groups.iter().enumerate() {
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
                        g.layout.disks(),
                        g.spares,
                        &g.model_name,
                        &g.model,
                    )?;
                    spare_pools.push(spares);
                    (members, spare_pools.len() as u32 - 1)
                }
            };
            ctrls[g.controller as usize].groups.push(gi as u32);
            let destage_queue = c.destage_queue_for(&g.model);
            if destage_queue > 0 {
                ctrls[g.controller as usize].destage_room += 1;
            }
            groups.push(GroupRt {
                layout: g.layout.clone(),
                members,
                disk_offset: g.disk_offset_sectors,
                failed: FailedDisks::none(),
                spare_pool: pool,
                ctrl: g.controller,
                read_cache: g.read_cache,
                write_cache: g.write_cache,
                mirror_read: g.mirror_read,
                round_robin: 0,
                dirty: DirtyPages::new(g.layout.capacity_sectors().div_ceil(PAGE_SECTORS)),
                destage_cursor: 0,
                destage_ops_inflight: 0,
                destage_ops_limit: destage_queue * g.layout.disks(),
                destage_run_pages: super::controller::destage_run_pages(&g.layout),
                seq: [SeqStream::default(); SEQ_SLOTS],
                seq_victim: 0,
                stats: Default::default(),
            });
        }
        let paths = spec
            .host
            .paths
            .iter()
            .map(|p| PathRt {
                free_at: SimTime(0),
                ns_per_byte: p.ns_per_byte,
                latency_ns: p.latency_ns,
                controller: p.controller,
                failed: false,
                ios: 0,
                bytes: 0,
            })
            .collect();
        let luns = spec
            .luns
            .iter()
            .map(|l| LunRt {
                group: l.group,
                offset: l.offset_sectors,
                failed: false,
                outstanding: 0,
                queue: VecDeque::new(),
                last_lba: 0,
            })
            .collect();
        let mut stack = Stack {
            now: SimTime(0),
            opts,
            queue: EventQueue::new(),
            spec: spec.clone(),
            workload_name: workload.name.clone(),
            devices,
            groups,
            ctrls,
            paths,
            next_path: 0,
            luns,
            targets: Vec::new(),
            streams: Vec::new(),
            jobs: Vec::new(),
            hosts: Slab::new(),
            pieces: Slab::new(),
            areqs: Slab::new(),
            ops: Slab::new(),
            spare_pools,
            rebuilds: Vec::new(),
            failures: failures.to_vec(),
            failed_once: false,
            log: Vec::new(),
            trace: None,
            host: HostStats::new(opts.warmup_ns),
            host_from_db: false,
            phase_latency: [
                LatencyHistogram::new(),
                LatencyHistogram::new(),
                LatencyHistogram::new(),
            ],
            io_errors: 0,
            host_issued: 0,
            host_completed: 0,
            scratch: Scratch::default(),
        };
        stack.build_jobs(workload)?;
        let db = match &workload.database {
            Some(d) => Some(Box::new(DbEngine::build(d, &mut stack)?)),
            None => None,
        };
        Ok(Model { stack, db })
    }
}

impl Stack {
    /// A target over LUNs: a configured volume, or the concatenation of `luns`.
    pub(crate) fn add_target(&mut self, volume: Option<u32>, luns: &[u32]) -> Result<u32, String> {
        let t = match volume {
            Some(v) => {
                let v = &self.spec.volumes[v as usize];
                TargetRt {
                    volume: v.volume.clone(),
                    luns: v.luns.clone(),
                    preferred_group: v.preferred_read,
                }
            }
            None => {
                let sizes: Vec<u64> = luns
                    .iter()
                    .map(|&l| self.spec.luns[l as usize].sectors)
                    .collect();
                TargetRt {
                    volume: Volume::new(VolumeKind::Concat, &sizes).map_err(|e| e.to_string())?,
                    luns: luns.to_vec(),
                    preferred_group: None,
                }
            }
        };
        self.targets.push(t);
        Ok(self.targets.len() as u32 - 1)
    }
}
