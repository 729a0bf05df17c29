//! Paths between host and array: the multipath policy's choice, transfer time, failures.

use super::HostPart;
use crate::config::{MultipathPolicy, SystemSpec};
use crate::engine::SimTime;
use crate::model::controller::{ControllerPart, Piece};
use crate::model::core::Core;
use crate::model::resource::Resource;
use crate::model::Stack;
use storlab_core::result::ComponentMetrics;

/// A path on no host port.
const NO_PORT: u32 = u32::MAX;

pub(super) struct PathRt {
    free_at: SimTime,
    ns_per_byte: f64,
    pub latency_ns: u64,
    controller: Option<u32>,
    /// The array it reaches.
    array: u32,
    /// The host port it reaches ([`NO_PORT`]: none declared).
    port: u32,
    pub failed: bool,
    pub ios: u64,
    pub bytes: u64,
}

/// The array's host ports: each a bandwidth shared by the paths reaching it.
#[derive(Default)]
pub(super) struct HostPorts {
    ports: Vec<Resource>,
    ns_per_byte: Vec<f64>,
}

impl HostPorts {
    /// Each port's figures over a window of `window_ns`.
    pub fn metrics(&self, window_ns: u64) -> impl Iterator<Item = ComponentMetrics> + '_ {
        self.ports.iter().map(move |p| p.metrics(window_ns))
    }
}

/// Each configured path, idle, and the host ports.
pub(super) fn build(spec: &SystemSpec) -> (Vec<PathRt>, HostPorts) {
    let mut paths: Vec<PathRt> = (spec.host.paths.iter())
        .map(|p| PathRt {
            free_at: SimTime(0),
            ns_per_byte: p.ns_per_byte,
            latency_ns: p.latency_ns,
            controller: p.controller,
            array: p.array,
            port: NO_PORT,
            failed: false,
            ios: 0,
            bytes: 0,
        })
        .collect();
    let mut ports = HostPorts::default();
    for (i, port) in spec.host_ports.iter().enumerate() {
        for &p in &port.paths {
            paths[p as usize].port = i as u32;
        }
        let name = format!("host port {}", port.name);
        ports.ports.push(Resource::new(name, "host_port", 1));
        ports.ns_per_byte.push(port.ns_per_byte);
    }
    (paths, ports)
}

impl HostPart {
    /// The path for a request whose first piece is on `lun`, by the multipath policy.
    pub(super) fn pick_path(
        &mut self,
        core: &Core,
        ctrls: &ControllerPart,
        lun: u32,
    ) -> Option<u32> {
        let n = self.paths.len();
        if core.spec.arrays.len() > 1 {
            return self.pick_array_path(core, ctrls, lun);
        }
        match core.spec.host.multipath {
            MultipathPolicy::Single => (!self.paths[0].failed).then_some(0),
            MultipathPolicy::RoundRobin => {
                for _ in 0..n {
                    let i = self.next_path;
                    self.next_path = if i + 1 == n { 0 } else { i + 1 };
                    if !self.paths[i].failed {
                        return Some(i as u32);
                    }
                }
                None
            }
            MultipathPolicy::Preferred => {
                // The paths reaching the LUN's owner share its LUNs in turn (the owner's
                // first LUN on its first path, its second on the next ...), else any path.
                let ctrl = ctrls.lun_owner(lun);
                let ok = |i: &usize| !self.paths[*i].failed;
                let to_owner = (0..n).filter(|i| ok(i) && self.paths[*i].controller == Some(ctrl));
                let count = to_owner.clone().count();
                let pick = if count == 0 {
                    (0..n).find(ok)?
                } else {
                    let rank = ctrls.lun_rank_at_owner(lun) as usize;
                    to_owner.clone().nth(rank % count)?
                };
                Some(pick as u32)
            }
        }
    }

    /// [`HostPart::pick_path`] with several arrays: the policy applied to the paths reaching
    /// the array of `lun` only (`single`: the first of them).
    #[cold]
    #[inline(never)]
    fn pick_array_path(&mut self, core: &Core, ctrls: &ControllerPart, lun: u32) -> Option<u32> {
        let owner = ctrls.lun_owner(lun);
        let array = core.spec.array_of_controller(owner) as u32;
        let n = self.paths.len();
        let ok = |p: &PathRt| !p.failed && p.array == array;
        match core.spec.host.multipath {
            MultipathPolicy::Single => {
                let first = self.paths.iter().position(|p| p.array == array)?;
                ok(&self.paths[first]).then_some(first as u32)
            }
            MultipathPolicy::RoundRobin => {
                for _ in 0..n {
                    let i = self.next_path;
                    self.next_path = if i + 1 == n { 0 } else { i + 1 };
                    if ok(&self.paths[i]) {
                        return Some(i as u32);
                    }
                }
                None
            }
            MultipathPolicy::Preferred => {
                let to_owner: Vec<usize> = (0..n)
                    .filter(|&i| ok(&self.paths[i]) && self.paths[i].controller == Some(owner))
                    .collect();
                if to_owner.is_empty() {
                    return (0..n).find(|&i| ok(&self.paths[i])).map(|i| i as u32);
                }
                let rank = ctrls.lun_rank_at_owner(lun) as usize;
                Some(to_owner[rank % to_owner.len()] as u32)
            }
        }
    }

    /// Reserves `path` for `bytes` from `ready_at`, and its host port when it reaches one
    /// (the transfer holds both: it ends when the slower is done); returns when it ends.
    #[inline]
    pub(super) fn path_transfer(
        &mut self,
        core: &Core,
        path: u32,
        ready_at: SimTime,
        bytes: u64,
    ) -> SimTime {
        let p = &mut self.paths[path as usize];
        let start = ready_at.max(p.free_at);
        p.free_at = start + crate::divisor::scale(bytes, p.ns_per_byte);
        p.ios += 1;
        p.bytes += bytes;
        if p.port != NO_PORT {
            return self.port_transfer(core, path, start, bytes);
        }
        p.free_at
    }

    /// The part of [`HostPart::path_transfer`] for a path on a host port, starting at
    /// `start`: out of line, so a path on no port pays only the test.
    #[cold]
    #[inline(never)]
    fn port_transfer(&mut self, core: &Core, path: u32, start: SimTime, bytes: u64) -> SimTime {
        let p = &mut self.paths[path as usize];
        let i = p.port as usize;
        let ns = crate::divisor::scale(bytes, self.ports.ns_per_byte[i]);
        let end = self.ports.ports[i].book(core, start, ns, bytes);
        p.free_at = p.free_at.max(end);
        p.free_at
    }

    /// When a piece like `template` of `sectors` for `lun` reaches the controller owning the
    /// LUN: forwarded from the controller its path reaches when that one does not own it
    /// ([`ControllerPart::forward`]).
    #[inline]
    pub(super) fn forwarded(s: &mut Stack, template: Piece, lun: u32, sectors: u64) -> SimTime {
        if s.core.spec.controllers.forward_ns.is_none() && s.core.spec.arrays.len() == 1 {
            return template.arrive_at;
        }
        let host = &s.host;
        let via = host.paths[host.hosts.get(template.host).path as usize].controller;
        s.ctrls
            .forward(&s.core, via, lun, template.arrive_at, sectors * 512)
    }

    /// Path `p` fails; true when no path is left.
    pub fn fail_path(&mut self, p: u32) -> bool {
        self.paths[p as usize].failed = true;
        self.paths.iter().all(|p| p.failed)
    }

    /// Every path to controller `c` fails.
    pub fn fail_paths_to(&mut self, c: u32) {
        for p in self.paths.iter_mut().filter(|p| p.controller == Some(c)) {
            p.failed = true;
        }
    }
}
