//! Building blocks of the simulated database (issue 6): the buffer cache and the schema
//! arithmetic that turns a suite's tables into block counts and B-tree depths. The sessions,
//! database writer and log writer that drive them through the simulated stack come next.

pub mod buffer_cache;
pub mod schema;

pub use buffer_cache::{Access, BufferCache};
pub use schema::{btree_levels, heap_blocks, Table};
