//! The `[database]` documentation's section on why selects write: PostgreSQL's hint bits
//! and Oracle's write-ahead rule, with their keys, results and sources.

/// Why selects after updates write data and log.
pub(super) const SELECTS_WRITE: &str =
    "\n### Why selects write\n\nA select changes no row, yet on a database that updates \
    have just changed it writes data and log, as the studies' selects did (reference case \
    2: 2 to 3.5 MB/s of data and a few log writes a second). Two mechanisms do it:\n\n- \
    **PostgreSQL's hint bits.** A tuple's header carries hint bits saying that the \
    transaction that inserted or updated it committed. The transaction itself does not set \
    them: the first backend that examines the tuple after the commit (any visibility \
    check: a select, an update, a vacuum), once the commit record is flushed, looks the \
    transaction up in the commit log, sets the bits and marks the buffer dirty \
    (`MarkBufferDirtyHint`). A page that a transaction changed and the checkpointer or \
    background writer wrote before anyone read it again is therefore dirtied by its next \
    reader and written again. With data checksums or `wal_log_hints = on`, the first hint \
    set on a page whose buffer is clean and which no WAL record has touched since the last \
    checkpoint began also writes a full-page image of it to the WAL (`XLOG_FPI_FOR_HINT`). \
    The model keeps one bit per heap block (index pages carry no hint bits): a durable \
    commit sets it on the heap blocks the transaction changed; the next visit clears it, \
    and a read whose buffer is clean dirties the block, with an image of 8,242 bytes in \
    the WAL when hints are WAL-logged and the block was not changed since the last \
    checkpoint began. The WAL writer writes those images every 200 ms \
    (`wal_writer_delay`). A real page holding several unhinted tuples may be dirtied by \
    several single-row readers in turn; the model dirties it once (its count is a lower \
    bound there). Index `LP_DEAD` marks (`kill_prior_tuple`) are not modelled: an index \
    scan sets them only when every version of a row is dead to all transactions. The WAL \
    flush a backend or the writer does before writing a page whose image is not yet on \
    disk (`FlushBuffer`) is not modelled either. `data_checksums = \"initdb\"` (the \
    default) follows initdb's default for `postgresql_version`: on from PostgreSQL 18 \
    (commit 04bec894a04c, \"initdb: Change default to using data checksums\"; the 18 \
    release notes list it among the incompatibilities; initdb 18 offers \
    `--no-data-checksums`), off in 15 to 17 (`--data-checksums` turns them on); a \
    characterization captured from a server takes its `data_checksums` and \
    `server_version`. Results, among the workload's parameters: `hints_left_per_s`, \
    `hints_set_per_s`, `hint_dirtied_blocks_per_s`, `hint_fpi_per_s`, \
    `hint_fpi_bytes_per_s`, `hints_wal_logged`. Sources: PostgreSQL's \
    `heapam_visibility.c` (`SetHintBits`), `bufmgr.c` (`MarkBufferDirtyHint`), \
    `xloginsert.c` (`XLogSaveBufferForHint`: an image when the page LSN is at or before \
    the redo pointer).\n- **Oracle's delayed block cleanout and the write-ahead rule.** A \
    select that visits a block a commit left uncleaned cleans it out: it dirties the block \
    and generates redo (`db/cleanout.rs`). Before the database writer writes a block, the \
    redo of its last change must be on disk; when it is not, DBWR posts LGWR to write it \
    and waits (Oracle Database Concepts, \"Database Writer Process\" and \"Log Writer \
    Process\": the write-ahead protocol, and a DBW about to write a modified buffer is \
    among the reasons LGWR writes). The model tracks which blocks have redo not yet on \
    disk; the writer defers a write of such blocks, posts the log writer when that redo is \
    in no log write yet, goes on with its other writes, and writes the deferred ones once \
    the log write completes. So a select that cleans out blocks causes log writes beyond \
    the log writer's 3 s timeout. Results: `dbwr_log_posts_per_s` (log writes the writer \
    asked for), `dbwr_log_waits_per_s` (writes deferred) and `dbwr_log_wait_ms` (their \
    mean time deferred).\n\n```toml\n[database]\ntest = \"dpaws/select-row\"\nafter = \
    [\"dpaws/update-row\", \"dpaws/update-range\"]\ndata_checksums = \"on\"     # or \
    postgresql_version = 18\n```\n";
