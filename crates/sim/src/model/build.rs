//! Building the runtime system from its specification: devices (members, disk groups,
//! spares), groups, controllers, paths, LUNs, targets and jobs.

use std::collections::VecDeque;

use storlab_core::LatencyHistogram;

use super::array::ArrayPart;
use super::core::Core;
use super::state::*;
use super::{Model, RunOptions, Stack};
use crate::cache::{DirtyPages, SegmentCache};
use crate::config::resolve::PAGE_SECTORS;
use crate::config::{FailureSpec, SystemSpec, WorkloadSpec};
use crate::db::DbEngine;
use crate::engine::SimTime;
use crate::metrics::HostStats;
use crate::slab::Slab;
use crate::volume::{Volume, VolumeKind};

impl Model {
    /// Builds the system and its workload. `failures` are the file's plus the command line's.
    pub fn new(
        spec: &SystemSpec,
        workload: &WorkloadSpec,
        failures: &[FailureSpec],
        opts: RunOptions,
    ) -> Result<Model, String> {
        let c = &spec.controllers;
        let arrays = ArrayPart::build(spec, opts.seed)?;
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
            ctrls[g.controller as usize].groups.push(gi as u32);
            let destage_queue = c.destage_queue_for(&g.model);
            if destage_queue > 0 {
                ctrls[g.controller as usize].destage_room += 1;
            }
            groups.push(GroupRt {
                capacity_sectors: g.layout.capacity_sectors(),
                ctrl: g.controller,
                read_cache: g.read_cache,
                write_cache: g.write_cache,
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
            core: Core::new(spec, opts),
            workload_name: workload.name.clone(),
            arrays,
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
            failures: failures.to_vec(),
            failed_once: false,
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
                let v = &self.core.spec.volumes[v as usize];
                TargetRt {
                    volume: v.volume.clone(),
                    luns: v.luns.clone(),
                    preferred_group: v.preferred_read,
                }
            }
            None => {
                let sizes: Vec<u64> = luns
                    .iter()
                    .map(|&l| self.core.spec.luns[l as usize].sectors)
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
