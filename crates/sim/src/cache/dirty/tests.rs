use super::DirtyPages;

/// Dirty pages far apart in a group of 2^37 pages (summary words of every level between
/// them, empty ones among them) are found in address order, wrapping to the start, and
/// each summary level empties as its last page leaves.
#[test]
fn sparse_pages_of_a_large_group_are_found_in_order() {
    let mut d = DirtyPages::new(1 << 37);
    let pages = [
        5,
        4_095,
        4_096,
        1 << 18,
        (1 << 24) + 3,
        1 << 30,
        (1 << 37) - 1,
    ];
    for p in pages {
        assert_eq!(d.write(p, p + 1), 1);
    }
    let mut found = Vec::new();
    let mut cursor = 1 << 20;
    while let Some((first, count)) = d.take_run(cursor, 8) {
        assert_eq!(count, 1);
        found.push(first);
        cursor = first + 1;
    }
    let mut expected = pages[4..].to_vec();
    expected.extend(&pages[..4]);
    assert_eq!(found, expected);
    for p in pages {
        assert_eq!(d.destaged(p, 1), 1);
    }
    assert!(d.is_empty());
    assert_eq!(d.peek_run(0, 8), None);
    // Every other page dirty again: found from the start and after each, wrapping.
    for p in pages.iter().step_by(2) {
        assert_eq!(d.write(*p, p + 1), 1);
    }
    let next = |from: u64| d.peek_run(from, 8).map(|r| r.0);
    assert_eq!(next(0), Some(pages[0]));
    assert_eq!(next(pages[0] + 1), Some(pages[2]));
    assert_eq!(next(pages[2] + 1), Some(pages[4]));
    assert_eq!(next(pages[4] + 1), Some(pages[6]));
    assert_eq!(next(pages[6] + 1), Some(pages[0]));
}

/// In a group of the largest size, a cursor left at the group's end (after its last
/// page) wraps to the start instead of reading past the summaries or looking up the
/// word map's empty key.
#[test]
fn a_cursor_at_the_end_of_the_largest_group_wraps() {
    let end = DirtyPages::MAX_PAGES;
    let mut d = DirtyPages::new(end);
    let near_end = end - 65;
    assert_eq!(d.write(near_end, near_end + 1), 1);
    assert_eq!(d.write(7, 8), 1);
    assert_eq!(d.take_run(end, 8), Some((7, 1)));
    assert_eq!(d.take_run(8, 8), Some((near_end, 1)));
    assert_eq!(d.peek_run(end, 8), None);
    assert_eq!(d.peek_run(end + 64, 8), None);
}

/// The last page of the largest group is kept like any other while the table grows
/// around it: found, destaged and dropped (its word, 2^32 - 2, is a key of the map).
#[test]
fn the_last_page_of_the_largest_group_stays_dirty_until_destaged() {
    let end = DirtyPages::MAX_PAGES;
    let mut d = DirtyPages::new(end);
    let last = end - 1;
    assert_eq!(d.write(last, end), 1);
    // Enough other words to make the map grow several times.
    for w in 0..1000u64 {
        assert_eq!(d.write(w * 4096, w * 4096 + 1), 1);
    }
    assert!(d.contains(last) && d.covers(last, end));
    assert_eq!(d.count_clean(end - 64, end), 63);
    assert_eq!(d.peek_run(last, 8), Some((last, 1)));
    assert_eq!(d.take_run(999 * 4096 + 1, 8), Some((last, 1)));
    assert_eq!(d.write(last, end), 0);
    assert_eq!(d.destaged(last, 1), 0, "written again while destaging");
    assert_eq!(d.take_run(end, 8), Some((0, 1)));
    // The 999 idle pages of the other words and the last page; page 0 is destaging.
    assert_eq!(d.drop_idle(), 1000);
    assert!(!d.contains(last));
    assert_eq!(d.len(), 1);
}

#[test]
#[should_panic(expected = "too large")]
fn a_group_past_the_largest_is_refused() {
    DirtyPages::new(DirtyPages::MAX_PAGES + 1);
}
