//! Connecting a tonic channel to a daemon's Unix socket.

use std::path::{Path, PathBuf};

use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;
use tonic::transport::{Channel, Endpoint, Uri};

/// Connects to the daemon listening on `socket`. The URI is a placeholder: every connection goes
/// to the socket.
pub async fn connect(socket: &Path) -> Result<Channel, tonic::transport::Error> {
    let path: PathBuf = socket.to_path_buf();
    Endpoint::from_static("http://stanleyd.invalid")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = path.clone();
            async move { UnixStream::connect(path).await.map(TokioIo::new) }
        }))
        .await
}

/// A `Stanley` client on `socket` that accepts messages up to `MAX_MESSAGE_BYTES`.
pub async fn stanley_client(
    socket: &Path,
) -> Result<crate::v1::stanley_client::StanleyClient<Channel>, tonic::transport::Error> {
    let channel = connect(socket).await?;
    Ok(crate::v1::stanley_client::StanleyClient::new(channel)
        .max_decoding_message_size(crate::MAX_MESSAGE_BYTES)
        .max_encoding_message_size(crate::MAX_MESSAGE_BYTES))
}
