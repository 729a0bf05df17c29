//! Host side: jobs that issue I/O (closed or open loop), volumes split into group pieces, and
//! completion back at the host.

use storlab_core::AccessPattern;

use super::{HostReq, Job, Model, StreamRt};
use crate::config::WorkloadSpec;
use crate::engine::{Event, SimTime};
use crate::rng::{Purpose, Rng};

impl Model {
    pub(super) fn build_jobs(&mut self, workload: &WorkloadSpec) {
        for (si, s) in workload.streams.iter().enumerate() {
            let p = &s.profile;
            let mut parts = Vec::new();
            let mut volume = 0u64;
            for &g in &s.targets {
                parts.push((g, volume));
                volume += self.groups[g as usize].layout.capacity_sectors();
            }
            let total_weight: f64 = p.block_sizes.iter().map(|b| b.weight).sum();
            let mut cum = 0.0;
            let sizes = p
                .block_sizes
                .iter()
                .map(|b| {
                    cum += b.weight / total_weight;
                    (b.size.0 / 512, cum)
                })
                .collect();
            let region_start = p.region_offset.0 / 512;
            let region_sectors = p.region_size.map_or(volume - region_start, |r| r.0 / 512);
            let stream = StreamRt {
                profile: p.clone(),
                parts,
                volume_sectors: volume,
                sizes,
                read_frac: p.read_pct / 100.0,
                region_start,
                region_sectors,
            };
            let max_block = p.max_block_bytes() / 512;
            let share = (region_sectors / p.jobs as u64) / max_block * max_block;
            for j in 0..p.jobs {
                let index = ((si as u64) << 32) | j as u64;
                let lo = region_start + j as u64 * share;
                self.jobs.push(Job {
                    stream: si as u32,
                    rng: Rng::derive(self.opts.seed, Purpose::Job, index),
                    arrivals: Rng::derive(self.opts.seed, Purpose::Arrival, index),
                    lo,
                    hi: lo + share,
                    cursor: lo,
                    mean_interarrival_ns: p.rate_iops.map_or(0.0, |r| 1e9 * p.jobs as f64 / r),
                    think_ns: p.think_time.0,
                });
            }
            self.streams.push(stream);
        }
    }

    pub(super) fn start_jobs(&mut self) {
        for j in 0..self.jobs.len() as u32 {
            let job = &mut self.jobs[j as usize];
            if job.mean_interarrival_ns > 0.0 {
                let gap = job.arrivals.exp(job.mean_interarrival_ns) as u64;
                self.queue.schedule(SimTime(gap), Event::JobIssue(j));
            } else {
                let depth = self.streams[job.stream as usize].profile.iodepth;
                for _ in 0..depth {
                    self.issue_io(j);
                }
            }
        }
    }

    pub(super) fn on_job_issue(&mut self, j: u32) {
        let job = &mut self.jobs[j as usize];
        if job.mean_interarrival_ns > 0.0 {
            let gap = job.arrivals.exp(job.mean_interarrival_ns) as u64;
            self.queue
                .schedule(SimTime(self.now + gap.max(1)), Event::JobIssue(j));
        }
        self.issue_io(j);
    }

    /// Picks size, direction and address for job `j` and sends the I/O down.
    fn issue_io(&mut self, j: u32) {
        let job = &mut self.jobs[j as usize];
        let s = &self.streams[job.stream as usize];
        let sectors = if s.sizes.len() == 1 {
            s.sizes[0].0
        } else {
            let u = job.rng.unit_f64();
            s.sizes
                .iter()
                .find(|(_, c)| u < *c)
                .map_or(s.sizes[s.sizes.len() - 1].0, |(n, _)| *n)
        };
        let write = s.read_frac < 1.0 && job.rng.unit_f64() >= s.read_frac;
        let lba = match s.profile.pattern {
            AccessPattern::Random => {
                let blocks = s.region_sectors / sectors;
                s.region_start + job.rng.below(blocks) * sectors
            }
            AccessPattern::Sequential => {
                if job.cursor + sectors > job.hi {
                    job.cursor = job.lo;
                }
                let at = job.cursor;
                job.cursor += sectors;
                at
            }
        };
        debug_assert!(lba + sectors <= s.volume_sectors);
        let h = self.hosts.insert(HostReq {
            job: j,
            write,
            bytes: sectors * 512,
            start_ns: self.now,
            pending: 1,
            ready_ns: self.now,
        });
        self.host_issued += 1;
        let arrive = if write {
            let t = self.link_transfer(self.now, sectors * 512);
            self.hosts.get_mut(h).ready_ns = t;
            t
        } else {
            self.now
        };
        self.split_into_pieces(h, job_stream(&self.jobs, j), lba, sectors, arrive, write);
        self.piece_done(h, self.now);
    }

    fn split_into_pieces(
        &mut self,
        h: u32,
        stream: u32,
        lba: u64,
        sectors: u64,
        arrive: u64,
        write: bool,
    ) {
        let mut at = lba;
        let end = lba + sectors;
        while at < end {
            let parts = &self.streams[stream as usize].parts;
            let i = parts.partition_point(|&(_, start)| start <= at) - 1;
            let (g, start) = parts[i];
            let part_end = parts
                .get(i + 1)
                .map_or(self.streams[stream as usize].volume_sectors, |p| p.1);
            let piece_end = end.min(part_end);
            self.hosts.get_mut(h).pending += 1;
            let glba = at - start;
            let n = piece_end - at;
            let t_cpu = self.controller_time(self.groups[g as usize].ctrl, arrive);
            if write {
                self.write_piece(h, g, glba, n, t_cpu);
            } else {
                self.read_piece(h, g, glba, n, t_cpu);
            }
            at = piece_end;
        }
    }

    fn controller_time(&mut self, ctrl: u32, arrive: u64) -> u64 {
        let c = &mut self.ctrls[ctrl as usize];
        let start = arrive.max(c.cpu_free_ns);
        c.cpu_free_ns = start + self.spec.controllers.overhead_ns;
        c.cpu_free_ns
    }

    /// One piece of host request `h` is ready at `ready_ns` (data in cache / write accepted).
    pub(super) fn piece_done(&mut self, h: u32, ready_ns: u64) {
        let req = self.hosts.get_mut(h);
        req.ready_ns = req.ready_ns.max(ready_ns);
        req.pending -= 1;
        if req.pending > 0 {
            return;
        }
        let (write, bytes, ready) = (req.write, req.bytes, req.ready_ns);
        let delivered = if write {
            ready
        } else {
            self.link_transfer(ready, bytes)
        };
        let done = delivered.max(self.now) + self.spec.host.link_latency_ns;
        self.queue.schedule(SimTime(done), Event::HostDone(h));
    }

    pub(super) fn on_host_done(&mut self, h: u32) {
        let req = self.hosts.remove(h);
        self.host_completed += 1;
        if self.now >= self.opts.warmup_ns {
            self.host_completed_measured += 1;
            self.host
                .record(self.now, req.write, req.bytes, self.now - req.start_ns);
        }
        let job = &self.jobs[req.job as usize];
        if job.mean_interarrival_ns > 0.0 {
            return;
        }
        if job.think_ns > 0 {
            self.queue
                .schedule(SimTime(self.now + job.think_ns), Event::JobIssue(req.job));
        } else {
            self.issue_io(req.job);
        }
    }
}

fn job_stream(jobs: &[Job], j: u32) -> u32 {
    jobs[j as usize].stream
}

#[allow(dead_code)]
fn _assert_stream_fields(s: &StreamRt) -> u64 {
    s.volume_sectors
}
