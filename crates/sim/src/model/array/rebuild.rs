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
}

/// `rebuild.rate_mbps` of one failed disk, shared by every rebuild it starts (each virtual
/// disk on the disk rebuilds its own part, at the disk's rate between them): a chunk may
/// start once the bytes issued before it, by all of them, fit in the time since the start.
pub(super) struct RebuildPacer {
    pub started_at: SimTime,
    pub bytes: u64,
}

impl ArrayPart {
    /// Device `device` fails: it is marked failed in each group it serves (`members`: group
    /// and member index), and a rebuild onto a spare of the group's pool starts when the
    /// group survives and a spare is left.
    pub fn fail_disk(&mut self, core: &mut Core, device: &str, members: &[(u32, u32)]) {
        let mut spare: Option<u32> = None;
        self.pacers.push(RebuildPacer {
            started_at: core.now + core.spec.rebuild.start_delay_ns,
            bytes: 0,
        });
        for &(g, m) in members {
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
            let spare_name = self.devices[s as usize].name.clone();
            self.start_rebuild(core, (g, m), Some(s), spare_name);
        }
    }

    /// Starts rebuilding member `m` of group `g` onto `spare` (None: into reserved capacity,
    /// described by `onto`).
    fn start_rebuild(
        &mut self,
        core: &mut Core,
        (g, m): (u32, u32),
        spare: Option<u32>,
        onto: String,
    ) {
        let name = &core.spec.groups[g as usize].name;
        let label = format!("{name}.d{m}");
        let start = core.now + core.spec.rebuild.start_delay_ns;
        let task = self.rebuilds.len() as u32;
        self.rebuilds.push(RebuildTask {
            group: g,
            member: m,
            spare,
            label: label.clone(),
            next_lba: 0,
            end_lba: self.groups[g as usize].layout.usable_disk_sectors(),
            inflight: 0,
            started_at: start,
            finished_at: None,
            bytes: 0,
            failed: false,
            onto: onto.clone(),
            pacer: self.pacers.len() as u32 - 1,
        });
        core.note("rebuild_start", &label, format!("onto {onto}"));
        core.schedule(start, Event::RebuildTick(task));
    }

    /// Disk `m` of a virtual disk over redundancy sets fails: its set rebuilds it into the
    /// reserved capacity of the set's other disks, when the group has any.
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
        if u64::from(in_reserve) > sparing.disks() {
            core.note(
                "no_spare",
                &name,
                format!("{name}.d{m} stays failed: no reserved capacity left for it"),
            );
            return;
        }
        let dg_name = core
            .spec
            .disk_groups
            .get(dg)
            .map_or("", |d| d.name.as_str());
        let onto = format!("reserved capacity of {dg_name}.d{first}-d{}", first + n - 1);
        self.start_rebuild(core, (g, m), None, onto);
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
                let label = task.label.clone();
                self.rebuilds[t as usize].failed = true;
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
            let spare = task.spare;
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
        let (g, m, spare) = (task.group, task.member, task.spare);
        let label = task.label.clone();
        let grp = &mut self.groups[g as usize];
        match (spare, grp.health.as_mut(), grp.layout.sets()) {
            (None, Some(h), Some(v)) => {
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
}
