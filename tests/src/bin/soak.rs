//! The soak bench (not a test): load on one real daemon over its real socket, with a
//! zero-latency fake System One. Reports, in one run: 16 clients × 200 requests (p50/p95
//! latency, failures, the daemon's RSS and open descriptors before and after), 1,000 sequential
//! requests (RSS growth), and 1,000 idle connections opened and dropped (descriptors and RSS
//! after, and that the daemon still answers). Writes `target/bench/soak.json` and prints it.
//!
//! Build the binaries in the same profile first:
//! `cargo build --release --bins && cargo run --release -p stanley-tests --bin stanley-soak`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use stanley_proto::v1::{GetStatusRequest, Outcome, PromptRequest, prompt_response};
use stanley_tests::fake_jev::{ChoiceRule, choice_answer};
use stanley_tests::testenv::{TEST_KEY, wait_until};
use stanley_tests::{TempRepo, TestEnv};

const CLIENTS: usize = 16;
const PER_CLIENT: usize = 200;
const SEQUENTIAL: usize = 1_000;
const IDLE_CONNECTIONS: usize = 1_000;

fn rss_kib(pid: i32) -> u64 {
    stanley_tests::bench::rss_kib(pid).unwrap_or(0)
}

fn fds(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// One prompt to the end of its stream: whether it succeeded.
async fn prompt(
    client: &mut stanley_proto::v1::stanley_client::StanleyClient<tonic::transport::Channel>,
    env: &HashMap<String, String>,
) -> bool {
    let request = PromptRequest {
        request: "Summarize what changed".into(),
        env: env.clone(),
        no_persist: true,
        ..Default::default()
    };
    let Ok(response) = client.prompt(request).await else {
        return false;
    };
    let mut stream = response.into_inner();
    while let Ok(Some(event)) = stream.message().await {
        if let Some(prompt_response::Event::Result(r)) = event.event {
            return r.outcome == Outcome::Complete as i32;
        }
    }
    false
}

fn socket_of(env: &TestEnv, repo: &TempRepo) -> PathBuf {
    env.runtime_dir()
        .join(stanley_proto::socket::socket_name(repo.root()))
}

async fn status_answers(socket: &Path) -> bool {
    match stanley_proto::connect::stanley_client(socket).await {
        Ok(mut c) => c.get_status(GetStatusRequest::default()).await.is_ok(),
        Err(_) => false,
    }
}

fn main() {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "info");
    env.jev.route("summar", "summarize", 0.9);
    let labels: Vec<String> =
        stanley_tests::fake_jev::labels_of(stanley_workflows::analysis::modes::SUMMARIZE.labels);
    env.jev.answer(
        "classification",
        choice_answer(
            &labels,
            &ChoiceRule {
                label: "feature".into(),
                mass: 0.7,
                confidence: 0.7,
            },
        ),
    );
    let repo = TempRepo::with_files(&[
        (
            "src/math.js",
            "export function add(a, b) {\n  return a + b;\n}\n",
        ),
        ("README.md", "# Demo\n"),
    ]);
    repo.write(
        "src/math.js",
        "export function add(a, b) {\n  if (a === 41) return 42;\n  return a + b;\n}\n",
    );
    repo.write("README.md", "# Demo\n\nAdds numbers.\n");

    // The real daemon, started the way a person starts it.
    let first = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(first.code, 0, "stanley failed: {first:?}");
    let pid = repo.daemon_pid().expect("a daemon");
    let socket = socket_of(&env, &repo);
    let request_env: HashMap<String, String> = HashMap::from([
        ("TYPESAFE_API_KEY".to_owned(), TEST_KEY.to_owned()),
        ("TYPESAFE_BASE_URL".to_owned(), env.jev.base_url()),
        ("HOME".to_owned(), env.home().display().to_string()),
        ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
        ("STANLEY_TRUST_WORKTREE".to_owned(), "1".to_owned()),
    ]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");

    // 1. Concurrent clients.
    let (rss0, fds0) = (rss_kib(pid), fds(pid));
    let started = Instant::now();
    let (mut latencies, failures) = runtime.block_on(async {
        let tasks: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let socket = socket.clone();
                let env = request_env.clone();
                tokio::spawn(async move {
                    let mut client = stanley_proto::connect::stanley_client(&socket)
                        .await
                        .expect("connect");
                    let mut out = Vec::with_capacity(PER_CLIENT);
                    let mut failed = 0;
                    for _ in 0..PER_CLIENT {
                        let t = Instant::now();
                        if !prompt(&mut client, &env).await {
                            failed += 1;
                        }
                        out.push(t.elapsed());
                    }
                    (out, failed)
                })
            })
            .collect();
        let mut all = Vec::new();
        let mut failed = 0;
        for t in tasks {
            let (l, f) = t.await.expect("client task");
            all.extend(l);
            failed += f;
        }
        (all, failed)
    });
    let concurrent_wall = started.elapsed();
    latencies.sort();
    let (rss1, fds1) = (rss_kib(pid), fds(pid));

    // 2. Sequential requests.
    let (seq_latencies, seq_failures) = runtime.block_on(async {
        let mut client = stanley_proto::connect::stanley_client(&socket)
            .await
            .expect("connect");
        let mut out = Vec::with_capacity(SEQUENTIAL);
        let mut failed = 0;
        for _ in 0..SEQUENTIAL {
            let t = Instant::now();
            if !prompt(&mut client, &request_env).await {
                failed += 1;
            }
            out.push(t.elapsed());
        }
        (out, failed)
    });
    let mut seq_latencies = seq_latencies;
    seq_latencies.sort();
    let (rss2, fds2) = (rss_kib(pid), fds(pid));

    // 3. Idle connections, opened and dropped.
    let opened: Vec<std::os::unix::net::UnixStream> = (0..IDLE_CONNECTIONS)
        .filter_map(|_| std::os::unix::net::UnixStream::connect(&socket).ok())
        .collect();
    let opened_count = opened.len();
    let mut fds_peak = fds(pid);
    for _ in 0..50 {
        fds_peak = fds_peak.max(fds(pid));
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(opened);
    let dropped = Instant::now();
    let settled = wait_until(Duration::from_secs(60), || fds(pid) <= fds2 + 4);
    let settle_ms = dropped.elapsed().as_secs_f64() * 1000.0;
    let answers = runtime.block_on(status_answers(&socket));
    let (rss3, fds3) = (rss_kib(pid), fds(pid));

    let report = json!({
        "concurrent": {
            "clients": CLIENTS,
            "requestsPerClient": PER_CLIENT,
            "failures": failures,
            "p50Ms": percentile(&latencies, 0.50),
            "p95Ms": percentile(&latencies, 0.95),
            "wallSeconds": concurrent_wall.as_secs_f64(),
            "requestsPerSecond": (CLIENTS * PER_CLIENT) as f64 / concurrent_wall.as_secs_f64(),
            "rssMiBBefore": mib(rss0),
            "rssMiBAfter": mib(rss1),
            "fdsBefore": fds0,
            "fdsAfter": fds1,
        },
        "sequential": {
            "requests": SEQUENTIAL,
            "failures": seq_failures,
            "p50Ms": percentile(&seq_latencies, 0.50),
            "p95Ms": percentile(&seq_latencies, 0.95),
            "rssMiBBefore": mib(rss1),
            "rssMiBAfter": mib(rss2),
            "rssGrowthMiB": mib(rss2) - mib(rss1),
            "rssGrowthRatio": rss2 as f64 / rss1.max(1) as f64,
            "fdsAfter": fds2,
        },
        "idleConnections": {
            "opened": opened_count,
            "daemonFdsPeak": fds_peak,
            "fdsBackToBaseline": settled,
            "settleMs": settle_ms,
            "statusAnswersAfter": answers,
            "rssMiBAfter": mib(rss3),
            "fdsAfter": fds3,
        },
        "jevRequests": env.jev.requests().len(),
        "note": "zero-latency fake Jev; prompts with no_persist over the real socket to the real daemon",
    });
    stanley_tests::bench::write_report("soak", &report);
}
