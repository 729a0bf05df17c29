//! The destage pump's rest: what a pump that started nothing tells the pumps after it
//! ([`PumpRest`]).

use crate::model::controller::CtrlRt;

/// Why a group started no destage run when the pump visited it.
pub(super) enum Skip {
    /// Every dirty page of the group is being destaged already.
    NothingIdle,
    /// Its destage operations in flight are at its limit for the dirty level: no more
    /// below the dirty level the value gives (u64::MAX: at no level, or not asked for by a
    /// pump that may not rest).
    AtLimit(u64),
    /// It found no run to start (pages held for a sequential writer).
    NoRun,
}

/// What a destage pump that started nothing learnt, for the pumps that follow (one after
/// each accepted write and each destage disk operation, most of them with every group at
/// its paced limit): while no write waits for room and the dirty level stays below
/// `wake_dirty`, every group would be skipped again and the pump returns without visiting
/// them. A group whose operations in flight fall, or whose pages were all destaging and
/// that gets idle ones, lowers `wake_dirty` to its own paced wake ([`PumpRest::readmit`]).
/// Each visit that skips a group is free of side effects, so the result is the one the
/// visits would give. `wake_dirty` 0: nothing known.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::model::controller) struct PumpRest {
    pub(super) wake_dirty: u64,
    /// The controller's group count when it was set (a failover adds groups).
    pub(super) groups: usize,
    /// The controller's destage watermarks (high, low) when it was set.
    pub(super) marks: (u64, u64),
}

impl CtrlRt {
    /// True while the destage pump's rest holds ([`PumpRest`]).
    #[inline]
    pub(super) fn at_rest(&self) -> bool {
        self.dirty_pages < self.pump_rest.wake_dirty
            && self.waiters.is_empty()
            && !self.write_through
            && self.groups.len() == self.pump_rest.groups
    }
}

impl PumpRest {
    /// A group of the controller with `inflight` destage operations of `full` may start
    /// one from the dirty level its paced limit rises above `inflight` at, whatever
    /// skipped it before.
    pub(super) fn readmit(&mut self, full: u32, inflight: u32) {
        if self.wake_dirty > 0 {
            self.wake_dirty = self.wake_dirty.min(paced_wake(full, inflight, self.marks));
        }
    }
}

/// The lowest dirty level at which a group with `inflight` destage operations of `full`
/// gets a paced limit above `inflight` ([`super::paced_destage_limit`] without waiting
/// writes): u64::MAX when none does.
pub(super) fn paced_wake(full: u32, inflight: u32, (high, low): (u64, u64)) -> u64 {
    if inflight >= full {
        return u64::MAX;
    }
    // ceil(full * (dirty - low) / (high - low)) > inflight exactly when
    // full * (dirty - low) > inflight * (high - low).
    let above = u64::from(inflight) * (high - low) / u64::from(full);
    high.min(low + above + 1)
}

#[cfg(test)]
mod tests {
    use super::super::paced_destage_limit;
    use super::paced_wake;

    /// The wake level is exactly where the paced limit first exceeds the operations in
    /// flight, for every dirty level around the watermarks.
    #[test]
    fn the_paced_limit_exceeds_the_operations_in_flight_from_the_wake_level_on() {
        for marks in [(800, 600), (1000, 1), (50, 49), (7, 0)] {
            for full in [1, 3, 32] {
                for inflight in 0..=full + 1 {
                    let wake = paced_wake(full, inflight, marks);
                    for dirty in 0..marks.0 + 5 {
                        let limit = paced_destage_limit(full, dirty, marks, false);
                        assert_eq!(
                            limit > inflight,
                            dirty >= wake,
                            "marks {marks:?}, {inflight} of {full} in flight, {dirty} dirty"
                        );
                    }
                }
            }
        }
    }
}
