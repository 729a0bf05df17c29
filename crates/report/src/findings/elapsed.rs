//! Jobs (and analytic queries) compared by elapsed time: a fixed amount of work has no
//! rows/s or IOPS worth comparing, only how long it took, and whether it finished.
//!
//! Rules:
//! - A workload is compared by elapsed time when one of its runs is a job (it has a job
//!   outcome) or has an elapsed time and no rows/s.
//! - A configuration's runs of it are complete when every run finished its work; their
//!   figure is then the mean elapsed time. Otherwise they are incomplete, said with the
//!   least share of the work done and the time limit that stopped them.
//! - Both complete: the slower takes "1.31x the elapsed time" of the faster; within 3%
//!   (`WITHIN_PCT`) they take the same time. Either incomplete: said as such, beside the
//!   other's elapsed time when it finished.

use storlab_core::result::Run;

use super::WITHIN_PCT;
use crate::model::Study;
use crate::sweep::summary_runs;
use crate::workload::human_name;

/// A configuration's runs of a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Outcome {
    /// Every run finished: the mean elapsed time, s.
    Complete { elapsed_s: f64 },
    /// Some run's time limit came first: the least share done, percent, and the limit, s.
    Incomplete { done_pct: f64, limit_s: f64 },
}

/// One job of a configuration against its baseline.
#[derive(Clone, Debug)]
pub(crate) struct ElapsedComparison {
    pub workload: String,
    pub base_name: String,
    pub name: String,
    pub base: Outcome,
    pub other: Outcome,
}

impl ElapsedComparison {
    /// `(other / baseline - 1) x 100` of the elapsed times when both finished (positive:
    /// this configuration took longer), else 0.
    pub(crate) fn delta_pct(&self) -> f64 {
        match (self.base, self.other) {
            (Outcome::Complete { elapsed_s: b }, Outcome::Complete { elapsed_s: o }) if b > 0.0 => {
                (o / b - 1.0) * 100.0
            }
            _ => 0.0,
        }
    }

    /// The clause of this configuration's finding ("job create-tablespace takes 1.31x the
    /// elapsed time of raid10 (13.1 vs 10.0 s)").
    pub(crate) fn clause(&self) -> String {
        let wl = human_name(&self.workload);
        let base = &self.base_name;
        match (self.base, self.other) {
            (Outcome::Complete { elapsed_s: b }, Outcome::Complete { elapsed_s: o }) => {
                if self.delta_pct().abs() <= WITHIN_PCT {
                    format!(
                        "{wl} elapsed time within {} ({} vs {} s)",
                        within(self),
                        secs(o),
                        secs(b)
                    )
                } else {
                    format!(
                        "{wl} takes {} the elapsed time of {base} ({} vs {} s)",
                        ratio(o / b),
                        secs(o),
                        secs(b)
                    )
                }
            }
            (Outcome::Complete { elapsed_s: b }, other) => format!(
                "{wl} did not run to completion ({}); {base} finished in {} s",
                unfinished(other),
                secs(b)
            ),
            (base_outcome, Outcome::Complete { elapsed_s: o }) => format!(
                "{wl} ran to completion in {} s; {base} did not ({})",
                secs(o),
                unfinished(base_outcome)
            ),
            (b, o) => format!(
                "{wl} did not run to completion here ({}) nor on {base} ({})",
                unfinished(o),
                unfinished(b)
            ),
        }
    }

    /// The answer's sentence ("job create-tablespace: raid5 takes 1.31x the elapsed time of
    /// raid10 (13.1 vs 10.0 s).").
    pub(crate) fn sentence(&self) -> String {
        let wl = human_name(&self.workload);
        let (me, base) = (&self.name, &self.base_name);
        let text = match (self.base, self.other) {
            (Outcome::Complete { elapsed_s: b }, Outcome::Complete { elapsed_s: o }) => {
                if self.delta_pct().abs() <= WITHIN_PCT {
                    format!(
                        "{me} and {base} take the same elapsed time within {} ({} vs {} s)",
                        within(self),
                        secs(o),
                        secs(b)
                    )
                } else {
                    let (slow, fast, s, f) = if o > b {
                        (me, base, o, b)
                    } else {
                        (base, me, b, o)
                    };
                    format!(
                        "{slow} takes {} the elapsed time of {fast} ({} vs {} s)",
                        ratio(s / f),
                        secs(s),
                        secs(f)
                    )
                }
            }
            (Outcome::Complete { elapsed_s: b }, o) => format!(
                "{me} did not run to completion ({}); {base} finished in {} s",
                unfinished(o),
                secs(b)
            ),
            (b, Outcome::Complete { elapsed_s: o }) => format!(
                "{me} finished in {} s; {base} did not run to completion ({})",
                secs(o),
                unfinished(b)
            ),
            (b, o) => format!(
                "neither {me} ({}) nor {base} ({}) ran to completion",
                unfinished(o),
                unfinished(b)
            ),
        };
        format!("{wl}: {text}.")
    }
}

/// "1.31x".
fn ratio(r: f64) -> String {
    format!("{r:.2}x")
}

/// An elapsed time as said: 13.1, 0.52, 1,204.
fn secs(s: f64) -> String {
    crate::answers::num(s)
}

/// "2%": the difference rounded up, at least 1%.
fn within(c: &ElapsedComparison) -> String {
    let n = ((c.delta_pct().abs() * 1e6).round() / 1e6).ceil().max(1.0);
    format!("{n:.0}%")
}

/// "45% done when its 1 s limit came".
fn unfinished(o: Outcome) -> String {
    match o {
        Outcome::Incomplete { done_pct, limit_s } => format!(
            "{}% done when its {} s limit came",
            crate::answers::num(done_pct),
            secs(limit_s)
        ),
        Outcome::Complete { elapsed_s } => format!("finished in {} s", secs(elapsed_s)),
    }
}

/// The workload's runs are jobs (or queries, which have no rows/s): judged by elapsed
/// time.
pub(crate) fn is_job(runs: &[&Run]) -> bool {
    runs.iter().any(|r| {
        r.metrics.job.is_some() || (r.metrics.elapsed_s.is_some() && r.metrics.rows_per_s.is_none())
    })
}

/// The outcome of `runs` (one configuration's of one job), None without an elapsed time.
fn outcome(runs: &[&Run]) -> Option<Outcome> {
    let mut incomplete: Option<(f64, f64)> = None;
    let mut sum = 0.0;
    for r in runs {
        let elapsed_s = r.metrics.elapsed_s?;
        sum += elapsed_s;
        if let Some(job) = r.metrics.job.as_ref().filter(|j| !j.complete) {
            let (done, limit) = incomplete.unwrap_or((f64::INFINITY, 0.0));
            incomplete = Some((done.min(job.done_pct), limit.max(job.limit_s)));
        }
    }
    if runs.is_empty() {
        return None;
    }
    Some(match incomplete {
        Some((done_pct, limit_s)) => Outcome::Incomplete { done_pct, limit_s },
        None => Outcome::Complete {
            elapsed_s: sum / runs.len() as f64,
        },
    })
}

/// The jobs configuration `idx` ran against each one's baseline in `group` (the first
/// configuration of the group before it with runs of the job), in workload order.
pub(crate) fn elapsed_comparisons(
    study: &Study,
    group: &[usize],
    idx: usize,
) -> Vec<ElapsedComparison> {
    let name = &study.configurations[idx].name;
    let Some(me) = group.iter().position(|&i| i == idx) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for wl in study.workload_names() {
        let mine = summary_runs(study, name, &wl);
        if mine.is_empty() || !is_job(&mine) {
            continue;
        }
        let Some(base_name) = group[..me]
            .iter()
            .map(|&i| &study.configurations[i].name)
            .find(|b| !summary_runs(study, b, &wl).is_empty())
        else {
            continue;
        };
        let (Some(base), Some(other)) = (
            outcome(&summary_runs(study, base_name, &wl)),
            outcome(&mine),
        ) else {
            continue;
        };
        out.push(ElapsedComparison {
            workload: wl,
            base_name: base_name.clone(),
            name: name.clone(),
            base,
            other,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synthetic::{cell, db_run, demo_study};
    use storlab_core::result::{JobOutcome, Run, TargetKind};

    /// A job run that took `elapsed_s`, or stopped at its 60 s limit `done_pct` done.
    fn job_run(config: &str, elapsed_s: f64, done_pct: Option<f64>) -> Run {
        let mut r = db_run(config, TargetKind::Sim, "job/create-tablespace", 1.0, 1.0);
        r.metrics.rows_per_s = None;
        r.metrics.elapsed_s = Some(done_pct.map_or(elapsed_s, |_| 60.0));
        r.metrics.job = Some(JobOutcome {
            complete: done_pct.is_none(),
            done_pct: done_pct.unwrap_or(100.0),
            limit_s: 60.0,
            ..Default::default()
        });
        r
    }

    /// The answers' and the findings' sentences of a study of raid5's and raid10's runs.
    fn said(raid5: Run, raid10: Run) -> (Vec<String>, Vec<String>) {
        let mut study = demo_study();
        study.workloads = Vec::new();
        study.configurations.retain(|c| c.name != "local-disk");
        study.cells = vec![cell("raid5", 1, raid5), cell("raid10", 1, raid10)];
        let answers = crate::answers::answers(&study)
            .into_iter()
            .flat_map(|a| a.sentences)
            .collect();
        let findings = crate::findings::findings(&study)
            .into_iter()
            .map(|f| f.text)
            .collect();
        (answers, findings)
    }

    #[test]
    fn finished_jobs_are_compared_by_elapsed_time() {
        let (answers, findings) = said(
            job_run("raid5", 131.0, None),
            job_run("raid10", 100.0, None),
        );
        assert_eq!(
            answers,
            ["Job create-tablespace: raid5 takes 1.31x the elapsed time of raid10 (131 vs 100 s)."]
        );
        assert_eq!(
            findings,
            ["raid10: job create-tablespace takes 0.76x the elapsed time of raid5 (100 vs 131 s)"]
        );
        let (answers, _) = said(
            job_run("raid5", 100.0, None),
            job_run("raid10", 102.0, None),
        );
        assert_eq!(
            answers,
            [
                "Job create-tablespace: raid10 and raid5 take the same elapsed time within 2% \
              (102 vs 100 s)."
            ]
        );
    }

    #[test]
    fn unfinished_jobs_are_said_as_such() {
        let (answers, findings) = said(
            job_run("raid5", 0.0, Some(45.0)),
            job_run("raid10", 50.0, None),
        );
        assert_eq!(
            answers,
            [
                "Job create-tablespace: raid10 finished in 50 s; raid5 did not run to completion \
              (45% done when its 60 s limit came)."
            ]
        );
        assert_eq!(
            findings[0],
            "raid10: job create-tablespace ran to completion in 50 s; raid5 did not (45% done \
             when its 60 s limit came)"
        );
        let (answers, _) = said(
            job_run("raid5", 0.0, Some(45.0)),
            job_run("raid10", 0.0, Some(52.5)),
        );
        assert_eq!(
            answers,
            [
                "Job create-tablespace: neither raid10 (52.5% done when its 60 s limit came) nor \
              raid5 (45% done when its 60 s limit came) ran to completion."
            ]
        );
    }
}
