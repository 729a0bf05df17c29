//! The iostat view in the result schema: one conversion for every real run (storlab io and
//! storlab db).

use storlab_core::host_stats::round3;
use storlab_core::result::{DeviceIostat, DeviceMetrics, IostatFigures};

use crate::diskstats::IostatSummary;

/// One sample's figures, rounded for the result.
pub fn figures(s: &IostatFigures) -> IostatFigures {
    s.map(round3)
}

/// A device's min/avg/max over the run.
pub fn schema_iostat(d: &IostatSummary) -> DeviceIostat {
    DeviceIostat {
        device: d.device.clone(),
        samples: d.samples,
        min: figures(&d.min),
        avg: figures(&d.avg),
        max: figures(&d.max),
    }
}

/// A device's whole-run figures as a `devices` entry (`model` says what it is, e.g. its role).
pub fn device_metrics(d: &IostatSummary, model: Option<String>) -> DeviceMetrics {
    let t = &d.total;
    let ops = t.r_s + t.w_s;
    DeviceMetrics {
        name: d.device.clone(),
        model,
        iops: round3(ops),
        read_iops: round3(t.r_s),
        write_iops: round3(t.w_s),
        mbps: round3(t.rmb_s + t.wmb_s),
        util_pct: round3(t.util_pct),
        await_ms: if ops > 0.0 {
            round3((t.r_await_ms * t.r_s + t.w_await_ms * t.w_s) / ops)
        } else {
            0.0
        },
        service_ms: None,
        queue_len: Some(round3(t.aqu_sz)),
    }
}
