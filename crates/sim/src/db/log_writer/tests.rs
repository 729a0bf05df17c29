use super::*;

fn cfg() -> LogConfig {
    LogConfig {
        block: 8192,
        max_write: 1 << 20,
        file_bytes: 16 << 20,
        groups: 3,
        members: 1,
        archive: false,
        buffer_bytes: 0,
        wastes_tail: false,
    }
}

#[test]
fn a_lone_committer_gets_one_write_per_commit() {
    let mut l = LogWriter::new(cfg());
    for i in 0..10 {
        let s = l.commit(0, 300);
        assert!(s.write.is_some(), "commit {i} starts a write");
        assert!(s.released.is_empty());
        let d = l.member_done();
        assert_eq!(d.released, vec![0]);
        assert!(d.write.is_none());
    }
    assert_eq!(l.writes, 10);
    assert_eq!(l.commits_per_write(), 1.0);
}

#[test]
fn a_commit_behind_the_write_in_flight_has_no_step() {
    let mut l = LogWriter::new(cfg());
    let first = l
        .commit_step(0, 500)
        .expect("the first commit starts a write");
    assert_eq!(first.write.map(|w| w.bytes), Some(8192));
    assert_eq!(l.commit_step(1, 500), None);
    assert_eq!(l.waiting(), 2);
    // The write in flight done, the waiting commit's write starts.
    let d = l.member_done();
    assert_eq!(d.released, vec![0]);
    assert!(d.write.is_some());
}

#[test]
fn commits_during_a_write_share_the_next_one() {
    let mut l = LogWriter::new(cfg());
    let first = l.commit(0, 500).write.unwrap();
    assert_eq!(
        first,
        LogWrite {
            offset: 0,
            bytes: 8192
        }
    );
    // Nine sessions commit while the first write is in flight: none starts a write.
    for s in 1..10 {
        assert!(l.commit(s, 500).write.is_none());
    }
    let d = l.member_done();
    assert_eq!(d.released, vec![0]);
    // One write carries all nine (5,000 bytes in the same 8 KiB block, rewritten).
    assert_eq!(
        d.write,
        Some(LogWrite {
            offset: 0,
            bytes: 8192
        })
    );
    let d = l.member_done();
    assert_eq!(d.released, (1..10).collect::<Vec<_>>());
    assert!(d.write.is_none());
    assert_eq!(l.writes, 2);
    assert_eq!(l.commits_per_write(), 5.0);
}

/// The released list's memory goes round: a commit's step (an empty list) given back
/// does not replace the grown one, so steady group commits stop allocating.
#[test]
fn recycled_release_lists_keep_their_memory() {
    let mut l = LogWriter::new(cfg());
    l.commit(0, 100);
    for s in 1..40 {
        l.commit(s, 100);
    }
    let first = l.member_done().released;
    l.recycle(first);
    let grown = l.member_done().released;
    assert_eq!(grown.len(), 39);
    let (ptr, cap) = (grown.as_ptr(), grown.capacity());
    l.recycle(grown);
    let c = l.commit(50, 100);
    assert!(c.released.is_empty());
    l.recycle(c.released);
    let next = l.member_done();
    assert_eq!(next.released, vec![50]);
    assert_eq!(
        (next.released.as_ptr(), next.released.capacity()),
        (ptr, cap)
    );
}

#[test]
fn multiplexed_members_release_only_when_every_copy_is_written() {
    let mut l = LogWriter::new(LogConfig {
        members: 2,
        ..cfg()
    });
    l.commit(4, 100);
    assert!(l.member_done().released.is_empty());
    assert_eq!(l.member_done().released, vec![4]);
    assert_eq!(l.bytes_written, 2 * 8192);
}

#[test]
fn writes_stop_at_file_ends_and_the_ring_wraps_with_switches_and_archives() {
    let c = LogConfig {
        file_bytes: 64 * 1024,
        groups: 2,
        max_write: 32 * 1024,
        archive: true,
        ..cfg()
    };
    let mut l = LogWriter::new(c);
    let mut offsets = Vec::new();
    let mut archived = Vec::new();
    // 40 KiB per commit, one at a time: writes of 32 KiB then the rest, never across a
    // file end.
    for _ in 0..8 {
        let mut s = l.commit(0, 40 * 1024);
        archived.extend(s.archive.iter().copied());
        loop {
            let w = s.write.expect("a write is pending while the session waits");
            assert!(w.offset % c.file_bytes + w.bytes <= c.file_bytes, "{w:?}");
            offsets.push(w.offset);
            s = l.member_done();
            archived.extend(s.archive.iter().copied());
            if s.released == vec![0] {
                break;
            }
        }
    }
    // 320 KiB of log over a ring of two 64 KiB files: five file ends, five switches.
    assert_eq!(l.switches, 5);
    assert!(offsets.iter().all(|&o| o < 2 * c.file_bytes));
    assert!(offsets.windows(2).any(|w| w[1] < w[0]), "the ring wraps");
    assert_eq!(archived.first(), Some(&(0, 0)));
    assert_eq!(archived.len(), 5);
    assert!(archived
        .iter()
        .all(|&(f, off)| off == u64::from(f) * c.file_bytes));
}

#[test]
fn a_partly_filled_last_block_does_not_switch_until_the_log_reaches_the_file_end() {
    let c = LogConfig {
        file_bytes: 64 * 1024,
        groups: 2,
        archive: true,
        ..cfg()
    };
    let mut l = LogWriter::new(c);
    // 60 KiB of log: the write rounds up to the file end (64 KiB) but the file is not full.
    let s = l.commit(0, 60 * 1024);
    assert_eq!(s.write.unwrap().bytes, 64 * 1024);
    assert!(s.archive.is_empty());
    assert_eq!(l.switches, 0);
    l.member_done();
    // 4 KiB more fill it: the rewrite of the last block is the switch.
    let s = l.commit(0, 4 * 1024);
    assert_eq!(s.write.unwrap().offset, 56 * 1024);
    assert_eq!(s.archive, vec![(0, 0)]);
    assert_eq!(l.switches, 1);
}

fn oracle() -> LogConfig {
    LogConfig {
        block: 512,
        max_write: 1 << 20,
        buffer_bytes: 3 << 20,
        wastes_tail: true,
        ..cfg()
    }
}

/// Oracle: each write starts on a fresh redo block; the rest of the last one is redo
/// wastage, never written again. PostgreSQL's writer rewrites the partly filled page.
#[test]
fn oracle_skips_the_rest_of_the_last_redo_block_and_never_rewrites_it() {
    let mut ora = LogWriter::new(oracle());
    let mut pg = LogWriter::new(LogConfig {
        wastes_tail: false,
        ..oracle()
    });
    let (mut ora_writes, mut pg_writes) = (Vec::new(), Vec::new());
    // One committer at a time, 320 bytes of redo each.
    for _ in 0..4 {
        ora_writes.push(ora.commit(0, 320).write.expect("a write"));
        ora.member_done();
        pg_writes.push(pg.commit(0, 320).write.expect("a write"));
        pg.member_done();
    }
    let at = |w: &[LogWrite]| w.iter().map(|w| (w.offset, w.bytes)).collect::<Vec<_>>();
    assert_eq!(
        at(&ora_writes),
        [(0, 512), (512, 512), (1024, 512), (1536, 512)]
    );
    assert_eq!(
        (ora.bytes_written, ora.wasted, ora.lsn()),
        (2048, 768, 2048)
    );
    // The partly filled block again at the start of each write: 640 = 2 blocks, ...
    assert_eq!(
        at(&pg_writes),
        [(0, 512), (0, 1024), (512, 512), (512, 1024)]
    );
    assert_eq!((pg.bytes_written, pg.wasted, pg.lsn()), (3072, 0, 1280));
    // Group commit: ten commits of 320 bytes behind a write go in one write of their
    // 3,200 bytes rounded up to whole blocks (3,584), from the next block boundary.
    let first = ora.commit(0, 320).write.expect("a write");
    for s in 1..=10 {
        assert!(ora.commit(s, 320).write.is_none());
    }
    let next = ora.member_done().write.expect("the group's write");
    assert_eq!((first.offset, next.offset, next.bytes), (2048, 2560, 3584));
    assert_eq!(ora.member_done().released, (1..=10).collect::<Vec<_>>());
    assert_eq!(ora.wasted, 768 + 192 + 384);
}

#[test]
fn a_third_of_the_log_buffer_starts_a_write_and_only_that_does() {
    let mut l = LogWriter::new(oracle());
    // 768 KiB unwritten: under a third of 3 MiB, no write.
    for _ in 0..3 {
        assert_eq!(l.append(256 << 10).write, None);
    }
    // 1 MiB: a write of it.
    let w = l.append(256 << 10).write.expect("a third full");
    assert_eq!((w.offset, w.bytes), (0, 1 << 20));
    // More redo while it is in flight waits for it.
    assert_eq!(l.append(512 << 10).write, None);
    // Done: 512 KiB unwritten, no commit waiting: the writer sleeps.
    let d = l.member_done();
    assert!(d.completed && d.write.is_none());
    // Its timeout writes what is there.
    let t = l.timeout().write.expect("the timeout writes");
    assert_eq!((t.offset, t.bytes), (1 << 20, 512 << 10));
    assert!(l.member_done().completed);
    assert_eq!(l.timeout().write, None, "nothing left to write");
}

#[test]
fn the_buffer_takes_redo_until_it_is_full_and_frees_it_when_written() {
    let mut l = LogWriter::new(LogConfig {
        buffer_bytes: 64 << 10,
        ..oracle()
    });
    assert!(l.fits(1 << 30), "an empty buffer takes any record");
    let w = l.append(30 << 10).write.expect("a third full");
    assert_eq!(w.bytes, 30 << 10);
    assert!(l.fits(34 << 10) && !l.fits((34 << 10) + 1));
    l.append(34 << 10);
    assert!(!l.fits(1), "full while the write is in flight");
    assert!(
        l.member_done().write.is_some(),
        "the rest is a third: written"
    );
    assert!(l.fits(30 << 10) && !l.fits((30 << 10) + 1));
    l.member_done();
    assert!(l.fits(64 << 10));
    assert!(LogWriter::new(cfg()).fits(u64::MAX), "no buffer, no limit");
}

#[test]
fn without_a_log_buffer_appends_never_start_a_write() {
    let mut l = LogWriter::new(cfg());
    assert_eq!(l.append(64 << 20).write, None);
    assert!(l.timeout().write.is_some(), "a timeout still writes");
}

/// The database writer's post (Oracle's write-ahead rule): with no write in flight it starts
/// one now; behind a write in flight the next write follows that write's completion, though
/// no commit waits and the log buffer is far from a third full.
#[test]
fn a_post_writes_the_redo_so_far_now_or_right_after_the_write_in_flight() {
    let mut l = LogWriter::new(LogConfig {
        block: 512,
        buffer_bytes: 8 << 20,
        wastes_tail: true,
        ..cfg()
    });
    l.append(1000);
    let now = l.post();
    assert_eq!(now.write.map(|w| w.bytes), Some(1024));
    assert_eq!(l.writing_to(), Some(l.lsn()));
    l.append(3000);
    assert!(l.post().write.is_none(), "a write is in flight");
    let next = l.member_done();
    assert!(next.completed);
    assert_eq!(next.write.map(|w| w.bytes), Some(3072));
    assert!(l.member_done().write.is_none(), "nothing more was posted");
    assert_eq!(l.writing_to(), None);
}

/// Without a log buffer, background appends wait for the writer's round (PostgreSQL's WAL
/// writer), which writes all of them, in as many writes as the largest write needs; a
/// commit's write carries them along.
#[test]
fn background_appends_wait_for_the_writers_round_then_all_go() {
    let mut l = LogWriter::new(cfg());
    l.append_background(3 << 20);
    assert_eq!(l.writing_to(), None, "no write of its own");
    let mut writes = vec![l.timeout().write.map(|w| w.bytes)];
    loop {
        let d = l.member_done();
        match d.write {
            Some(w) => writes.push(Some(w.bytes)),
            None => break,
        }
    }
    assert_eq!(writes, [Some(1 << 20); 3]);
    l.append_background(100);
    let c = l.commit(0, 50);
    assert_eq!(
        c.write.map(|w| w.bytes),
        Some(8192),
        "the commit's write carries it"
    );
    assert_eq!(l.member_done().released, [0]);
}
