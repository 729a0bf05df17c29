//! `storlab drive import NAME.diskspecs [--out FILE]`: a drive described for DiskSim (the
//! `.diskspecs` file and the model and seek files it names) as a `[disk_models.NAME]` table
//! that arrays use with `disk_model = "NAME"`.

use storlab_sim::device::drive_spec::{import, to_toml};

use crate::cli::{DriveArgs, DriveCommand};
use crate::error::CliError;
use crate::output::{check_output, write_atomic, Kind};

pub fn run(a: DriveArgs) -> Result<(), CliError> {
    match a.command {
        DriveCommand::Import {
            diskspecs,
            out,
            name,
        } => {
            if let Some(path) = &out {
                check_output("--out", path, Kind::File)?;
            }
            let drive = import(&diskspecs).map_err(CliError::BadInput)?;
            let name = match name {
                Some(n) => n,
                None => diskspecs
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "drive".into()),
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
            {
                return Err(CliError::BadInput(format!(
                    "--name must be letters, digits, `_`, `-` or `.`; got {name:?}"
                )));
            }
            let text = to_toml(&name, &drive, &diskspecs).map_err(CliError::Failed)?;
            match out {
                Some(path) => write_atomic(&path, text.as_bytes())?,
                None => print!("{text}"),
            }
            Ok(())
        }
    }
}
