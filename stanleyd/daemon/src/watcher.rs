//! Watches `.stanley/workflows/` with `notify` and reloads the workflow host as soon as a
//! workflow is added, edited or removed, so the next request finds it warm. The fingerprint check
//! before every request stays the source of truth; the watcher only moves the reload earlier.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify::{Event, RecursiveMode, Watcher};

use crate::repository;
use crate::state::DaemonState;

/// How long a burst of events (an editor writing a temporary file, then renaming it) may take
/// before the folder is reloaded once.
const SETTLE: Duration = Duration::from_millis(75);

/// What an event means to the watcher.
#[derive(Debug, PartialEq)]
enum Change {
    /// Something under the workflow folder changed.
    Workflows,
    /// The workflow folder itself appeared (it needs a recursive watch of its own).
    FolderCreated,
}

fn classify(event: &Event, workflows: &Path) -> Option<Change> {
    if event.kind.is_create() && event.paths.iter().any(|p| p == workflows) {
        return Some(Change::FolderCreated);
    }
    event
        .paths
        .iter()
        .any(|p| p.starts_with(workflows))
        .then_some(Change::Workflows)
}

/// Starts the watcher task; a platform without file events only loses the early reload.
pub(crate) fn spawn(state: &Arc<DaemonState>) {
    let root = state.config.files.root.clone();
    let stanley: PathBuf = root.join(".stanley");
    let workflows = stanley.join("workflows");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Change>();
    let folder = workflows.clone();
    let watcher = notify::recommended_watcher(move |event: notify::Result<Event>| {
        if let Some(change) = event.ok().and_then(|e| classify(&e, &folder)) {
            let _ = tx.send(change);
        }
    });
    let mut watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch .stanley/workflows/; reloads wait for the next request");
            return;
        }
    };
    // `.stanley/` itself is watched shallowly (run records and logs live below it); the workflow
    // folder recursively once it exists.
    if let Err(e) = watcher.watch(&stanley, RecursiveMode::NonRecursive) {
        tracing::warn!(error = %e, "cannot watch .stanley/; reloads wait for the next request");
        return;
    }
    if workflows.is_dir() {
        let _ = watcher.watch(&workflows, RecursiveMode::Recursive);
    }
    let weak = Arc::downgrade(state);
    let stop = state.stop_token();
    tokio::spawn(async move {
        loop {
            let change = tokio::select! {
                () = stop.cancelled() => break,
                change = rx.recv() => match change {
                    Some(c) => c,
                    None => break,
                },
            };
            if change == Change::FolderCreated {
                let _ = watcher.watch(&workflows, RecursiveMode::Recursive);
            }
            tokio::time::sleep(SETTLE).await;
            while let Ok(more) = rx.try_recv() {
                if more == Change::FolderCreated {
                    let _ = watcher.watch(&workflows, RecursiveMode::Recursive);
                }
            }
            let Some(state) = weak.upgrade() else {
                break;
            };
            let env = {
                let slot = state.repo.lock().await;
                slot.as_ref().and_then(|(_, s)| s.host_env.clone())
            };
            // Without a host started by a request there is no environment to start one with;
            // the next request loads the folder itself.
            let Some(env) = env else {
                continue;
            };
            let settings = state.settings(&env);
            let snapshot = repository::refresh(&state, &settings).await;
            tracing::info!(
                workflows = snapshot.workflows.len(),
                "workflow folder changed; reloaded"
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, EventKind, ModifyKind};

    #[test]
    fn events_are_classified_by_path() {
        let workflows = Path::new("/r/.stanley/workflows");
        let event = |kind, path: &str| Event::new(kind).add_path(PathBuf::from(path));
        assert_eq!(
            classify(
                &event(
                    EventKind::Create(CreateKind::Folder),
                    "/r/.stanley/workflows"
                ),
                workflows
            ),
            Some(Change::FolderCreated)
        );
        assert_eq!(
            classify(
                &event(
                    EventKind::Modify(ModifyKind::Any),
                    "/r/.stanley/workflows/lib/a.ts"
                ),
                workflows
            ),
            Some(Change::Workflows)
        );
        assert_eq!(
            classify(
                &event(
                    EventKind::Modify(ModifyKind::Any),
                    "/r/.stanley/daemon/stanleyd.log"
                ),
                workflows
            ),
            None
        );
        assert_eq!(
            classify(
                &event(
                    EventKind::Create(CreateKind::File),
                    "/r/.stanley/workflows-old"
                ),
                workflows
            ),
            None
        );
    }
}
