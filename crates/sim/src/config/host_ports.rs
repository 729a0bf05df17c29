//! `[[host_ports]]`: the array's host (front-end) ports, each with a bandwidth and the paths
//! that reach it. A transfer on a path occupies the path and its port together: the port's
//! bandwidth is shared by every path on it, one transfer at a time in arrival order. A path
//! on no port has only its own bandwidth (the array as it was without ports).

use serde::{Deserialize, Serialize};

use super::host::PathSpec;
use super::links::{resolve_links, RawLink, Section};
use super::ConfigError;

/// One `[[host_ports]]` entry as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostPortFile {
    /// Name used in results (`fa1`).
    pub name: String,
    /// Bandwidth, MB/s.
    pub mbps: f64,
    /// Names of the paths that reach it.
    pub paths: Vec<String>,
}

/// A host port, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct HostPortSpec {
    /// Name.
    pub name: String,
    /// Nanoseconds per byte carried.
    pub ns_per_byte: f64,
    /// Indices of the paths that reach it.
    pub paths: Vec<u32>,
}

/// Resolves the host ports against the host's paths: every entry names paths that exist, no
/// path reaches two ports, names are unique.
pub(super) fn resolve_host_ports(
    raw: &[HostPortFile],
    paths: &[PathSpec],
    file: &str,
) -> Result<Vec<HostPortSpec>, ConfigError> {
    let links: Vec<RawLink> = (raw.iter())
        .map(|p| RawLink {
            name: &p.name,
            mbps: p.mbps,
            members: &p.paths,
        })
        .collect();
    let section = Section {
        file,
        key: "host_ports",
        links: "host ports",
        members_key: "paths",
        member: "path",
        count: paths.len(),
    };
    let find = |name: &str| match paths.iter().position(|p| p.name == name) {
        Some(p) => Ok(vec![p as u32]),
        None => {
            let known: Vec<&str> = paths.iter().map(|p| p.name.as_str()).collect();
            Err(format!(
                "no path named {name:?} (paths: {})",
                known.join(", ")
            ))
        }
    };
    let taken = |p: u32, port: &str| {
        let name = &paths[p as usize].name;
        format!("path {name:?} already reaches host port {port:?}; a path reaches one port")
    };
    let ports = resolve_links(&links, &section, find, taken)?;
    for (i, port) in ports.iter().enumerate() {
        let a = &paths[port.members[0] as usize];
        let mut others = (port.members.iter()).map(|&p| &paths[p as usize]);
        if let Some(other) = others.find(|p| p.array != a.array) {
            let reason = format!(
                "paths {:?} and {:?} reach different arrays; a host port belongs to one array",
                a.name, other.name
            );
            let key = format!("host_ports[{i}].paths");
            return Err(ConfigError::invalid(file, key, reason));
        }
    }
    Ok((ports.into_iter())
        .map(|l| HostPortSpec {
            name: l.name,
            ns_per_byte: l.ns_per_byte,
            paths: l.members,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::config::parse_array;

    const ARRAY: &str = "name = \"t\"\n[host]\nlinks = 3\n[[raid_groups]]\nname = \"g\"\n\
                         level = \"jbod\"\ndisks = 1\ndisk_model = \"hdd-10k\"\n";

    fn ports(extra: &str) -> Result<Vec<(String, Vec<u32>)>, String> {
        let spec = parse_array(&format!("{ARRAY}{extra}"), "t.toml").map_err(|e| e.to_string())?;
        Ok((spec.host_ports.iter())
            .map(|p| (p.name.clone(), p.paths.clone()))
            .collect())
    }

    #[test]
    fn ports_take_the_paths_they_name() {
        let got = ports(
            "[[host_ports]]\nname = \"fa1\"\nmbps = 400\npaths = [\"p0\", \"p2\"]\n\
             [[host_ports]]\nname = \"fa2\"\nmbps = 400\npaths = [\"p1\"]\n",
        );
        let want = vec![
            ("fa1".to_string(), vec![0, 2]),
            ("fa2".to_string(), vec![1]),
        ];
        assert_eq!(got, Ok(want));
    }

    #[test]
    fn a_path_on_two_ports_or_a_missing_path_is_refused() {
        let twice = ports(
            "[[host_ports]]\nname = \"a\"\nmbps = 400\npaths = [\"p0\"]\n\
             [[host_ports]]\nname = \"b\"\nmbps = 400\npaths = [\"p0\"]\n",
        )
        .unwrap_err();
        assert!(
            twice.contains("host_ports[1].paths") && twice.contains("one port"),
            "{twice}"
        );
        let missing =
            ports("[[host_ports]]\nname = \"a\"\nmbps = 400\npaths = [\"p7\"]\n").unwrap_err();
        assert!(
            missing.contains("host_ports[0].paths") && missing.contains("p7"),
            "{missing}"
        );
    }
}
