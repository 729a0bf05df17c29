//! `[[host_ports]]`: the array's host (front-end) ports, each with a bandwidth and the paths
//! that reach it. A transfer on a path occupies the path and its port together: the port's
//! bandwidth is shared by every path on it, one transfer at a time in arrival order. A path
//! on no port has only its own bandwidth (the array as it was without ports).

use serde::{Deserialize, Serialize};

use super::host::PathSpec;
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
    let mut owner: Vec<Option<usize>> = vec![None; paths.len()];
    let mut out: Vec<HostPortSpec> = Vec::new();
    for (i, port) in raw.iter().enumerate() {
        let key = |k: &str| format!("host_ports[{i}].{k}");
        if out.iter().any(|o| o.name == port.name) {
            let reason = format!("two host ports are named {:?}", port.name);
            return Err(ConfigError::invalid(file, key("name"), reason));
        }
        let mut ids = Vec::new();
        for name in &port.paths {
            let Some(p) = paths.iter().position(|p| &p.name == name) else {
                let known: Vec<&str> = paths.iter().map(|p| p.name.as_str()).collect();
                let reason = format!("no path named {name:?} (paths: {})", known.join(", "));
                return Err(ConfigError::invalid(file, key("paths"), reason));
            };
            if let Some(j) = owner[p] {
                let reason = format!(
                    "path {name:?} already reaches host port {:?}; a path reaches one port",
                    raw[j].name
                );
                return Err(ConfigError::invalid(file, key("paths"), reason));
            }
            owner[p] = Some(i);
            ids.push(p as u32);
        }
        if ids.is_empty() {
            let reason = "must name at least one path".to_string();
            return Err(ConfigError::invalid(file, key("paths"), reason));
        }
        let a = &paths[ids[0] as usize];
        if let Some(other) = (ids.iter().map(|&p| &paths[p as usize])).find(|p| p.array != a.array)
        {
            let reason = format!(
                "paths {:?} and {:?} reach different arrays; a host port belongs to one array",
                a.name, other.name
            );
            return Err(ConfigError::invalid(file, key("paths"), reason));
        }
        out.push(HostPortSpec {
            name: port.name.clone(),
            ns_per_byte: 1e3 / port.mbps,
            paths: ids,
        });
    }
    Ok(out)
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
