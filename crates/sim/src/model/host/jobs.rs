//! Jobs: the streams of a workload, each run by its jobs in closed loop (a fixed number of
//! I/Os outstanding, optional think time) or open loop (arrivals at a rate).

use storlab_core::stream::{JobStream, NextIo};
use storlab_core::{IoProfile, LatencyHistogram};

use super::{HostIo, HostPart, Issuer};
use crate::config::limits::OPEN_LOOP_MAX_OUTSTANDING;
use crate::config::{SystemSpec, WorkloadSpec};
use crate::engine::{Event, SimTime};
use crate::metrics::HostStats;
use crate::model::{RunOptions, Stack};
use crate::rng::{Purpose, Rng};
use crate::slab::Slab;
use crate::volume::VolPiece;

pub(super) struct StreamRt {
    pub profile: IoProfile,
    pub target: u32,
    /// Open loop: host I/Os of the stream in flight (at most
    /// [`crate::config::limits::OPEN_LOOP_MAX_OUTSTANDING`]).
    pub open_outstanding: u32,
    /// Open loop: arrivals dropped because that many were in flight (measured window).
    pub dropped: u64,
    /// Open loop: I/Os completed in the measured window.
    pub completed: u64,
    /// The stream's own figures, kept when the run reports each stream apart.
    pub class: Option<Box<StreamClass>>,
}

/// One stream reported as a class of its own: its name and target in results, and the host
/// I/O it completed in the measured window.
pub(super) struct StreamClass {
    pub name: String,
    pub target: String,
    pub io: HostStats,
}

pub(super) struct Job {
    pub stream: u32,
    ios: JobStream,
    /// The I/O this job issues next, drawn one ahead so its cache entry can be loaded early.
    next_io: NextIo,
    /// `next_io` mapped onto the target's members (done once, when it was drawn).
    next_pieces: Vec<VolPiece>,
    arrivals: Rng,
    mean_interarrival_ns: f64,
    think_ns: u64,
}

impl HostPart {
    /// The host with its paths, and a target and jobs for each of the workload's streams.
    pub fn build(
        spec: &SystemSpec,
        workload: &WorkloadSpec,
        opts: &RunOptions,
    ) -> Result<HostPart, String> {
        let (paths, ports) = super::paths::build(spec);
        let mut host = HostPart {
            paths,
            ports,
            next_path: 0,
            targets: Vec::new(),
            streams: Vec::new(),
            jobs: Vec::new(),
            hosts: Slab::new(),
            trace: None,
            stats: HostStats::new(opts.warmup_ns),
            from_db: false,
            phase_latency: [
                LatencyHistogram::new(),
                LatencyHistogram::new(),
                LatencyHistogram::new(),
            ],
            io_errors: 0,
            issued: 0,
            completed: 0,
            vol_pieces: Vec::new(),
        };
        host.build_jobs(spec, workload, opts)?;
        Ok(host)
    }

    fn build_jobs(
        &mut self,
        spec: &SystemSpec,
        workload: &WorkloadSpec,
        opts: &RunOptions,
    ) -> Result<(), String> {
        let classes = super::report::stream_classes(workload, opts.warmup_ns);
        for ((si, s), class) in workload.streams.iter().enumerate().zip(classes) {
            let p = &s.profile;
            let target = self.add_target(spec, s.volume, &s.luns)?;
            let volume = self.targets[target as usize].volume.capacity_sectors();
            for j in 0..p.jobs {
                let index = ((si as u64) << 32) | j as u64;
                let mut ios = JobStream::new(p, si as u32, j, volume, opts.seed);
                let next_io = ios.next_io();
                let mut next_pieces = Vec::new();
                self.map_io(target, next_io.lba, next_io.sectors, &mut next_pieces);
                self.jobs.push(Job {
                    stream: si as u32,
                    next_io,
                    next_pieces,
                    ios,
                    arrivals: Rng::derive(opts.seed, Purpose::Arrival, index),
                    mean_interarrival_ns: p.rate_iops.map_or(0.0, |r| 1e9 * p.jobs as f64 / r),
                    think_ns: p.think_time.0,
                });
            }
            self.streams.push(StreamRt {
                profile: p.clone(),
                target,
                open_outstanding: 0,
                dropped: 0,
                completed: 0,
                class,
            });
        }
        Ok(())
    }

    /// Starts every job (open loop: its first arrival; closed loop: its I/Os in flight) and
    /// the trace replay.
    pub fn start(s: &mut Stack) {
        for j in 0..s.host.jobs.len() as u32 {
            let job = &mut s.host.jobs[j as usize];
            if job.mean_interarrival_ns > 0.0 {
                let gap = job.arrivals.exp(job.mean_interarrival_ns) as u64;
                s.core.schedule(SimTime(gap), Event::JobIssue(j));
            } else {
                let depth = s.host.streams[job.stream as usize].profile.iodepth;
                for _ in 0..depth {
                    Self::issue_job_io(s, j);
                }
            }
        }
        Self::start_trace(s);
    }

    /// Job `j`'s think time is over, or an open-loop arrival is due.
    pub fn on_job_issue(s: &mut Stack, j: u32) {
        let host = &mut s.host;
        let job = &mut host.jobs[j as usize];
        if job.mean_interarrival_ns > 0.0 {
            let gap = job.arrivals.exp(job.mean_interarrival_ns) as u64;
            s.core.schedule(s.core.now + gap.max(1), Event::JobIssue(j));
            // An overloaded array would otherwise queue arrivals without end: past the bound
            // they are dropped and counted (reported as overload).
            let stream = &mut host.streams[job.stream as usize];
            if stream.open_outstanding >= OPEN_LOOP_MAX_OUTSTANDING {
                stream.dropped += 1;
                return;
            }
            stream.open_outstanding += 1;
        }
        Self::issue_job_io(s, j);
    }

    /// Sends job `j`'s next I/O down and draws the one after it (the same sequence as drawing
    /// each when issued: a job's stream has its own random numbers). The one after it is
    /// mapped onto the target now, and the cache entries it will look up (usually many events
    /// later) start loading; neither changes any state the run depends on.
    fn issue_job_io(s: &mut Stack, j: u32) {
        let host = &mut s.host;
        let job = &mut host.jobs[j as usize];
        let following = job.ios.next_io();
        let io = std::mem::replace(&mut job.next_io, following);
        let target = host.streams[job.stream as usize].target;
        // The I/O's pieces, mapped when it was drawn, go where `issue` takes them from.
        std::mem::swap(&mut host.vol_pieces, &mut job.next_pieces);
        let host_io = HostIo {
            target,
            lba: io.lba,
            sectors: io.sectors,
            write: io.write,
        };
        Self::issue_mapped(s, Issuer::Job(j), host_io, s.core.now);
        let host = &mut s.host;
        let mut pieces = std::mem::take(&mut host.jobs[j as usize].next_pieces);
        host.map_io(target, following.lba, following.sectors, &mut pieces);
        host.prefetch_pieces(&s.ctrls, target, &pieces, following.write);
        host.jobs[j as usize].next_pieces = pieces;
    }

    /// An I/O of job `j` completed: an open-loop job counts it, a closed-loop one issues its
    /// next I/O (after its think time).
    #[inline(always)]
    pub(super) fn job_io_done(s: &mut Stack, j: u32) {
        let host = &mut s.host;
        let job = &host.jobs[j as usize];
        if job.mean_interarrival_ns > 0.0 {
            let stream = &mut host.streams[job.stream as usize];
            stream.open_outstanding -= 1;
            stream.completed += 1;
            return;
        }
        if job.think_ns > 0 {
            s.core
                .schedule(s.core.now + job.think_ns, Event::JobIssue(j));
        } else {
            Self::issue_job_io(s, j);
        }
    }
}
