//! What `[[host_ports]]` and `[[back_ends]]` share: named links, each with a bandwidth and
//! the members it carries (paths, disks). Names are unique, every member named exists, no
//! member is on two links, and each link has at least one member.

use super::ConfigError;

/// One link as written: its name, bandwidth (MB/s) and the entries naming its members.
pub(super) struct RawLink<'a> {
    pub name: &'a str,
    pub mbps: f64,
    pub members: &'a [String],
}

/// A link, resolved.
pub(super) struct Link {
    pub name: String,
    /// Nanoseconds per byte carried.
    pub ns_per_byte: f64,
    /// Indices of its members.
    pub members: Vec<u32>,
}

/// How a section names its links and their members in messages.
pub(super) struct Section<'a> {
    /// The file, for messages.
    pub file: &'a str,
    /// The section's key (`host_ports`).
    pub key: &'static str,
    /// Its links in words, plural (`host ports`).
    pub links: &'static str,
    /// The key of the members (`paths`).
    pub members_key: &'static str,
    /// A member in words (`path`).
    pub member: &'static str,
    /// How many members there are to name.
    pub count: usize,
}

/// Resolves `raw` in `section`: `find` gives the members one entry names (or the reason it
/// names none), `taken(member, link)` the reason a member already on `link` is refused.
pub(super) fn resolve_links(
    raw: &[RawLink],
    section: &Section,
    find: impl Fn(&str) -> Result<Vec<u32>, String>,
    taken: impl Fn(u32, &str) -> String,
) -> Result<Vec<Link>, ConfigError> {
    let mut owner: Vec<Option<usize>> = vec![None; section.count];
    let mut out: Vec<Link> = Vec::new();
    for (i, link) in raw.iter().enumerate() {
        let key = |k: &str| format!("{}[{i}].{k}", section.key);
        let bad = |k: &str, reason: String| ConfigError::invalid(section.file, key(k), reason);
        if out.iter().any(|o| o.name == link.name) {
            let reason = format!("two {} are named {:?}", section.links, link.name);
            return Err(bad("name", reason));
        }
        let mut members = Vec::new();
        for entry in link.members {
            for m in find(entry).map_err(|reason| bad(section.members_key, reason))? {
                if let Some(j) = owner[m as usize] {
                    return Err(bad(section.members_key, taken(m, raw[j].name)));
                }
                owner[m as usize] = Some(i);
                members.push(m);
            }
        }
        if members.is_empty() {
            let reason = format!("must name at least one {}", section.member);
            return Err(bad(section.members_key, reason));
        }
        out.push(Link {
            name: link.name.to_string(),
            ns_per_byte: 1e3 / link.mbps,
            members,
        });
    }
    Ok(out)
}
