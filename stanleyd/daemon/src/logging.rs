//! Tracing to `.stanley/daemon/stanleyd.log`, filtered by `STANLEY_LOG` (default `info`).

use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// Sends the daemon's logs to `log_path` (appending, mode 0600). Safe to call once per process.
pub fn init_logging(log_path: &Path, filter: Option<&str>) -> std::io::Result<()> {
    // Never through a link: a repository can commit `.stanley/daemon/stanleyd.log` as one.
    let file = stanley_adapters::records::open_append(log_path)?;
    let filter =
        EnvFilter::try_new(filter.unwrap_or("info")).unwrap_or_else(|_| EnvFilter::new("info"));
    // A second initialisation in the same process (tests) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
    Ok(())
}
