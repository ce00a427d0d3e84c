//! Which page an address names, and reading what it shows from the daemon's records: run
//! folders, the queue, candidate folders, the flow file and its journal. Reading only: a
//! damaged journal is reported, not moved aside (that is for the flow's own commands).

use std::io;
use std::path::Path;

use axum::http::StatusCode;
use maud::Markup;
use stanley_workflows::flow::Flow;
use stanley_workflows::flow::state::{FlowState, JournalError, StoreError};
use stanley_workflows::improve::JobId;

use super::pages;
use crate::flow::eval::{FlowLoad, load_flow};
use crate::state::DaemonState;

/// The most of a candidate's source the page shows.
const MAX_SOURCE_BYTES: u64 = 256 * 1024;
/// The most runs the runs page lists (the newest).
const MAX_RUNS_LISTED: usize = 500;

/// Why a candidate's source is not shown: the line the page says instead.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SourceUnshown {
    /// The record names no source.
    #[error("the candidate names no source file")]
    Unnamed,
    /// The path leads outside the candidate's (or the repository workflows') folder.
    #[error("{rel} is not inside the candidate's folder")]
    Outside { rel: String },
    /// A part of the path cannot be looked at.
    #[error("{rel} cannot be read: {source}")]
    Unreadable {
        rel: String,
        #[source]
        source: io::Error,
    },
    /// A part of the path is a symbolic link.
    #[error("{rel} is reached through a symbolic link; not shown")]
    Link { rel: String },
    /// The file is larger than the page shows.
    #[error("{rel} is larger than the page shows ({MAX_SOURCE_BYTES} bytes)")]
    TooLarge { rel: String },
    /// The file cannot be read (not a regular file, a failed read).
    #[error("{rel} cannot be shown: {source}")]
    Unshowable {
        rel: String,
        #[source]
        source: io::Error,
    },
}

/// Why the flow page shows no journal: reported, never moved aside from here.
#[derive(Debug, thiserror::Error)]
pub(crate) enum JournalUnshown {
    /// It reads but cannot be used.
    #[error(
        "the flow journal cannot be used ({0}); the next stop or `stanleyctl flow status` moves it aside"
    )]
    Unusable(#[source] JournalError),
    /// The store cannot read it.
    #[error("the flow journal cannot be read: {0}")]
    Unreadable(StoreError),
}

/// A page of the site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Page {
    Overview,
    Runs,
    Run(String),
    Queue,
    Candidate(String),
    Flow,
}

impl Page {
    /// The page at `path` (the address after the token), if there is one.
    pub(crate) fn at(path: &str) -> Option<Self> {
        let path = path
            .strip_suffix('/')
            .filter(|p| !p.is_empty())
            .unwrap_or(path);
        match path {
            "/" => return Some(Page::Overview),
            "/runs" => return Some(Page::Runs),
            "/queue" => return Some(Page::Queue),
            "/flow" => return Some(Page::Flow),
            _ => {}
        }
        let simple = |s: &str| {
            !s.is_empty()
                && s.len() <= 200
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
                && !s.starts_with('.')
        };
        if let Some(id) = path.strip_prefix("/runs/").filter(|s| simple(s)) {
            return Some(Page::Run(id.to_owned()));
        }
        if let Some(id) = path.strip_prefix("/candidates/").filter(|s| simple(s)) {
            return Some(Page::Candidate(id.to_owned()));
        }
        None
    }

    /// Its own address, after the token.
    pub(crate) fn path(&self) -> String {
        match self {
            Page::Overview => "/".into(),
            Page::Runs => "/runs".into(),
            Page::Run(id) => format!("/runs/{id}"),
            Page::Queue => "/queue".into(),
            Page::Candidate(id) => format!("/candidates/{id}"),
            Page::Flow => "/flow".into(),
        }
    }
}

/// A page's title, main part and status.
pub(crate) struct Rendered {
    pub(crate) title: String,
    pub(crate) main: Markup,
    pub(crate) status: StatusCode,
}

impl Rendered {
    fn ok(title: impl Into<String>, main: Markup) -> Self {
        Self {
            title: title.into(),
            main,
            status: StatusCode::OK,
        }
    }

    fn missing(title: &str, line: &str) -> Self {
        Self {
            title: title.into(),
            main: pages::problem(title, line),
            status: StatusCode::NOT_FOUND,
        }
    }
}

/// Reads and renders `page` (blocking: it reads files), its links under `base` (`/<token>`).
pub(crate) fn render(state: &DaemonState, base: &str, page: &Page) -> Rendered {
    let root = &state.config().files.root;
    match page {
        Page::Overview => overview(state, base),
        Page::Runs => {
            let refused = stanley_adapters::runs::refused(root);
            let mut runs = stanley_adapters::runs::list(root);
            runs.truncate(MAX_RUNS_LISTED);
            Rendered::ok("Runs", pages::runs(base, &runs, refused.as_deref()))
        }
        Page::Run(id) => run(root, id),
        Page::Queue => queue(state, base),
        Page::Candidate(id) => candidate(root, id),
        Page::Flow => flow(state),
    }
}

fn run(root: &Path, id: &str) -> Rendered {
    match stanley_adapters::runs::read(root, id) {
        Ok((summary, result)) => {
            let document = &result["document"];
            let mut typed = stanley_proto::v1::Result::default();
            crate::typed::fill(
                &mut typed,
                &document["output"],
                &summary.workflow,
                Some(&summary.run_id),
            );
            let human = result["human"].as_str().unwrap_or("");
            Rendered::ok(
                format!("Run {}", summary.run_id),
                pages::run(&summary, &typed, document, human),
            )
        }
        Err(e) => Rendered::missing("No such run", &e.to_string()),
    }
}

fn queue(state: &DaemonState, base: &str) -> Rendered {
    let root = &state.config().files.root;
    let jobs = match state.improve().store() {
        Some(q) => q.list().map_err(|e| e.to_string()),
        None => Err(state.improve().unavailable().to_string()),
    };
    let recoveries: Vec<String> = stanley_adapters::queue::recoveries(&root.join(".stanley"))
        .iter()
        .map(stanley_adapters::queue::Recovery::line)
        .collect();
    let candidates = crate::candidates::candidates(root);
    Rendered::ok(
        "Improvement queue",
        pages::queue(
            base,
            jobs.as_deref().map_err(String::as_str),
            &recoveries,
            &candidates,
        ),
    )
}

fn candidate(root: &Path, id: &str) -> Rendered {
    let Some(id) = JobId::parse(id) else {
        return Rendered::missing("No such candidate", &format!("no candidate {id}"));
    };
    let Ok(record) = crate::candidates::candidate(root, &id) else {
        return Rendered::missing(
            "No such candidate",
            &format!("no candidate record for {id}"),
        );
    };
    let source = match &record.source {
        Some(rel) => read_source(root, &id, rel),
        None => Err(SourceUnshown::Unnamed),
    };
    Rendered::ok(
        format!("Candidate {id}"),
        pages::candidate(
            &record,
            source
                .as_deref()
                .map_err(|why| why as &dyn std::fmt::Display),
        ),
    )
}

/// A candidate's source, when it is a file directly inside the candidate's folder or, once
/// promoted, the repository workflows' (the rule promotion follows), reached without following
/// a link, and small enough to show.
fn read_source(root: &Path, id: &JobId, rel: &str) -> Result<String, SourceUnshown> {
    let rel_owned = || rel.to_owned();
    if !crate::worker::source_in_folder(id, rel, false)
        && !crate::worker::source_in_folder(id, rel, true)
    {
        return Err(SourceUnshown::Outside { rel: rel_owned() });
    }
    let mut path = root.to_path_buf();
    for part in rel.split('/') {
        path.push(part);
        let meta =
            std::fs::symlink_metadata(&path).map_err(|source| SourceUnshown::Unreadable {
                rel: rel_owned(),
                source,
            })?;
        if meta.file_type().is_symlink() {
            return Err(SourceUnshown::Link { rel: rel_owned() });
        }
    }
    let bytes = stanley_adapters::records::read_bounded(&path, MAX_SOURCE_BYTES).map_err(|e| {
        if e.kind() == io::ErrorKind::InvalidData {
            SourceUnshown::TooLarge { rel: rel_owned() }
        } else {
            SourceUnshown::Unshowable {
                rel: rel_owned(),
                source: e,
            }
        }
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The flow as the page shows it, read without changing anything.
struct FlowRead {
    flow: Flow,
    /// The journal, or why it cannot be used (reported, not moved aside).
    journal: Result<Option<FlowState>, JournalUnshown>,
    /// `NEEDS_HUMAN.md` while a question waits.
    person_note: Option<String>,
    supervisor_running: bool,
}

impl FlowRead {
    /// The flow file and its journal, or why the file does not load.
    fn of(state: &DaemonState) -> Result<Self, FlowLoad> {
        let flow = load_flow(&state.config().files.root)?.flow;
        let store = state.flows().store().as_ref();
        let journal = match store.read_state() {
            Ok(Some(text)) => FlowState::parse(&text, &flow)
                .map(Some)
                .map_err(JournalUnshown::Unusable),
            Ok(None) => Ok(None),
            Err(e) => Err(JournalUnshown::Unreadable(e)),
        };
        let person_note = store
            .needs_human_pending()
            .then(|| store.read_needs_human())
            .flatten();
        Ok(Self {
            flow,
            journal,
            person_note,
            supervisor_running: state.flow_supervised(),
        })
    }

    fn journal(&self) -> Option<&FlowState> {
        self.journal.as_ref().ok().and_then(Option::as_ref)
    }

    /// One word for where the flow stands: complete, waiting (on a person), running (the
    /// supervisor), active (started) or pending. A complete flow never waits, as `flow status`
    /// says too.
    fn standing(&self) -> &'static str {
        let journal = self.journal();
        if journal.is_some_and(|s| s.complete) {
            "complete"
        } else if self.person_note.is_some() {
            "waiting"
        } else if self.supervisor_running {
            "running"
        } else if journal.is_some() {
            "active"
        } else {
            "pending"
        }
    }
}

fn flow(state: &DaemonState) -> Rendered {
    let read = match FlowRead::of(state) {
        Ok(read) => read,
        Err(FlowLoad::Missing) => {
            return Rendered::ok(
                "Flow",
                pages::problem(
                    "Flow",
                    "This repository has no flow. Start one with `stanleyctl flow init \"<goal>\"`.",
                ),
            );
        }
        Err(unusable) => {
            return Rendered::ok("Flow", pages::problem("Flow", &unusable.to_string()));
        }
    };
    let recoveries = crate::flow::eval::journal_recoveries(state.flows().store().as_ref());
    let facts = pages::FlowFacts {
        journal: read
            .journal
            .as_ref()
            .map(Option::as_ref)
            .map_err(|why| why as &dyn std::fmt::Display),
        standing: read.standing(),
        supervisor_running: read.supervisor_running,
        person_note: read.person_note.as_deref(),
        recoveries: &recoveries,
    };
    Rendered::ok("Flow", pages::flow(&read.flow, &facts))
}

/// The flow in one line, for the overview.
fn flow_line(state: &DaemonState) -> String {
    let Ok(read) = FlowRead::of(state) else {
        return "no flow (or it does not load)".into();
    };
    let goal = &read.flow.goal;
    match (read.standing(), read.journal()) {
        ("waiting", _) => format!("{goal}: waiting on a person"),
        ("complete", _) => format!("{goal}: complete"),
        (_, Some(s)) => format!("{goal}: in phase {}", s.current_phase),
        (_, None) => format!("{goal}: not started"),
    }
}

fn overview(state: &DaemonState, base: &str) -> Rendered {
    let root = &state.config().files.root;
    let mut latest = stanley_adapters::runs::list(root);
    latest.truncate(5);
    let queue = state
        .improve()
        .store()
        .and_then(|q| q.list().ok())
        .map(|jobs| {
            let pending = jobs
                .iter()
                .filter(|j| j.state != stanley_workflows::improve::JobState::Done)
                .count();
            (pending, jobs.len())
        });
    let waiting = crate::candidates::candidates(root)
        .iter()
        .filter(|c| c.status == stanley_workflows::improve::CandidateStatus::Validated)
        .count();
    Rendered::ok(
        "Overview",
        pages::overview(base, &latest, queue, waiting, &flow_line(state)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_name_pages() {
        assert_eq!(Page::at("/"), Some(Page::Overview));
        assert_eq!(Page::at("/runs/"), Some(Page::Runs));
        assert_eq!(
            Page::at("/runs/review-20261201T010203Z-ab12"),
            Some(Page::Run("review-20261201T010203Z-ab12".into()))
        );
        assert_eq!(
            Page::at("/candidates/imp_0123456789ab"),
            Some(Page::Candidate("imp_0123456789ab".into()))
        );
        for bad in [
            "/runs/../x",
            "/runs/a/b",
            "/runs/..",
            "/nope",
            "/candidates/",
            "/runs/%2e%2e",
        ] {
            assert_eq!(Page::at(bad), None, "{bad}");
        }
        for page in [
            Page::Overview,
            Page::Runs,
            Page::Queue,
            Page::Flow,
            Page::Run("x".into()),
        ] {
            assert_eq!(Page::at(&page.path()), Some(page));
        }
    }

    #[test]
    fn a_candidate_source_is_read_only_inside_its_folder_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let folder = root.join(".stanley/candidates/imp_0123456789ab");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("todo.ts"), "export default 1;\n").unwrap();
        std::fs::write(root.join("secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(root.join("secret.txt"), folder.join("link.ts")).unwrap();
        let id = &JobId::parse("imp_0123456789ab").unwrap();
        assert_eq!(
            read_source(root, id, ".stanley/candidates/imp_0123456789ab/todo.ts").unwrap(),
            "export default 1;\n"
        );
        let link = read_source(root, id, ".stanley/candidates/imp_0123456789ab/link.ts");
        let link = link.unwrap_err();
        assert!(matches!(link, SourceUnshown::Link { .. }), "{link:?}");
        assert!(link.to_string().contains("symbolic link"));
        for outside in [
            "secret.txt",
            ".stanley/candidates/imp_0123456789ab/../../../secret.txt",
            ".stanley/candidates/imp_aaaaaaaaaaaa/x.ts",
            "/etc/passwd",
        ] {
            let e = read_source(root, id, outside).unwrap_err();
            assert!(
                matches!(e, SourceUnshown::Outside { .. }),
                "{outside}: {e:?}"
            );
            assert!(e.to_string().contains("not inside"), "{outside}: {e}");
        }
    }

    /// A missing file and one too large for the page are told apart by variant, each with the
    /// line the page shows.
    #[test]
    fn a_candidate_source_too_large_or_missing_says_which() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let id = &JobId::parse("imp_0123456789ab").unwrap();
        let folder = root.join(".stanley/candidates").join(id.as_str());
        std::fs::create_dir_all(&folder).unwrap();
        let big = vec![b'x'; MAX_SOURCE_BYTES as usize + 1];
        std::fs::write(folder.join("big.ts"), big).unwrap();
        let rel = ".stanley/candidates/imp_0123456789ab/big.ts";
        let large = read_source(root, id, rel).unwrap_err();
        assert!(
            matches!(&large, SourceUnshown::TooLarge { rel: r } if r == rel),
            "{large:?}"
        );
        assert_eq!(
            large.to_string(),
            format!("{rel} is larger than the page shows (262144 bytes)")
        );
        let gone = ".stanley/candidates/imp_0123456789ab/gone.ts";
        let missing = read_source(root, id, gone).unwrap_err();
        match &missing {
            SourceUnshown::Unreadable { source, .. } => {
                assert_eq!(source.kind(), io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
        assert!(
            missing
                .to_string()
                .starts_with(&format!("{gone} cannot be read: "))
        );
    }
}
