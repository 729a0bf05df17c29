//! Back-end loops and buses between the controllers and the disks: a disk operation's data
//! crosses its disk's loop once the drive has served it, one transfer at a time per loop
//! (first come, first served), shared by every disk on the loop. A read's data goes to the
//! controller then; a write's went to the drive before it, and is booked at the same point:
//! the loop carries the same bytes, so its ceiling and its share of each operation's time are
//! the same, only the order of the two steps differs.

use super::ArrayPart;
use crate::config::SystemSpec;
use crate::engine::{Event, SimTime};
use crate::model::core::Core;
use crate::model::resource::Resource;

/// No back end: the disk's data reaches the controller as soon as the drive is done.
const NONE: u32 = u32::MAX;

/// The loops of an array and which one each device is on.
#[derive(Default)]
pub(in crate::model) struct BackEnds {
    loops: Vec<Resource>,
    ns_per_byte: Vec<f64>,
    /// The loop of each device ([`NONE`] when it is on none); empty when there are no loops.
    of_device: Vec<u32>,
}

impl BackEnds {
    /// The loops `spec` declares, for its `devices` devices.
    pub fn build(spec: &SystemSpec, devices: usize) -> BackEnds {
        if spec.back_ends.is_empty() {
            return BackEnds::default();
        }
        let mut of_device = vec![NONE; devices];
        for (i, b) in spec.back_ends.iter().enumerate() {
            for &d in &b.devices {
                of_device[d as usize] = i as u32;
            }
        }
        BackEnds {
            loops: (spec.back_ends.iter())
                .map(|b| Resource::new(format!("back-end {}", b.name), "back_end", 1))
                .collect(),
            ns_per_byte: spec.back_ends.iter().map(|b| b.ns_per_byte).collect(),
            of_device,
        }
    }

    /// The loops, for the results.
    pub fn resources(&self) -> &[Resource] {
        &self.loops
    }
}

impl ArrayPart {
    /// Device `op_id`'s drive has finished it: the drive starts its next command, and the
    /// data crosses the disk's loop. True when the controllers hear of it now (no loop);
    /// otherwise [`Event::BackEndDone`] tells them when the transfer ends.
    #[inline]
    pub fn device_done(&mut self, core: &mut Core, op_id: u32) -> bool {
        let op = self.ops.get(op_id);
        let disk = op.disk as usize;
        if let Some(s) = self.devices[disk].complete(core.now, &op.cmd, op.arrived_at) {
            core.schedule(s.done, Event::DeviceDone(s.op));
        }
        let b = &mut self.back_ends;
        let lp = b.of_device.get(disk).copied().unwrap_or(NONE);
        if lp == NONE {
            return true;
        }
        let bytes = u64::from(self.ops.get(op_id).cmd.sectors) * 512;
        let ns = crate::divisor::scale(bytes, b.ns_per_byte[lp as usize]);
        let end: SimTime = b.loops[lp as usize].book(core, core.now, ns, bytes);
        core.schedule(end, Event::BackEndDone(op_id));
        false
    }
}

impl ArrayPart {
    /// Each back-end loop's figures over a window of `window_ns`.
    pub fn back_end_metrics(
        &self,
        window_ns: u64,
    ) -> impl Iterator<Item = storlab_core::result::ComponentMetrics> + '_ {
        (self.back_ends.resources().iter()).map(move |r| r.metrics(window_ns))
    }
}
