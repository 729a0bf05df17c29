//! Where the database's further targets go: temp, and the log's further members; each a
//! target of its own, apart from the data and the log.

use super::{placement, Names};
use crate::config::workload::Placement;
use crate::config::{ConfigError, SystemSpec};

/// Where temp I/O goes when `[database] temp` names a target: one with no LUN of the data or
/// of the log (the default, the data target itself, is None).
pub(super) fn temp_placement(
    names: Option<Names>,
    data: &Placement,
    log: &Placement,
    system: &SystemSpec,
    file: &str,
) -> Result<Option<Placement>, ConfigError> {
    let Some(names) = names else {
        return Ok(None);
    };
    let t = placement(names, system, file, "temp")?;
    let used: Vec<u32> = data
        .member_luns(system)
        .into_iter()
        .chain(log.member_luns(system))
        .collect();
    if t.member_luns(system).iter().any(|l| used.contains(l)) {
        return Err(ConfigError::invalid(
            file,
            "database.temp",
            "shares LUNs with database.data or database.log; leave it out (temp then goes on \
             the data target) or name a target of its own",
        ));
    }
    Ok(Some(t))
}

/// The further log members: each a target of its own, with no LUN of the data, of the log
/// or of another member, and room for the log files.
pub(super) fn log_members(
    names: &[String],
    data: &Placement,
    log: &Placement,
    log_need: u64,
    system: &SystemSpec,
    file: &str,
) -> Result<Vec<Placement>, ConfigError> {
    let bad = |r: String| ConfigError::invalid(file, "database.log_members", r);
    let mut used: Vec<u32> = data
        .member_luns(system)
        .into_iter()
        .chain(log.member_luns(system))
        .collect();
    let mut members = Vec::new();
    for name in names {
        let m = placement(Names::One(name.clone()), system, file, "log_members")?;
        let luns = m.member_luns(system);
        if luns.iter().any(|l| used.contains(l)) {
            return Err(bad(format!(
                "{name:?} shares LUNs with database.data, database.log or another member; \
                 give each member a target of its own"
            )));
        }
        if m.bytes(system) < log_need {
            return Err(bad(format!(
                "{name:?} has {} bytes; the log files need {log_need}",
                m.bytes(system)
            )));
        }
        used.extend(luns);
        members.push(m);
    }
    Ok(members)
}
