//! A component inside the array with a capacity of its own: one or several identical servers
//! taking work first come, first served (a back-end loop carries one transfer at a time; a
//! controller's processors run one I/O's code each). Work is booked when it is known, from
//! the time it is ready: it starts on the server free first, no earlier than that.
//!
//! Its figures count only what is served inside the measured window: the busy time and the
//! bytes are the part of each service inside the window (a service booked in the warm-up that
//! runs into the window counts for its share, one that runs past the end is cut there), and
//! the operations, with their waits and service times, are those whose service starts inside
//! the window. Work queued past the end of the window counts for nothing, so a saturated
//! component reports at most its capacity (a 300 MB/s port, 300 MB/s).

use storlab_core::result::ComponentMetrics;

use super::core::Core;
use crate::engine::SimTime;
use crate::metrics::round3;

pub(crate) struct Resource {
    pub name: String,
    kind: &'static str,
    /// When each server is next free.
    free_at: Vec<SimTime>,
    busy_ns: u64,
    ops: u64,
    bytes: u64,
    wait_ns: u64,
    service_ns: u64,
    /// Whether its figures are kept: not when the results leave the components out.
    counted: bool,
}

impl Resource {
    /// `servers` idle servers (at least one).
    pub fn new(name: String, kind: &'static str, servers: usize) -> Resource {
        Resource {
            name,
            kind,
            free_at: vec![SimTime(0); servers.max(1)],
            busy_ns: 0,
            ops: 0,
            bytes: 0,
            wait_ns: 0,
            service_ns: 0,
            counted: true,
        }
    }

    /// The same component, its figures not kept (the results will not show it): booking
    /// only tracks when its servers are free.
    pub fn uncounted(self) -> Resource {
        Resource {
            counted: false,
            ..self
        }
    }

    /// Books `service_ns` of work carrying `bytes`, ready at `ready`, on the server free
    /// first; returns when it ends.
    #[inline]
    pub fn book(&mut self, core: &Core, ready: SimTime, service_ns: u64, bytes: u64) -> SimTime {
        // One server (a loop, a link, the default processor) needs no search: this stays
        // small enough to inline into the controller's hot path.
        let i = if self.free_at.len() == 1 {
            0
        } else {
            self.first_free()
        };
        let start = ready.max(self.free_at[i]);
        let end = start + service_ns;
        self.free_at[i] = end;
        if self.counted {
            self.count(core, (ready, start, end), bytes);
        }
        end
    }

    /// Counts a service of `bytes` ready at `ready`, from `start` to `end`.
    #[inline]
    fn count(&mut self, core: &Core, (ready, start, end): (SimTime, SimTime, SimTime), bytes: u64) {
        let (from, to) = (core.warmup_end(), core.warmup_end() + core.opts.duration_ns);
        let inside_ns = end.min(to).saturating_since(start.max(from));
        self.busy_ns += inside_ns;
        let service_ns = end - start;
        let starts_inside = start >= from && start < to;
        self.bytes += if service_ns == 0 {
            if starts_inside {
                bytes
            } else {
                0
            }
        } else {
            // The share of the bytes served inside the window.
            (u128::from(bytes) * u128::from(inside_ns) / u128::from(service_ns)) as u64
        };
        if starts_inside {
            self.ops += 1;
            self.wait_ns += start - ready;
            self.service_ns += service_ns;
        }
    }

    /// The server free first (the lowest index among equals).
    #[inline(never)]
    fn first_free(&self) -> usize {
        (self.free_at.iter().enumerate())
            .min_by_key(|&(_, t)| *t)
            .map_or(0, |(i, _)| i)
    }

    /// The component's figures over a window of `window_ns`.
    pub fn metrics(&self, window_ns: u64) -> ComponentMetrics {
        let secs = window_ns as f64 / 1e9;
        let per_op_ms = |ns: u64| {
            if self.ops == 0 {
                0.0
            } else {
                round3(ns as f64 / self.ops as f64 / 1e6)
            }
        };
        let capacity_ns = window_ns as f64 * self.free_at.len() as f64;
        ComponentMetrics {
            name: self.name.clone(),
            kind: self.kind.to_string(),
            util_pct: round3((100.0 * self.busy_ns as f64 / capacity_ns).min(100.0)),
            ops_per_s: round3(self.ops as f64 / secs),
            mbps: round3(self.bytes as f64 / 1e6 / secs),
            wait_ms: per_op_ms(self.wait_ns),
            service_ms: per_op_ms(self.service_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_array;
    use crate::model::RunOptions;

    fn core(duration_ns: u64) -> Core {
        let spec = parse_array(
            "name = \"t\"\n[[raid_groups]]\nname = \"g\"\nlevel = \"jbod\"\ndisks = 1\ndisk_model = \"hdd-10k\"\n",
            "t.toml",
        )
        .expect("array");
        let opts = RunOptions {
            duration_ns,
            warmup_ns: 0,
            seed: 1,
            warmup_auto: false,
            stop: None,
        };
        Core::new(&spec, opts)
    }

    #[test]
    fn two_servers_take_work_side_by_side_then_queue() {
        let core = core(1_000);
        let mut r = Resource::new("cpu".into(), "processors", 2);
        assert_eq!(r.book(&core, SimTime(0), 100, 0), SimTime(100));
        assert_eq!(r.book(&core, SimTime(0), 100, 0), SimTime(100));
        // Both busy: the third waits for the first to free.
        assert_eq!(r.book(&core, SimTime(10), 100, 0), SimTime(200));
        let m = r.metrics(1_000);
        assert_eq!(m.util_pct, 15.0);
        assert_eq!(m.wait_ms, round3(90.0 / 3.0 / 1e6));
    }

    #[test]
    fn work_queued_past_the_window_is_not_counted() {
        let core = core(1_000);
        let mut r = Resource::new("port".into(), "host_port", 1);
        // Three transfers of 100 bytes, 500 ns each, all ready at once: the third is served
        // after the window, the second ends with it.
        for _ in 0..3 {
            r.book(&core, SimTime(0), 500, 100);
        }
        let m = r.metrics(1_000);
        assert_eq!(m.util_pct, 100.0);
        // 200 bytes in 1 us: 200 MB/s, the component's capacity, not 300.
        assert_eq!(m.mbps, 200.0);
        assert_eq!(m.ops_per_s, 2e6);
        // The two served waited 0 and 500 ns.
        assert_eq!(m.wait_ms, round3(250.0 / 1e6));
        // One running over the end counts for its part inside.
        let mut r = Resource::new("port".into(), "host_port", 1);
        r.book(&core, SimTime(800), 400, 100);
        assert_eq!(r.metrics(1_000).mbps, 50.0);
    }

    #[test]
    fn busy_time_past_the_window_is_cut() {
        let core = core(1_000);
        let mut r = Resource::new("loop".into(), "back_end", 1);
        r.book(&core, SimTime(900), 500, 4096);
        assert_eq!(r.metrics(1_000).util_pct, 10.0);
    }
}
