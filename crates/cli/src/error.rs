//! Errors of the command line: bad input (exit 2) or a run that failed (exit 1).

use storlab_sim::ConfigError;

/// What went wrong, and whose fault it is.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The user's input cannot be used: file, key and reason in the message.
    #[error("{0}")]
    BadInput(String),
    /// A configuration file failed validation.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The run itself failed (I/O error writing results, ...).
    #[error("{0}")]
    Failed(String),
}

impl From<storlab_io::IoError> for CliError {
    fn from(e: storlab_io::IoError) -> Self {
        match e {
            storlab_io::IoError::BadInput(m) => CliError::BadInput(m),
            storlab_io::IoError::Failed(m) => CliError::Failed(m),
        }
    }
}

impl From<storlab_db::DbError> for CliError {
    fn from(e: storlab_db::DbError) -> Self {
        match e {
            storlab_db::DbError::BadInput(m) => CliError::BadInput(m),
            storlab_db::DbError::Failed(m) => CliError::Failed(m),
        }
    }
}

impl CliError {
    /// Process exit code: 2 for bad input, 1 for a failed run.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::BadInput(_) | CliError::Config(_) => 2,
            CliError::Failed(_) => 1,
        }
    }
}
