//! Errors of real I/O runs: bad input (exit 2, nothing touched) or a failed run (exit 1).

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The request cannot be run as given (path, flag, value and the fix in the message).
    #[error("{0}")]
    BadInput(String),
    /// The run failed part-way (an I/O error from the device, say).
    #[error("{0}")]
    Failed(String),
}

impl From<crate::safety::SafetyError> for IoError {
    fn from(e: crate::safety::SafetyError) -> Self {
        IoError::BadInput(e.to_string())
    }
}

impl From<crate::diskstats::DiskstatsError> for IoError {
    fn from(e: crate::diskstats::DiskstatsError) -> Self {
        IoError::Failed(e.to_string())
    }
}
