//! Watches `.stanley/workflows/` with inotify and reloads the workflow host as soon as a
//! workflow is added, edited or removed, so the next request finds it warm. The fingerprint check
//! before every request stays the source of truth; the watcher only moves the reload earlier.
//!
//! A cloned repository chooses what is in that folder, so the watcher stays home: it watches
//! real folders only and never follows a link (a committed `.stanley/workflows/x -> /usr` adds
//! no watch), asks the kernel for changes only (no open or access events, which any program
//! reading a file would send), and holds at most [`MAX_WATCHES`] watches (a per-user limit shared
//! with every editor and build tool), with one warning past it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

use crate::request::repository;
use crate::state::DaemonState;

/// How long a burst of events (an editor writing a temporary file, then renaming it) may take
/// before the folder is reloaded once.
const SETTLE: Duration = Duration::from_millis(75);

/// The most folders watched: beyond it, changes are seen at the next request.
pub(crate) const MAX_WATCHES: usize = 512;

/// What changes in a watched folder: content, names, and the folder itself going. Never open,
/// access or close-without-write.
fn folder_mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::ATTRIB
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
        | WatchMask::EXCL_UNLINK
}

/// `.stanley/` itself: only names coming and going (the workflow folder appearing).
fn parent_mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
        | WatchMask::EXCL_UNLINK
}

/// The watches held: descriptor → folder, with the bound.
struct Held {
    watches: Watches,
    folders: HashMap<WatchDescriptor, PathBuf>,
    limit: usize,
    warned: bool,
}

impl Held {
    /// Watches `dir` and every real folder below it, never through a link, up to the bound.
    fn add_tree(&mut self, dir: &Path) {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(folder) = stack.pop() {
            // `lstat`: a link, even to a folder, is never a folder to watch.
            if !std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            if self.folders.values().any(|f| f == &folder) {
                continue;
            }
            if self.folders.len() >= self.limit {
                if !self.warned {
                    self.warned = true;
                    tracing::warn!(
                        limit = self.limit,
                        folder = %dir.display(),
                        "the workflow folder holds more folders than are watched; changes below the rest are seen at the next request"
                    );
                }
                return;
            }
            match self.watches.add(&folder, folder_mask()) {
                Ok(wd) => {
                    self.folders.insert(wd, folder.clone());
                }
                Err(e) => {
                    tracing::debug!(error = %e, folder = %folder.display(), "not watched");
                    continue;
                }
            }
            if let Ok(entries) = stanley_adapters::records::list_dir(&folder) {
                for entry in entries.flatten() {
                    if entry.file_type().is_ok_and(|t| t.is_dir()) {
                        stack.push(entry.path());
                    }
                }
            }
        }
    }

    /// Forgets a folder the kernel stopped watching (removed or moved away).
    fn forget(&mut self, wd: &WatchDescriptor) {
        self.folders.remove(wd);
    }

    #[cfg(test)]
    fn count(&self) -> usize {
        self.folders.len()
    }
}

/// Starts the watcher task; a platform without inotify only loses the early reload.
pub(crate) fn spawn(state: &Arc<DaemonState>) {
    let stanley: PathBuf = state.config().files.root.join(".stanley");
    let workflows = stanley.join("workflows");
    let inotify = match Inotify::init() {
        Ok(i) => i,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch .stanley/workflows/; reloads wait for the next request");
            return;
        }
    };
    let mut held = Held {
        watches: inotify.watches(),
        folders: HashMap::new(),
        limit: MAX_WATCHES,
        warned: false,
    };
    let parent = match held.watches.add(&stanley, parent_mask()) {
        Ok(wd) => wd,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch .stanley/; reloads wait for the next request");
            return;
        }
    };
    held.add_tree(&workflows);
    let mut events = match inotify.into_event_stream(vec![0u8; 16 * 1024]) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read file events; reloads wait for the next request");
            return;
        }
    };
    let weak = Arc::downgrade(state);
    let stop = state.activity().stop_token();
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => break,
                event = events.next() => match event {
                    Some(Ok(e)) => e,
                    _ => break,
                },
            };
            let mut changed = note(&mut held, &parent, &workflows, &event);
            tokio::time::sleep(SETTLE).await;
            // Everything that arrived meanwhile is part of the same burst.
            while let Some(Some(Ok(more))) = futures::FutureExt::now_or_never(events.next()) {
                changed |= note(&mut held, &parent, &workflows, &more);
            }
            if !changed {
                continue;
            }
            let Some(state) = weak.upgrade() else {
                break;
            };
            reload(&state).await;
        }
    });
}

/// Takes one event into account: new folders get watches, gone ones are forgotten. Whether it
/// is a change of the workflow folder.
fn note(
    held: &mut Held,
    parent: &WatchDescriptor,
    workflows: &Path,
    event: &inotify::Event<std::ffi::OsString>,
) -> bool {
    if event.mask.contains(EventMask::IGNORED) {
        held.forget(&event.wd);
        return false;
    }
    if &event.wd == parent {
        // Only the workflow folder's own name matters in `.stanley/`.
        let ours = event
            .name
            .as_deref()
            .is_some_and(|n| n == std::ffi::OsStr::new("workflows"));
        if ours
            && event
                .mask
                .intersects(EventMask::CREATE | EventMask::MOVED_TO)
        {
            held.add_tree(workflows);
        }
        return ours;
    }
    let Some(folder) = held.folders.get(&event.wd).cloned() else {
        return false;
    };
    if event.mask.contains(EventMask::ISDIR)
        && event
            .mask
            .intersects(EventMask::CREATE | EventMask::MOVED_TO)
        && let Some(name) = &event.name
    {
        held.add_tree(&folder.join(name));
    }
    true
}

async fn reload(state: &Arc<DaemonState>) {
    let env = {
        let slot = state.repo().lock().await;
        slot.as_ref().and_then(|(_, s)| s.host_env.clone())
    };
    // Without a host started by a request there is no environment to start one with; the next
    // request loads the folder itself.
    let Some(env) = env else {
        return;
    };
    let settings = state.settings(&env);
    let snapshot = repository::refresh(state, &settings).await;
    tracing::info!(
        workflows = snapshot.workflows.len(),
        "workflow folder changed; reloaded"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(limit: usize) -> (Inotify, Held) {
        let inotify = Inotify::init().unwrap();
        let held = Held {
            watches: inotify.watches(),
            folders: HashMap::new(),
            limit,
            warned: false,
        };
        (inotify, held)
    }

    #[test]
    fn links_out_of_the_repository_are_never_watched_and_the_watches_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let workflows = dir.path().join(".stanley/workflows");
        std::fs::create_dir_all(workflows.join("lib/deep")).unwrap();
        // A committed link to a big tree: not one watch below it.
        std::os::unix::fs::symlink("/usr", workflows.join("x")).unwrap();
        let (_inotify, mut held) = held(MAX_WATCHES);
        held.add_tree(&workflows);
        assert_eq!(held.count(), 3, "workflows, lib and lib/deep only");
        assert!(
            held.folders.values().all(|f| f.starts_with(&workflows)),
            "{:?}",
            held.folders
        );
        // More folders than the bound: the bound holds, with one warning.
        for i in 0..20 {
            std::fs::create_dir_all(workflows.join(format!("many/{i}"))).unwrap();
        }
        let (_inotify, mut small) = held_with(10);
        small.add_tree(&workflows);
        assert_eq!(small.count(), 10);
        assert!(small.warned);
    }

    fn held_with(limit: usize) -> (Inotify, Held) {
        held(limit)
    }

    #[test]
    fn reading_a_workflow_sends_nothing_and_writing_one_sends_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let workflows = dir.path().join(".stanley/workflows");
        std::fs::create_dir_all(&workflows).unwrap();
        std::fs::write(workflows.join("a.ts"), "x").unwrap();
        let (mut inotify, mut held) = held(MAX_WATCHES);
        held.add_tree(&workflows);
        let mut buf = [0u8; 4096];
        // What any program reading the folder does (the trust hash, an editor, `ls`).
        let _ = std::fs::read(workflows.join("a.ts")).unwrap();
        let _ = std::fs::read_dir(&workflows).unwrap().count();
        let quiet = inotify.read_events(&mut buf);
        assert!(
            quiet
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock)
                || quiet.is_ok_and(|mut e| e.next().is_none()),
            "a read sent events"
        );
        std::fs::write(workflows.join("a.ts"), "y").unwrap();
        let mut seen = 0;
        for _ in 0..100 {
            if let Ok(events) = inotify.read_events(&mut buf) {
                seen += events.count();
            }
            if seen > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(seen > 0, "a write sent no event");
    }

    #[test]
    fn the_mask_asks_for_changes_only() {
        for mask in [folder_mask(), parent_mask()] {
            assert!(
                !mask.intersects(WatchMask::OPEN | WatchMask::ACCESS | WatchMask::CLOSE_NOWRITE)
            );
            assert!(mask.contains(WatchMask::DONT_FOLLOW | WatchMask::ONLYDIR));
        }
    }
}
