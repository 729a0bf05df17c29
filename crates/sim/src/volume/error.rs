//! Validation errors of [`Volume::new`](super::Volume::new).

/// Why a [`Volume`](super::Volume) could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VolumeError {
    /// Too few members for the kind.
    #[error("{what} needs at least {min} member{}; got {got}", plural(.min))]
    TooFewMembers {
        what: &'static str,
        min: usize,
        got: usize,
    },
    /// Too many members (Multiplex copies are `u8`; member ids are `u32`).
    #[error("{what} can have at most {max} members; got {got}")]
    TooManyMembers {
        what: &'static str,
        max: usize,
        got: usize,
    },
    /// A member of size 0.
    #[error("members must have at least 1 sector; member {member} has 0")]
    EmptyMember { member: u32 },
    /// Stripe size not a power of two in `[8, 131072]`.
    #[error(
        "stripe size must be a power of two number of sectors from 8 (4 KiB) \
         to 131072 (64 MiB); got {got}"
    )]
    BadStripeSize { got: u64 },
    /// A striped volume's member smaller than one stripe.
    #[error(
        "members of a striped volume must be at least one stripe; \
         member {member} has {sectors} sectors"
    )]
    MemberSmallerThanStripe { member: u32, sectors: u64 },
    /// ASM copies other than 1, 2 or 3.
    #[error(
        "ASM copies must be 1 (external), 2 (normal) or 3 (high redundancy); \
         got {got}"
    )]
    BadCopies { got: u8 },
    /// ASM allocation unit not a power of two in `[2048, 131072]` sectors.
    #[error(
        "allocation unit must be a power of two from 1 MiB to 64 MiB \
         (2048 to 131072 sectors); got {got} sectors"
    )]
    BadAllocationUnit { got: u64 },
    /// Fewer failure groups than copies.
    #[error(
        "ASM {} redundancy needs at least {copies} failure groups; got {got}",
        redundancy(.copies)
    )]
    TooFewFailureGroups { copies: u8, got: usize },
    /// A failure group without disks.
    #[error("failure group {group} has no disks")]
    EmptyFailureGroup { group: u32 },
    /// Failure groups of different sizes.
    #[error("failure groups must have the same number of disks; got {first} and {other}")]
    UnequalFailureGroups { first: usize, other: usize },
    /// A failure group naming a member the volume does not have.
    #[error(
        "failure group {group} names member {member}, \
         but there are only {members} members"
    )]
    NoSuchMember {
        group: u32,
        member: u32,
        members: usize,
    },
    /// A member listed twice in one failure group.
    #[error("member {member} is listed twice in failure group {group}")]
    MemberRepeated { member: u32, group: u32 },
    /// A member in two failure groups.
    #[error("member {member} is in two failure groups ({first} and {second})")]
    MemberInTwoGroups {
        member: u32,
        first: u32,
        second: u32,
    },
    /// A member in no failure group.
    #[error("member {member} is in no failure group")]
    MemberInNoGroup { member: u32 },
    /// ASM members smaller than one AU per copy.
    #[error(
        "members too small for one allocation unit per copy: member {member} has \
         {sectors} sectors, needs at least {needed} ({copies} x {au_sectors})"
    )]
    MembersTooSmall {
        member: u32,
        sectors: u64,
        needed: u64,
        copies: u8,
        au_sectors: u64,
    },
    /// The capacity does not fit in a `u64` sector count.
    #[error("volume capacity overflows 64-bit sector addresses")]
    CapacityOverflow,
}

fn plural(n: &usize) -> &'static str {
    if *n == 1 {
        ""
    } else {
        "s"
    }
}

fn redundancy(copies: &u8) -> &'static str {
    match copies {
        1 => "external",
        2 => "normal",
        _ => "high",
    }
}
