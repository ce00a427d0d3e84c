//! The daemon's connections, bounded: at most [`MAX_CONNECTIONS`] at once (past that the accept
//! loop waits for one to close, so clients wait in the backlog instead of the daemon running out
//! of file descriptors), a connection that sends nothing within [`SILENT_CONNECTION`] is closed,
//! only the caller's own uid is served, and a failing accept (EMFILE) backs off instead of
//! spinning.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::transport::server::Connected;

/// Connections served at once.
pub(crate) const MAX_CONNECTIONS: usize = 256;
/// How long a connection may stay silent before its first byte.
pub(crate) const SILENT_CONNECTION: Duration = Duration::from_secs(30);
/// The longest wait between accept attempts after failures.
const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// One accepted connection: it holds its slot until it closes, and ends itself if it never
/// says anything.
pub(crate) struct Connection {
    stream: UnixStream,
    _slot: OwnedSemaphorePermit,
    /// Until the first byte arrives: when the connection gives up.
    silence: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The client's header blocks with any `:authority` the server accepts.
    fix: crate::authority::AuthorityFix,
    /// Rewritten bytes not yet handed to the server, and how far it has read them.
    ready: Vec<u8>,
    taken: usize,
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            if self.taken < self.ready.len() {
                let n = buf.remaining().min(self.ready.len() - self.taken);
                let from = self.taken;
                buf.put_slice(&self.ready[from..from + n]);
                self.taken += n;
                if self.taken == self.ready.len() {
                    self.ready.clear();
                    self.taken = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let mut raw = [0u8; 16_384];
            let mut raw_buf = ReadBuf::new(&mut raw);
            match Pin::new(&mut self.stream).poll_read(cx, &mut raw_buf) {
                Poll::Ready(Ok(())) if raw_buf.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {
                    self.silence = None;
                    let fixed = self
                        .fix
                        .feed(raw_buf.filled())
                        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
                    self.ready = fixed;
                    self.taken = 0;
                    // A partial frame produces nothing yet: read on.
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    if let Some(silence) = self.silence.as_mut()
                        && silence.as_mut().poll(cx).is_ready()
                    {
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the connection sent nothing",
                        )));
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

impl Connected for Connection {
    type ConnectInfo = <UnixStream as Connected>::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.stream.connect_info()
    }
}

/// The stream of accepted connections from the caller's uid.
pub(crate) fn incoming(
    listener: UnixListener,
    silent: Duration,
) -> impl futures::Stream<Item = io::Result<Connection>> {
    let uid = stanley_proto::socket::current_uid();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    futures::stream::unfold(
        (listener, slots, Duration::ZERO),
        move |(listener, slots, mut backoff)| async move {
            loop {
                // Wait for a free slot before accepting: the kernel's backlog holds the rest.
                let Ok(slot) = slots.clone().acquire_owned().await else {
                    return None;
                };
                match listener.accept().await {
                    Ok((stream, _)) => {
                        backoff = Duration::ZERO;
                        match stream.peer_cred() {
                            Ok(cred) if cred.uid() == uid => {
                                let connection = Connection {
                                    stream,
                                    _slot: slot,
                                    silence: Some(Box::pin(tokio::time::sleep(silent))),
                                    fix: crate::authority::AuthorityFix::default(),
                                    ready: Vec::new(),
                                    taken: 0,
                                };
                                return Some((Ok(connection), (listener, slots, backoff)));
                            }
                            Ok(cred) => tracing::warn!(
                                peer_uid = cred.uid(),
                                "refused a connection from another user"
                            ),
                            Err(e) => tracing::warn!(
                                error = %e,
                                "refused a connection without peer credentials"
                            ),
                        }
                    }
                    Err(e) => {
                        // EMFILE and friends: wait longer each time, up to a second, so the
                        // loop never spins while descriptors are exhausted.
                        backoff = (backoff * 2).clamp(Duration::from_millis(20), MAX_BACKOFF);
                        tracing::warn!(error = %e, backoff_ms = backoff.as_millis() as u64, "accept failed");
                        drop(slot);
                        tokio::time::sleep(backoff).await;
                    }
                }
            }
        },
    )
}
