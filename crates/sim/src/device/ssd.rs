//! Solid-state drive: a controller stage, flash dies working in parallel behind channels, and
//! a host interface with a bandwidth limit.
//!
//! A command first passes the drive's controller (`controller_us`, one command at a time).
//! Its pages are spread over the dies by logical page number (page `n` on die `n % dies`), so
//! a large command uses many dies at once and small random commands queue per die. A page read
//! occupies its die for `read_us` plus the page's transfer over the die's channel; a page
//! program occupies it for `program_us x write_amplification` plus the transfer, which charges
//! each host write its share of garbage collection in steady state. Data then crosses the host
//! interface (`interface_mbps`), shared by all commands. SLC-like and MLC-like behaviour differ
//! only by parameters: SLC programs fast and amplifies little, MLC programs slowly and
//! amplifies more; random reads are about equal.
//!
//! Every resource is a first-come-first-served server, so a command's completion time is known
//! when it starts and the drive needs no events of its own.

use serde::{Deserialize, Serialize};

/// Parameters of a solid-state drive model (`kind = "ssd"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsdParams {
    /// Capacity in decimal gigabytes.
    pub capacity_gb: f64,
    /// Flash page size, KiB.
    pub page_kib: u32,
    /// Independent channels.
    pub channels: u32,
    /// Dies per channel.
    pub dies_per_channel: u32,
    /// Page read time, microseconds.
    pub read_us: f64,
    /// Page program time, microseconds.
    pub program_us: f64,
    /// Steady-state write amplification (garbage collection), >= 1.
    pub write_amplification: f64,
    /// Channel transfer rate, MB/s.
    pub channel_mbps: f64,
    /// Host interface rate, MB/s.
    pub interface_mbps: f64,
    /// Controller time per command, microseconds.
    pub controller_us: f64,
    /// Commands the drive accepts at once.
    pub queue_depth: u32,
}

/// A solid-state drive.
#[derive(Clone, Debug)]
pub struct Ssd {
    capacity_sectors: u64,
    page_sectors: u64,
    die_free_ns: Vec<u64>,
    controller_free_ns: u64,
    interface_free_ns: u64,
    read_ns: u64,
    program_ns: u64,
    page_xfer_ns: u64,
    iface_ns_per_sector: f64,
    controller_ns: u64,
    queue_depth: u32,
    outstanding: u32,
}

impl Ssd {
    /// Builds the drive from its parameters.
    pub fn new(p: &SsdParams) -> Result<Ssd, String> {
        check_params(p)?;
        let dies = (p.channels * p.dies_per_channel) as usize;
        let page_bytes = p.page_kib as f64 * 1024.0;
        Ok(Ssd {
            capacity_sectors: (p.capacity_gb * 1e9 / 512.0) as u64,
            page_sectors: p.page_kib as u64 * 2,
            die_free_ns: vec![0; dies],
            controller_free_ns: 0,
            interface_free_ns: 0,
            read_ns: (p.read_us * 1e3) as u64,
            program_ns: (p.program_us * p.write_amplification * 1e3) as u64,
            page_xfer_ns: (page_bytes * 1e3 / p.channel_mbps) as u64,
            iface_ns_per_sector: 512.0 * 1e3 / p.interface_mbps,
            controller_ns: (p.controller_us * 1e3) as u64,
            queue_depth: p.queue_depth,
            outstanding: 0,
        })
    }

    /// Usable sectors.
    pub fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    /// Commands the drive accepts at once.
    pub fn queue_depth(&self) -> u32 {
        self.queue_depth
    }

    /// Commands in the drive.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Starts a command at `now_ns`; returns its completion time. The caller keeps
    /// `outstanding() < queue_depth()` and calls [`Ssd::finish`] at that time.
    pub fn start(&mut self, now_ns: u64, lba: u64, sectors: u64, write: bool) -> u64 {
        self.outstanding += 1;
        let ctrl_start = now_ns.max(self.controller_free_ns);
        self.controller_free_ns = ctrl_start + self.controller_ns;
        let mut ready = self.controller_free_ns;
        let xfer = (sectors as f64 * self.iface_ns_per_sector) as u64;
        if write {
            ready = self.interface(ready, xfer);
        }
        let first_page = lba / self.page_sectors;
        let last_page = (lba + sectors - 1) / self.page_sectors;
        let busy = if write { self.program_ns } else { self.read_ns } + self.page_xfer_ns;
        let dies = self.die_free_ns.len() as u64;
        let mut done = ready;
        for page in first_page..=last_page {
            let die = &mut self.die_free_ns[(page % dies) as usize];
            let start = ready.max(*die);
            *die = start + busy;
            done = done.max(*die);
        }
        if !write {
            done = self.interface(done, xfer);
        }
        done
    }

    fn interface(&mut self, ready_ns: u64, xfer_ns: u64) -> u64 {
        let start = ready_ns.max(self.interface_free_ns);
        self.interface_free_ns = start + xfer_ns;
        self.interface_free_ns
    }

    /// A command completed.
    pub fn finish(&mut self) {
        debug_assert!(self.outstanding > 0);
        self.outstanding -= 1;
    }
}

/// Checks a drive's parameters: each against its declaration in
/// [`crate::config::keys::SSD_KEYS`], then the rules between them.
fn check_params(p: &SsdParams) -> Result<(), String> {
    super::check_declared(p, crate::config::keys::SSD_KEYS)?;
    if !p.page_kib.is_power_of_two() {
        return Err(format!(
            "page_kib must be a power of two; got {}",
            p.page_kib
        ));
    }
    let dies = u64::from(p.channels) * u64::from(p.dies_per_channel);
    if dies > 4096 {
        return Err(format!(
            "channels x dies_per_channel must be at most 4096; got {} x {}",
            p.channels, p.dies_per_channel
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::models::builtin_model;
    use crate::device::DiskModel;

    fn ssd(name: &str) -> Ssd {
        match builtin_model(name).unwrap() {
            DiskModel::Ssd(p) => Ssd::new(&p).unwrap(),
            DiskModel::Hdd(_) => panic!("{name} is not an SSD"),
        }
    }

    /// Keeps `depth` commands of `sectors` in flight for `n` commands; returns ops per second.
    fn closed_loop(d: &mut Ssd, depth: usize, n: u64, sectors: u64, write: bool) -> f64 {
        let mut inflight: Vec<u64> = Vec::new();
        let mut now = 0u64;
        let mut lba = 0u64;
        for i in 0..n {
            if inflight.len() == depth {
                inflight.sort_unstable();
                now = inflight.remove(0);
                d.finish();
            }
            // A scattered address: pages land on different dies.
            lba = (lba + 7919 * sectors) % (d.capacity_sectors() - sectors);
            let _ = i;
            inflight.push(d.start(now, lba, sectors, write));
        }
        let end = *inflight.iter().max().unwrap();
        n as f64 / (end as f64 / 1e9)
    }

    #[test]
    fn single_read_latency_is_controller_plus_flash_plus_transfer() {
        let mut d = ssd("ssd-slc");
        let done = d.start(0, 0, 8, false);
        let expect =
            d.controller_ns + d.read_ns + d.page_xfer_ns + (8.0 * d.iface_ns_per_sector) as u64;
        assert_eq!(done, expect);
    }

    #[test]
    fn parallelism_raises_iops_with_queue_depth() {
        let mut a = ssd("ssd-emlc");
        let mut b = ssd("ssd-emlc");
        let qd1 = closed_loop(&mut a, 1, 20_000, 8, false);
        let qd32 = closed_loop(&mut b, 32, 20_000, 8, false);
        assert!(qd32 > 5.0 * qd1, "qd1 {qd1} qd32 {qd32}");
    }

    #[test]
    fn slc_writes_faster_than_mlc_reads_about_equal() {
        let w_slc = closed_loop(&mut ssd("ssd-slc"), 32, 20_000, 8, true);
        let w_mlc = closed_loop(&mut ssd("ssd-emlc"), 32, 20_000, 8, true);
        let r_slc = closed_loop(&mut ssd("ssd-slc"), 32, 20_000, 8, false);
        let r_mlc = closed_loop(&mut ssd("ssd-emlc"), 32, 20_000, 8, false);
        assert!(w_slc > 1.5 * w_mlc, "slc {w_slc} mlc {w_mlc}");
        assert!(
            (r_slc / r_mlc - 1.0).abs() < 0.35,
            "slc {r_slc} mlc {r_mlc}"
        );
    }

    #[test]
    fn large_transfers_are_capped_by_the_interface() {
        let mut d = ssd("ssd-nvme");
        let sectors = 2048; // 1 MiB
        let iops = closed_loop(&mut d, 8, 4_000, sectors, false);
        let mbps = iops * (sectors * 512) as f64 / 1e6;
        let cap = 512.0 * 1e3 / d.iface_ns_per_sector;
        assert!(mbps <= cap * 1.001, "mbps {mbps} cap {cap}");
        assert!(mbps > cap * 0.9, "mbps {mbps} cap {cap}");
    }

    #[test]
    fn bad_parameters_are_named() {
        let DiskModel::Ssd(mut p) = builtin_model("ssd-slc").unwrap() else {
            panic!()
        };
        p.write_amplification = 0.5;
        assert!(Ssd::new(&p).unwrap_err().contains("write_amplification"));
        p.write_amplification = 1.0;
        p.page_kib = 3;
        assert!(Ssd::new(&p).unwrap_err().contains("page_kib"));
    }
}
