//! `stanleyctl ui [--no-open]`: starts (or reuses) the daemon's read-only web page, prints its
//! address first, and opens a browser when one is available. The browser is given a private
//! file that redirects to the address, never the address itself, so the token does not appear
//! on a command line another local user can read.

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
        match open_browser(target, &page.url) {
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
/// else `open` on macOS, else `xdg-open` when there is a display.
fn browser() -> Option<String> {
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if let Some(b) = set("BROWSER") {
        return b.split(':').next().map(|b| b.trim().to_owned());
    }
    if cfg!(target_os = "macos") {
        return Some("open".into());
    }
    if set("DISPLAY").is_some() || set("WAYLAND_DISPLAY").is_some() {
        return on_path("xdg-open").then(|| "xdg-open".to_owned());
    }
    None
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.is_absolute() && dir.join(program).is_file())
    })
}

/// Writes the redirect file and starts the browser on it; which program, or why not.
fn open_browser(target: &Target, url: &str) -> Result<String, String> {
    let program = browser().ok_or("no browser found (set BROWSER, or run with a display)")?;
    let folder = target
        .socket
        .parent()
        .ok_or("the daemon's runtime folder is unknown")?;
    let file = write_redirect(folder, url)
        .map_err(|e| format!("cannot write the page's redirect file: {e}"))?;
    Command::new(&program)
        .arg(format!("file://{}", file.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    Ok(program)
}

/// `ui-open.html` in the daemon's private runtime folder (checked 0700 by the connection),
/// mode 0600, written through a new file (`create_new` never follows a planted link) and
/// renamed over the old one.
fn write_redirect(folder: &Path, url: &str) -> std::io::Result<PathBuf> {
    let path = folder.join("ui-open.html");
    let tmp = folder.join(format!("ui-open.html.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    // The address is ours (hex token, numeric port); escape it anyway.
    let url = url
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    write!(
        f,
        "<!doctype html>\n<html><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\">\
         <title>Stanley</title></head><body><a href=\"{url}\">Open Stanley</a></body></html>\n"
    )?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}
