//! Webhook deliveries: one HTTP/1.1 POST to a customer's URL, made safe for a server on
//! the internet.
//!
//! - Only `https://` URLs with a host and no user name or password (also `http://` when
//!   [`Outbound::new`] is told `allow_http`, for tests on loopback).
//! - The host is resolved here, every address it resolves to is checked against
//!   [`consign::forbidden_address`] (loopback, private, link-local and other special ranges), and
//!   the connection goes to one of those checked addresses: nothing resolves the name
//!   again between the check and the connection.
//! - TLS by rustls (ring) against Mozilla's roots (`webpki-roots`), the host name as SNI.
//! - The whole attempt, from resolving the host to the status line of the answer, is
//!   bounded by one timeout. Redirects are not followed, and the body of the answer is not
//!   read: the connection is dropped once its status is known.
//! - A [`Failure`] is a short message fit to show the customer: it never repeats a header
//!   value (they carry signatures), the body, or the addresses a refused host resolves to.

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST, USER_AGENT};
use axum::http::uri::{Authority, PathAndQuery, Scheme};
use axum::http::{Method, Request, Uri};
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

/// The `User-Agent` of every delivery.
const USER_AGENT_VALUE: &str = concat!("consign-webhooks/", env!("CARGO_PKG_VERSION"));

/// The most bytes of an answer's head read (status line and headers): 64 KiB.
const MAX_ANSWER_HEAD: usize = 64 * 1024;

/// Headers a delivery sets itself or that would change how the message is framed: the
/// headers given to [`Outbound::post`] may not name them.
const RESERVED: [HeaderName; 10] = [
    HOST,
    CONTENT_LENGTH,
    CONTENT_TYPE,
    USER_AGENT,
    CONNECTION,
    axum::http::header::TRANSFER_ENCODING,
    axum::http::header::TE,
    axum::http::header::UPGRADE,
    axum::http::header::EXPECT,
    axum::http::header::TRAILER,
];

/// How deliveries are sent.
#[derive(Clone)]
pub(crate) struct Outbound {
    /// `http://` URLs and loopback or private addresses are allowed.
    allow_http: bool,
    /// The most one attempt takes, from resolving the host to the status line.
    timeout: Duration,
    /// TLS to the receivers, against the trust anchors given.
    tls: TlsConnector,
}

impl fmt::Debug for Outbound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbound").field("allow_http", &self.allow_http).field("timeout", &self.timeout).finish_non_exhaustive()
    }
}

impl Outbound {
    /// `allow_http`: http:// URLs and loopback/private addresses are allowed (for loopback
    /// tests); otherwise https only and only public addresses.
    /// `timeout`: the most one attempt takes, from DNS resolution to the status line.
    pub(crate) fn new(allow_http: bool, timeout: Duration) -> Outbound {
        let roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        Outbound::with_roots(allow_http, timeout, roots)
    }

    /// [`Outbound::new`] trusting the certificates of `roots` instead of Mozilla's (a
    /// test's self-signed certificate).
    pub(crate) fn with_roots(allow_http: bool, timeout: Duration, roots: RootCertStore) -> Outbound {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map(|b| b.with_root_certificates(roots).with_no_client_auth())
            .unwrap_or_else(|_| unreachable!("ring supports the default protocol versions"));
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Outbound { allow_http, timeout, tls: TlsConnector::from(Arc::new(config)) }
    }

    /// Posts `body` to `url` with `headers` (name, value) and `Content-Type: content_type`;
    /// the status code of the answer, or why there is none.
    pub(crate) async fn post(
        &self,
        url: &str,
        headers: &[(&'static str, String)],
        content_type: &'static str,
        body: Vec<u8>,
    ) -> Result<u16, Failure> {
        let target = Target::parse(url, self.allow_http)?;
        let request = target.request(headers, content_type, body)?;
        match tokio::time::timeout(self.timeout, self.attempt(&target, request)).await {
            Ok(answer) => answer,
            Err(_) => Err(Failure(format!("no answer within {} s", self.timeout.as_secs_f64()))),
        }
    }

    /// Resolves, connects, sends `request` and reads the status of the answer, unbounded
    /// in time (the caller bounds it).
    async fn attempt(&self, target: &Target, request: Request<Full<Bytes>>) -> Result<u16, Failure> {
        let addresses = self.resolve(target).await?;
        let stream = connect(&addresses).await?;
        if target.https {
            let name = match target.ip {
                Some(ip) => ServerName::IpAddress(ip.into()),
                None => ServerName::try_from(target.host.clone()).map_err(|_| Failure::new("the host is not a valid name"))?,
            };
            let stream = self.tls.connect(name, stream).await.map_err(|e| tls_failure(&e))?;
            exchange(stream, request).await
        } else {
            exchange(stream, request).await
        }
    }

    /// The addresses of the host, each allowed, in the order the resolver gave them.
    async fn resolve(&self, target: &Target) -> Result<Vec<SocketAddr>, Failure> {
        let addresses: Vec<SocketAddr> = match target.ip {
            Some(ip) => vec![SocketAddr::new(ip, target.port)],
            None => tokio::net::lookup_host((target.host.as_str(), target.port))
                .await
                .map_err(|_| Failure::new("could not resolve host"))?
                .collect(),
        };
        if addresses.is_empty() {
            return Err(Failure::new("could not resolve host"));
        }
        if !self.allow_http {
            // One forbidden address refuses the host: a name that resolves to both a public
            // and a private address could be made to reach the private one.
            if let Some(reason) = addresses.iter().find_map(|a| consign::forbidden_address(a.ip())) {
                let verb = if target.ip.is_some() { "is" } else { "resolves to" };
                return Err(Failure(format!("the host {verb} {reason}")));
            }
        }
        Ok(addresses)
    }
}

/// Why an attempt got no answer: a short message fit to show the customer (never a header
/// value or body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure(pub(crate) String);

impl Failure {
    /// A failure of a fixed message.
    fn new(message: &str) -> Failure {
        Failure(message.to_string())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

/// Where a delivery goes, read from its URL.
#[derive(Debug)]
struct Target {
    /// `https://` rather than `http://`.
    https: bool,
    /// The host as in the URL, without the brackets of an IPv6 literal.
    host: String,
    /// The host when it is an IP literal.
    ip: Option<IpAddr>,
    /// The port given, or the scheme's.
    port: u16,
    /// The `Host` header: the host as in the URL, with the port when it is not the
    /// scheme's.
    authority: String,
    /// The path and query of the URL (`/` when it has none).
    path: PathAndQuery,
}

impl Target {
    /// Reads `url`: `https://` (or `http://` when `allow_http`), a host, no user name or
    /// password, a port or none.
    fn parse(url: &str, allow_http: bool) -> Result<Target, Failure> {
        let uri: Uri = url.parse().map_err(|_| Failure::new("the URL is not valid"))?;
        let https = match uri.scheme() {
            Some(scheme) if *scheme == Scheme::HTTPS => true,
            Some(scheme) if *scheme == Scheme::HTTP && allow_http => false,
            Some(scheme) if *scheme == Scheme::HTTP => return Err(Failure::new("the URL must be https://, not http://")),
            Some(_) => return Err(Failure::new("the URL must be https://")),
            None => return Err(Failure::new("the URL must be absolute, starting with https://")),
        };
        let authority: &Authority = uri.authority().ok_or_else(|| Failure::new("the URL has no host"))?;
        if authority.as_str().contains('@') {
            return Err(Failure::new("the URL must not carry a user name or password"));
        }
        let host = authority.host();
        let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        if bare.is_empty() {
            return Err(Failure::new("the URL has no host"));
        }
        let ip = bare.parse::<IpAddr>().ok();
        if host.starts_with('[') && !matches!(ip, Some(IpAddr::V6(_))) {
            return Err(Failure::new("the host of the URL is not a valid IPv6 address"));
        }
        let default = if https { 443 } else { 80 };
        // What follows the host: nothing, `:` alone (the default port) or `:` and the port.
        let port = match authority.as_str()[host.len()..].strip_prefix(':') {
            None | Some("") => default,
            Some(port) => match port.parse::<u16>() {
                Ok(0) | Err(_) => return Err(Failure::new("the port of the URL is not valid")),
                Ok(port) => port,
            },
        };
        let authority = if port == default { host.to_string() } else { format!("{host}:{port}") };
        let path = uri.path_and_query().cloned().unwrap_or_else(|| PathAndQuery::from_static("/"));
        Ok(Target { https, host: bare.to_string(), ip, port, authority, path })
    }

    /// The POST of `body` to this target, with `headers` and the headers of every delivery.
    fn request(
        &self,
        headers: &[(&'static str, String)],
        content_type: &'static str,
        body: Vec<u8>,
    ) -> Result<Request<Full<Bytes>>, Failure> {
        let length = body.len();
        let mut request = Request::new(Full::new(Bytes::from(body)));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = Uri::from(self.path.clone());
        let set = request.headers_mut();
        set.insert(HOST, HeaderValue::from_str(&self.authority).map_err(|_| Failure::new("the host of the URL is not valid"))?);
        set.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        set.insert(CONTENT_LENGTH, HeaderValue::from(length));
        set.insert(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE));
        // One request per connection: the receiver need not keep it open.
        set.insert(CONNECTION, HeaderValue::from_static("close"));
        for (name, value) in headers {
            // The names are the sender's own constants; only they appear in a message.
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| Failure(format!("the header name {name} is not valid")))?;
            if RESERVED.contains(&header) {
                return Err(Failure(format!("the header {name} is set by the delivery itself")));
            }
            let value = HeaderValue::from_str(value).map_err(|_| Failure(format!("the value of the header {name} is not valid")))?;
            set.append(header, value);
        }
        Ok(request)
    }
}

/// A TCP connection to the first of `addresses` that accepts one.
async fn connect(addresses: &[SocketAddr]) -> Result<TcpStream, Failure> {
    let mut last = None;
    for address in addresses {
        match TcpStream::connect(address).await {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(match last.map(|e| e.kind()) {
        Some(io::ErrorKind::ConnectionRefused) => Failure::new("connection refused"),
        Some(io::ErrorKind::HostUnreachable | io::ErrorKind::NetworkUnreachable) => Failure::new("the host is unreachable"),
        Some(io::ErrorKind::TimedOut) => Failure::new("the connection timed out"),
        _ => Failure::new("could not connect"),
    })
}

/// The message of a failed TLS handshake: rustls's reason (an untrusted or expired
/// certificate, one for another name, ...) when it gives one.
fn tls_failure(error: &io::Error) -> Failure {
    match error.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
        Some(rustls::Error::InvalidCertificate(reason)) => Failure(format!("the certificate of the host is not valid: {reason}")),
        Some(error) => Failure(format!("TLS handshake failed: {error}")),
        None => Failure::new("TLS handshake failed: the connection closed"),
    }
}

/// Aborts the task of a client connection when dropped: once the status is read, or the
/// attempt is abandoned at its timeout.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends `request` on `io` by HTTP/1.1 and reads the head of the answer; its body is not
/// read.
async fn exchange<I>(io: I, request: Request<Full<Bytes>>) -> Result<u16, Failure>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::Builder::new()
        .max_buf_size(MAX_ANSWER_HEAD)
        .handshake::<_, Full<Bytes>>(TokioIo::new(io))
        .await
        .map_err(|e| http_failure(&e))?;
    let _connection = AbortOnDrop(tokio::spawn(async move {
        let _ = connection.await;
    }));
    sender.ready().await.map_err(|e| http_failure(&e))?;
    let answer = sender.send_request(request).await.map_err(|e| http_failure(&e))?;
    Ok(answer.status().as_u16())
}

/// The message of an HTTP exchange that got no answer.
fn http_failure(error: &hyper::Error) -> Failure {
    if error.is_parse_too_large() {
        Failure::new("the head of the answer is too large")
    } else if error.is_parse() || error.is_parse_status() {
        Failure::new("the answer is not valid HTTP/1.1")
    } else if error.is_incomplete_message() || error.is_closed() || error.is_canceled() {
        Failure::new("the connection closed before an answer")
    } else {
        Failure::new("the connection failed")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

    use std::future::Future;
    use std::sync::Mutex;

    use http_body_util::BodyExt as _;
    use hyper::body::Incoming;
    use tokio::net::TcpListener;
    use tokio_rustls::TlsAcceptor;

    use super::*;

    /// What a receiver was sent.
    #[derive(Debug, Default, Clone)]
    struct Received {
        method: String,
        target: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    }

    impl Received {
        fn header(&self, name: &str) -> Option<&str> {
            let mut values = self.headers.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str());
            let value = values.next();
            assert_eq!(values.next(), None, "one {name} header");
            value
        }
    }

    fn run<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
    }

    /// A receiver on loopback answering `status` to every request (over TLS with `tls`);
    /// its address and what it was sent.
    async fn receiver(status: u16, tls: Option<TlsAcceptor>) -> (SocketAddr, Arc<Mutex<Vec<Received>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let (log, tls) = (Arc::clone(&log), tls.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                        let log = Arc::clone(&log);
                        async move {
                            let (parts, body) = request.into_parts();
                            let body = body.collect().await.unwrap().to_bytes().to_vec();
                            let headers =
                                parts.headers.iter().map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap().to_string())).collect();
                            log.lock().unwrap().push(Received {
                                method: parts.method.to_string(),
                                target: parts.uri.to_string(),
                                headers,
                                body,
                            });
                            let mut answer = hyper::Response::new(Full::new(Bytes::from_static(b"a body not read")));
                            *answer.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
                            Ok::<_, std::convert::Infallible>(answer)
                        }
                    });
                    let http = hyper::server::conn::http1::Builder::new();
                    match tls {
                        None => {
                            let _ = http.serve_connection(TokioIo::new(stream), service).await;
                        }
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(stream).await {
                                let _ = http.serve_connection(TokioIo::new(stream), service).await;
                            }
                        }
                    }
                });
            }
        });
        (addr, received)
    }

    fn headers() -> Vec<(&'static str, String)> {
        vec![("x-consign-signature", "t=1,v1=secret-signature".to_string()), ("x-consign-event", "shipment.created".to_string())]
    }

    #[test]
    fn a_delivery_over_http_is_a_post_with_its_headers_and_body() {
        run(async {
            let (addr, received) = receiver(204, None).await;
            let outbound = Outbound::new(true, Duration::from_secs(5));
            let url = format!("http://{addr}/hooks/in?a=1&b=2");
            let status = outbound.post(&url, &headers(), "application/json", b"{\"x\":1}".to_vec()).await.unwrap();
            assert_eq!(status, 204);
            let received = received.lock().unwrap().clone();
            let [r] = received.as_slice() else { panic!("one request: {received:?}") };
            assert_eq!(r.method, "POST");
            assert_eq!(r.target, "/hooks/in?a=1&b=2");
            assert_eq!(r.header("host"), Some(addr.to_string().as_str()));
            assert_eq!(r.header("content-type"), Some("application/json"));
            assert_eq!(r.header("content-length"), Some("7"));
            assert_eq!(r.header("user-agent"), Some(concat!("consign-webhooks/", env!("CARGO_PKG_VERSION"))));
            assert_eq!(r.header("x-consign-signature"), Some("t=1,v1=secret-signature"));
            assert_eq!(r.header("x-consign-event"), Some("shipment.created"));
            assert_eq!(r.body, b"{\"x\":1}");
        });
    }

    #[test]
    fn statuses_are_returned_as_they_are_and_redirects_are_not_followed() {
        run(async {
            let outbound = Outbound::new(true, Duration::from_secs(5));
            for status in [200, 301, 302, 404, 500, 503] {
                let (addr, received) = receiver(status, None).await;
                let answer = outbound.post(&format!("http://{addr}"), &[], "text/plain", Vec::new()).await.unwrap();
                assert_eq!(answer, status);
                let answer = outbound.post(&format!("http://{addr}?only=query"), &[], "text/plain", Vec::new()).await.unwrap();
                assert_eq!(answer, status);
                let received = received.lock().unwrap().clone();
                assert_eq!(received.len(), 2, "{status}");
                assert_eq!(received[0].target, "/");
                assert_eq!(received[1].target, "/?only=query");
                assert_eq!(received[0].header("content-length"), Some("0"));
            }
        });
    }

    #[test]
    fn http_and_private_hosts_are_refused_unless_allowed() {
        run(async {
            let outbound = Outbound::new(false, Duration::from_secs(5));
            let post = |url: &'static str| {
                let outbound = outbound.clone();
                async move { outbound.post(url, &headers(), "application/json", Vec::new()).await.unwrap_err().0 }
            };
            assert_eq!(post("http://example.com/hook").await, "the URL must be https://, not http://");
            assert_eq!(post("https://127.0.0.1:9/hook").await, "the host is a loopback address");
            assert_eq!(post("https://[::1]/hook").await, "the host is a loopback address");
            assert_eq!(post("https://[::ffff:10.1.2.3]/hook").await, "the host is a private address");
            assert_eq!(post("https://10.1.2.3/hook").await, "the host is a private address");
            assert_eq!(post("https://169.254.169.254/latest/meta-data").await, "the host is a link-local address");
            assert_eq!(post("https://localhost/hook").await, "the host resolves to a loopback address");
        });
    }

    #[test]
    fn urls_that_are_not_absolute_https_with_a_host_and_no_user_are_refused() {
        run(async {
            let outbound = Outbound::new(true, Duration::from_secs(5));
            let refused = |url: &'static str| {
                let outbound = outbound.clone();
                async move { outbound.post(url, &headers(), "application/json", Vec::new()).await.unwrap_err().0 }
            };
            assert_eq!(refused("https://user:secret@example.com/hook").await, "the URL must not carry a user name or password");
            assert_eq!(refused("https://user@127.0.0.1/hook").await, "the URL must not carry a user name or password");
            assert_eq!(refused("ftp://example.com/hook").await, "the URL must be https://");
            assert_eq!(refused("/hook").await, "the URL must be absolute, starting with https://");
            assert_eq!(refused("example.com").await, "the URL must be absolute, starting with https://");
            assert_eq!(refused("example.com/hook").await, "the URL is not valid");
            assert_eq!(refused("https://exa mple.com/").await, "the URL is not valid");
            assert_eq!(refused("").await, "the URL is not valid");
            assert_eq!(refused("https://example.com:0/").await, "the port of the URL is not valid");
            assert_eq!(refused("https://example.com:65536/").await, "the port of the URL is not valid");
            assert_eq!(refused("https://example.com:44x/").await, "the port of the URL is not valid");
            assert_eq!(refused("https://[::1/").await, "the URL is not valid");
        });
    }

    #[test]
    fn reserved_or_invalid_headers_are_refused_without_their_values() {
        run(async {
            let outbound = Outbound::new(true, Duration::from_secs(5));
            let post = |headers: Vec<(&'static str, String)>| {
                let outbound = outbound.clone();
                async move { outbound.post("http://127.0.0.1:9/", &headers, "application/json", Vec::new()).await.unwrap_err().0 }
            };
            assert_eq!(post(vec![("host", "evil".into())]).await, "the header host is set by the delivery itself");
            assert_eq!(post(vec![("Content-Length", "1".into())]).await, "the header Content-Length is set by the delivery itself");
            assert_eq!(post(vec![("bad name", "x".into())]).await, "the header name bad name is not valid");
            let message = post(vec![("x-consign-signature", "v1=sig\r\nInjected: 1".into())]).await;
            assert_eq!(message, "the value of the header x-consign-signature is not valid");
        });
    }

    #[test]
    fn a_closed_port_is_connection_refused() {
        run(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            drop(listener);
            let outbound = Outbound::new(true, Duration::from_secs(5));
            let failure = outbound.post(&format!("http://{addr}/"), &headers(), "application/json", Vec::new()).await.unwrap_err();
            assert_eq!(failure.0, "connection refused");
        });
    }

    #[test]
    fn a_receiver_that_never_answers_is_cut_at_the_timeout() {
        run(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let held = tokio::spawn(async move {
                let mut streams = Vec::new();
                loop {
                    let (stream, _) = listener.accept().await.unwrap();
                    streams.push(stream);
                }
            });
            let outbound = Outbound::new(true, Duration::from_millis(300));
            let started = std::time::Instant::now();
            let failure = outbound.post(&format!("http://{addr}/"), &headers(), "application/json", b"{}".to_vec()).await.unwrap_err();
            assert_eq!(failure.to_string(), "no answer within 0.3 s");
            let took = started.elapsed();
            assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(3), "{took:?}");
            held.abort();
        });
    }

    #[test]
    fn a_receiver_that_closes_without_answering_is_told() {
        run(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(async move {
                let (stream, _) = listener.accept().await.unwrap();
                drop(stream);
            });
            let outbound = Outbound::new(true, Duration::from_secs(5));
            let failure = outbound.post(&format!("http://{addr}/"), &headers(), "application/json", Vec::new()).await.unwrap_err();
            assert_eq!(failure.0, "the connection closed before an answer");
        });
    }

    /// A TLS acceptor with a self-signed certificate for `localhost` and 127.0.0.1, and a
    /// root store trusting it.
    fn self_signed() -> (TlsAcceptor, RootCertStore) {
        use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        let cert: CertificateDer<'static> = certified.cert.der().clone();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.key_pair.serialize_der()));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert.clone()], key)
            .unwrap();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let mut roots = RootCertStore::empty();
        roots.add(cert).unwrap();
        (TlsAcceptor::from(Arc::new(config)), roots)
    }

    #[test]
    fn https_to_a_trusted_certificate_by_name_or_by_ip() {
        run(async {
            let (acceptor, roots) = self_signed();
            let (addr, received) = receiver(202, Some(acceptor)).await;
            let outbound = Outbound::with_roots(true, Duration::from_secs(5), roots);
            let by_name = format!("https://localhost:{}/in", addr.port());
            assert_eq!(outbound.post(&by_name, &headers(), "application/json", b"{}".to_vec()).await.unwrap(), 202);
            let by_ip = format!("https://{addr}/in");
            assert_eq!(outbound.post(&by_ip, &headers(), "application/json", b"{}".to_vec()).await.unwrap(), 202);
            let received = received.lock().unwrap().clone();
            assert_eq!(received.len(), 2);
            assert_eq!(received[0].header("host"), Some(format!("localhost:{}", addr.port()).as_str()));
            assert_eq!(received[1].header("host"), Some(addr.to_string().as_str()));
            assert!(received.iter().all(|r| r.method == "POST" && r.target == "/in" && r.body == b"{}"));
        });
    }

    #[test]
    fn https_to_an_untrusted_certificate_is_refused() {
        run(async {
            let (acceptor, _) = self_signed();
            let (addr, received) = receiver(200, Some(acceptor)).await;
            let outbound = Outbound::new(true, Duration::from_secs(5));
            let failure = outbound.post(&format!("https://{addr}/"), &headers(), "application/json", Vec::new()).await.unwrap_err();
            assert!(failure.0.starts_with("the certificate of the host is not valid"), "{failure}");
            assert!(!failure.0.contains("secret-signature"), "{failure}");
            assert!(received.lock().unwrap().is_empty());
        });
    }
}
