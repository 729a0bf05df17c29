//! Errors of database runs: bad input (exit 2) or a failed run (exit 1).

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The request cannot be run as given (flag, path, DSN rights) with the fix.
    #[error("{0}")]
    BadInput(String),
    /// The run failed (server crashed, query failed); results so far are kept where possible.
    #[error("{0}")]
    Failed(String),
}

impl From<crate::cluster::ClusterError> for DbError {
    fn from(e: crate::cluster::ClusterError) -> Self {
        if e.is_bad_input() {
            DbError::BadInput(e.to_string())
        } else {
            DbError::Failed(e.to_string())
        }
    }
}

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> Self {
        // The server's message, never the connection string (it may hold a password).
        match e.as_db_error() {
            Some(db) => {
                let mut text = format!("PostgreSQL: {} ({})", db.message(), db.code().code());
                if let Some(detail) = db.detail() {
                    text += &format!("; {detail}");
                }
                // dependent_objects_still_exist: storlab never drops with CASCADE.
                if db.code().code() == "2BP01" {
                    text += "; storlab drops only what it created and never with CASCADE: drop or move the dependent objects, or give another --schema";
                }
                DbError::Failed(text)
            }
            None => DbError::Failed(format!("PostgreSQL connection: {e}")),
        }
    }
}
