//! Where a report's block changes fall: each table and index segment's share of the changes
//! and the set of blocks that takes them, calibrated from the tablespaces' writes (Tablespace
//! IO Stats) and the checkpoint lag the report's log implies.
//!
//! Oracle writes a changed block once the incremental checkpoint passes its first change, which
//! trails the end of the log by at most 90% of the smallest online log file (and by at most
//! `log_checkpoint_timeout` seconds when set): a lag of `L = 0.9 × log file / redo per second`
//! seconds. A set of `S` blocks taking `c` changes a second evenly sees each block changed
//! about every `S / c` seconds; changed, it is written `L` seconds later and is clean until
//! its next change: one write per `S / c + L` seconds, `w = S / (S / c + L)` writes a second
//! for the set. Given a segment's writes `w` (its tablespace's, split over the tablespace's
//! table and index segments by access share) and its changes `c` (the transactions' changed
//! blocks, split by the segments' writes), `S = w L / (1 - w / c)`; when `w ≥ c` every change
//! is written on its own and the whole segment takes the changes.
//!
//! The sets are a calibration (what reproduces the report's writes under Oracle's checkpoint
//! rule), not a fact the report states; without the log switches or the tablespace writes the
//! changes stay the transactions' first visits.

use storlab_core::character::{Characterization, SegmentKind};
use storlab_core::ByteSize;

/// Share of the smallest online log file the incremental checkpoint may trail the log's end
/// (Oracle's 90% rule).
const LAG_SHARE_OF_LOG_FILE: f64 = 0.9;

/// The checkpoint lag in seconds `c`'s log file size and checkpoint timeout imply at its
/// redo rate; None without a log file size or a redo rate.
pub fn checkpoint_lag_s(c: &Characterization) -> Option<f64> {
    let setting = |k: &str| c.instance.settings.get(k)?.trim().parse::<f64>().ok();
    let file = setting("log_file_size").filter(|b| *b > 0.0)?;
    let redo = c.observed.as_ref()?.redo_bytes_per_s.filter(|r| *r > 0.0)?;
    let lag = LAG_SHARE_OF_LOG_FILE * file / redo;
    Some(
        match setting("log_checkpoint_timeout").filter(|t| *t > 0.0) {
            Some(t) => lag.min(t),
            None => lag,
        },
    )
}

/// Fills in each table and index segment's `change_share` and `change_set` (see the module
/// doc); a note in `warnings` says what was derived or why nothing was.
pub(crate) fn derive(c: &mut Characterization, warnings: &mut Vec<String>) {
    let Some(lag) = checkpoint_lag_s(c) else {
        warnings.push(
            "no log switches (Thread Activity) or no redo rate: the changes fall on each \
             transaction's first visits"
                .into(),
        );
        return;
    };
    let Some(o) = c.observed.as_ref() else {
        return;
    };
    let tps = o.transactions_per_s.unwrap_or(0.0);
    let elapsed = o.elapsed_s.filter(|e| *e > 0.0);
    let changes: f64 = c
        .transactions
        .iter()
        .map(|t| t.weight * t.blocks_changed * tps)
        .sum();
    let takes = |k: SegmentKind| matches!(k, SegmentKind::Table | SegmentKind::Index);
    let writes: Vec<f64> = c
        .segments
        .iter()
        .map(|s| {
            if !takes(s.kind) {
                return 0.0;
            }
            let Some(io) = o.tablespaces.iter().find(|t| t.tablespace == s.tablespace) else {
                return 0.0;
            };
            let w = io
                .writes_per_s
                .or_else(|| Some(io.writes? / elapsed?))
                .unwrap_or(0.0)
                .max(0.0);
            let in_tablespace: f64 = c
                .segments
                .iter()
                .filter(|x| takes(x.kind) && x.tablespace == s.tablespace)
                .map(|x| x.share)
                .sum();
            if in_tablespace > 0.0 {
                w * s.share / in_tablespace
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = writes.iter().sum();
    if total <= 0.0 || changes <= 0.0 {
        warnings.push(
            "no writes in Tablespace IO Stats or no block changes: the changes fall on each \
             transaction's first visits"
                .into(),
        );
        return;
    }
    let block = f64::from(c.block_bytes);
    let mut notes = Vec::new();
    for (s, &w) in c.segments.iter_mut().zip(&writes) {
        if w <= 0.0 {
            continue;
        }
        let share = w / total;
        let rate = changes * share;
        s.change_share = Some(share);
        if w < rate {
            let blocks = (w * lag / (1.0 - w / rate)).ceil().max(1.0);
            s.change_set = Some(ByteSize((blocks * block) as u64));
            notes.push(format!(
                "{} {share:.3} of them on {blocks:.0} blocks",
                s.name
            ));
        } else {
            notes.push(format!("{} {share:.3} of them, anywhere", s.name));
        }
    }
    // The shares sum to 1 exactly despite rounding: the largest takes the remainder.
    let sum: f64 = c.segments.iter().filter_map(|s| s.change_share).sum();
    if let Some(top) = c
        .segments
        .iter_mut()
        .filter(|s| s.change_share.is_some())
        .max_by(|a, b| {
            let share = |s: &&mut storlab_core::character::Segment| s.change_share.unwrap_or(0.0);
            share(a).total_cmp(&share(b))
        })
    {
        top.change_share = top.change_share.map(|x| (x + 1.0 - sum).clamp(0.0, 1.0));
    }
    warnings.push(format!(
        "block changes placed to reproduce the tablespaces' writes with a checkpoint lag of \
         {lag:.0} s (90% of a log file over the redo rate; a calibration): {changes:.0} a \
         second, {}",
        notes.join(", ")
    ));
}
