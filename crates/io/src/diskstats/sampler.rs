//! [`DiskSampler`]: readings of `/proc/diskstats` taken when the benchmark asks, reduced to
//! running min / sum / max per device so memory stays constant however long the run.

use std::collections::BTreeMap;

use super::{
    figures_between, read_diskstats, BlockDevice, DiskCounters, DiskstatsError, IostatFigures,
    IostatSummary,
};

/// Running min / sum / max of one device's samples.
#[derive(Clone, Copy, Debug, Default)]
struct Running {
    samples: u32,
    min: IostatFigures,
    sum: IostatFigures,
    max: IostatFigures,
}

impl Running {
    fn add(&mut self, sample: &IostatFigures) {
        if self.samples == 0 {
            (self.min, self.max) = (*sample, *sample);
        } else {
            self.min = self.min.zip_with(sample, f64::min);
            self.max = self.max.zip_with(sample, f64::max);
        }
        self.sum = self.sum.zip_with(sample, |s, x| s + x);
        self.samples = self.samples.saturating_add(1);
    }

    fn avg(&self) -> IostatFigures {
        match self.samples {
            0 => IostatFigures::default(),
            n => self.sum.map(|s| s / f64::from(n)),
        }
    }
}

/// Collects readings for a set of devices (call `sample(elapsed_since_start_s)` about once a
/// second from the benchmark's own loop; no thread of its own), then summarizes.
#[derive(Clone, Debug)]
pub struct DiskSampler {
    devices: Vec<BlockDevice>,
    pub(super) first: Vec<DiskCounters>,
    pub(super) last: Vec<DiskCounters>,
    last_t_s: f64,
    running: Vec<Running>,
}

impl DiskSampler {
    /// Takes the first reading; its time is 0, the start of `t_s` for [`DiskSampler::sample`].
    pub fn new(devices: &[BlockDevice]) -> Result<DiskSampler, DiskstatsError> {
        let counters = counters_of(devices, &read_diskstats()?)?;
        Ok(DiskSampler::starting_from(devices, counters))
    }

    pub(super) fn starting_from(
        devices: &[BlockDevice],
        counters: Vec<DiskCounters>,
    ) -> DiskSampler {
        DiskSampler {
            devices: devices.to_vec(),
            first: counters.clone(),
            last: counters,
            last_t_s: 0.0,
            running: vec![Running::default(); devices.len()],
        }
    }

    /// Takes a reading `t_s` seconds after `new` and appends one interval sample per device.
    pub fn sample(&mut self, t_s: f64) -> Result<(), DiskstatsError> {
        if !(t_s.is_finite() && t_s > self.last_t_s) {
            return Err(DiskstatsError::TimeNotIncreasing {
                t_s,
                prev_s: self.last_t_s,
            });
        }
        let now = counters_of(&self.devices, &read_diskstats()?)?;
        self.record(t_s, now);
        Ok(())
    }

    /// Adds the interval ending at `t_s` with readings `now` (one per device, in order).
    pub(super) fn record(&mut self, t_s: f64, now: Vec<DiskCounters>) {
        let elapsed_s = t_s - self.last_t_s;
        for ((running, last), current) in self.running.iter_mut().zip(&self.last).zip(&now) {
            running.add(&figures_between(last, current, elapsed_s));
        }
        self.last = now;
        self.last_t_s = t_s;
    }

    /// One summary per device, in the order given to `new`.
    pub fn summaries(&self) -> Vec<IostatSummary> {
        let per_device = self.devices.iter().zip(&self.running);
        per_device
            .zip(self.first.iter().zip(&self.last))
            .map(|((device, running), (first, last))| IostatSummary {
                device: device.name.clone(),
                samples: running.samples,
                min: running.min,
                avg: running.avg(),
                max: running.max,
                total: figures_between(first, last, self.last_t_s),
            })
            .collect()
    }

    /// The devices sampled, in the order given to `new`.
    pub fn devices(&self) -> &[BlockDevice] {
        &self.devices
    }
}

/// The counters of each device, in order, from a parsed `/proc/diskstats`.
fn counters_of(
    devices: &[BlockDevice],
    stats: &BTreeMap<String, DiskCounters>,
) -> Result<Vec<DiskCounters>, DiskstatsError> {
    devices
        .iter()
        .map(|device| {
            stats
                .get(&device.name)
                .copied()
                .ok_or_else(|| DiskstatsError::DeviceNotListed {
                    name: device.name.clone(),
                })
        })
        .collect()
}
