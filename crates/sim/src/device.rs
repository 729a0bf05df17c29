//! Storage devices: the disk models and the per-device command path with statistics.
//!
//! A [`Device`] wraps one mechanism (HDD or SSD). It accepts commands up to the mechanism's
//! queue depth; further commands wait in the controller's per-device FIFO, as in an array
//! whose back end holds more work than the drive's tagged queue takes.

pub mod drive_spec;
pub mod hdd;
pub mod models;
pub mod ssd;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::engine::SimTime;
use hdd::{Hdd, HddParams};
use ssd::{Ssd, SsdParams};

/// Largest disk capacity of a model: 1,000,000 GB (1 PB).
pub const MAX_CAPACITY_GB: f64 = 1e6;

/// Checks every parameter of `params` against its declaration in `keys` (type and bounds);
/// the message names the key, the bound and the value found.
pub(crate) fn check_declared<T: Serialize>(
    params: &T,
    keys: &[storlab_core::keys::Key],
) -> Result<(), String> {
    let table = toml::Table::try_from(params).map_err(|e| e.to_string())?;
    storlab_core::keys::check_table(&table, keys).map_err(|(key, reason)| format!("{key} {reason}"))
}

/// A disk model as configured: `kind = "hdd"` or `kind = "ssd"` plus its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DiskModel {
    /// Hard disk drive.
    Hdd(HddParams),
    /// Solid-state drive.
    Ssd(SsdParams),
}

impl DiskModel {
    /// Capacity in 512-byte sectors.
    pub fn capacity_sectors(&self) -> u64 {
        let gb = match self {
            DiskModel::Hdd(p) => p.capacity_gb,
            DiskModel::Ssd(p) => p.capacity_gb,
        };
        (gb * 1e9 / 512.0) as u64
    }
}

/// The mechanism behind a device. A drive's state sits inside its device, not behind a
/// pointer: every command start and completion reads it, and the extra hop was one more
/// dependent load from memory on each.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // the large variant is the common one (see above)
pub enum Mechanism {
    /// Rotating disk.
    Hdd(Hdd),
    /// Flash.
    Ssd(Box<Ssd>),
}

impl Mechanism {
    /// Builds the mechanism; `phase_ns` sets an HDD's spindle phase.
    pub fn new(model: &DiskModel, phase_ns: u64) -> Result<Mechanism, String> {
        Ok(match model {
            DiskModel::Hdd(p) => Mechanism::Hdd(Hdd::new(p, phase_ns)?),
            DiskModel::Ssd(p) => Mechanism::Ssd(Box::new(Ssd::new(p)?)),
        })
    }

    /// A copy for another drive of the same model (HDDs get their own spindle phase).
    pub fn for_drive(&self, phase_ns: u64) -> Mechanism {
        match self {
            Mechanism::Hdd(h) => Mechanism::Hdd(h.with_phase(phase_ns)),
            Mechanism::Ssd(s) => Mechanism::Ssd(s.clone()),
        }
    }

    fn queue_depth(&self) -> u32 {
        match self {
            Mechanism::Hdd(h) => h.queue_depth(),
            Mechanism::Ssd(s) => s.queue_depth(),
        }
    }

    fn outstanding(&self) -> u32 {
        match self {
            Mechanism::Hdd(h) => h.outstanding(),
            Mechanism::Ssd(s) => s.outstanding(),
        }
    }
}

/// A command for a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Operation id (index in the model's op table).
    pub op: u32,
    /// First sector.
    pub lba: u64,
    /// Length in sectors.
    pub sectors: u32,
    /// Write or read.
    pub write: bool,
}

/// A command that started: when it will complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Started {
    /// Operation id.
    pub op: u32,
    /// Completion time.
    pub done: SimTime,
}

/// Counters of one device over the measured window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceStats {
    /// Completed reads.
    pub reads: u64,
    /// Completed writes.
    pub writes: u64,
    /// Sectors moved.
    pub sectors: u64,
    /// Sum of media service times of commands started in the window.
    pub service_ns: u64,
    /// Commands started in the window.
    pub started: u64,
    /// Sum over completed commands of (completion - arrival at the device).
    pub await_ns: u64,
    /// Time with at least one command in the drive, accumulated at state changes.
    pub busy_ns: u64,
    /// Integral of commands at the device (queued in the controller or drive) over time.
    pub queue_area: u128,
}

/// One device with its overflow queue and statistics.
#[derive(Clone, Debug)]
pub struct Device {
    /// Name (`rg0.d3`).
    pub name: String,
    /// Model name.
    pub model: String,
    mech: Mechanism,
    overflow: VecDeque<Command>,
    /// Counters since the last reset.
    pub stats: DeviceStats,
    at_device: u32,
    last_change: SimTime,
    /// Commands the controller keeps at the drive: the drive's queue depth, or fewer when the
    /// array sets its own ([`Device::limit_queue`]).
    queue_limit: u32,
}

impl Device {
    /// A device named `name` built from `model`.
    pub fn new(name: String, model_name: String, mech: Mechanism) -> Device {
        Device {
            name,
            model: model_name,
            mech,
            overflow: VecDeque::new(),
            stats: DeviceStats::default(),
            at_device: 0,
            last_change: SimTime(0),
            queue_limit: u32::MAX,
        }
    }

    /// Commands queued or in service (controller queue included).
    #[inline]
    pub fn load(&self) -> u32 {
        self.at_device
    }

    /// The controller keeps at most `limit` commands at the drive (never more than the
    /// drive's own queue depth); the rest wait in the controller's queue for the drive.
    pub fn limit_queue(&mut self, limit: u32) {
        self.queue_limit = limit.max(1);
    }

    /// The mechanism.
    pub fn mechanism(&self) -> &Mechanism {
        &self.mech
    }

    fn account(&mut self, now: SimTime) {
        let dt = now - self.last_change;
        if self.mech.outstanding() > 0 {
            self.stats.busy_ns += dt;
        }
        self.stats.queue_area += self.at_device as u128 * dt as u128;
        self.last_change = now;
    }

    /// Accepts a command; returns it as started when the device could start it now.
    #[inline(always)]
    pub fn submit(&mut self, now: SimTime, cmd: Command) -> Option<Started> {
        self.account(now);
        self.at_device += 1;
        if self.mech.outstanding() >= self.mech.queue_depth().min(self.queue_limit) {
            self.overflow.push_back(cmd);
            return None;
        }
        self.admit(now, cmd)
    }

    #[inline(always)]
    fn admit(&mut self, now: SimTime, cmd: Command) -> Option<Started> {
        let now_ns = now.ns();
        match &mut self.mech {
            Mechanism::Hdd(h) => {
                h.enqueue(now_ns, cmd.op, cmd.lba, cmd.sectors, cmd.write);
                let (op, access) = h.start_next(now_ns)?;
                self.stats.service_ns += access.total_ns();
                self.stats.started += 1;
                Some(Started {
                    op,
                    done: now + access.total_ns(),
                })
            }
            Mechanism::Ssd(s) => {
                let done_ns = s.start(now_ns, cmd.lba, cmd.sectors as u64, cmd.write);
                self.stats.service_ns += done_ns - now_ns;
                self.stats.started += 1;
                Some(Started {
                    op: cmd.op,
                    done: SimTime(done_ns),
                })
            }
        }
    }

    /// Completes `cmd` (which arrived at `arrived`); returns the next command it started.
    #[inline(always)]
    pub fn complete(&mut self, now: SimTime, cmd: &Command, arrived: SimTime) -> Option<Started> {
        self.account(now);
        let now_ns = now.ns();
        self.at_device -= 1;
        if cmd.write {
            self.stats.writes += 1;
        } else {
            self.stats.reads += 1;
        }
        self.stats.sectors += cmd.sectors as u64;
        self.stats.await_ns += now - arrived;
        match &mut self.mech {
            Mechanism::Hdd(h) => {
                let op = h.finish(now_ns);
                debug_assert_eq!(op, cmd.op, "device completed a command it was not serving");
                if let Some(next) = self.overflow.pop_front() {
                    h.enqueue(now_ns, next.op, next.lba, next.sectors, next.write);
                }
                let (op, access) = h.start_next(now_ns)?;
                self.stats.service_ns += access.total_ns();
                self.stats.started += 1;
                Some(Started {
                    op,
                    done: now + access.total_ns(),
                })
            }
            Mechanism::Ssd(s) => {
                s.finish();
                let next = self.overflow.pop_front()?;
                self.admit(now, next)
            }
        }
    }

    /// Restarts the statistics at `now` (end of warm-up).
    pub fn reset_stats(&mut self, now: SimTime) {
        self.account(now);
        self.stats = DeviceStats::default();
    }

    /// Brings the time integrals up to `now` (end of run).
    pub fn close_stats(&mut self, now: SimTime) {
        self.account(now);
    }
}
