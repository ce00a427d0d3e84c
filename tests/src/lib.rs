//! The end-to-end harness: hermetic temporary Git repositories, a fake System One server on
//! loopback, and helpers that run the real `stanley`, `stanleyctl` and `stanleyd` binaries.

pub mod bench;
pub mod browser;
pub mod fake_jev;
pub mod fuzz;
pub mod messages_server;
pub mod model_server;
pub mod repo;
pub mod seen;
pub mod stores;
pub mod testenv;
pub mod tls;

pub use fake_jev::{FakeJev, Fault};
pub use repo::TempRepo;
pub use seen::{Normalizer, Seen};
pub use testenv::{Output, TestEnv};

/// A temporary folder only this user can use (mode 0700), as a runtime (socket) folder must be.
pub fn private_tempdir(prefix: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("temporary folder");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
        .expect("restrict the temporary folder");
    dir
}

/// The workflow the stand-in agents draft for a TODO request (`todo_audit`): it asks Jev one
/// question and reports whether it was answered.
pub const TODO_WORKFLOW: &str = r#"export default async function () {
  return {
    id: "todo_audit",
    instructions: "Use when the user asks to audit TODO notes.",
    examples: ["Audit the TODO comments"],
    async run({ request, judge }) {
      const answer = await judge({
        scope: "todo",
        state: { request },
        questions: { stale: { type: "noul", instructions: "Is the note stale?" } },
      });
      return { text: "audited", data: { judged: answer.ok, request } };
    },
  };
}
"#;

/// The candidate file an improvement brief asks for (`<candidate dir>/todo_audit.ts`), found by
/// the brief's own wording; `None` when `text` is not an improvement brief.
/// The flow journal's JSON in `.stanley/flow/state.json` under `root`, without the seal line
/// Stanley writes first (`stanley-sealed <mac>`).
pub fn flow_journal(root: &std::path::Path) -> String {
    let text = std::fs::read_to_string(root.join(".stanley/flow/state.json")).expect("a journal");
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("stanley-sealed ") => rest.to_owned(),
        _ => text,
    }
}

/// Writes `json` as the flow journal under `root`, sealed with the key of the user whose home
/// is `home` (what the daemon there would accept as its own journal).
pub fn write_sealed_journal(root: &std::path::Path, home: &std::path::Path, json: &str) {
    let key =
        stanley_adapters::user_key::UserKey::load_or_create(&home.join(".local/state/stanley"))
            .expect("the user's key");
    let tag = key.tag("stanley.flow-state/1", json.as_bytes());
    std::fs::create_dir_all(root.join(".stanley/flow")).unwrap();
    std::fs::write(
        root.join(".stanley/flow/state.json"),
        format!("stanley-sealed {tag}\n{json}"),
    )
    .unwrap();
}

pub fn brief_candidate_file(text: &str) -> Option<String> {
    let marker = "write exactly one workflow file at ";
    let start = text.find(marker)? + marker.len();
    let dir: String = text[start..]
        .chars()
        .take(".stanley/candidates/imp_".len() + 12)
        .collect();
    Some(format!("{dir}/todo_audit.ts"))
}

/// Serves `app` on `127.0.0.1:0` on a runtime of its own (one worker thread), for the scripted
/// servers the tests talk to; the server lives as long as the runtime returned with its address.
pub fn serve_on_loopback(app: axum::Router) -> (std::net::SocketAddr, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let addr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        addr
    });
    (addr, runtime)
}
