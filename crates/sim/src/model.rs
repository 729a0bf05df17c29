//! The simulated storage system: host jobs, links, controllers with caches, RAID groups and
//! disks, driven by one event loop.
//!
//! Data flow of one host I/O: a job issues it on its volume; it is split at RAID group
//! boundaries into pieces; each piece passes its controller (processing time), then
//! - a read is served from the read cache or the write cache, waits for a fetch already in
//!   flight (prefetch), or becomes a fetch: an array request planned by the group's layout
//!   into disk reads; the host sees the data after the slowest piece plus the link transfer;
//! - a write enters the write cache (waiting while it is full) and is acknowledged after the
//!   optional mirror copy; destage later turns dirty pages into array write requests
//!   (read-modify-write, reconstruct-write or full-stripe for parity RAID). In write-through
//!   mode the write is an array request at once and the host waits for the disks.
//!
//! Invariants checked as the run goes: every host request and array request completes exactly
//! once (slab slots panic when freed twice), every array request completes after exactly the
//! disk operations its plan named, and at the end every issued host request is either counted
//! as completed or still in flight.

mod array;
mod controller;
mod host;
mod report;

use std::collections::VecDeque;

use storlab_core::IoProfile;

use crate::cache::{DirtyPages, KeyMap, LruCache};
use crate::config::resolve::PAGE_SECTORS;
use crate::config::{MirrorRead, SystemSpec, WorkloadSpec};
use crate::device::{Command, Device, Mechanism};
use crate::engine::{Event, EventQueue, SimTime};
use crate::metrics::{GroupStats, HostStats};
use crate::raid::{DiskIo, Layout, ReadExtent, WritePlan};
use crate::rng::{Purpose, Rng};
use crate::slab::Slab;

use storlab_core::result::Run;

/// Run length, warm-up and seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Measured window after the warm-up, ns.
    pub duration_ns: u64,
    /// Warm-up excluded from measurement, ns.
    pub warmup_ns: u64,
    /// Seed of every random stream.
    pub seed: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct SeqStream {
    next_lba: u64,
    run: u32,
    prefetched_to: u64,
}

const SEQ_SLOTS: usize = 8;

struct GroupRt {
    layout: Layout,
    first_disk: u32,
    ctrl: u32,
    read_cache: bool,
    write_cache: bool,
    mirror_read: MirrorRead,
    round_robin: u32,
    dirty: DirtyPages,
    destage_cursor: u64,
    destage_ops_inflight: u32,
    destage_ops_limit: u32,
    seq: [SeqStream; SEQ_SLOTS],
    seq_victim: usize,
    stats: GroupStats,
}

struct NvsWaiter {
    host: u32,
    group: u32,
    lba: u64,
    sectors: u64,
    since_ns: u64,
}

struct CtrlRt {
    cache: LruCache,
    inflight: KeyMap<u32>,
    dirty_pages: u64,
    destaging_pages: u64,
    destage_active: bool,
    waiters: VecDeque<NvsWaiter>,
    cpu_free_ns: u64,
    mirror_free_ns: u64,
    groups: Vec<u32>,
    next_group: usize,
}

/// A stream's volume: its target groups concatenated.
struct StreamRt {
    profile: IoProfile,
    /// (group, first volume sector) in volume order.
    parts: Vec<(u32, u64)>,
    volume_sectors: u64,
    /// Block sizes in sectors with cumulative probabilities.
    sizes: Vec<(u64, f64)>,
    read_frac: f64,
    region_start: u64,
    region_sectors: u64,
}

struct Job {
    stream: u32,
    rng: Rng,
    arrivals: Rng,
    lo: u64,
    hi: u64,
    cursor: u64,
    mean_interarrival_ns: f64,
    think_ns: u64,
}

struct HostReq {
    job: u32,
    write: bool,
    bytes: u64,
    start_ns: u64,
    pending: u32,
    ready_ns: u64,
}

enum AreqKind {
    Fetch {
        lba: u64,
        sectors: u64,
        waiters: Vec<u32>,
        cache: bool,
    },
    Destage {
        first_page: u64,
        pages: u64,
    },
    WriteThrough {
        host: u32,
    },
}

struct ArrayReq {
    group: u32,
    kind: AreqKind,
    pending: u32,
    phase2: Vec<DiskIo>,
}

struct DiskOp {
    areq: u32,
    disk: u32,
    cmd: Command,
    arrived_ns: u64,
    destage: bool,
}

/// The simulated system with its workload, ready to run.
pub struct Model {
    now: u64,
    opts: RunOptions,
    queue: EventQueue,
    spec: SystemSpec,
    workload_name: String,
    devices: Vec<Device>,
    groups: Vec<GroupRt>,
    ctrls: Vec<CtrlRt>,
    link_free_ns: Vec<u64>,
    next_link: usize,
    streams: Vec<StreamRt>,
    jobs: Vec<Job>,
    hosts: Slab<HostReq>,
    areqs: Slab<ArrayReq>,
    ops: Slab<DiskOp>,
    host: HostStats,
    host_issued: u64,
    host_completed: u64,
    host_completed_measured: u64,
    read_scratch: Vec<ReadExtent>,
    write_scratch: WritePlan,
    /// Emptied phase-2 vectors, reused so a read-modify-write allocates nothing.
    vec_pool: Vec<Vec<DiskIo>>,
}

impl Model {
    /// Builds the system and its workload.
    pub fn new(
        spec: &SystemSpec,
        workload: &WorkloadSpec,
        opts: RunOptions,
    ) -> Result<Model, String> {
        let mut devices = Vec::new();
        let mut groups = Vec::new();
        let c = &spec.controllers;
        let mut ctrls: Vec<CtrlRt> = (0..c.count)
            .map(|_| CtrlRt {
                cache: LruCache::new(c.read_cache_segments),
                inflight: KeyMap::default(),
                dirty_pages: 0,
                destaging_pages: 0,
                destage_active: false,
                waiters: VecDeque::new(),
                cpu_free_ns: 0,
                mirror_free_ns: 0,
                groups: Vec::new(),
                next_group: 0,
            })
            .collect();
        let mut spindles = Rng::derive(opts.seed, Purpose::Spindle, 0);
        for (gi, g) in spec.groups.iter().enumerate() {
            let first_disk = devices.len() as u32;
            let members = (0..g.layout.disks()).map(|d| format!("{}.d{d}", g.name));
            // Hot spares: idle until a rebuild, reported like any device.
            let spares = (0..g.spares).map(|s| format!("{}.spare{s}", g.name));
            for name in members.chain(spares) {
                let mech = Mechanism::new(&g.model, spindles.next_u64())?;
                devices.push(Device::new(name, g.model_name.clone(), mech));
            }
            ctrls[g.controller as usize].groups.push(gi as u32);
            groups.push(GroupRt {
                layout: g.layout.clone(),
                first_disk,
                ctrl: g.controller,
                read_cache: g.read_cache,
                write_cache: g.write_cache,
                mirror_read: g.mirror_read,
                round_robin: 0,
                dirty: DirtyPages::new(g.layout.capacity_sectors().div_ceil(PAGE_SECTORS)),
                destage_cursor: 0,
                destage_ops_inflight: 0,
                destage_ops_limit: c.destage_queue_per_disk * g.layout.disks(),
                seq: [SeqStream::default(); SEQ_SLOTS],
                seq_victim: 0,
                stats: GroupStats::default(),
            });
        }
        let mut model = Model {
            now: 0,
            opts,
            queue: EventQueue::new(),
            spec: spec.clone(),
            workload_name: workload.name.clone(),
            devices,
            groups,
            ctrls,
            link_free_ns: vec![0; spec.host.links as usize],
            next_link: 0,
            streams: Vec::new(),
            jobs: Vec::new(),
            hosts: Slab::new(),
            areqs: Slab::new(),
            ops: Slab::new(),
            host: HostStats::new(opts.warmup_ns),
            host_issued: 0,
            host_completed: 0,
            host_completed_measured: 0,
            read_scratch: Vec::new(),
            write_scratch: WritePlan::default(),
            vec_pool: Vec::new(),
        };
        model.build_jobs(workload);
        Ok(model)
    }

    /// Runs to the end of the measured window; returns the result (`sim.wall_s` left at 0:
    /// the simulator never reads a clock).
    pub fn run(mut self) -> Run {
        self.start_jobs();
        let end = self.opts.warmup_ns + self.opts.duration_ns;
        if self.opts.warmup_ns > 0 {
            self.queue
                .schedule(SimTime(self.opts.warmup_ns), Event::WarmupEnd);
        }
        while let Some(t) = self.queue.peek_time() {
            if t.0 > end {
                break;
            }
            let Some((t, event)) = self.queue.pop() else {
                break;
            };
            debug_assert!(t.0 >= self.now, "time went backwards");
            self.now = t.0;
            self.dispatch(event);
        }
        self.now = end;
        assert_eq!(
            self.host_issued,
            self.host_completed + self.hosts.len() as u64,
            "host requests lost or completed twice"
        );
        self.into_run()
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::JobIssue(job) => self.on_job_issue(job),
            Event::DeviceDone { disk, op } => self.on_disk_done(disk, op),
            Event::HostDone(h) => self.on_host_done(h),
            Event::WarmupEnd => self.reset_stats(),
        }
    }

    fn reset_stats(&mut self) {
        let now = self.now;
        self.host = HostStats::new(now);
        self.host_completed_measured = 0;
        for d in &mut self.devices {
            d.reset_stats(now);
        }
        for g in &mut self.groups {
            g.stats = GroupStats::default();
        }
    }

    /// Reserves a host link for `bytes` from `ready_ns`; returns when the transfer ends.
    fn link_transfer(&mut self, ready_ns: u64, bytes: u64) -> u64 {
        let i = self.next_link;
        self.next_link = (i + 1) % self.link_free_ns.len();
        let start = ready_ns.max(self.link_free_ns[i]);
        let end = start + (bytes as f64 * self.spec.host.link_ns_per_byte) as u64;
        self.link_free_ns[i] = end;
        end
    }
}
