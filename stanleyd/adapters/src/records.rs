//! The `.stanley/` state folder and built-in run records under `.stanley/runs/<run-id>/`:
//! folders 0700, files 0600, JSON written atomically (temp file, fsync, rename), NDJSON appended,
//! everything redacted first.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use stanley_workflows::ports::{Redactor, RunRecorder};

/// The content of `.stanley/.gitignore`: ignore everything but `workflows/` and the flow plan
/// `flow.json` (both are reviewed and committed like code).
pub const GITIGNORE: &str = "*\n!workflows/\n!workflows/**\n!flow.json\n";
/// Earlier contents, migrated to [`GITIGNORE`] when found.
const OLD_GITIGNORES: [&str; 2] = ["*\n", "*\n!workflows/\n!workflows/**\n"];

/// Creates `dir` (and parents) with mode 0700 when missing.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Ensures `<root>/.stanley/` exists (0700) with its `.gitignore` (created exclusively, 0600;
/// an earlier Stanley's file is migrated; any other content is left alone). Returns the folder.
pub fn ensure_state_dir(root: &Path) -> io::Result<PathBuf> {
    let dir = root.join(".stanley");
    create_private_dir(&dir)?;
    let ignore = dir.join(".gitignore");
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&ignore)
    {
        Ok(mut f) => f.write_all(GITIGNORE.as_bytes())?,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if fs::read_to_string(&ignore).is_ok_and(|c| OLD_GITIGNORES.contains(&c.as_str())) {
                write_atomic(&ignore, GITIGNORE.as_bytes())?;
            }
        }
        Err(e) => return Err(e),
    }
    Ok(dir)
}

/// Writes `bytes` to `path` atomically with mode 0600: a temporary file beside it, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!("{name}.tmp-{}", std::process::id()));
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600))?;
    fs::rename(&tmp, path)
}

/// Writes one run's records on disk.
pub struct FsRecorder {
    dir: PathBuf,
    relative: String,
    redactor: Arc<dyn Redactor>,
    lock: Mutex<()>,
}

impl std::fmt::Debug for FsRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsRecorder")
            .field("dir", &self.dir)
            .finish()
    }
}

impl FsRecorder {
    /// Creates `.stanley/runs/<run_id>/` under `root`.
    pub fn create(root: &Path, run_id: &str, redactor: Arc<dyn Redactor>) -> io::Result<Self> {
        let state = ensure_state_dir(root)?;
        let runs = state.join("runs");
        create_private_dir(&runs)?;
        let dir = runs.join(run_id);
        create_private_dir(&dir)?;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
        Ok(Self {
            dir,
            relative: format!(".stanley/runs/{run_id}"),
            redactor,
            lock: Mutex::new(()),
        })
    }

    fn clean(&self, value: &Value) -> Value {
        self.redactor.json(value).0
    }

    fn report(&self, name: &str, result: io::Result<()>) {
        if let Err(e) = result {
            tracing::warn!(file = %self.dir.join(name).display(), error = %e, "could not write a run record");
        }
    }
}

impl RunRecorder for FsRecorder {
    fn write_json(&self, name: &str, value: &Value) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = serde_json::to_string_pretty(&self.clean(value)).unwrap_or_default();
        text.push('\n');
        self.report(name, write_atomic(&self.dir.join(name), text.as_bytes()));
    }

    fn append(&self, name: &str, value: &Value) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut line = serde_json::to_string(&self.clean(value)).unwrap_or_default();
        line.push('\n');
        let result = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(self.dir.join(name))
            .and_then(|mut f| f.write_all(line.as_bytes()));
        self.report(name, result);
    }

    fn artifact(&self) -> Option<String> {
        Some(self.relative.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::SecretRedactor;
    use serde_json::json;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn records_are_private_redacted_and_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let redactor = Arc::new(SecretRedactor::new(["sk-secret-value-1".to_owned()]));
        let rec = FsRecorder::create(dir.path(), "summarize-x", redactor).unwrap();
        rec.write_json("manifest.json", &json!({"k": "sk-secret-value-1"}));
        rec.append("frames.ndjson", &json!({"a": 1}));
        rec.append("frames.ndjson", &json!({"a": 2}));
        let run = dir.path().join(".stanley/runs/summarize-x");
        assert_eq!(mode(&dir.path().join(".stanley")), 0o700);
        assert_eq!(mode(&run), 0o700);
        assert_eq!(mode(&run.join("manifest.json")), 0o600);
        assert_eq!(mode(&run.join("frames.ndjson")), 0o600);
        let manifest = fs::read_to_string(run.join("manifest.json")).unwrap();
        assert_eq!(manifest, "{\n  \"k\": \"[REDACTED:env_secret]\"\n}\n");
        assert_eq!(
            fs::read_to_string(run.join("frames.ndjson")).unwrap(),
            "{\"a\":1}\n{\"a\":2}\n"
        );
        let names: Vec<String> = fs::read_dir(&run)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
        assert_eq!(rec.artifact().unwrap(), ".stanley/runs/summarize-x");
    }

    #[test]
    fn gitignore_is_created_and_migrated() {
        let dir = tempfile::tempdir().unwrap();
        ensure_state_dir(dir.path()).unwrap();
        let ignore = dir.path().join(".stanley/.gitignore");
        assert_eq!(fs::read_to_string(&ignore).unwrap(), GITIGNORE);
        assert_eq!(mode(&ignore), 0o600);
        for old in OLD_GITIGNORES {
            fs::write(&ignore, old).unwrap();
            ensure_state_dir(dir.path()).unwrap();
            assert_eq!(fs::read_to_string(&ignore).unwrap(), GITIGNORE);
        }
        fs::write(&ignore, "custom\n").unwrap();
        ensure_state_dir(dir.path()).unwrap();
        assert_eq!(fs::read_to_string(&ignore).unwrap(), "custom\n");
    }
}
