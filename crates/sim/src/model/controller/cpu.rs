//! The controllers' processors and their internal link: each host I/O holds one of its
//! controller's processors for its cost (a read hit, a read miss, a write), a RAID 5/6 stripe
//! update for the parity cost; an I/O that arrives at the controller not owning its LUN
//! (ALUA) is forwarded to the owner over the internal link, which write mirroring also uses.

use storlab_core::result::ComponentMetrics;

use super::ControllerPart;
use crate::engine::SimTime;
use crate::model::array::ArrayPart;
use crate::model::core::Core;

impl ControllerPart {
    /// Books `cost_ns` of controller `ctrl`'s processors for work ready at `arrive`; returns
    /// when it is done.
    #[inline]
    pub(super) fn controller_time(
        &mut self,
        core: &Core,
        ctrl: u32,
        arrive: SimTime,
        cost_ns: u64,
    ) -> SimTime {
        self.ctrls[ctrl as usize].cpu.book(core, arrive, cost_ns, 0)
    }

    /// Group `g`'s stripe updates so far, when parity costs processor time (else 0: nothing
    /// to count).
    #[inline]
    pub(super) fn stripe_updates(&self, core: &Core, arrays: &ArrayPart, g: u32) -> u64 {
        if core
            .spec
            .controller_spec(self.groups[g as usize].ctrl)
            .parity_ns
            == 0
        {
            return 0;
        }
        let s = arrays.disk_stats(g);
        s.full_stripe + s.read_modify_write + s.reconstruct_write
    }

    /// An array write of group `g` was planned: its stripe updates (those counted since
    /// `before`, from [`ControllerPart::stripe_updates`]) hold the group's controller's
    /// processors for the parity cost each. The disk operations do not wait for it.
    #[inline]
    pub(super) fn charge_parity(&mut self, core: &Core, arrays: &ArrayPart, g: u32, before: u64) {
        let ctrl = self.groups[g as usize].ctrl;
        let parity_ns = core.spec.controller_spec(ctrl).parity_ns;
        if parity_ns == 0 {
            return;
        }
        let updates = self.stripe_updates(core, arrays, g).saturating_sub(before);
        if updates > 0 {
            self.controller_time(core, ctrl, core.now, parity_ns * updates);
        }
    }

    /// ALUA: a piece of `bytes` for LUN `lun` arriving at `arrive` on a path to controller
    /// `via`: when `via` does not own the LUN and forwarding has a cost, it crosses the
    /// internal link to the owner (its bytes at the link's bandwidth, after the link's
    /// earlier transfers) plus the fixed cost; returns when it reaches the owner.
    #[inline]
    pub fn forward(
        &mut self,
        core: &Core,
        via: Option<u32>,
        lun: u32,
        arrive: SimTime,
        bytes: u64,
    ) -> SimTime {
        let owner = self.lun_owner(lun);
        let cs = core.spec.controller_spec(owner);
        let (Some(fixed_ns), Some(via)) = (cs.forward_ns, via) else {
            return arrive;
        };
        if via == owner || self.ctrls[via as usize].failed {
            return arrive;
        }
        let ns = crate::divisor::scale(bytes, cs.mirror_ns_per_byte);
        self.ctrls[via as usize]
            .mirror
            .book(core, arrive, ns, bytes)
            + fixed_ns
    }

    /// How many LUNs before `lun` its owner serves: the preferred paths to the owner take
    /// the owner's LUNs in turn by this rank.
    pub fn lun_rank_at_owner(&self, lun: u32) -> u32 {
        let owner = self.lun_owner(lun);
        (0..lun).filter(|&l| self.lun_owner(l) == owner).count() as u32
    }

    /// Each controller's processors and internal link, for the results.
    pub fn components(&self, window_ns: u64) -> Vec<ComponentMetrics> {
        let cpus = self.ctrls.iter().map(|c| c.cpu.metrics(window_ns));
        let links = self.ctrls.iter().map(|c| c.mirror.metrics(window_ns));
        cpus.chain(links).collect()
    }
}
