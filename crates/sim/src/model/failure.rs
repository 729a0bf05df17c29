//! Failures as they reach the parts: a disk fails in the arrays (and a rebuild may start), a
//! path in the host, a controller in the controllers (its paths fail with it), a failure
//! group as its LUNs.

use super::controller::ControllerPart;
use super::Stack;
use crate::config::FailureTarget;

impl Stack {
    /// Failure `i` happens.
    pub(super) fn on_failure(&mut self, i: u32) {
        let f = self.failures[i as usize].clone();
        self.core.note("failure", &f.label, "failed".into());
        self.failed_once = true;
        match f.target {
            FailureTarget::Disk { device, .. } => self.arrays.fail_disk(&mut self.core, &device),
            FailureTarget::Path(p) => {
                if self.host.fail_path(p) {
                    self.core.note(
                        "data_unavailable",
                        &f.label,
                        "no path left: every I/O fails".into(),
                    );
                }
            }
            FailureTarget::Controller(c) => ControllerPart::fail_controller(self, c),
            FailureTarget::FailureGroup { volume, group } => {
                let v = &self.core.spec.volumes[volume as usize];
                let luns = (0..v.luns.len() as u32)
                    .filter(|&m| v.volume.failure_group(m) == Some(group))
                    .map(|m| v.luns[m as usize]);
                for l in luns {
                    self.ctrls.fail_lun(l);
                }
            }
        }
    }
}
