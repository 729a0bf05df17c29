//! Where a report's block changes fall: each table and index segment's share of the changes
//! and the set of blocks that takes them, calibrated from the tablespaces' writes (Tablespace
//! IO Stats) and the checkpoint lag the report's log implies.
//!
//! Oracle writes a changed block once the incremental checkpoint passes its first change, which
//! trails the end of the log by at most 90% of the smallest online log file (and by at most
//! `log_checkpoint_timeout` seconds when set): a lag of `L = 0.9 × log file / redo per second`
//! seconds. A set of `S` blocks taking `c` changes a second evenly sees each block changed
//! about every `S / c` seconds; changed, it is written `D` seconds later and is clean until
//! its next change: one write per `S / c + D` seconds, `w = S / (S / c + D)` writes a second
//! for the set. `D` is the lag `L`, or less when the block leaves the cache first: a dirty
//! block that reaches the cold end is written as it is evicted. How long a block stays comes
//! from how the simulated cache holds its segment (the fit that sizes the segments:
//! [`crate::sizing`]), as the expected time to the earlier of the two (the changes are visits
//! too, and keep the set's blocks longer). Given a segment's
//! writes `w` (its tablespace's, in blocks: Tablespace IO Stats count write requests, so they
//! are scaled to sum to the Load Profile's physical writes; split over the tablespace's table
//! and index segments by access share) and its changes `c` (the transactions' changed blocks,
//! split by the segments' writes), `S = w D / (1 - w / c)`; when `w ≥ c` every change is
//! written on its own and the whole segment takes the changes.
//!
//! The changes `c` are the table and index blocks' (the transactions' `blocks_changed`,
//! without the undo's: [`without_undo`]); the undo tablespace's writes are the simulated
//! undo's own. The sets are a calibration (what reproduces the report's writes under Oracle's
//! checkpoint rule), not a fact the report states, and a note says so; without the log
//! switches or the tablespace writes the changes stay the transactions' first visits.

use storlab_core::character::{Characterization, SegmentKind, ORACLE_UNDO_UPDATE_RECORD_BYTES};
use storlab_core::ByteSize;

/// Share of the smallest online log file the incremental checkpoint may trail the log's end
/// (Oracle's 90% rule).
const LAG_SHARE_OF_LOG_FILE: f64 = 0.9;

/// Changes of the undo segment's header per transaction: its transaction table slot taken at
/// the first change and marked committed at the commit.
const UNDO_HEADER_CHANGES: f64 = 2.0;

/// A report's block changes and redo per transaction without the undo's, as the simulated
/// Oracle plans a transaction (it adds the undo itself): Oracle's `db block changes` counts
/// each change vector applied to a block, and each changed table or index block comes with
/// the undo record that can put it back, itself a change to an undo block (Lewis, *Oracle
/// Core*, ch. 2), besides the two changes of the undo segment's header; so `B` block changes
/// hold `d = (B - 2) / 2` data changes. The redo size holds the undo records' redo, about the
/// records themselves: `d` × [`ORACLE_UNDO_UPDATE_RECORD_BYTES`] come off it.
pub(crate) fn without_undo(
    db_block_changes: f64,
    redo_bytes: f64,
    warnings: &mut Vec<String>,
) -> (f64, f64) {
    if db_block_changes <= 0.0 {
        return (0.0, redo_bytes.max(0.0));
    }
    let data = ((db_block_changes - UNDO_HEADER_CHANGES) / 2.0).max(0.0);
    let undo_redo = data * ORACLE_UNDO_UPDATE_RECORD_BYTES as f64;
    let redo = (redo_bytes - undo_redo).max(0.0);
    warnings.push(format!(
        "of {db_block_changes:.1} block changes a transaction, {data:.1} are of table and index \
         blocks (the rest their undo records and the undo header's, which the simulated \
         database adds); of {redo_bytes:.0} redo bytes, {undo_redo:.0} are the undo's"
    ));
    (data, redo)
}

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

/// Each table and index segment's writes a second, in blocks: its tablespace's Writes (write
/// requests, as Tablespace IO Stats count them), scaled so that the tablespaces' writes sum
/// to the Load Profile's physical writes (blocks), and split over the tablespace's table and
/// index segments by share.
fn segment_writes(c: &Characterization) -> Vec<f64> {
    let takes = |k: SegmentKind| matches!(k, SegmentKind::Table | SegmentKind::Index);
    let Some(o) = c.observed.as_ref() else {
        return vec![0.0; c.segments.len()];
    };
    let elapsed = o.elapsed_s.filter(|e| *e > 0.0);
    let rate = |io: &storlab_core::character::IoStat| {
        io.writes_per_s
            .or_else(|| Some(io.writes? / elapsed?))
            .unwrap_or(0.0)
            .max(0.0)
    };
    let requests: f64 = o.tablespaces.iter().map(rate).sum();
    let blocks_per_request = match o.physical_writes_per_s {
        Some(blocks) if requests > 0.0 && blocks > 0.0 => blocks / requests,
        _ => 1.0,
    };
    c.segments
        .iter()
        .map(|s| {
            if !takes(s.kind) {
                return 0.0;
            }
            let Some(io) = o.tablespaces.iter().find(|t| t.tablespace == s.tablespace) else {
                return 0.0;
            };
            let in_tablespace: f64 = c
                .segments
                .iter()
                .filter(|x| takes(x.kind) && x.tablespace == s.tablespace)
                .map(|x| x.share)
                .sum();
            if in_tablespace > 0.0 {
                rate(io) * blocks_per_request * s.share / in_tablespace
            } else {
                0.0
            }
        })
        .collect()
}

/// Seconds from a change of a block of segment `i` to its write: the checkpoint lag, or its
/// eviction from the simulated cache when that comes first (the cold end writes it), from
/// how the cache holds the segment ([`crate::sizing::clock_fit`]) with `extra_per_s` more
/// visits a second to each block (the changes, on the blocks of a change set); the lag itself
/// without a fit.
fn write_delay_s(
    fit: Option<&crate::sizing::ClockFit>,
    i: usize,
    lag: f64,
    extra_per_s: f64,
) -> f64 {
    let Some(fit) = fit.filter(|f| f.r > 0.0) else {
        return lag;
    };
    match fit.segments.iter().find(|s| s.0 == i) {
        Some(&(_, _, a)) => {
            let a = a + fit.r * extra_per_s.max(0.0);
            fit.r * crate::sizing::clock::passes_to_write(a, lag / fit.r)
        }
        None => lag,
    }
}

/// Blocks of the change set that writes `w` blocks a second of `c` changes a second on
/// segment `i`, and the delay to a change's write: `S = w D / (1 - w / c)`, where `D` depends on
/// `S` (the changes are visits too, `c / S` a second to each block of the set): the fixed
/// point, from `D` = the lag.
fn change_set(
    fit: Option<&crate::sizing::ClockFit>,
    i: usize,
    lag: f64,
    w: f64,
    c: f64,
) -> (f64, f64) {
    let set = |delay: f64| (w * delay / (1.0 - w / c)).clamp(1.0, MAX_SET_BLOCKS);
    let mut delay = lag;
    let mut blocks = set(delay);
    for _ in 0..FIXED_POINT_STEPS {
        let next = write_delay_s(fit, i, lag, c / blocks);
        if !next.is_finite() {
            // A fit the chain cannot follow: the lag alone.
            return (set(lag).ceil(), lag);
        }
        delay = next;
        blocks = set(delay);
    }
    (blocks.ceil(), delay)
}

/// Largest change set, blocks (of 8 KiB: 1 PiB, a change set's bound).
const MAX_SET_BLOCKS: f64 = (1u64 << 37) as f64;

/// Steps of the change set's fixed point (it settles within a block in a few).
const FIXED_POINT_STEPS: usize = 20;

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
    let tps = c
        .observed
        .as_ref()
        .and_then(|o| o.transactions_per_s)
        .unwrap_or(0.0);
    let changes: f64 = c
        .transactions
        .iter()
        .map(|t| t.weight * t.blocks_changed * tps)
        .sum();
    let writes = segment_writes(c);
    let total: f64 = writes.iter().sum();
    if total <= 0.0 || changes <= 0.0 {
        warnings.push(
            "no writes in Tablespace IO Stats or no block changes: the changes fall on each \
             transaction's first visits"
                .into(),
        );
        return;
    }
    let fit = crate::sizing::clock_fit(c);
    let block = f64::from(c.block_bytes);
    let mut notes = Vec::new();
    for (i, (s, &w)) in c.segments.iter_mut().zip(&writes).enumerate() {
        if w <= 0.0 {
            continue;
        }
        let share = w / total;
        let rate = changes * share;
        s.change_share = Some(share);
        if w < rate {
            let (blocks, delay) = change_set(fit.as_ref(), i, lag, w, rate);
            s.change_set = Some(ByteSize((blocks * block) as u64));
            notes.push(format!(
                "{} {share:.3} of them on {blocks:.0} blocks (written {delay:.0} s after a \
                 change)",
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
         {lag:.0} s (90% of a log file over the redo rate) or the cache's eviction, whichever \
         comes first (a calibration): {changes:.0} a second, {}",
        notes.join(", ")
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 20 block changes a transaction: 2 of the undo header, 9 undo records and the 9 table
    /// and index changes they undo; of 7,500 redo bytes, the 9 undo records' 120 bytes each.
    #[test]
    fn the_undo_comes_off_the_changes_and_the_redo() {
        let mut notes = Vec::new();
        assert_eq!(without_undo(20.0, 7500.0, &mut notes), (9.0, 6420.0));
        assert_eq!(notes.len(), 1);
        // Fewer changes than the header's: none of table or index blocks.
        assert_eq!(without_undo(1.5, 100.0, &mut notes), (0.0, 100.0));
        // No changes: the redo as it is, and no note.
        assert_eq!(without_undo(0.0, 100.0, &mut notes), (0.0, 100.0));
        assert_eq!(notes.len(), 2);
    }

    /// The delay to a changed block's write: the whole lag for a block that stays (visited
    /// often between passes of the hand), less for one the cache evicts sooner, and the lag
    /// itself without a fit.
    #[test]
    fn a_block_evicted_before_the_lag_is_written_sooner() {
        let fit = |a: f64| crate::sizing::ClockFit {
            r: 10.0,
            segments: vec![(0, 1.0, a)],
        };
        let lag = 200.0;
        let hot = write_delay_s(Some(&fit(20.0)), 0, lag, 0.0);
        let cold = write_delay_s(Some(&fit(0.5)), 0, lag, 0.0);
        assert!((hot - lag).abs() < 1.0, "{hot}");
        assert!(cold < 0.5 * lag, "{cold}");
        // The changes' own visits keep a block longer.
        assert!(write_delay_s(Some(&fit(0.5)), 0, lag, 0.05) > cold);
        assert_eq!(write_delay_s(None, 0, lag, 0.0), lag);
        assert_eq!(write_delay_s(Some(&fit(0.5)), 3, lag, 0.0), lag);
        // The change set's fixed point: S = w D / (1 - w / c) with D at S's own visits.
        let (blocks, delay) = change_set(Some(&fit(0.5)), 0, lag, 40.0, 100.0);
        let again = write_delay_s(Some(&fit(0.5)), 0, lag, 100.0 / blocks);
        assert!((delay / again - 1.0).abs() < 1e-3, "{delay} {again}");
        assert!(
            (blocks / (40.0 * delay / 0.6) - 1.0).abs() < 1e-3,
            "{blocks}"
        );
    }
}
