use super::*;
use crate::rng::Rng;

fn hit_ratio(cache: &mut BufferCache, pages: u64, n: usize, rng: &mut Rng) -> f64 {
    let mut hits = 0;
    for _ in 0..n {
        if cache.access(rng.below(pages), false).hit {
            hits += 1;
        }
    }
    hits as f64 / n as f64
}

#[test]
fn uniform_access_hits_in_proportion_to_the_cached_share() {
    for (frames, pages) in [(1_000usize, 4_000u64), (3_000, 4_000), (500, 10_000)] {
        let mut c = BufferCache::new(frames, pages);
        let mut rng = Rng::from_seed(7);
        hit_ratio(&mut c, pages, 100_000, &mut rng);
        let h = hit_ratio(&mut c, pages, 200_000, &mut rng);
        let expect = frames as f64 / pages as f64;
        assert!(
            (h - expect).abs() < 0.02,
            "{frames}/{pages}: {h} vs {expect}"
        );
    }
}

#[test]
fn a_working_set_that_fits_stays_cached() {
    let mut c = BufferCache::new(2_000, 1_500);
    let mut rng = Rng::from_seed(3);
    hit_ratio(&mut c, 1_500, 20_000, &mut rng);
    assert_eq!(hit_ratio(&mut c, 1_500, 50_000, &mut rng), 1.0);
}

#[test]
fn clock_keeps_the_hot_set_against_a_cold_scan() {
    // 90% of accesses to 1,000 hot pages, 10% to 100,000 cold ones; 1,500 frames.
    let mut c = BufferCache::new(1_500, 101_000);
    let mut rng = Rng::from_seed(11);
    let mut hot_hits = 0;
    let mut hot = 0;
    for i in 0..300_000 {
        let hot_access = rng.below(10) < 9;
        let p = if hot_access {
            rng.below(1_000)
        } else {
            1_000 + rng.below(100_000)
        };
        let a = c.access(p, false);
        if i >= 100_000 && hot_access {
            hot += 1;
            hot_hits += u64::from(a.hit);
        }
    }
    let h = hot_hits as f64 / hot as f64;
    assert!(h > 0.97, "hot-set hit ratio {h}");
}

#[test]
fn the_likely_victim_is_the_next_one_taken_when_near_the_hand() {
    // A skewed mix over 1,000 frames: usage counts from 0 to 5 along the sweep.
    let mut c = BufferCache::new(1_000, 50_000);
    let mut rng = Rng::from_seed(5);
    let (mut near, mut far) = (0, 0);
    for _ in 0..100_000 {
        let guess = c.likely_victim();
        let taken = c.clone().victim(false).expect("a frame");
        let first = &c.frames[c.hand];
        if guess != c.hand || first.page == EMPTY || first.usage == 0 {
            // Found within the look-ahead: exactly the frame a sweep now takes.
            assert_eq!(guess, taken);
            near += 1;
        } else {
            // Not found: the sweep goes past the look-ahead, or all the way around
            // when no frame is at usage zero.
            let distance = (taken + c.frames.len() - c.hand) % c.frames.len();
            let all_used = c.frames.iter().all(|f| f.page != EMPTY && f.usage > 0);
            assert!(distance >= VICTIM_LOOKAHEAD || all_used);
            far += 1;
        }
        let p = if rng.below(4) == 0 {
            rng.below(50_000)
        } else {
            rng.below(800)
        };
        c.access(p, false);
    }
    assert!(near > 0 && far > 0, "near {near}, far {far}");
}

#[test]
fn dirty_victims_are_reported_and_cleaned_frames_are_not() {
    let mut c = BufferCache::new(4, 12);
    for p in 0..4 {
        assert!(!c.access(p, true).hit);
    }
    assert_eq!(c.dirty(), 4);
    // Every frame has usage 1: the sweep zeroes them all and takes frame 0 (page 0).
    assert_eq!(c.access(10, false).evicted_dirty, Some(0));
    assert_eq!(c.dirty(), 3);
    // The writer cleans what lies ahead of the hand; the next victims are then clean.
    let cleaned = c.clean_ahead(4, 8);
    assert_eq!(cleaned, vec![1, 2, 3]);
    assert_eq!(c.dirty(), 0);
    assert_eq!(c.access(11, false).evicted_dirty, None);
    assert!(c.contains(10) && c.contains(11));
}

#[test]
fn prefetch_tells_presence_and_changes_nothing() {
    let mut c = BufferCache::new(2, 10);
    c.access(3, true);
    c.access(4, false);
    for p in 0..10 {
        assert_eq!(c.prefetch(p), c.contains(p), "page {p}");
        c.prefetch_entry(p);
    }
    c.prefetch(99);
    c.prefetch_entry(99);
    // Usage counts untouched: both frames still have usage 1, so the sweep evicts 3.
    assert_eq!(c.access(5, false).evicted_dirty, Some(3));
}

/// The writer's scan against a frame-by-frame reference: the same pages, in clock order
/// from the hand (wrapping), at most `max`, within `lookahead` frames.
#[test]
fn clean_ahead_takes_the_next_cleanable_frames_from_the_hand() {
    let mut rng = Rng::from_seed(5);
    for round in 0..200 {
        // Up to 300 frames: ranges that start, end and wrap inside and across 64-frame
        // words of the dirty bitmap.
        let frames = 1 + rng.below(300) as usize;
        let mut c = BufferCache::new(frames, 1000);
        for _ in 0..rng.below(2000) {
            c.access(rng.below(1000), rng.below(3) == 0);
        }
        let (lookahead, max) = (rng.below(400) as usize, rng.below(60) as usize);
        let mut reference = c.clone();
        let mut expect = Vec::new();
        for i in 0..lookahead.min(frames) {
            let f = (reference.hand + i) % frames;
            if expect.len() < max && reference.is_dirty(f) && reference.frames[f].usage <= 1 {
                reference.set_dirty(f, false);
                expect.push(u64::from(reference.frames[f].page));
            }
        }
        let dirty_before = c.dirty();
        let got = c.clean_ahead(lookahead, max);
        assert_eq!(got, expect, "round {round}: hand {}", c.hand);
        assert_eq!(c.dirty(), dirty_before - got.len(), "round {round}");
        let still_dirty = (0..frames).filter(|&f| c.is_dirty(f)).count();
        assert_eq!(c.dirty(), still_dirty, "round {round}: dirty count");
    }
}

#[test]
fn checkpoint_writes_every_dirty_page_once_in_page_order() {
    let mut c = BufferCache::new(100, 100);
    for p in [50u64, 7, 99, 7, 3] {
        c.access(p, true);
    }
    c.access(60, false);
    assert_eq!(c.checkpoint(), vec![3, 7, 50, 99]);
    assert_eq!(c.dirty(), 0);
    assert!(c.checkpoint().is_empty());
}

/// Moves the hand on (a sweep for victims that loads nothing) until it has passed
/// `frame`. The other frames stay at usage zero, so the sweep passes `frame` once.
fn sweep_past(c: &mut BufferCache, frame: usize) {
    let n = c.frames.len() as u64;
    let target = c.swept + (frame as u64 + n - c.hand as u64) % n + 1;
    while c.swept < target {
        c.victim(false);
    }
}

/// A block changed once per round while in use (the hand passes it once a round, after
/// its change, leaving it at usage one) stays dirty under Oracle's writer, which writes
/// only the cold end: written far fewer times than changed (here never: that is the
/// checkpoint's work). PostgreSQL's cleaning of any buffer at usage one or less writes
/// it after every change.
#[test]
fn a_block_changed_again_and_again_while_in_use_is_written_far_less_often() {
    let (frames, hot) = (64usize, 1_000u64);
    let mut oracle = BufferCache::new(frames, 2_000);
    oracle.access(hot, true);
    for p in 1..frames as u64 {
        oracle.access(p, false);
    }
    // One sweep round: every frame to usage zero; then the block in use at usage one.
    oracle.victim(false);
    oracle.access(hot, true);
    let f = oracle.frame_of(hot).map_or(0, |f| f as usize);
    let mut postgres = oracle.clone();
    let (mut written_oracle, mut written_postgres, rounds) = (0, 0, 50);
    for _ in 0..rounds {
        for (c, written, is_oracle) in [
            (&mut oracle, &mut written_oracle, true),
            (&mut postgres, &mut written_postgres, false),
        ] {
            c.access(hot, true);
            let before = c.swept;
            sweep_past(c, f);
            assert_eq!(c.frames[f].usage, 1);
            let swept = (c.swept - before) as usize;
            let out = if is_oracle {
                c.clean_cold_end(2 * swept, usize::MAX)
            } else {
                c.clean_ahead(frames, 2 * swept)
            };
            *written += out.iter().filter(|&&p| p == hot).count();
            assert!(c.contains(hot), "the block in use was evicted");
        }
    }
    assert!(
        written_oracle * 10 <= rounds,
        "Oracle wrote the block {written_oracle} times in {rounds} changes"
    );
    assert_eq!(written_postgres, rounds, "PostgreSQL's writer");
    assert!(oracle.dirty_page(hot));
}

/// A dirty block no longer used reaches the cold end with usage zero: the writer's round
/// writes it before the sweep reuses its buffer, so the session taking the buffer finds
/// it clean.
#[test]
fn a_dirty_block_at_the_cold_end_is_written_before_its_buffer_is_reused() {
    let frames = 32usize;
    let mut c = BufferCache::new(frames, 1_000);
    for p in 0..frames as u64 {
        c.access(p, p == 5);
    }
    // One sweep round: every frame to usage zero, frame 0 taken; the hand at frame 1.
    c.access(100, false);
    assert_eq!(c.hand, 1);
    // The window of the next round's sweep holds page 5's frame: the round writes it.
    let written = c.clean_cold_end(8, usize::MAX);
    assert_eq!(written, vec![5]);
    assert!(!c.dirty_page(5));
    // Beyond the window the writer leaves dirty blocks alone.
    c.access(20, true);
    assert!(c.clean_cold_end(8, usize::MAX).is_empty());
    for p in 101..110 {
        assert_eq!(c.access(p, false).evicted_dirty, None, "page {p}");
    }
    assert!(!c.contains(5));
}

/// Oracle's foreground sweep: a dirty buffer reaching the cold end between the writer's
/// rounds goes to the write list and the session takes the next clean buffer, so it
/// never writes it itself; past the scan limit it takes the dirty one.
#[test]
fn the_sweep_moves_a_dirty_cold_buffer_to_the_write_list() {
    let frames = 10usize;
    let mut c = BufferCache::new(frames, 1_000);
    c.skip_dirty_victims(40);
    for p in 0..frames as u64 {
        c.access(p, p < 2);
    }
    // Every frame at usage one: the sweep zeroes them all, comes back to pages 0 and 1
    // (dirty): to the write list; page 2's buffer is taken.
    assert_eq!(c.access(100, false).evicted_dirty, None);
    assert_eq!(c.take_write_list(), vec![0, 1]);
    assert!(!c.contains(2) && c.contains(0) && !c.dirty_page(0));
    // Five dirty buffers in a row: four (40% of the frames) skipped, the fifth taken
    // dirty.
    let mut c = BufferCache::new(frames, 1_000);
    c.skip_dirty_victims(40);
    for p in 0..frames as u64 {
        c.access(p, p < 5);
    }
    assert_eq!(c.access(100, false).evicted_dirty, Some(4));
    assert_eq!(c.take_write_list(), vec![0, 1, 2, 3]);
}

/// The clock sweep a frame at a time, as PostgreSQL's StrategyGetBuffer does it: the victim
/// is the first frame from the hand at usage zero; each frame passed loses one count.
struct ReferenceClock {
    pages: Vec<Option<u64>>,
    usage: Vec<u8>,
    hand: usize,
    swept: u64,
}

impl ReferenceClock {
    fn access(&mut self, page: u64) -> bool {
        if let Some(f) = self.pages.iter().position(|&p| p == Some(page)) {
            self.usage[f] = (self.usage[f] + 1).min(MAX_USAGE);
            return true;
        }
        loop {
            let f = self.hand;
            self.hand = (self.hand + 1) % self.pages.len();
            self.swept += 1;
            if self.pages[f].is_none() || self.usage[f] == 0 {
                self.pages[f] = Some(page);
                self.usage[f] = 1;
                return false;
            }
            self.usage[f] -= 1;
        }
    }
}

/// The cache's sweep takes the same victims, leaves the same usage counts and passes the
/// same frames as the plain clock, step by step: with cache sizes from one frame up, the
/// hand wrapping, and hot pages at the usage cap that the hand passes many times.
#[test]
fn the_sweep_takes_the_victims_of_a_frame_at_a_time_clock() {
    let mut rng = Rng::from_seed(11);
    for frames in [1usize, 7, 8, 13, 64, 100] {
        let pages = 4 * frames as u64 + 5;
        let mut cache = BufferCache::new(frames, pages);
        let mut reference = ReferenceClock {
            pages: vec![None; frames],
            usage: vec![0; frames],
            hand: 0,
            swept: 0,
        };
        for step in 0..20_000 {
            // A quarter of the accesses go to a few hot pages, which climb to the cap.
            let page = if rng.below(4) == 0 {
                rng.below(3)
            } else {
                rng.below(pages)
            };
            let hit = cache.access(page, false).hit;
            assert_eq!(hit, reference.access(page), "{frames} frames, step {step}");
            assert_eq!(
                cache.swept(),
                reference.swept,
                "{frames} frames, step {step}"
            );
            assert_eq!(cache.hand, reference.hand, "{frames} frames, step {step}");
        }
        for (f, fr) in cache.frames.iter().enumerate() {
            let page = (fr.page != EMPTY).then_some(u64::from(fr.page));
            assert_eq!((page, fr.usage), (reference.pages[f], reference.usage[f]));
        }
    }
}
