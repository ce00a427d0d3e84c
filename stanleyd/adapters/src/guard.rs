//! The workflow-folder guard: a fingerprint of `.stanley/workflows/` taken before and after an
//! agent run, and the quarantine of anything the agent added (moved, never deleted).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use stanley_core::hash::sha256_hex;
use stanley_workflows::agent::WorkflowChanges;

use crate::records::create_private_dir;

/// Path (relative to `.stanley/workflows/`, `/`-separated) → SHA-256 of the content, or of
/// `symlink:<target>` for a link (never followed). `node_modules` folders are skipped.
pub type Fingerprint = BTreeMap<String, String>;

fn walk(dir: &Path, prefix: &str, out: &mut Fingerprint) {
    let Ok(entries) = crate::records::list_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "node_modules" {
            continue;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            let target = fs::read_link(&path)
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.insert(rel, sha256_hex(format!("symlink:{target}").as_bytes()));
        } else if meta.is_dir() {
            walk(&path, &rel, out);
        } else if meta.is_file()
            && let Ok(bytes) =
                crate::records::read_bounded(&path, crate::workflow_tree::MAX_FILE_BYTES)
        {
            out.insert(rel, sha256_hex(&bytes));
        }
    }
}

/// Fingerprints `<root>/.stanley/workflows/` (empty when missing).
pub fn fingerprint(root: &Path) -> Fingerprint {
    let mut out = Fingerprint::new();
    walk(&root.join(".stanley/workflows"), "", &mut out);
    out
}

/// What differs between two fingerprints.
pub fn changes(before: &Fingerprint, after: &Fingerprint) -> WorkflowChanges {
    WorkflowChanges {
        added: after
            .keys()
            .filter(|k| !before.contains_key(*k))
            .cloned()
            .collect(),
        modified: after
            .iter()
            .filter(|(k, v)| before.get(*k).is_some_and(|b| b != *v))
            .map(|(k, _)| k.clone())
            .collect(),
        removed: before
            .keys()
            .filter(|k| !after.contains_key(*k))
            .cloned()
            .collect(),
    }
}

/// Moves the added entries to `.stanley/quarantine/<stamp>-<pid>/`, links as links. Returns the
/// quarantine folder relative to the root.
pub fn quarantine(root: &Path, added: &[String], stamp: &str) -> io::Result<String> {
    let rel = format!(".stanley/quarantine/{stamp}-{}", std::process::id());
    let dir: PathBuf = root.join(&rel);
    for path in added {
        let from = root.join(".stanley/workflows").join(path);
        let to = dir.join(path);
        if let Some(parent) = to.parent() {
            create_private_dir(parent)?;
        }
        crate::records::rename(&from, &to)?;
    }
    Ok(rel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn added_entries_are_quarantined_and_the_rest_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let wf = root.join(".stanley/workflows");
        fs::create_dir_all(wf.join("pkg")).unwrap();
        fs::write(wf.join("existing.ts"), "a").unwrap();
        fs::write(wf.join("gone.ts"), "b").unwrap();
        let before = fingerprint(root);
        fs::write(wf.join("existing.ts"), "tampered").unwrap();
        fs::remove_file(wf.join("gone.ts")).unwrap();
        fs::write(wf.join("sneaky.ts"), "x").unwrap();
        fs::write(wf.join("pkg/index.ts"), "y").unwrap();
        symlink("/nonexistent/target.ts", wf.join("linked.ts")).unwrap();
        let after = fingerprint(root);
        let c = changes(&before, &after);
        assert_eq!(c.added, ["linked.ts", "pkg/index.ts", "sneaky.ts"]);
        assert_eq!(c.modified, ["existing.ts"]);
        assert_eq!(c.removed, ["gone.ts"]);
        let q = quarantine(root, &c.added, "20260101T000000Z").unwrap();
        assert!(!wf.join("sneaky.ts").exists());
        let moved_link = root.join(&q).join("linked.ts");
        assert_eq!(
            fs::read_link(&moved_link).unwrap(),
            PathBuf::from("/nonexistent/target.ts")
        );
        assert_eq!(
            fs::read_to_string(root.join(&q).join("pkg/index.ts")).unwrap(),
            "y"
        );
        assert_eq!(
            fs::read_to_string(wf.join("existing.ts")).unwrap(),
            "tampered",
            "modified files are not restored"
        );
    }
}
