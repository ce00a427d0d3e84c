//! `stanleyctl ui [--no-open]`: starts (or reuses) the daemon's read-only web page, prints its
//! address first (`http://127.0.0.1:<port>/<token>/`: the token in the path is the page's only
//! key), and opens a browser when one is available. The browser is given a private file that
//! moves on to the address, never the address itself, so the token does not appear on a
//! command line another local user can read.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use stanley_cli::daemon::{Target, channel};
use stanley_cli::exit::ClientError;
use stanley_proto::v1::OpenUiRequest;
use stanley_proto::v1::ui_client::UiClient;

pub(crate) fn ui(target: &Target, no_open: bool, json: bool) -> ExitCode {
    crate::client_command(async move {
        let mut client = UiClient::new(channel(target).await?);
        let page = client
            .open_ui(OpenUiRequest {})
            .await
            .map_err(|s| ClientError::from_status(&s))?
            .into_inner();
        if json {
            let doc =
                serde_json::json!({"url": page.url, "port": page.port, "started": page.started});
            stanley_cli::outln!("{doc}");
        } else {
            stanley_cli::outln!("{}", page.url);
        }
        if no_open {
            return Ok(());
        }
        match open_browser(target, &page.url, page.port) {
            Ok(program) => {
                if !json {
                    stanley_cli::errln!("opened it with {program}");
                }
            }
            Err(why) => stanley_cli::errln!("stanleyctl: {why}; open the address above"),
        }
        Ok(())
    })
}

/// The program that opens a file in the person's browser, if this session has one: `$BROWSER`,
/// else `open` on macOS, else `xdg-open` when there is a display; always as the absolute path
/// it was found at (see [`on_path`]).
fn browser() -> Option<PathBuf> {
    use stanley_proto::env::{BROWSER, DISPLAY, WAYLAND_DISPLAY};
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if let Some(b) = set(BROWSER) {
        return b.split(':').next().and_then(|b| on_path(b.trim()));
    }
    if cfg!(target_os = "macos") {
        return on_path("open");
    }
    if set(DISPLAY).is_some() || set(WAYLAND_DISPLAY).is_some() {
        return on_path("xdg-open");
    }
    None
}

/// Where `program` is: itself when it is an absolute path, else the first absolute `PATH`
/// folder holding it. Never a relative entry (`.`, an empty one, `node_modules/.bin`): the
/// client runs in the worktree, so those would start a program the repository committed.
fn on_path(program: &str) -> Option<PathBuf> {
    find_in(program, std::env::var_os(stanley_proto::env::PATH))
}

/// [`on_path`] for a given `PATH` value.
fn find_in(program: &str, path: Option<std::ffi::OsString>) -> Option<PathBuf> {
    let named = Path::new(program);
    if named.is_absolute() {
        return named.is_file().then(|| named.to_path_buf());
    }
    if program.is_empty() || program.contains('/') {
        return None;
    }
    std::env::split_paths(&path?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Why no browser was opened on the page (the address is printed either way).
#[derive(Debug, thiserror::Error)]
enum BrowserError {
    /// No `$BROWSER`, no `open`, and no display with `xdg-open`.
    #[error("no browser found (set BROWSER, or run with a display)")]
    NoBrowser,
    /// The daemon's socket has no folder to put the redirect file in.
    #[error("the daemon's runtime folder is unknown")]
    NoFolder,
    /// The redirect file could not be written.
    #[error("cannot write the page's redirect file: {0}")]
    Redirect(#[source] std::io::Error),
    /// The browser program did not start.
    #[error("cannot start {program}: {source}")]
    Start {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// Writes the redirect file and starts the browser on it; which program, or why not.
fn open_browser(target: &Target, url: &str, port: u32) -> Result<String, BrowserError> {
    let program = browser().ok_or(BrowserError::NoBrowser)?;
    let folder = target.socket.parent().ok_or(BrowserError::NoFolder)?;
    launch(program, folder, url, port)
}

/// Writes the redirect file in `folder` and starts `program` on it.
fn launch(program: PathBuf, folder: &Path, url: &str, port: u32) -> Result<String, BrowserError> {
    let shown = program.file_name().map_or_else(
        || program.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let full = program.display().to_string();
    let file = write_redirect(folder, url, port).map_err(BrowserError::Redirect)?;
    match Command::new(&program)
        .arg(file_url(&file))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(_) => Ok(shown),
        Err(source) => Err(BrowserError::Start {
            program: full,
            source,
        }),
    }
}

/// `file://` and the path, with every byte but unreserved ones and `/` percent-encoded.
pub(crate) fn file_url(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut url = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// `ui-open-<port>.html` in the daemon's private runtime folder (checked 0700 by the
/// connection; one file per page, so two repositories' pages never swap), mode 0600, written
/// through a new file (`create_new` never follows a planted link) and renamed over the old one.
/// Redirect files of pages started over a day ago are removed.
pub(crate) fn write_redirect(folder: &Path, url: &str, port: u32) -> std::io::Result<PathBuf> {
    let stale = std::time::Duration::from_secs(24 * 60 * 60);
    for entry in std::fs::read_dir(folder)?.flatten() {
        let name = entry.file_name();
        let old = name
            .to_str()
            .is_some_and(|n| n.starts_with("ui-open-") && n.ends_with(".html"))
            && entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > stale);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let path = folder.join(format!("ui-open-{port}.html"));
    let tmp = folder.join(format!("ui-open-{port}.html.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    // The address is ours (hex token, numeric port); escape it anyway. The file moves on to it
    // and sends no referrer (a file sends none anyway).
    let url = url
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    write!(
        f,
        "<!doctype html>\n<html><head><meta charset=\"utf-8\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\">\
         <title>Stanley</title></head><body><a href=\"{url}\">Open Stanley</a></body></html>\n"
    )?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder that is gone and a program that does not start are told apart, each with the
    /// line the person reads.
    #[test]
    fn a_browser_that_cannot_open_the_page_says_which_step_failed() {
        let dir = tempfile::tempdir().unwrap();
        let url = "http://127.0.0.1:1/t/";
        let gone = launch("true".into(), &dir.path().join("gone"), url, 1).unwrap_err();
        match &gone {
            BrowserError::Redirect(e) => assert_eq!(e.kind(), std::io::ErrorKind::NotFound),
            other => panic!("{other:?}"),
        }
        assert!(
            gone.to_string()
                .starts_with("cannot write the page's redirect file: ")
        );
        let program = dir.path().join("no-such-browser").display().to_string();
        let unstarted = launch(program.clone().into(), dir.path(), url, 2).unwrap_err();
        assert!(
            matches!(&unstarted, BrowserError::Start { program: p, .. } if *p == program),
            "{unstarted:?}"
        );
        assert!(
            unstarted
                .to_string()
                .starts_with(&format!("cannot start {program}: "))
        );
        assert!(dir.path().join("ui-open-2.html").is_file());
    }

    /// Issue 45: the browser is never found on a relative `PATH` entry (the client runs in the
    /// worktree, so `node_modules/.bin` or `.` there holds what the repository committed), and
    /// is started by the absolute path it was found at.
    #[test]
    fn a_browser_is_found_on_absolute_path_entries_only() {
        let dir = tempfile::tempdir().unwrap();
        let (rel, abs) = (dir.path().join("node_modules/.bin"), dir.path().join("abs"));
        for d in [&rel, &abs] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(d.join("xdg-open"), "#!/bin/sh\n").unwrap();
        }
        let path = |entries: &[&str]| Some(std::env::join_paths(entries).unwrap());
        // The relative entries are the worktree's, whatever the current folder is.
        let relative = ["node_modules/.bin", ".", ""];
        assert_eq!(find_in("xdg-open", path(&relative)), None);
        let mut entries = relative.to_vec();
        let abs_text = abs.display().to_string();
        entries.push(&abs_text);
        assert_eq!(
            find_in("xdg-open", path(&entries)),
            Some(abs.join("xdg-open"))
        );
        assert_eq!(find_in("./xdg-open", path(&entries)), None);
        assert_eq!(find_in("node_modules/.bin/xdg-open", path(&entries)), None);
        let named = abs.join("xdg-open");
        assert_eq!(find_in(named.to_str().unwrap(), None), Some(named.clone()));
    }
}
