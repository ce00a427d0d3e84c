//! Finding the repository's daemon, starting it when it is not running (one start at a time,
//! guarded by a lock), and replacing a daemon of another version. Alive means "answered
//! GetStatus before the deadline", never "the pid exists".

use std::fs::{self, File};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use stanley_proto::connect::{ConnectError, stanley_client};
use stanley_proto::env::{DAEMON_ENV, STANLEY_DAEMON_BIN};
use stanley_proto::v1::stanley_client::StanleyClient;
use stanley_proto::v1::{GetStatusRequest, GetStatusResponse, StopDaemonRequest};
use stanley_proto::{PROTOCOL_VERSION, VERSION};
use tokio::time::{Instant, sleep, timeout};
use tonic::transport::Channel;

use crate::exit::ClientError;

/// How long a starting daemon gets to answer.
pub const START_DEADLINE: Duration = Duration::from_secs(10);
/// How long one handshake may take before the daemon counts as not answering.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(3);
/// How long a replaced daemon gets to go away.
pub const STOP_DEADLINE: Duration = Duration::from_secs(10);

/// A connected, version-checked client.
pub type Client = StanleyClient<Channel>;

/// The daemon files of a worktree, as the client sees them.
#[derive(Clone, Debug)]
pub struct Target {
    /// Canonical worktree root.
    pub root: PathBuf,
    /// The socket path.
    pub socket: PathBuf,
}

impl Target {
    /// The target for a canonical root, with the socket where the daemon would put it.
    pub fn new(root: PathBuf) -> Self {
        let socket = stanley_proto::socket::socket_path(&root);
        Self { root, socket }
    }

    /// `.stanley/daemon/`.
    pub fn dir(&self) -> PathBuf {
        self.root.join(".stanley").join("daemon")
    }

    /// The daemon log the user is pointed at when something goes wrong.
    pub fn log(&self) -> PathBuf {
        self.dir().join("stanleyd.log")
    }

    fn hint(&self) -> String {
        format!("see the daemon log at {}", self.log().display())
    }
}

/// The error for a socket, folder or peer that failed a check: nothing was sent to it.
fn refused(problem: &stanley_proto::private::Unsafe) -> ClientError {
    let variable = if std::env::var_os(stanley_proto::env::STANLEY_RUNTIME_DIR)
        .is_some_and(|v| !v.is_empty())
    {
        stanley_proto::env::STANLEY_RUNTIME_DIR
    } else {
        "XDG_RUNTIME_DIR"
    };
    ClientError::unavailable(
        format!("refusing to talk to the daemon: {problem}"),
        problem.hint(variable),
    )
}

/// Connects and performs the handshake; `Ok(None)` when nothing answers in time, an error when
/// the socket, its folder or the process listening fails the ownership checks (then nothing,
/// not even the handshake, was sent).
pub async fn probe(socket: &Path) -> Result<Option<(Client, GetStatusResponse)>, ClientError> {
    let attempt = async {
        let mut client = match stanley_client(socket).await {
            Ok(c) => c,
            Err(ConnectError::Unsafe(problem)) => return Err(refused(&problem)),
            Err(_) => return Ok(None),
        };
        let Ok(status) = client
            .get_status(GetStatusRequest {
                client_protocol_version: PROTOCOL_VERSION,
                client_version: VERSION.to_owned(),
            })
            .await
        else {
            return Ok(None);
        };
        Ok(Some((client, status.into_inner())))
    };
    timeout(HANDSHAKE_DEADLINE, attempt)
        .await
        .unwrap_or(Ok(None))
}

/// A client for a daemon that `daemon.json` says is of this client's version, connected without
/// the handshake (`None` when the file is missing, names another version or is not in a private
/// folder of the caller's, or nothing answers on the socket). Only a `Prompt` that carries
/// [`stanley_proto::CLIENT_VERSION_METADATA`] goes to it: the daemon checks that itself and a
/// daemon of another version refuses it before any work ([`stanley_proto::is_other_version`]).
/// The socket and the process listening are checked as for every connection.
pub async fn connect_known(target: &Target) -> Result<Option<Client>, ClientError> {
    check_runtime(target)?;
    if !names_this_version(target) {
        return Ok(None);
    }
    match stanley_client(&target.socket).await {
        Ok(client) => Ok(Some(client)),
        Err(ConnectError::Unsafe(problem)) => Err(refused(&problem)),
        Err(_) => Ok(None),
    }
}

/// What a client reads of `daemon.json` (the daemon writes it, `stanleyd::DaemonInfo`).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recorded {
    pid: u32,
    socket: PathBuf,
    version: String,
    protocol_version: u32,
}

/// `daemon.json` as the daemon last wrote it (at most 64 KiB, a regular file opened without
/// following a link), when it reads as one.
fn recorded(target: &Target) -> Option<Recorded> {
    let bytes =
        stanley_proto::private::read_head(&target.dir().join("daemon.json"), 64 * 1024).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Whether `daemon.json`, in the caller's own private daemon folder, names this client's version
/// and protocol.
fn names_this_version(target: &Target) -> bool {
    matches!(
        stanley_proto::private::check_private_dir(&target.dir()),
        Ok(true)
    ) && recorded(target)
        .is_some_and(|r| r.version == VERSION && r.protocol_version == PROTOCOL_VERSION)
}

/// Checks the runtime folder before anything else happens: a folder that exists must be the
/// caller's own, not a link, and closed to others.
pub fn check_runtime(target: &Target) -> Result<(), ClientError> {
    stanley_proto::private::check_socket_path(&target.socket)
        .map(|_| ())
        .map_err(|p| refused(&p))
}

fn matches_us(status: &GetStatusResponse) -> bool {
    status.protocol_version == PROTOCOL_VERSION && status.daemon_version == VERSION
}

/// Asks a daemon to stop and waits until its socket no longer answers.
pub async fn stop(mut client: Client, socket: &Path, reason: &str) -> Result<(), ClientError> {
    let _ = client
        .stop_daemon(StopDaemonRequest {
            reason: reason.to_owned(),
        })
        .await;
    drop(client);
    let deadline = Instant::now() + STOP_DEADLINE;
    while Instant::now() < deadline {
        if probe(socket).await?.is_none() {
            return Ok(());
        }
        sleep(Duration::from_millis(25)).await;
    }
    Err(ClientError::unavailable(
        format!(
            "the running stanleyd on {} did not stop within {}s",
            socket.display(),
            STOP_DEADLINE.as_secs()
        ),
        "stop it with `stanleyctl daemon stop` or end its process",
    ))
}

fn daemon_binary() -> Result<PathBuf, ClientError> {
    if let Some(bin) = std::env::var_os(STANLEY_DAEMON_BIN) {
        let bin = PathBuf::from(bin);
        // A relative path would be found in the worktree, which the repository wrote.
        if !bin.is_absolute() {
            return Err(ClientError::input(format!(
                "{STANLEY_DAEMON_BIN} must be an absolute path (got {})",
                bin.display()
            )));
        }
        return Ok(bin);
    }
    let exe = std::env::current_exe()
        .map_err(|e| ClientError::internal(format!("cannot locate the stanley binary: {e}")))?;
    Ok(exe.with_file_name("stanleyd"))
}

/// `.stanley/daemon/`, created 0700 without following a link anywhere under the root.
fn daemon_dir(target: &Target) -> Result<PathBuf, ClientError> {
    stanley_proto::private::private_subdir(&target.root, &[".stanley", "daemon"])
        .map_err(|p| ClientError::input(p.to_string()))
}

fn spawn_daemon(target: &Target) -> Result<Child, ClientError> {
    let bin = daemon_binary()?;
    let dir = daemon_dir(target)?;
    let log = |name: &str| stanley_proto::private::open_append_nofollow(&dir.join(name));
    let open = |name: &str| {
        let path = dir.join(name);
        log(name).map_err(|e| {
            if stanley_proto::private::is_link_error(&e) {
                ClientError::input(format!(
                    "{} is a symbolic link; Stanley never writes through a link",
                    path.display()
                ))
            } else {
                ClientError::internal(format!("cannot open {}: {e}", path.display()))
            }
        })
    };
    let (out, err) = (open("stanleyd.out")?, open("stanleyd.err")?);
    let mut command = Command::new(&bin);
    command
        .arg("--root")
        .arg(&target.root)
        .current_dir(&target.root)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        // A new process group: the daemon outlives this client and its terminal's Ctrl-C.
        .process_group(0);
    for name in DAEMON_ENV {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    command.spawn().map_err(|e| {
        ClientError::unavailable(
            format!("could not start {}: {e}", bin.display()),
            target.hint(),
        )
    })
}

/// Holds `.stanley/daemon/start.lock` so racing clients start one daemon.
async fn start_lock(target: &Target) -> Result<File, ClientError> {
    let path = daemon_dir(target)?.join("start.lock");
    let file = stanley_proto::private::open_lock_nofollow(&path)
        .map_err(|e| ClientError::internal(format!("cannot open {}: {e}", path.display())))?;
    let deadline = Instant::now() + START_DEADLINE;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                sleep(Duration::from_millis(20)).await
            }
            Err(_) => {
                return Err(ClientError::unavailable(
                    format!(
                        "another client has been starting stanleyd for {} for over {}s",
                        target.root.display(),
                        START_DEADLINE.as_secs()
                    ),
                    target.hint(),
                ));
            }
        }
    }
}

/// A channel to the worktree's daemon for the other services (`Queue`, `Flows`), starting or
/// replacing the daemon as needed.
pub async fn channel(target: &Target) -> Result<Channel, ClientError> {
    connect_or_start(target).await?;
    stanley_proto::connect::connect(&target.socket)
        .await
        .map_err(|e| match e {
            ConnectError::Unsafe(problem) => refused(&problem),
            e => ClientError::unavailable(
                format!("cannot reach stanleyd: {e}"),
                format!("see the daemon log at {}", target.log().display()),
            ),
        })
}

/// The running daemon if it is ours; a daemon of another version is stopped (and `None`).
async fn ours_or_replace(target: &Target) -> Result<Option<Client>, ClientError> {
    let Some((client, status)) = probe(&target.socket).await? else {
        return Ok(None);
    };
    if matches_us(&status) {
        return Ok(Some(client));
    }
    stop(
        client,
        &target.socket,
        &format!("replaced by a {VERSION} client"),
    )
    .await?;
    Ok(None)
}

/// A daemon of this worktree that listens on another socket: it was started with another runtime
/// folder (`XDG_RUNTIME_DIR` or `STANLEY_RUNTIME_DIR` differ), so this client cannot reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elsewhere {
    /// Its pid.
    pub pid: u32,
    /// The socket it listens on.
    pub socket: PathBuf,
}

impl Elsewhere {
    /// The one line saying so.
    pub fn message(&self, target: &Target) -> String {
        format!(
            "stanleyd (pid {}) serves {} on {}, not on {}: it was started with another runtime folder",
            self.pid,
            target.root.display(),
            self.socket.display(),
            target.socket.display()
        )
    }

    /// What to do about it.
    pub const HINT: &str = "run with the XDG_RUNTIME_DIR (or STANLEY_RUNTIME_DIR) it was started with, or stop it with `stanleyctl daemon stop` run that way";
}

/// The daemon `daemon.json` names, when it listens elsewhere and is still running. The file is
/// in the repository, so it is believed only when `/proc/<pid>/cmdline` shows `stanleyd --root
/// <this root>`; it is used for a message, never to connect.
pub fn serving_elsewhere(target: &Target) -> Option<Elsewhere> {
    let Recorded { pid, socket, .. } = recorded(target)?;
    if socket == target.socket {
        return None;
    }
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    let ours = args.len() >= 3
        && args[0].ends_with(b"stanleyd")
        && args[1] == b"--root"
        && args[2] == target.root.as_os_str().as_encoded_bytes();
    ours.then_some(Elsewhere { pid, socket })
}

/// A single-threaded runtime for one client command.
pub fn runtime() -> Result<tokio::runtime::Runtime, ClientError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ClientError::internal(format!("cannot start the runtime: {e}")))
}

/// Returns a client for the worktree's daemon, starting or replacing it as needed.
pub async fn connect_or_start(target: &Target) -> Result<Client, ClientError> {
    check_runtime(target)?;
    if let Some(client) = ours_or_replace(target).await? {
        return Ok(client);
    }
    let _lock = start_lock(target).await?;
    // Another client may have started it while this one waited for the lock.
    if let Some(client) = ours_or_replace(target).await? {
        return Ok(client);
    }
    let mut child = spawn_daemon(target)?;
    let deadline = Instant::now() + START_DEADLINE;
    while Instant::now() < deadline {
        if let Some((client, status)) = probe(&target.socket).await?
            && matches_us(&status)
        {
            return Ok(client);
        }
        if let Ok(Some(exit)) = child.try_wait() {
            // It exits at once when another daemon holds this root's lock: one started with
            // another runtime folder, which this client cannot reach.
            if let Some(other) = serving_elsewhere(target) {
                return Err(ClientError::unavailable(
                    other.message(target),
                    Elsewhere::HINT,
                ));
            }
            if !exit.success() {
                let err =
                    stanley_proto::private::read_tail(&target.dir().join("stanleyd.err"), 8192)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default();
                let last = err.lines().last().unwrap_or("").trim().to_owned();
                return Err(ClientError::unavailable(
                    format!(
                        "stanleyd exited with {exit} before answering{}",
                        if last.is_empty() {
                            String::new()
                        } else {
                            format!(": {last}")
                        }
                    ),
                    target.hint(),
                ));
            }
        }
        sleep(Duration::from_millis(25)).await;
    }
    Err(ClientError::unavailable(
        format!(
            "stanleyd did not answer on {} within {}s",
            target.socket.display(),
            START_DEADLINE.as_secs()
        ),
        target.hint(),
    ))
}

/// A channel to the daemon that answers now, never starting one when none does (`Ok(None)`):
/// a daemon of this client's version is connected to as it is; one of another version is
/// replaced as `channel` replaces it. Probing first and then calling `channel` would race: a
/// daemon that stops between the two (a restart) would be started again by the second call,
/// under the restart that is waiting for the socket to go quiet.
pub async fn channel_if_running(target: &Target) -> Result<Option<Channel>, ClientError> {
    let Some((_client, status)) = connect_running(target).await? else {
        return Ok(None);
    };
    if !matches_us(&status) {
        return channel(target).await.map(Some);
    }
    match stanley_proto::connect::connect(&target.socket).await {
        Ok(channel) => Ok(Some(channel)),
        Err(ConnectError::Unsafe(problem)) => Err(refused(&problem)),
        // It went away between the probe and the connection: none answers now.
        Err(_) => Ok(None),
    }
}

/// Connects to a running daemon without starting one (`Ok(None)` when none answers).
pub async fn connect_running(
    target: &Target,
) -> Result<Option<(Client, GetStatusResponse)>, ClientError> {
    check_runtime(target)?;
    probe(&target.socket).await
}
