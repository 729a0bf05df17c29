//! The input of a report: a [`Study`] of configurations x workloads x repeats, and the
//! lookups every section shares (the cells of one configuration and workload, their mean).

use serde::{Deserialize, Serialize};
use storlab_core::result::{Run, TargetKind};

/// A comparison study: what ran, where, and how every cell came out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// Title of the report ("RAID 5 vs RAID 10 on the mid-range array").
    pub title: String,
    /// Configurations in plan order; the first is the baseline of the findings.
    pub configurations: Vec<Configuration>,
    /// Workload names in plan order.
    pub workloads: Vec<String>,
    /// One cell per (configuration, workload, repeat); sweeps add one cell per load point.
    pub cells: Vec<Cell>,
    /// How the study was produced.
    pub meta: Meta,
    /// The questions the study answers, as the plan declared them; when there are none, they
    /// are derived ([`Study::questions`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Question>,
    /// Users sweeps of the study, each of one workload on one configuration: the report
    /// draws each one's curve and knee.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users_sweeps: Vec<UsersSweepCell>,
}

/// A users sweep of one workload on one configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsersSweepCell {
    /// Name of the [`Configuration`].
    pub configuration: String,
    /// Workload name.
    pub workload: String,
    /// The sweep: its points, answer and knee.
    pub sweep: storlab_core::result::UsersSweep,
}

/// A question of the study: configurations compared with the first (its baseline), or one
/// configuration described on its own ("this machine's disk").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The question as the reader asks it ("RAID 5 or RAID 10?").
    pub title: String,
    /// Names of the configurations it is about; the first is the baseline.
    pub configurations: Vec<String>,
}

/// One storage configuration under test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Configuration {
    /// Short name used everywhere in the report ("raid5", "local-disk").
    pub name: String,
    /// Simulated array or real storage.
    pub kind: TargetKind,
    /// One-line description (levels, disk counts).
    #[serde(default)]
    pub description: Option<String>,
    /// Physical disks (simulated arrays).
    #[serde(default)]
    pub disks: Option<u32>,
    /// Usable capacity, GB.
    #[serde(default)]
    pub usable_gb: Option<f64>,
    /// Price of one disk, from the plan.
    #[serde(default)]
    pub price_per_disk: Option<f64>,
    /// Price of one usable GB, from the plan.
    #[serde(default)]
    pub price_per_gb: Option<f64>,
}

/// One run of one workload on one configuration (or its failure).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Name of the [`Configuration`].
    pub configuration: String,
    /// Workload name.
    pub workload: String,
    /// Repeat number, from 0 or 1.
    pub repeat: u32,
    /// The result; `None` when the cell failed.
    #[serde(default)]
    pub run: Option<Run>,
    /// Why the cell failed.
    #[serde(default)]
    pub error: Option<String>,
    /// The equivalent storlab command line.
    pub command: String,
}

/// How the study was produced; printed in every section footer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The command that produced the study.
    pub command: String,
    /// storlab version.
    pub storlab_version: String,
    /// Git commit storlab was built from.
    pub git_commit: String,
    /// Machine facts ("2 CPUs, 24 GiB, Linux 6.1").
    pub machine: String,
    /// The seed every random stream was derived from.
    pub seed: u64,
}

impl Cell {
    /// True when the cell has no usable run (failed, or a run flagged with an error).
    pub fn failed(&self) -> bool {
        self.run.is_none() || self.error.is_some()
    }
}

impl Study {
    /// The successful runs of `configuration` x `workload`, in cell order.
    pub fn runs(&self, configuration: &str, workload: &str) -> Vec<&Run> {
        self.cells
            .iter()
            .filter(|c| c.configuration == configuration && c.workload == workload)
            .filter(|c| !c.failed())
            .filter_map(|c| c.run.as_ref())
            .collect()
    }

    /// Cells that failed, in cell order.
    pub fn failed_cells(&self) -> Vec<&Cell> {
        self.cells.iter().filter(|c| c.failed()).collect()
    }

    /// Index of a configuration by name (its colour in every chart).
    pub fn config_index(&self, name: &str) -> Option<usize> {
        self.configurations.iter().position(|c| c.name == name)
    }

    /// The questions the report answers: the declared ones (configurations the study does
    /// not have are dropped, and questions left with none), else one question over the
    /// simulated configurations and one over the real ones, so that a simulated array is
    /// never compared with this machine's disk unless a plan asks for it.
    pub fn questions(&self) -> Vec<Question> {
        let declared: Vec<Question> = self
            .questions
            .iter()
            .map(|q| Question {
                title: q.title.clone(),
                configurations: q
                    .configurations
                    .iter()
                    .filter(|c| self.config_index(c).is_some())
                    .cloned()
                    .collect(),
            })
            .filter(|q| !q.configurations.is_empty())
            .collect();
        if !declared.is_empty() {
            return declared;
        }
        let mut out = Vec::new();
        for kind in [TargetKind::Sim, TargetKind::Real] {
            let names: Vec<String> = self
                .configurations
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| c.name.clone())
                .collect();
            let title = match (kind, names.as_slice()) {
                (_, []) => continue,
                (TargetKind::Real, [one]) => format!("This machine: {one}"),
                (_, [one]) => one.clone(),
                (_, [base, rest @ ..]) => format!("{} against {base}", rest.join(", ")),
            };
            out.push(Question {
                title,
                configurations: names,
            });
        }
        out
    }

    /// Workloads in plan order, then any that only appear in cells.
    pub fn workload_names(&self) -> Vec<String> {
        let mut names = self.workloads.clone();
        for c in &self.cells {
            if !names.contains(&c.workload) {
                names.push(c.workload.clone());
            }
        }
        names
    }
}

/// Mean, lowest and highest of the repeats of one figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// Mean over the repeats.
    pub mean: f64,
    /// Lowest repeat.
    pub min: f64,
    /// Highest repeat.
    pub max: f64,
    /// Number of repeats.
    pub n: usize,
}

impl Spread {
    /// The spread of `values`; `None` when there are none (or none finite).
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        let v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        let sum: f64 = v.iter().sum();
        Some(Spread {
            mean: sum / v.len() as f64,
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            n: v.len(),
        })
    }

    /// True when the repeats differ (worth showing min..max).
    pub fn varies(&self) -> bool {
        self.n > 1 && self.max > self.min
    }
}
