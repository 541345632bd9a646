//! The accept loop of `consign serve`: TCP (or TLS) connections served by hyper's
//! HTTP/1.1, each watched against the time limits of [`Limits`], at most
//! [`Limits::max_connections`] at once, and a shutdown with a deadline.
//!
//! Each connection is in one phase at a time, and its watchdog closes it when the phase
//! outlasts its limit:
//! - idle (just accepted, or its last answer handed to hyper): [`Limits::idle_timeout`];
//!   this also bounds the time a client takes to read an answer;
//! - reading a request head (from its first byte, or the TLS handshake's, to the end of
//!   its headers): [`Limits::header_timeout`];
//! - serving a request (from its first byte to its answer): [`Limits::request_timeout`].
//!
//! Closing drops the connection: a write already queued for the writer is still
//! committed, its answer is not sent.

use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_rustls::rustls;
use tokio_rustls::TlsAcceptor;

/// The largest request head (request line and headers) read, in bytes: 64 KiB.
pub(crate) const MAX_HEAD: usize = 64 * 1024;

/// The limits of connections (fields of [`crate::Config`] of the same names).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) header_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) shutdown_timeout: Duration,
}

/// Serves `router` on the connections of `listener` until `shutdown` resolves; then stops
/// accepting, lets the requests in flight finish for up to [`Limits::shutdown_timeout`],
/// and drops the connections left.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    // A slot per open connection: past the cap, connections wait in the listen backlog.
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = Arc::clone(&slots).acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors, or a connection reset before it was accepted:
                // wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        while connections.try_join_next().is_some() {}
        let _ = stream.set_nodelay(true);
        connections.spawn(connection(stream, router.clone(), limits, tls.clone(), graceful.watcher(), slot));
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.shutdown_timeout, graceful.shutdown()).await;
    // Past the deadline: the connections left are dropped.
    connections.shutdown().await;
}

/// Serves one connection until it closes, its watchdog closes it, or the shutdown
/// deadline drops it; its slot is given back then.
async fn connection(
    stream: TcpStream,
    router: Router,
    limits: Limits,
    tls: Option<TlsAcceptor>,
    watcher: Watcher,
    _slot: OwnedSemaphorePermit,
) {
    let watch = Arc::new(Watch::new());
    let stream = Watched { inner: stream, watch: Arc::clone(&watch) };
    let served = async {
        match tls {
            None => http(stream, router, &watch, watcher).await,
            Some(acceptor) => {
                if let Ok(stream) = acceptor.accept(stream).await {
                    http(stream, router, &watch, watcher).await;
                }
            }
        }
    };
    tokio::select! {
        () = served => {}
        () = watch.expired(limits) => {}
    }
}

/// HTTP/1.1 on `io`, watched by `watcher` for a graceful shutdown.
async fn http<I>(io: I, router: Router, watch: &Arc<Watch>, watcher: Watcher)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let phases = Arc::clone(watch);
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        phases.request();
        let mut router = router.clone();
        let answer = tower_service::Service::call(&mut router, request);
        let phases = Arc::clone(&phases);
        async move {
            let answer = answer.await;
            phases.answered();
            answer
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        // The watchdog bounds reading a head; hyper's own timer would also cut idle
        // keep-alive connections at the header timeout.
        .header_read_timeout(None)
        // A head is at most this (431 above), so that open connections hold little
        // memory before their key is checked; a body is read in pieces of at most this.
        .max_buf_size(MAX_HEAD)
        .max_header_size(MAX_HEAD)
        .serve_connection(TokioIo::new(io), service);
    let _ = watcher.watch(conn).await;
}

/// What a connection is doing, for its watchdog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    Head,
    Busy,
}

/// The phase of a connection and when it began, told to its watchdog.
struct Watch {
    phase: Mutex<(Phase, Instant)>,
    changed: Notify,
}

impl Watch {
    fn new() -> Watch {
        Watch { phase: Mutex::new((Phase::Idle, Instant::now())), changed: Notify::new() }
    }

    fn now(&self) -> (Phase, Instant) {
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes arrived: an idle connection starts reading a head.
    fn read(&self) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        if phase.0 == Phase::Idle {
            *phase = (Phase::Head, Instant::now());
            drop(phase);
            self.changed.notify_one();
        }
    }

    /// A head was read: the request is served, timed from its first byte.
    fn request(&self) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        *phase = match *phase {
            (Phase::Head, since) => (Phase::Busy, since),
            _ => (Phase::Busy, Instant::now()),
        };
    }

    /// The answer was handed to hyper: the connection is idle again.
    fn answered(&self) {
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner) = (Phase::Idle, Instant::now());
    }

    /// Resolves once a phase has outlasted its limit.
    async fn expired(&self, limits: Limits) {
        loop {
            let (phase, since) = self.now();
            let limit = match phase {
                Phase::Idle => limits.idle_timeout,
                Phase::Head => limits.header_timeout,
                Phase::Busy => limits.request_timeout,
            };
            tokio::select! {
                () = tokio::time::sleep_until(since + limit) => {
                    if self.now() == (phase, since) {
                        return;
                    }
                }
                // Only a head starting shortens the deadline; the other changes are
                // seen when the current one passes.
                () = self.changed.notified() => {}
            }
        }
    }
}

/// A stream that tells its [`Watch`] when bytes arrive.
struct Watched<S> {
    inner: S,
    watch: Arc<Watch>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.watch.read();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// The TLS acceptor of the certificate chain in `cert` and the private key in `key`
/// (PEM files), on rustls with the ring provider, HTTP/1.1 by ALPN.
///
/// # Errors
/// `InvalidInput` naming the file that is missing, unreadable or not what it should be.
pub(crate) fn acceptor(cert: &Path, key: &Path) -> io::Result<TlsAcceptor> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let invalid = |file: &Path, what: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("{}: {what}", file.display()));
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| invalid(cert, &format!("not a PEM certificate chain ({e})")))?;
    if chain.is_empty() {
        return Err(invalid(cert, "no certificate in the file"));
    }
    // The key's own bytes never appear in a message.
    let private = PrivateKeyDer::from_pem_file(key).map_err(|_| invalid(key, "no PEM private key could be read from the file"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| io::Error::other(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| invalid(key, &format!("does not fit the certificate ({e})")))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
