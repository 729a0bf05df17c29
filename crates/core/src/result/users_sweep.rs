//! A users sweep: the same database test at several user (session) counts, each user
//! thinking between transactions, and how many users the storage carries under a response
//! time target.

use serde::{Deserialize, Serialize};

use crate::histogram::LatencySummaryMs;

/// "How many users can this configuration carry": one point per user count, the answer and
/// the knee of the throughput curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsersSweep {
    /// The statistic of the transaction response time held to the target: `mean`, `p95` or
    /// `p99`.
    pub statistic: String,
    /// The target: the statistic must stay at or under this many ms.
    pub max_response_ms: f64,
    /// Each user's think time between transactions, ms.
    pub think_ms: f64,
    /// The points, in rising user count.
    pub points: Vec<UsersPoint>,
    /// The largest user count measured whose statistic stays at or under the target, with
    /// every smaller count measured passing too; absent when even the first point fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_users: Option<u32>,
    /// The knee: Kleinrock's optimal user count N*, rounded to the nearest user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee_users: Option<u32>,
    /// How the knee was found, from which demands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<Knee>,
}

/// Kleinrock's N* = (D + Z) / D_max: where the two asymptotes of the throughput curve meet,
/// N / (D + Z) (no queueing) and 1 / D_max (the bottleneck saturated). Fewer users leave the
/// bottleneck idle; more only queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    /// N*, unrounded.
    pub n_star: f64,
    /// D: a transaction's response time without queueing, ms (the smallest mean response
    /// time measured, normally at 1 user).
    pub demand_ms: f64,
    /// D_max: the bottleneck's service demand per transaction, ms (its utilisation divided
    /// by the throughput, for a station of several servers divided by their number).
    pub bottleneck_demand_ms: f64,
    /// The bottleneck: `cpu`, a device's name, another station's (`log writer`, `destage
    /// data-0`, `back-end loop0`, `controller 0 processors`), or `throughput` when no utilisation was
    /// measured or the throughput flattened short of what the measured stations allow (then
    /// D_max is 1 / the highest throughput measured, and N* a lower bound).
    pub bottleneck: String,
}

/// One user count of a users sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsersPoint {
    /// Users (database sessions), each thinking between transactions.
    pub users: u32,
    /// Transactions completed per second.
    pub tx_per_s: f64,
    /// Rows processed per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_per_s: Option<f64>,
    /// Transaction response time.
    pub response_ms: LatencySummaryMs,
    /// The chosen statistic is at or under the target.
    pub passes: bool,
    /// Host CPUs busy, percent (the database's CPU time over the CPUs' time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_util_pct: Option<f64>,
    /// The busiest devices, busiest first (at most three).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceUtil>,
    /// The other stations a transaction queues at, busiest first: a simulated database's log
    /// writer (one write at a time), each RAID group's destage (the way out of the write
    /// cache) and the array's components (back-end loops, controller processors, links).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stations: Vec<DeviceUtil>,
    /// The run was at steady state.
    pub steady: bool,
    /// The run was interrupted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// A device's (or another station's) busy time at one point of a users sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceUtil {
    /// Device name.
    pub name: String,
    /// Busy time, percent.
    pub util_pct: f64,
}
