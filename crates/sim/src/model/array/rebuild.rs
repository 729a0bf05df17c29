//! Failed members and rebuilds onto spares.

use super::{AreqKind, ArrayPart, OpClass};
use crate::engine::{Event, SimTime};
use crate::model::core::Core;
use crate::raid::sets::{RebuildStop, SetHealth, Sparing};

/// Rebuild works in chunks of 1 MiB of member address space.
const REBUILD_CHUNK_SECTORS: u64 = 2048;

/// Rebuild of one group member onto a spare device.
pub(super) struct RebuildTask {
    pub group: u32,
    pub member: u32,
    /// The spare device; None for a rebuild into the reserved capacity of redundancy sets.
    pub spare: Option<u32>,
    /// Where the data goes, for the results.
    pub onto: String,
    pub label: String,
    pub next_lba: u64,
    pub end_lba: u64,
    pub inflight: u32,
    pub started_at: SimTime,
    pub finished_at: Option<SimTime>,
    pub bytes: u64,
    pub failed: bool,
    /// The rate shared with the other rebuilds of the same failed disk.
    pub pacer: u32,
    /// Whether the member's own data is rebuilt (`[0, own_end)` of the task's range); false
    /// when only rebuilt units it held are rebuilt again.
    pub own: bool,
    pub own_end: u64,
    /// Redundancy sets: positions of other disks' rebuilt units the failed disk held, rebuilt
    /// again after its own data (`[own_end, end_lba)`, a stripe unit each).
    pub relocate: Vec<u64>,
    /// Where the units of `relocate` went, recorded in the group's health once done.
    pub moved: Vec<(u64, (u32, u64))>,
}

/// What a rebuild task rebuilds: the member's own data, and (redundancy sets) the positions
/// of rebuilt units of other disks that it held.
struct RebuildWork {
    own: bool,
    relocate: Vec<u64>,
}

/// `rebuild.rate_mbps` of one failed disk, shared by every rebuild it starts (each virtual
/// disk on the disk rebuilds its own part, at the disk's rate between them): a chunk may
/// start once the bytes issued before it, by all of them, fit in the time since the start.
pub(super) struct RebuildPacer {
    pub started_at: SimTime,
    pub bytes: u64,
}

impl ArrayPart {
    /// Device `device` fails where it is: a spare still in its pool leaves it; a spare under
    /// a rebuild stops it, and the member is rebuilt onto another spare if one is left; a
    /// member (or a spare that replaced one) is marked failed in each group it serves, and a
    /// rebuild onto a spare of the group's pool starts when the group survives and a spare
    /// is left.
    pub fn fail_disk(&mut self, core: &mut Core, device: &str) {
        let Some(dev) = self.devices.iter().position(|d| d.name == device) else {
            return;
        };
        let dev = dev as u32;
        if let Some(pool) = self.spare_pools.iter_mut().find(|p| p.contains(&dev)) {
            pool.retain(|&s| s != dev);
            core.note("spare_failed", device, "leaves the spare pool".into());
            return;
        }
        self.pacers.push(RebuildPacer {
            started_at: core.now + core.spec.rebuild.start_delay_ns,
            bytes: 0,
        });
        let onto_it: Vec<u32> = (0..self.rebuilds.len() as u32)
            .filter(|&t| {
                let r = &self.rebuilds[t as usize];
                r.spare == Some(dev) && r.finished_at.is_none() && !r.failed
            })
            .collect();
        if !onto_it.is_empty() {
            self.restart_rebuilds(core, device, &onto_it);
            return;
        }
        let members: Vec<(u32, u32)> = (self.groups.iter().enumerate())
            .flat_map(|(g, grp)| {
                (grp.members.iter().enumerate())
                    .filter(move |&(_, &d)| d == dev)
                    .map(move |(m, _)| (g as u32, m as u32))
            })
            .collect();
        let mut spare: Option<u32> = None;
        for (g, m) in members {
            if self.groups[g as usize].layout.sets().is_some() {
                self.fail_set_disk(core, g, m);
                continue;
            }
            let name = core.spec.groups[g as usize].name.clone();
            let grp = &mut self.groups[g as usize];
            if grp.failed.contains(m) || grp.failed.mark(m).is_err() {
                continue;
            }
            if !grp.layout.survives(&grp.failed) {
                let detail = format!(
                    "{} with disks {} failed cannot serve all of its data",
                    grp.layout.level().name(),
                    grp.failed
                );
                core.note("data_loss", &name, detail);
                continue;
            }
            if spare.is_none() {
                spare = self.spare_pools[grp.spare_pool as usize].pop();
            }
            let Some(s) = spare else {
                core.note(
                    "no_spare",
                    &name,
                    format!("{device} stays failed: no spare left"),
                );
                continue;
            };
            self.rebuild_onto_spare(core, (g, m), s);
        }
    }

    /// The spare under rebuilds `tasks` fails: they stop, and their members are rebuilt from
    /// the start onto the next spare of the pool, or stay failed (the groups degraded).
    fn restart_rebuilds(&mut self, core: &mut Core, device: &str, tasks: &[u32]) {
        let mut spare: Option<u32> = None;
        for &t in tasks {
            self.rebuilds[t as usize].failed = true;
            let (g, m) = (
                self.rebuilds[t as usize].group,
                self.rebuilds[t as usize].member,
            );
            let label = self.rebuilds[t as usize].label.clone();
            core.note("rebuild_stop", &label, format!("{device} failed under it"));
            if spare.is_none() {
                spare = self.spare_pools[self.groups[g as usize].spare_pool as usize].pop();
            }
            let Some(s) = spare else {
                let detail = format!("{label} stays failed: no spare left");
                core.note(
                    "no_spare",
                    &core.spec.groups[g as usize].name.clone(),
                    detail,
                );
                continue;
            };
            self.rebuild_onto_spare(core, (g, m), s);
        }
    }

    /// Starts rebuilding all of member `m` of group `g` onto spare device `spare`.
    fn rebuild_onto_spare(&mut self, core: &mut Core, (g, m): (u32, u32), spare: u32) {
        let spare_name = self.devices[spare as usize].name.clone();
        let work = RebuildWork {
            own: true,
            relocate: Vec::new(),
        };
        self.start_rebuild(core, (g, m), Some(spare), spare_name, work);
    }

    /// Starts rebuilding member `m` of group `g` onto `spare` (None: into reserved capacity,
    /// described by `onto`).
    fn start_rebuild(
        &mut self,
        core: &mut Core,
        (g, m): (u32, u32),
        spare: Option<u32>,
        onto: String,
        work: RebuildWork,
    ) {
        let name = &core.spec.groups[g as usize].name;
        let label = format!("{name}.d{m}");
        let start = core.now + core.spec.rebuild.start_delay_ns;
        let task = self.rebuilds.len() as u32;
        let layout = &self.groups[g as usize].layout;
        let own_end = layout.usable_disk_sectors();
        let moving = work.relocate.len() as u64 * layout.stripe_unit_sectors();
        self.rebuilds.push(RebuildTask {
            group: g,
            member: m,
            spare,
            label: label.clone(),
            next_lba: if work.own { 0 } else { own_end },
            end_lba: own_end + moving,
            inflight: 0,
            started_at: start,
            finished_at: None,
            bytes: 0,
            failed: false,
            onto: onto.clone(),
            pacer: self.pacers.len() as u32 - 1,
            own: work.own,
            own_end,
            relocate: work.relocate,
            moved: Vec::new(),
        });
        core.note("rebuild_start", &label, format!("onto {onto}"));
        core.schedule(start, Event::RebuildTick(task));
    }

    /// Disk `m` of a virtual disk over redundancy sets fails: its set rebuilds it into the
    /// reserved capacity of the set's other disks, when the group has any, and rebuilds again
    /// the units of other disks it held in its own reserve, wherever room is left.
    fn fail_set_disk(&mut self, core: &mut Core, g: u32, m: u32) {
        let name = core.spec.groups[g as usize].name.clone();
        let grp = &mut self.groups[g as usize];
        let Some(v) = grp.layout.sets() else { return };
        let Some((set, x)) = v.set_of(m) else { return };
        let (first, n) = v.sets().nth(set).unwrap_or((0, 0));
        let h = grp
            .health
            .get_or_insert_with(|| SetHealth::new(v.set_count()));
        if h.failed[set].contains(x) || h.failed[set].mark(x).is_err() {
            return;
        }
        if !v.survives(h) {
            let detail = format!(
                "{} redundancy set of disks {first}-{} with {} failed cannot serve all of its data",
                v.level().name(),
                first + n - 1,
                h.failed[set].count()
            );
            core.note("data_loss", &name, detail);
            return;
        }
        let dg = core.spec.groups[g as usize].disk_group.unwrap_or(0) as usize;
        let sparing = (core.spec.disk_groups.get(dg))
            .and_then(|d| d.sets.as_ref())
            .map_or(Sparing::None, |s| s.sparing);
        // The reserve holds the set's rebuilt disks and the ones being rebuilt.
        let in_reserve = h.rebuilt[set].count() + h.failed[set].count();
        let own = u64::from(in_reserve) <= sparing.disks();
        let relocate = h.spares_on(set, m);
        if !own {
            core.note(
                "no_spare",
                &name,
                format!("{name}.d{m} stays failed: no reserved capacity left for it"),
            );
            if relocate.is_empty() {
                return;
            }
        }
        let dg_name = core
            .spec
            .disk_groups
            .get(dg)
            .map_or("", |d| d.name.as_str());
        let onto = format!("reserved capacity of {dg_name}.d{first}-d{}", first + n - 1);
        self.start_rebuild(core, (g, m), None, onto, RebuildWork { own, relocate });
    }

    /// Issues rebuild chunks up to the task's concurrency and rate.
    pub fn pump_rebuild(&mut self, core: &mut Core, t: u32) {
        let outstanding = core.spec.rebuild.outstanding;
        let ns_per_byte = core.spec.rebuild.ns_per_byte;
        let mut plan = std::mem::take(&mut self.write);
        loop {
            let task = &self.rebuilds[t as usize];
            if task.failed
                || task.finished_at.is_some()
                || task.inflight >= outstanding
                || task.next_lba >= task.end_lba
            {
                break;
            }
            let pacer = &self.pacers[task.pacer as usize];
            let allowed = pacer.started_at + (pacer.bytes as f64 * ns_per_byte) as u64;
            if allowed > core.now {
                core.schedule(allowed, Event::RebuildTick(t));
                break;
            }
            let (g, m, lba) = (task.group, task.member, task.next_lba);
            let chunk = REBUILD_CHUNK_SECTORS.min(task.end_lba - lba);
            let grp = &mut self.groups[g as usize];
            let dg = core.spec.groups[g as usize].disk_group.unwrap_or(0) as usize;
            let planned = match (&mut grp.health, grp.layout.sets()) {
                (Some(h), Some(v)) if lba >= task.own_end => {
                    let used = self
                        .reserves
                        .get_mut(dg)
                        .map_or(&mut [][..], |r| &mut r[..]);
                    let unit = v.stripe_unit_sectors();
                    let from = ((lba - task.own_end) / unit) as usize;
                    let units = &task.relocate[from..from + (chunk / unit) as usize];
                    let set = v.set_of(m).map_or(0, |(set, _)| set);
                    let mut moved = Vec::new();
                    let planned = v.plan_relocate((set, units), h, used, &mut plan, &mut moved);
                    self.rebuilds[t as usize].moved.extend(moved);
                    planned
                }
                (Some(h), Some(v)) => {
                    let used = self
                        .reserves
                        .get_mut(dg)
                        .map_or(&mut [][..], |r| &mut r[..]);
                    v.plan_rebuild((m, lba, chunk), h, used, &mut plan)
                }
                _ => (grp.layout)
                    .plan_rebuild(m, lba, chunk, &grp.failed, &mut plan)
                    .map_err(RebuildStop::Lost),
            };
            if let Err(stop) = planned {
                let label = self.rebuilds[t as usize].label.clone();
                self.rebuilds[t as usize].failed = true;
                self.record_moves(t);
                let (kind, detail) = match stop {
                    RebuildStop::Lost(_) => ("data_loss", "rebuild cannot read its sources"),
                    RebuildStop::NoReserve => (
                        "no_spare",
                        "rebuild stops: no working disk of the set has reserved capacity left",
                    ),
                };
                core.note(kind, &label, detail.into());
                break;
            }
            let spare = self.rebuilds[t as usize].spare;
            let kind = AreqKind::Rebuild { task: t };
            self.issue_plan(core, g, &plan, kind, OpClass::Rebuild, spare);
            let task = &mut self.rebuilds[t as usize];
            task.next_lba += chunk;
            task.bytes += chunk * 512;
            task.inflight += 1;
            self.pacers[task.pacer as usize].bytes += chunk * 512;
        }
        self.write = plan;
    }

    pub(super) fn rebuild_chunk_done(&mut self, core: &mut Core, t: u32) {
        let task = &mut self.rebuilds[t as usize];
        task.inflight -= 1;
        if task.inflight > 0 || task.next_lba < task.end_lba || task.failed {
            self.pump_rebuild(core, t);
            return;
        }
        task.finished_at = Some(core.now);
        let (g, m, spare, own) = (task.group, task.member, task.spare, task.own);
        let label = task.label.clone();
        self.record_moves(t);
        let grp = &mut self.groups[g as usize];
        match (spare, grp.health.as_mut(), grp.layout.sets()) {
            (None, Some(h), Some(v)) if own => {
                if let Some((set, x)) = v.set_of(m) {
                    h.failed[set].clear(x);
                    // `x` was markable as failed, so it is as rebuilt.
                    let _ = h.rebuilt[set].mark(x);
                }
            }
            (Some(spare), _, _) => {
                grp.members[m as usize] = spare;
                grp.failed.clear(m);
            }
            _ => {}
        }
        let secs = (core.now - self.rebuilds[t as usize].started_at) as f64 / 1e9;
        core.note("rebuild_done", &label, format!("after {secs:.1} s"));
    }

    /// Records where task `t`'s units rebuilt again went (redundancy sets): reads find them
    /// there from now on.
    fn record_moves(&mut self, t: u32) {
        let task = &mut self.rebuilds[t as usize];
        let moved = std::mem::take(&mut task.moved);
        let grp = &mut self.groups[task.group as usize];
        let (Some(h), Some(v)) = (grp.health.as_mut(), grp.layout.sets()) else {
            return;
        };
        let Some((set, _)) = v.set_of(task.member) else {
            return;
        };
        h.spares[set].extend(moved);
    }
}
