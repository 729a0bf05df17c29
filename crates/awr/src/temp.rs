//! Temp I/O per transaction from a report: the bytes sorts and hash joins wrote to temp
//! segments (and read back). Instance Activity Stats give them exactly: `physical writes
//! direct temporary tablespace` (blocks) times the block size. Without that statistic the
//! `direct path write temp` event's waits stand in: one wait per direct write of
//! [`TEMP_WRITE_BYTES_ESTIMATE`], an estimate the report's notes say is one.

use crate::build::Ctx;

/// Bytes of one `direct path write temp` when only the event's waits are known: Oracle's
/// direct writes of sort runs and hash partitions are at most 1 MiB (the platform's largest
/// efficient I/O); an estimate, named in the warnings.
pub(crate) const TEMP_WRITE_BYTES_ESTIMATE: f64 = (1 << 20) as f64;

/// The statistic of temp blocks written (Instance Activity Stats, lower case).
const WRITES_STAT: &str = "physical writes direct temporary tablespace";
/// The foreground wait event of temp writes.
const WRITE_EVENT: &str = "direct path write temp";

/// Temp bytes per transaction, 0 when the report shows no temp I/O.
pub(crate) fn temp_bytes(cx: &mut Ctx, block_bytes: u32) -> f64 {
    let transactions = cx.f.elapsed_s.map(|e| e * cx.tps).filter(|n| *n > 0.0);
    let Some(n) = transactions else {
        return 0.0;
    };
    if let Some(blocks) = cx.stat(WRITES_STAT) {
        return blocks * f64::from(block_bytes) / n;
    }
    let waits =
        cx.f.events
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(WRITE_EVENT))
            .and_then(|e| e.waits);
    match waits {
        Some(w) if w > 0.0 => {
            cx.warnings.push(format!(
                "temp_bytes estimated from the {WRITE_EVENT:?} waits at 1 MiB a write (no \
                 {WRITES_STAT:?} in Instance Activity Stats)"
            ));
            w * TEMP_WRITE_BYTES_ESTIMATE / n
        }
        _ => 0.0,
    }
}
