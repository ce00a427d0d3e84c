//! Connecting a tonic channel to a daemon's Unix socket, after checking that the socket and its
//! folder are the caller's own and that the process listening runs as the caller's uid. Not one
//! byte is written to a socket that fails a check.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;
use tonic::transport::{Channel, Endpoint, Uri};

use crate::private::{Unsafe, check_peer, check_socket_path};

/// Why a connection to a daemon was not made.
#[derive(Debug)]
pub enum ConnectError {
    /// The socket, its folder or the peer failed a check: nothing was sent.
    Unsafe(Unsafe),
    /// Nothing listens there (or the socket is missing).
    NotRunning(std::io::Error),
    /// The HTTP/2 connection could not be set up.
    Transport(tonic::transport::Error),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsafe(u) => u.fmt(f),
            Self::NotRunning(e) => write!(f, "no daemon is listening: {e}"),
            Self::Transport(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConnectError {}

/// Opens one checked connection: folder and socket by `lstat`, then the peer's uid.
async fn open_checked(socket: &Path) -> Result<UnixStream, ConnectError> {
    if !check_socket_path(socket).map_err(ConnectError::Unsafe)? {
        return Err(ConnectError::NotRunning(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{} does not exist", socket.display()),
        )));
    }
    let stream = UnixStream::connect(socket)
        .await
        .map_err(ConnectError::NotRunning)?;
    check_peer(&stream, socket).map_err(ConnectError::Unsafe)?;
    Ok(stream)
}

/// Connects to the daemon listening on `socket`. The URI is a placeholder: every connection goes
/// to the socket, and every connection (the first and any reconnect) is checked.
pub async fn connect(socket: &Path) -> Result<Channel, ConnectError> {
    let first = open_checked(socket).await?;
    let slot = Arc::new(Mutex::new(Some(first)));
    let path: PathBuf = socket.to_path_buf();
    Endpoint::from_static("http://stanleyd.invalid")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = path.clone();
            let first = slot.lock().map(|mut s| s.take()).unwrap_or(None);
            async move {
                let stream = match first {
                    Some(s) => s,
                    None => open_checked(&path).await.map_err(|e| {
                        std::io::Error::new(std::io::ErrorKind::PermissionDenied, e)
                    })?,
                };
                Ok::<_, std::io::Error>(TokioIo::new(stream))
            }
        }))
        .await
        .map_err(ConnectError::Transport)
}

/// A `Stanley` client on `socket` that accepts messages up to `MAX_MESSAGE_BYTES`.
pub async fn stanley_client(
    socket: &Path,
) -> Result<crate::v1::stanley_client::StanleyClient<Channel>, ConnectError> {
    let channel = connect(socket).await?;
    Ok(crate::v1::stanley_client::StanleyClient::new(channel)
        .max_decoding_message_size(crate::MAX_MESSAGE_BYTES)
        .max_encoding_message_size(crate::MAX_MESSAGE_BYTES))
}
