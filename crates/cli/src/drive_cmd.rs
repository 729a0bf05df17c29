//! `storlab drive import NAME.diskspecs [--out FILE]`: a drive described for DiskSim (the
//! `.diskspecs` file and the model and seek files it names) as a `[disk_models.NAME]` table
//! that arrays use with `disk_model = "NAME"`.

use storlab_sim::device::drive_spec::{import, to_toml};

use crate::cli::{DriveArgs, DriveCommand};
use crate::error::CliError;
use crate::output::{Format, Output};

pub fn run(a: DriveArgs) -> Result<(), CliError> {
    match a.command {
        DriveCommand::Import {
            diskspecs,
            out,
            name,
        } => {
            let output = out
                .as_deref()
                .map(|p| Output::new("--out", p, Format::Toml));
            if let Some(o) = &output {
                o.check(&[("NAME.diskspecs", diskspecs.as_path())])?;
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
            match output {
                Some(o) => o.write(text.as_bytes())?,
                None => print!("{text}"),
            }
            Ok(())
        }
    }
}
