//! `stanley-evidence <repo> [<base>]`: the diff evidence of a branch against `base` (default
//! `main`) as JSON, straight from the Git port and the exclusion policy, for checking a real
//! upgrade against `git check-attr` and `git diff -M -C --name-status` (issue 48): each file's
//! status and kind, and each exclusion's rule, reason and declaration.

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;
use stanley_adapters::Git2Repo;
use stanley_workflows::diff::{DiffEvidence, Scope};
use stanley_workflows::ports::Git;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(repo) = args.first() else {
        eprintln!("usage: stanley-evidence <repo> [<base>]");
        return ExitCode::from(64);
    };
    let base = args.get(1).map_or("main", String::as_str);
    let git = match Git2Repo::open(Path::new(repo)) {
        Ok(git) => git,
        Err(e) => {
            eprintln!("stanley-evidence: {e}");
            return ExitCode::from(66);
        }
    };
    let source = match git.diff(Scope::Branch, Some(base), None) {
        Ok(source) => source,
        Err(e) => {
            eprintln!("stanley-evidence: {e}");
            return ExitCode::from(65);
        }
    };
    let e = DiffEvidence::from_source(source);
    let left: Vec<_> = e
        .excluded
        .iter()
        .map(|x| (x, "excluded"))
        .chain(e.set_aside.iter().map(|x| (x, "set_aside")))
        .map(|(x, how)| {
            json!({"path": x.path, "rule": x.rule, "reason": x.reason, "declaredBy": x.declared_by, "how": how})
        })
        .collect();
    let files: Vec<_> = e
        .files
        .iter()
        .map(|f| json!({"path": f.path, "oldPath": f.old_path, "status": f.status, "kind": f.kind, "hunks": f.hunks.len()}))
        .collect();
    let judged = e
        .hunks
        .iter()
        .filter(|h| {
            !e.set_aside
                .iter()
                .any(|x| x.path.as_deref() == Some(&h.path))
        })
        .count();
    let doc = json!({"files": files, "leftOut": left, "judgedHunks": judged});
    println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    ExitCode::SUCCESS
}
