//! The daemon's edge under input nobody planned for (issue 36): malformed and oversize gRPC
//! messages from a local client, hook payloads of the wrong shape, and Stanley's own files
//! under `.stanley/` truncated or replaced by a folder, a FIFO or a link to `/dev/zero`. Each
//! gets one clear answer, nothing waits forever, and the daemon keeps serving.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use stanley_tests::TempRepo;
use stanley_tests::fuzz::campaign::Rng;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;

/// Bytes as they are, in and out: the client side of a message nobody encoded properly.
#[derive(Clone, Copy, Debug, Default)]
struct Raw;

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        use bytes::BufMut;
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        use bytes::Buf;
        let mut out = vec![0; src.remaining()];
        src.copy_to_slice(&mut out);
        Ok(Some(out))
    }
}

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

/// A protobuf field of wire type 2 (bytes, strings, messages).
fn field(number: u32, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let varint = |mut v: u64, out: &mut Vec<u8>| {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    };
    varint(u64::from(number << 3 | 2), &mut out);
    varint(bytes.len() as u64, &mut out);
    out.extend_from_slice(bytes);
    out
}

const METHODS: [&str; 8] = [
    "/stanley.v1.Stanley/GetStatus",
    "/stanley.v1.Stanley/Diagnose",
    "/stanley.v1.Flows/FlowHook",
    "/stanley.v1.Flows/FlowStatus",
    "/stanley.v1.Runs/GetRun",
    "/stanley.v1.Runs/ListRuns",
    "/stanley.v1.Queue/ListJobs",
    "/stanley.v1.Cache/GetCacheStats",
];

fn flow_repo() -> TempRepo {
    let repo = TempRepo::with_files(&[("README.md", "# x\n")]);
    repo.write(
        ".stanley/flow.json",
        &serde_json::json!({"goal": "g", "mode": "warn", "phases": [
            {"id": "a", "name": "A", "done_when": "a exists"}]})
        .to_string(),
    );
    repo
}

async fn status_answers(socket: &Path) {
    let mut client = stanley_proto::connect::stanley_client(socket)
        .await
        .expect("the daemon still accepts connections");
    client
        .get_status(stanley_proto::v1::GetStatusRequest::default())
        .await
        .expect("the daemon still answers GetStatus");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_oversize_messages_and_hook_payloads_get_one_answer_and_the_daemon_serves_on()
{
    let repo = flow_repo();
    let crate::grpc::Daemon {
        dir,
        socket,
        stop,
        task,
    } = crate::grpc::start(&repo).await;
    let channel = stanley_proto::connect::connect(&socket).await.unwrap();
    let call = |path: &'static str, body: Vec<u8>| {
        let channel = channel.clone();
        async move {
            let mut grpc = tonic::client::Grpc::new(channel);
            grpc.ready().await.expect("ready");
            let answer = tokio::time::timeout(
                Duration::from_secs(60),
                grpc.unary(
                    tonic::Request::new(body),
                    PathAndQuery::from_static(path),
                    Raw,
                ),
            )
            .await
            .unwrap_or_else(|_| panic!("{path} never answered"));
            answer.map(|r| r.into_inner())
        }
    };

    // Garbage, truncated varints, wrong wire types and strings that are not UTF-8, to every
    // method: each gets an answer (a status, or a reply to what decoded).
    let mut rng = Rng::new(36);
    for i in 0..200 {
        let body = match i % 4 {
            0 => {
                let n = (rng.next_u64() % 300) as usize;
                rng.bytes(n)
            }
            1 => vec![
                0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ],
            2 => field(2, b"\xff\xfe not utf-8"),
            _ => vec![0x0d, 1, 2],
        };
        let _ = call(METHODS[i % METHODS.len()], body).await;
    }

    // A field past the message limit is refused as too large.
    let oversize = field(1, &vec![b'x'; stanley_proto::MAX_MESSAGE_BYTES + 1024]);
    let refused = call("/stanley.v1.Flows/FlowHook", oversize).await;
    let code = refused.expect_err("an oversize message is refused").code();
    assert!(
        matches!(
            code,
            tonic::Code::ResourceExhausted | tonic::Code::OutOfRange
        ),
        "{code:?}"
    );

    // Hook payloads of the wrong shape: one usage error or a plain answer, never a hang.
    let fifo = dir.path().join("fifo");
    let made = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(made.as_ptr(), 0o600) }, 0);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let payloads: Vec<String> = vec![
        "[]".into(),
        "\"stop\"".into(),
        "{\"stop_hook_active\": \"yes\", \"transcript_path\": 5}".into(),
        format!("{{\"transcript_path\": {:?}}}", fifo.display().to_string()),
        "{\"transcript_path\": \"/dev/zero\"}".into(),
        format!(
            "{{\"transcript_path\": {:?}}}",
            dir.path().display().to_string()
        ),
        "{\"tool_name\": {\"nested\": [1, 2]}, \"tool_input\": \"rm -rf /\"}".into(),
        deep,
        format!(
            "{{\"last_assistant_message\": \"{}\"}}",
            "w".repeat(1_000_000)
        ),
    ];
    let env = HashMap::from([("STANLEY_TRUST_WORKTREE".to_owned(), "1".to_owned())]);
    let mut hooks = stanley_proto::v1::flows_client::FlowsClient::new(channel.clone());
    for event in [
        "session-start",
        "stop",
        "pre-tool-use",
        "post-tool-use",
        "subagent-stop",
        "task-completed",
    ] {
        for payload in &payloads {
            let started = Instant::now();
            let answer = tokio::time::timeout(
                Duration::from_secs(60),
                hooks.flow_hook(
                    stanley_proto::v1::FlowHookRequest {
                        hook_event: stanley_proto::HookEvent::parse(event).unwrap().wire() as i32,
                        input: payload.clone(),
                        env: env.clone(),
                        ..Default::default()
                    }
                    .with_words(),
                ),
            )
            .await
            .unwrap_or_else(|_| panic!("{event} never answered {:.40}", payload));
            if let Err(status) = answer {
                assert!(
                    matches!(
                        status.code(),
                        tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition
                    ),
                    "{event}: {status:?}"
                );
                assert!(status.message().len() < 300, "{}", status.message());
            }
            assert!(started.elapsed() < Duration::from_secs(60));
        }
    }

    status_answers(&socket).await;
    assert!(!task.is_finished(), "the daemon is still running");
    let _ = stop.send(());
    let _ = task.await;
}

/// Runs `read` on a thread and waits for it, polling, at most `limit`.
fn finishes_within<T: Send + 'static>(
    what: &str,
    limit: Duration,
    read: impl FnOnce() -> T + Send + 'static,
) -> T {
    let handle = std::thread::spawn(read);
    let deadline = Instant::now() + limit;
    while !handle.is_finished() {
        assert!(Instant::now() < deadline, "{what} is still reading");
        std::thread::sleep(Duration::from_millis(10));
    }
    handle.join().expect("the reader did not panic")
}

/// Replaces `path` by what `fault` names.
fn plant(path: &Path, fault: &str, whole: &[u8]) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_dir_all(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match fault {
        "truncated" => std::fs::write(path, &whole[..whole.len() / 2]).unwrap(),
        "folder" => std::fs::create_dir(path).unwrap(),
        "fifo" => {
            let made = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: mkfifo reads a NUL-terminated path that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(made.as_ptr(), 0o600) }, 0);
        }
        _ => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
    }
}

#[test]
fn own_files_truncated_or_replaced_by_a_folder_a_fifo_or_dev_zero_are_read_without_waiting() {
    use stanley_adapters::flow_store::FileFlowStore;
    use stanley_workflows::flow::state::FlowStore;
    let run = "triage_failures-20261201T000000Z-0123abcd";
    let files: [(&str, &[u8]); 6] = [
        (
            ".stanley/state/queue.ndjson",
            b"0123abcd {\"put\": {\"id\": \"x\"}}\n",
        ),
        (
            ".stanley/flow/state.json",
            b"{\"schema\": \"stanley.flow-state/v1\"}",
        ),
        (
            ".stanley/flow/NEEDS_HUMAN.md",
            b"# Needs a person\n\nanswer here\n",
        ),
        (
            ".stanley/runs/RUN/summary.json",
            b"{\"schema\": \"stanley.run-summary/v1\"}",
        ),
        (
            ".stanley/runs/RUN/result.json",
            b"{\"document\": {}, \"human\": \"ok\"}",
        ),
        (".stanley/runs/RUN/seen.json", b"[\"fp_1\", \"fp_2\"]"),
    ];
    for fault in ["truncated", "folder", "fifo", "dev-zero"] {
        for (name, whole) in files {
            let repo = TempRepo::with_files(&[("README.md", "# x\n")]);
            let root: PathBuf = repo.root().to_path_buf();
            for dir in [".stanley", ".stanley/runs", &format!(".stanley/runs/{run}")] {
                std::fs::create_dir_all(root.join(dir)).unwrap();
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(root.join(dir), std::fs::Permissions::from_mode(0o700))
                    .unwrap();
            }
            let path = root.join(name.replace("RUN", run));
            plant(&path, fault, whole);
            let what = format!("{name} as {fault}");
            let limit = Duration::from_secs(20);
            let r = root.clone();
            match name {
                ".stanley/state/queue.ndjson" => {
                    let p = path.clone();
                    let replay = finishes_within(&what, limit, move || {
                        stanley_adapters::job_log::replay(
                            &p,
                            &stanley_adapters::user_key::UserKey::from_bytes([1; 32]),
                        )
                        .map(|r| r.jobs.len())
                    });
                    if fault != "truncated" {
                        let e = replay.expect_err(&what);
                        assert!(e.to_string().len() < 300, "{what}: {e}");
                    }
                }
                ".stanley/flow/state.json" => {
                    let state = finishes_within(&what, limit, move || {
                        FileFlowStore::new(
                            &r,
                            stanley_adapters::user_key::UserKey::from_bytes([1; 32]),
                        )
                        .read_state()
                        .map(|s| s.map(|t| t.len()))
                    });
                    if let Err(e) = state {
                        assert!(e.to_string().len() < 300, "{what}: {e}");
                    }
                }
                ".stanley/flow/NEEDS_HUMAN.md" => {
                    finishes_within(&what, limit, move || {
                        FileFlowStore::new(
                            &r,
                            stanley_adapters::user_key::UserKey::from_bytes([1; 32]),
                        )
                        .read_needs_human()
                        .map(|t| t.len())
                    });
                }
                _ => {
                    let listed = finishes_within(&what, limit, move || {
                        let listed = stanley_adapters::runs::list(&r).len();
                        let read = stanley_adapters::runs::read(&r, run).is_ok();
                        let seen = stanley_workflows::runs::RunId::parse(run)
                            .map_or(0, |id| stanley_adapters::runs::seen(&r, &id).len());
                        (listed, read, seen)
                    });
                    // The run folder is still listed and read; a bad file is read as absent.
                    assert_eq!((listed.0, listed.1), (1, true), "{what}");
                }
            }
        }
    }
}
