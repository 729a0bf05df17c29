//! Progress of a plan on stderr: an overall bar (units done, ETA from the time the finished
//! units took) and the running unit's bar (elapsed against its expected time). On a terminal
//! a ticker thread redraws one line four times a second; otherwise one line per finished unit.
//! Progress is about wall time, so this module reads the clock (the simulator never does).
#![allow(clippy::disallowed_methods)]

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct State {
    total: usize,
    done: usize,
    /// Wall seconds of the units finished in this run (skipped ones not counted).
    spent: f64,
    ran: usize,
    current: String,
    started: Instant,
    expected: Option<f64>,
}

/// The progress display of one plan run.
pub struct Progress {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
    tty: bool,
}

fn bar(frac: f64, width: usize) -> String {
    let full = ((frac.clamp(0.0, 1.0)) * width as f64).round() as usize;
    format!("[{}{}]", "=".repeat(full), " ".repeat(width - full))
}

fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

impl State {
    fn eta(&self) -> Option<f64> {
        (self.ran > 0).then(|| self.spent / self.ran as f64 * (self.total - self.done) as f64)
    }

    fn line(&self) -> String {
        let overall = self.done as f64 / self.total.max(1) as f64;
        let elapsed = self.started.elapsed().as_secs_f64();
        let cell = match self.expected {
            Some(e) if e > 0.0 => format!("{} {:.0}/{:.0} s", bar(elapsed / e, 12), elapsed, e),
            _ => format!("{:.1} s", elapsed),
        };
        let eta = self
            .eta()
            .map_or("ETA -".into(), |s| format!("ETA {}", clock(s)));
        format!(
            "{} {}/{} {eta} | {} {cell}",
            bar(overall, 20),
            self.done,
            self.total,
            self.current
        )
    }
}

impl Progress {
    /// A display for `total` units.
    pub fn new(total: usize) -> Progress {
        let tty = std::io::stderr().is_terminal();
        let state = Arc::new(Mutex::new(State {
            total,
            done: 0,
            spent: 0.0,
            ran: 0,
            current: String::new(),
            started: Instant::now(),
            expected: None,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let ticker = tty.then(|| {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let line = state.lock().expect("progress state").line();
                    eprint!("\r\x1b[2K{line}");
                    let _ = std::io::stderr().flush();
                    std::thread::sleep(Duration::from_millis(250));
                }
            })
        });
        Progress {
            state,
            stop,
            ticker,
            tty,
        }
    }

    /// A unit starts; `expected` is its expected wall time when known.
    pub fn start(&self, label: &str, expected: Option<f64>) {
        let mut s = self.state.lock().expect("progress state");
        s.current = label.to_string();
        s.started = Instant::now();
        s.expected = expected;
    }

    /// The running unit finished (`ran`: it ran now rather than being taken from an
    /// earlier run) with a one-line `summary`.
    pub fn finish(&self, summary: &str, ran: bool) {
        let mut s = self.state.lock().expect("progress state");
        s.done += 1;
        if ran {
            s.ran += 1;
            s.spent += s.started.elapsed().as_secs_f64();
        }
        let eta = s
            .eta()
            .map_or(String::new(), |e| format!(" (ETA {})", clock(e)));
        let msg = format!("[{:>3}/{}] {} {summary}{eta}", s.done, s.total, s.current);
        if self.tty {
            eprintln!("\r\x1b[2K{msg}");
        } else {
            eprintln!("{msg}");
        }
    }

    /// A line about the running unit (before its result).
    pub fn note(&self, msg: &str) {
        if self.tty {
            eprintln!("\r\x1b[2K{msg}");
        } else {
            eprintln!("{msg}");
        }
    }

    /// Stops the ticker and clears its line.
    pub fn close(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
            eprint!("\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_clocks() {
        assert_eq!(bar(0.5, 4), "[==  ]");
        assert_eq!(bar(2.0, 4), "[====]");
        assert_eq!(clock(75.0), "1m15s");
        assert_eq!(clock(3725.0), "1h02m");
    }

    #[test]
    fn eta_follows_the_mean_time_of_units_that_ran() {
        let s = State {
            total: 10,
            done: 4,
            spent: 8.0,
            ran: 2,
            current: "x".into(),
            started: Instant::now(),
            expected: None,
        };
        // Two units ran in 8 s (4 s each; two more were taken from an earlier run): 6 left.
        assert_eq!(s.eta(), Some(24.0));
        assert!(s.line().contains("4/10 ETA 0m24s"));
    }
}
