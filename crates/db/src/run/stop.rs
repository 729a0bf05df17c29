//! Stopping on Ctrl-C or SIGTERM: statements running on the server are cancelled through
//! the connection's cancel token, and waits (the warm-up) are cut short.

use std::future::Future;
use std::time::{Duration, Instant};

use tokio_postgres::{Client, NoTls};

use crate::error::DbError;

/// How often the stop flag is polled while waiting.
const POLL: Duration = Duration::from_millis(50);

/// The error of a run stopped by the user during `during` before anything was measured.
pub(crate) fn interrupted(during: &str) -> DbError {
    DbError::Failed(format!(
        "interrupted during {during}; nothing was measured, and what storlab created was \
         removed"
    ))
}

/// Runs `work` (statements on `c`); when a stop is requested meanwhile, cancels the
/// statement running on the server, waits up to 2 s for `work` to notice, and returns
/// [`interrupted`].
pub(crate) async fn cancellable<T>(
    c: &Client,
    during: &str,
    work: impl Future<Output = Result<T, DbError>>,
) -> Result<T, DbError> {
    let token = c.cancel_token();
    let work = std::pin::pin!(work);
    let mut work = work;
    loop {
        tokio::select! {
            result = &mut work => {
                return match result {
                    Err(_) if storlab_io::signal::stop_requested() => Err(interrupted(during)),
                    other => other,
                };
            }
            _ = tokio::time::sleep(POLL) => {
                if storlab_io::signal::stop_requested() {
                    let _ = token.cancel_query(NoTls).await;
                    let _ = tokio::time::timeout(Duration::from_secs(2), &mut work).await;
                    return Err(interrupted(during));
                }
            }
        }
    }
}

/// Waits until `t`; false if a stop was requested first.
pub(crate) async fn wait_until(t: Instant) -> bool {
    loop {
        if storlab_io::signal::stop_requested() {
            return false;
        }
        let now = Instant::now();
        if now >= t {
            return true;
        }
        tokio::time::sleep((t - now).min(POLL)).await;
    }
}
