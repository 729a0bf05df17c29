//! Building the controllers, each group's cache state and the LUNs from the specification.

use std::collections::VecDeque;

use super::gather::Gather;
use super::write::destage_run_pages;
use super::{CacheGroup, ControllerPart, CtrlRt, LunRt, ReadSettings, SeqStream, SEQ_SLOTS};
use crate::cache::{DirtyPages, ReadCache, WriteOrder};
use crate::config::resolve::PAGE_SECTORS;
use crate::config::{DestageOrder, SystemSpec};
use crate::model::resource::Resource;
use crate::raid::RaidLevel;
use crate::slab::Slab;

/// Segments in flight a controller's table is sized for from the start (512 slots, 8 KiB,
/// in the processor's nearest caches): a read miss looks up, inserts and removes its
/// segment there, and with the few dozen fetches a host keeps in flight the table stays
/// sparse, so most probes end at their first slot. More fetches grow it as usual.
const INFLIGHT_ROOM: usize = 256;

impl ControllerPart {
    /// The controllers (each with its read cache), every group on its controller, the LUNs.
    pub fn build(spec: &SystemSpec) -> ControllerPart {
        // The results show the processors and links only when the array declares its
        // internals: otherwise their figures are not kept.
        let counted = spec.declares_internals();
        let resource = |r: Resource| if counted { r } else { r.uncounted() };
        let mut ctrls: Vec<CtrlRt> = (0..spec.controllers.count)
            .map(|i| (i, spec.controller_spec(i)))
            .map(|(i, c)| CtrlRt {
                // The read caches' keys: (group, segment of the group).
                cache: ReadCache::new(
                    c.read_cache_slots,
                    spec.groups.len(),
                    max_segments(spec, c.segment_sectors),
                    c.slot_segments,
                ),
                inflight: crate::cache::WordMap::with_room(INFLIGHT_ROOM),
                dirty_pages: 0,
                destaging_pages: 0,
                destage_active: false,
                waiters: VecDeque::new(),
                cpu: resource(Resource::new(
                    format!("{} processors", spec.controller_name(i)),
                    "processors",
                    c.processors as usize,
                )),
                mirror: resource(Resource::new(link_name(spec, i), "internal_link", 1)),
                mirroring: c.mirror_writes,
                write_through: false,
                groups: Vec::new(),
                next_group: 0,
                destage_room: 0,
                pump_rest: Default::default(),
                failed: false,
            })
            .collect();
        let mut groups = Vec::new();
        for (gi, g) in spec.groups.iter().enumerate() {
            let owner = &mut ctrls[g.controller as usize];
            owner.groups.push(gi as u32);
            let destage_queue = spec
                .controller_spec(g.controller)
                .destage_queue_for(&g.model);
            if destage_queue > 0 {
                owner.destage_room += 1;
            }
            let capacity_sectors = g.layout.capacity_sectors();
            groups.push(CacheGroup {
                capacity_sectors,
                ctrl: g.controller,
                read_cache: g.read_cache,
                write_cache: g.write_cache,
                dirty: DirtyPages::new(capacity_sectors.div_ceil(PAGE_SECTORS)),
                destage_cursor: 0,
                write_order: (spec.controller_spec(g.controller).destage_order
                    == DestageOrder::Age)
                    .then(WriteOrder::default),
                destage_ops_inflight: 0,
                destage_ops_limit: destage_queue * g.layout.disks(),
                destage_run_pages: destage_run_pages(&g.layout),
                seq: [SeqStream::default(); SEQ_SLOTS],
                seq_victim: 0,
                gather: Gather::new(
                    matches!(g.layout.level(), RaidLevel::Raid5 | RaidLevel::Raid6)
                        .then(|| g.layout.full_stripe_sectors()),
                    spec.controller_spec(g.controller).full_stripe_hold_ns,
                ),
                stats: Default::default(),
                reads: {
                    let c = spec.controller_spec(g.controller);
                    ReadSettings {
                        segment_sectors: c.segment_sectors,
                        read_hit_ns: c.read_hit_ns,
                        read_miss_ns: c.read_miss_ns,
                        prefetch_sectors: c.prefetch_sectors,
                        sequential_trigger: c.sequential_trigger,
                    }
                },
            });
        }
        let luns = (spec.luns.iter())
            .map(|l| LunRt {
                group: l.group,
                offset: l.offset_sectors,
                failed: false,
                outstanding: 0,
                queue: VecDeque::new(),
                blocked: VecDeque::new(),
                last_lba: 0,
            })
            .collect();
        ControllerPart {
            ctrls,
            groups,
            luns,
            pieces: Slab::new(),
            miss_after_processor: counted,
            hold_from: [spec.host.queue_depth_per_lun, spec.host.nr_requests]
                .into_iter()
                .filter(|&cap| cap > 0)
                .min()
                .unwrap_or(u32::MAX),
            delayed_fetches: Slab::new(),
        }
    }
}

/// The most read-cache segments of `segment_sectors` any group spans.
fn max_segments(spec: &SystemSpec, segment_sectors: u64) -> u64 {
    (spec.groups.iter())
        .map(|g| g.layout.capacity_sectors().div_ceil(segment_sectors))
        .max()
        .unwrap_or(0)
}

/// Controller `i`'s end of the internal link: `internal link 1`, or with `[[arrays]]`
/// `array east internal link 1`.
fn link_name(spec: &SystemSpec, i: u32) -> String {
    if !spec.has_arrays() {
        return format!("internal link {i}");
    }
    let a = &spec.arrays[spec.array_of_controller(i)];
    format!("array {} internal link {}", a.name, i - a.first_controller)
}
