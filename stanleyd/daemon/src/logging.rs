//! Tracing to `.stanley/daemon/stanleyd.log`, filtered by `STANLEY_LOG` (default `info`). Every
//! line passes the secret redactor's patterns on its way to disk, whatever a log call carried,
//! and the file is never opened through a link.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use stanley_adapters::SecretRedactor;
use stanley_workflows::ports::Redactor;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// Log lines that could not be written since the daemon started (reported by `GetStatus`).
static WRITE_ERRORS: AtomicU64 = AtomicU64::new(0);

/// How many log lines could not be written since the daemon started.
pub(crate) fn write_errors() -> u64 {
    WRITE_ERRORS.load(Ordering::Relaxed)
}

/// The log file behind a redactor.
struct RedactingLog {
    file: Mutex<File>,
    redactor: SecretRedactor,
}

/// One event's writer: the formatter writes an event, which is redacted as a whole on the way
/// out.
struct EventWriter<'a> {
    log: &'a RedactingLog,
    buffer: Vec<u8>,
}

impl Write for EventWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for EventWriter<'_> {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.buffer);
        let (clean, _) = self.log.redactor.text(&text);
        let mut file = self.log.file.lock().unwrap_or_else(|e| e.into_inner());
        // A log line that cannot be written (a full disk) is dropped and counted: the daemon
        // keeps serving, and `stanleyctl daemon status` says lines are missing.
        if file.write_all(clean.as_bytes()).is_err() {
            WRITE_ERRORS.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl<'a> MakeWriter<'a> for RedactingLog {
    type Writer = EventWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        EventWriter {
            log: self,
            buffer: Vec::new(),
        }
    }
}

/// Sends the daemon's logs to `log_path` (appending, mode 0600). Safe to call once per process.
pub fn init_logging(log_path: &Path, filter: Option<&str>) -> std::io::Result<()> {
    // Never through a link: a repository can commit `.stanley/daemon/stanleyd.log` as one.
    let file = stanley_adapters::records::open_append(log_path)?;
    let filter =
        EnvFilter::try_new(filter.unwrap_or("info")).unwrap_or_else(|_| EnvFilter::new("info"));
    let writer = RedactingLog {
        file: Mutex::new(file),
        redactor: SecretRedactor::default(),
    };
    // A second initialisation in the same process (tests) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(writer)
        .try_init();
    Ok(())
}
