//! `stanleyd --root <dir>`: the per-worktree daemon. Wires discovery, logging and the server;
//! everything else lives in the library.

#![cfg_attr(not(test), forbid(unsafe_code))]

use std::path::PathBuf;
use std::process::ExitCode;

use stanley_adapters::agent_exec;
use stanley_proto::exit::Exit;
use stanleyd::{
    DaemonConfig, DaemonError, DaemonFiles, DaemonSettings, Ports, init_logging, prepare, run,
};

/// jemalloc serves every allocation of the process, libgit2's included (its `malloc` is
/// unprefixed, D-150). Its background thread hands freed memory back to the system a second
/// after it is freed (`.cargo/config.toml` sets the decay), and the warm trim at once (D-137,
/// D-150).
#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The allocator's thread caches serve the runtime's threads, where requests run; the other
/// threads (sled's writers, the file watcher) allocate little and would only hold freed memory
/// in theirs (D-150).
fn thread_cache_on() {
    #[cfg(feature = "jemalloc")]
    {
        use tikv_jemalloc_ctl::{Access, AsName};
        let _ = b"thread.tcache.enabled\0".name().write(true);
    }
}

/// How long a stopping daemon waits for work on blocking threads after serving has ended.
const BLOCKING_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

fn usage() -> ExitCode {
    eprintln!("usage: stanleyd --root <worktree root>");
    ExitCode::from(Exit::Usage.code())
}

fn main() -> ExitCode {
    // The launcher mode comes first: it replaces this process with an agent (agent_exec).
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if raw.first().is_some_and(|a| a == agent_exec::AGENT_EXEC) {
        let problem = agent_exec::exec_agent(&raw[1..]);
        eprintln!("stanleyd: {problem}");
        return ExitCode::from(match problem {
            agent_exec::LaunchError::Usage => Exit::Usage.code(),
            _ => Exit::Unavailable.code(),
        });
    }
    agent_exec::launch_through_self();
    let Ok(args) = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect::<Result<Vec<String>, _>>()
    else {
        eprintln!("stanleyd: an argument is not valid UTF-8");
        return ExitCode::from(Exit::Usage.code());
    };
    let root = match args.as_slice() {
        [flag, root] if flag == "--root" => PathBuf::from(root),
        [flag] if flag == "--version" => {
            println!("{}", stanley_proto::VERSION);
            return ExitCode::SUCCESS;
        }
        _ => return usage(),
    };
    let root = match stanley_adapters::git::worktree_root(&root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stanleyd: {e}");
            return ExitCode::from(Exit::Input.code());
        }
    };
    let files = DaemonFiles::new(&root, stanley_proto::socket::socket_path(&root));
    let prepared = match prepare(files, stanley_adapters::clock::now()) {
        Ok(p) => p,
        Err(DaemonError::AlreadyRunning(root)) => {
            eprintln!(
                "stanleyd: another stanleyd already serves {}",
                root.display()
            );
            return ExitCode::SUCCESS;
        }
        Err(e @ DaemonError::Unsafe(_)) => {
            eprintln!("stanleyd: {e}");
            return ExitCode::from(Exit::Unavailable.code());
        }
        Err(e) => {
            eprintln!("stanleyd: {e}");
            return ExitCode::from(Exit::Internal.code());
        }
    };
    // The daemon's own settings, read once (stanleyd::settings).
    let settings = DaemonSettings::read(|name| std::env::var_os(name));
    if let Err(e) = init_logging(&prepared.files.log(), settings.log.as_deref()) {
        eprintln!("stanleyd: cannot open the log: {e}");
    }
    raise_descriptor_limit();
    let mut config = DaemonConfig::new(prepared.files.clone());
    config.trust_file = settings.trust_file;
    config.workflow_host = settings.workflow_host;
    if let Some(idle) = settings.ui_idle {
        config.ui_idle = idle;
    }
    if let Some(idle) = settings.warm_idle {
        config.warm_idle = idle;
    }
    if let Some(bytes) = settings.cache_max_bytes {
        config.cache_max_bytes = bytes;
    }
    if let Some(silent) = settings.silent_connection {
        config.silent_connection = silent;
    }
    if let Some(idle) = settings.idle_timeout {
        config.idle_timeout = idle;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // A blocking thread (Git, files) left unused goes when the warm state goes, and its
        // allocator cache with it (D-150).
        .thread_keep_alive(config.warm_idle)
        .on_thread_start(thread_cache_on)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stanleyd: cannot start the runtime: {e}");
            return ExitCode::from(Exit::Internal.code());
        }
    };
    let result = runtime.block_on(async move {
        let _lock = prepared.lock;
        prepared
            .listener
            .set_nonblocking(true)
            .map_err(|e| DaemonError::Io {
                what: "cannot configure the socket".into(),
                source: e,
            })?;
        let listener =
            tokio::net::UnixListener::from_std(prepared.listener).map_err(|e| DaemonError::Io {
                what: "cannot register the socket".into(),
                source: e,
            })?;
        run(config, Ports::real(), listener, shutdown_signal()).await
    });
    // Work still on a blocking thread (a Git call that cannot be interrupted) does not hold
    // the exit: dropping the runtime would wait for it (D-162).
    runtime.shutdown_timeout(BLOCKING_GRACE);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "stanleyd failed");
            eprintln!("stanleyd: {e}");
            ExitCode::from(Exit::Internal.code())
        }
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        std::future::pending::<()>().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

/// Raises the soft limit on open descriptors to the hard one (desktop sessions often start
/// with 1,024 of a much higher hard limit): the daemon serves many clients and, with the
/// page, connections any local user can open. A failure leaves the limit as it was.
fn raise_descriptor_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        let raised = Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_err() {
            tracing::warn!("could not raise the open-descriptor limit");
        }
    }
}
