//! Seeded random streams: the shared generator of storlab-core (so a profile draws the same
//! addresses in the simulator and on real storage).

pub use storlab_core::rng::*;
