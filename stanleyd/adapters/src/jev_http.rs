//! The production `Jev` port: an async HTTP client for TypeSafe's System One API
//! (`POST {base}/v1/systemone`, bearer key, JSON body), with failures classified for the executor
//! and an adaptive concurrency window per API root and key that finds the server's limit. Over
//! HTTPS it offers HTTP/2 by ALPN (one connection carries every frame) and falls back to
//! HTTP/1.1.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use stanley_core::{BoxFuture, ErrorClass, Failure, Jev, JevError, JevRequest};
use thiserror::Error;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The API root used when `TYPESAFE_BASE_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://api.typesafe.ai";
/// The model used when neither `TYPESAFE_MODEL` nor `TYPESAFE_DEFAULT_MODEL` is set.
pub const DEFAULT_MODEL: &str = "jev-1.13.0";
/// The most requests in flight at once that `STANLEY_JEV_MAX_CONCURRENCY` may allow.
pub const MAX_CONCURRENCY: usize = 256;
/// The window's ceiling when the request does not set one: what protects the service and the
/// machine while the window looks for the server's limit.
pub const DEFAULT_CEILING: usize = 64;
/// The window a new API root and key start from.
pub const START_WINDOW: usize = 32;

/// Settings read from the caller's environment.
#[derive(Clone)]
pub struct JevConfig {
    /// The API root (`…/v1/systemone` is appended).
    pub base_url: String,
    /// The bearer key.
    pub api_key: String,
    /// The model name.
    pub model: String,
    /// The most requests in flight at once (`STANLEY_JEV_MAX_CONCURRENCY`), when set.
    pub max_concurrency: Option<usize>,
    /// A PEM file of root certificates trusted besides the system's (`STANLEY_JEV_CA_FILE`).
    pub ca_file: Option<PathBuf>,
}

impl std::fmt::Debug for JevConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JevConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

/// Why a Jev client could not be configured; all are input errors (exit 65).
#[derive(Clone, Debug, Error, PartialEq)]
pub enum JevConfigError {
    #[error("TYPESAFE_API_KEY is required; set it in the environment that runs stanley")]
    MissingKey,
    #[error("invalid model identifier: {0:?}")]
    InvalidModel(String),
    #[error("TYPESAFE_BASE_URL is not an http(s) URL: {0}")]
    InvalidBaseUrl(String),
    #[error(
        "refusing to send TYPESAFE_API_KEY over plain http to {0}; use https or a loopback address"
    )]
    PlainHttp(String),
    #[error("STANLEY_JEV_CA_FILE {}: {reason}", path.display())]
    CaFile { path: PathBuf, reason: CaProblem },
}

/// What is wrong with a CA file (the end of a sentence that names it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CaProblem {
    #[error("must be an absolute path")]
    Relative,
    /// The system's words for why it could not be opened or read.
    #[error("could not be read: {0}")]
    Unreadable(String),
    #[error("is larger than 1 MiB; it should hold PEM certificates")]
    TooLarge,
    /// The PEM parser's last words.
    #[error("is not a PEM certificate file: {0}")]
    NotPem(String),
    #[error("holds no PEM certificate (-----BEGIN CERTIFICATE-----)")]
    Empty,
    /// The TLS library refused the certificates (its error chain).
    #[error("was not accepted: {0}")]
    NotAccepted(String),
}

fn valid_model(model: &str) -> bool {
    let mut chars = model.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && model.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// The host (and port, when the URL names one) of `base_url`, for messages; the text itself
/// when it is not a URL with a host.
pub fn host_of(base_url: &str) -> String {
    match url::Url::parse(base_url) {
        Ok(url) => match (url.host_str(), url.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            (None, _) => base_url.to_owned(),
        },
        Err(_) => base_url.to_owned(),
    }
}

/// What a request says about Jev (parsed once from its environment by the daemon's settings;
/// blank values are `None`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JevSettings {
    /// The key (`TYPESAFE_API_KEY`).
    pub api_key: Option<String>,
    /// The API root (`TYPESAFE_BASE_URL`).
    pub base_url: Option<String>,
    /// The model (`TYPESAFE_MODEL`, else `TYPESAFE_DEFAULT_MODEL`).
    pub model: Option<String>,
    /// The most requests in flight at once (`STANLEY_JEV_MAX_CONCURRENCY`).
    pub max_concurrency: Option<usize>,
    /// Extra root certificates (`STANLEY_JEV_CA_FILE`).
    pub ca_file: Option<PathBuf>,
}

impl JevConfig {
    /// Checks the settings: a key, a valid model (default `jev-1.13.0`), and an `https` base
    /// URL (plain `http` only to a loopback address; default `https://api.typesafe.ai`).
    pub fn from_settings(settings: &JevSettings) -> Result<Self, JevConfigError> {
        let api_key = settings.api_key.clone().ok_or(JevConfigError::MissingKey)?;
        let model = settings
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
        if !valid_model(&model) {
            return Err(JevConfigError::InvalidModel(model));
        }
        let base_url = settings
            .base_url
            .clone()
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        let base_url = base_url.trim_end_matches('/').to_owned();
        let url = url::Url::parse(&base_url)
            .map_err(|_| JevConfigError::InvalidBaseUrl(base_url.clone()))?;
        match (url.scheme(), url.host()) {
            ("https", Some(_)) => {}
            ("http", Some(host)) if is_loopback(&host) => {}
            ("http", Some(host)) => return Err(JevConfigError::PlainHttp(host.to_string())),
            _ => return Err(JevConfigError::InvalidBaseUrl(base_url)),
        }
        if let Some(path) = settings.ca_file.as_ref().filter(|p| !p.is_absolute()) {
            return Err(JevConfigError::CaFile {
                path: path.clone(),
                reason: CaProblem::Relative,
            });
        }
        Ok(Self {
            base_url,
            api_key,
            model,
            max_concurrency: settings.max_concurrency,
            ca_file: settings.ca_file.clone(),
        })
    }

    /// The full endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("{}/v1/systemone", self.base_url)
    }
}

#[derive(Debug)]
struct LimitState {
    /// Requests allowed in flight now.
    window: usize,
    /// The most it may grow to (`STANLEY_JEV_MAX_CONCURRENCY`, default 64).
    ceiling: usize,
    /// Below it the window grows by one per success (doubling each round: slow start); from
    /// it on, by one per window of successes. The first throttle sets it.
    threshold: usize,
    in_flight: usize,
    successes: usize,
    /// Bumped at every cut: a throttled reply to a request sent before the last cut does not
    /// cut again (one burst, one cut).
    epoch: u64,
    /// Nothing is sent before this (the server's `Retry-After`).
    not_before: Option<Instant>,
    /// Most in flight at once, for diagnostics and the bench.
    peak: usize,
    /// Throttled replies seen.
    throttled: u64,
}

/// A concurrency window that finds the server's limit: it grows while calls succeed (one per
/// success until the first throttle, then one per round), is halved by a throttled or
/// overloaded reply (429, 503; once per burst), honours `Retry-After`, and is kept for the
/// daemon's life per API root and key, so the next request starts where the last one ended.
#[derive(Debug)]
pub struct AdaptiveLimiter {
    state: Mutex<LimitState>,
    freed: Notify,
}

/// A slot held while a request is in flight.
#[derive(Debug)]
pub struct Slot<'a> {
    limiter: &'a AdaptiveLimiter,
    epoch: u64,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.limiter.lock().in_flight -= 1;
        self.limiter.freed.notify_waiters();
    }
}

impl AdaptiveLimiter {
    /// A limiter starting at `window` under `ceiling`.
    pub fn new(window: usize, ceiling: usize) -> Self {
        let ceiling = ceiling.clamp(1, MAX_CONCURRENCY);
        Self {
            state: Mutex::new(LimitState {
                window: window.clamp(1, ceiling),
                ceiling,
                threshold: ceiling,
                in_flight: 0,
                successes: 0,
                epoch: 0,
                not_before: None,
                peak: 0,
                throttled: 0,
            }),
            freed: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LimitState> {
        // Updates are a few integer writes; a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current window.
    pub fn limit(&self) -> usize {
        self.lock().window
    }

    /// Most requests in flight at once so far, and throttled replies seen.
    pub fn seen(&self) -> (usize, u64) {
        let s = self.lock();
        (s.peak, s.throttled)
    }

    /// Sets the most the window may grow to (and lowers it at once when it is above).
    pub fn set_ceiling(&self, ceiling: usize) {
        let mut s = self.lock();
        s.ceiling = ceiling.clamp(1, MAX_CONCURRENCY);
        s.window = s.window.min(s.ceiling);
        s.threshold = s.threshold.min(s.ceiling);
        drop(s);
        self.freed.notify_waiters();
    }

    /// Waits for a free slot (and for the end of a `Retry-After` pause).
    pub async fn acquire(&self) -> Slot<'_> {
        loop {
            let notified = self.freed.notified();
            let pause = {
                let mut s = self.lock();
                match s.not_before {
                    Some(t) if t > Instant::now() => Some(t),
                    _ if s.in_flight < s.window => {
                        s.in_flight += 1;
                        s.peak = s.peak.max(s.in_flight);
                        return Slot {
                            limiter: self,
                            epoch: s.epoch,
                        };
                    }
                    _ => None,
                }
            };
            match pause {
                Some(until) => tokio::time::sleep_until(until).await,
                None => notified.await,
            }
        }
    }

    /// The server throttled (429) or was overloaded (503): halve the window once per burst and
    /// pause for `retry_after` when it said so (at most 30 s).
    pub fn throttled(&self, slot: &Slot<'_>, retry_after: Option<Duration>) {
        let mut s = self.lock();
        s.throttled += 1;
        if slot.epoch == s.epoch {
            s.window = (s.window / 2).max(1);
            s.threshold = s.window;
            s.successes = 0;
            s.epoch += 1;
        }
        if let Some(wait) = retry_after {
            let until = Instant::now() + wait.min(Duration::from_secs(30));
            s.not_before = Some(s.not_before.map_or(until, |t| t.max(until)));
        }
    }

    /// A call succeeded: grow.
    pub fn succeeded(&self) {
        let mut s = self.lock();
        if s.window >= s.ceiling {
            return;
        }
        if s.window < s.threshold {
            s.window += 1;
        } else {
            s.successes += 1;
            if s.successes < s.window {
                return;
            }
            s.window += 1;
            s.successes = 0;
        }
        drop(s);
        self.freed.notify_waiters();
    }
}

/// The server's `retry-after-ms` or `Retry-After` (seconds) header.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return (ms.is_finite() && ms >= 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
    }
    text("retry-after")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

/// The System One HTTP client.
#[derive(Clone)]
pub struct HttpJev {
    config: JevConfig,
    client: reqwest::Client,
    limiter: Arc<AdaptiveLimiter>,
}

/// The limiters of one daemon, by API root and a fingerprint of the key (never the key).
type Limiters = Arc<Mutex<HashMap<String, Arc<AdaptiveLimiter>>>>;

impl std::fmt::Debug for HttpJev {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpJev")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The parts of an HTTP client that outlive one request: the connection pools and TLS setup
/// (expensive to build) and the adaptive windows, one per API root and key. They hold no
/// credentials.
#[derive(Clone, Debug)]
pub struct HttpShared {
    /// Trusts the system's roots.
    client: reqwest::Client,
    /// How long an unused connection stays open.
    pool_idle: Duration,
    /// Trusts the system's roots and a CA file's, by the file's SHA-256 (a changed file is a
    /// new client; an unchanged one keeps its pool).
    with_roots: Arc<Mutex<HashMap<String, reqwest::Client>>>,
    limiters: Limiters,
}

/// The most bytes a CA file may hold.
const MAX_CA_FILE: u64 = 1024 * 1024;

/// How long an unused connection stays open when nothing else is said (reqwest's own default).
pub const POOL_IDLE: Duration = Duration::from_secs(90);

/// A client offering HTTP/2 and HTTP/1.1 by ALPN, trusting the system's roots and `roots`,
/// closing a connection unused for `pool_idle`.
/// The `User-Agent` of every HTTP request Stanley sends (Jev, the team cache's stores).
pub(crate) const USER_AGENT: &str = concat!("stanley/", env!("CARGO_PKG_VERSION"));

fn build_client(
    roots: Vec<reqwest::Certificate>,
    pool_idle: Duration,
) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .tls_certs_merge(roots)
        .pool_idle_timeout(pool_idle)
        .build()
}

/// The certificates in a PEM file, or why there are none.
fn read_roots(path: &Path) -> Result<(String, Vec<reqwest::Certificate>), CaProblem> {
    use std::io::Read;
    let unreadable = |e: std::io::Error| CaProblem::Unreadable(e.to_string());
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::new();
    file.take(MAX_CA_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_CA_FILE {
        return Err(CaProblem::TooLarge);
    }
    let roots = reqwest::Certificate::from_pem_bundle(&bytes).map_err(|e| {
        let chain = error_chain(&e);
        CaProblem::NotPem(chain.rsplit(": ").next().unwrap_or(&chain).to_owned())
    })?;
    if roots.is_empty() {
        return Err(CaProblem::Empty);
    }
    Ok((stanley_core::sha256_hex(&bytes), roots))
}

impl HttpShared {
    /// Builds the connection pool and TLS configuration; a connection unused for `pool_idle`
    /// is closed (the daemon passes its warm idle: the connections go with the warm state).
    pub fn new(pool_idle: Duration) -> Result<Self, JevError> {
        // Installing the process-wide TLS provider fails only when one is already installed,
        // which is what we want either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = build_client(Vec::new(), pool_idle).map_err(|e| {
            JevError::new(
                Failure::Other,
                format!("could not build the HTTP client: {}", error_chain(&e)),
            )
        })?;
        Ok(Self {
            client,
            pool_idle,
            with_roots: Arc::default(),
            limiters: Arc::default(),
        })
    }

    /// The client for `config`: the shared one, or one that also trusts its CA file.
    fn client(&self, config: &JevConfig) -> Result<reqwest::Client, JevConfigError> {
        let Some(path) = &config.ca_file else {
            return Ok(self.client.clone());
        };
        let problem = |reason: CaProblem| JevConfigError::CaFile {
            path: path.clone(),
            reason,
        };
        let (digest, roots) = read_roots(path).map_err(problem)?;
        let mut all = self.with_roots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = all.get(&digest) {
            return Ok(client.clone());
        }
        let client = build_client(roots, self.pool_idle)
            .map_err(|e| problem(CaProblem::NotAccepted(error_chain(&e))))?;
        all.insert(digest, client.clone());
        Ok(client)
    }

    /// The window for `config`'s API root and key, made the first time they are used.
    fn limiter(&self, config: &JevConfig) -> Arc<AdaptiveLimiter> {
        let fingerprint = stanley_core::sha256_hex(config.api_key.as_bytes());
        let name = format!("{} {}", config.base_url, &fingerprint[..16]);
        let mut all = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        let limiter = all
            .entry(name)
            .or_insert_with(|| Arc::new(AdaptiveLimiter::new(START_WINDOW, DEFAULT_CEILING)))
            .clone();
        drop(all);
        limiter.set_ceiling(config.max_concurrency.unwrap_or(DEFAULT_CEILING));
        limiter
    }
}

impl HttpJev {
    /// A client for `config` with a connection pool of its own.
    pub fn new(config: JevConfig) -> Result<Self, JevError> {
        let shared = HttpShared::new(POOL_IDLE)?;
        Self::with_shared(config, &shared).map_err(|e| JevError::new(Failure::Other, e.to_string()))
    }

    /// A client for `config` over a shared pool: the key stays in this value, which lives only
    /// as long as the request that built it. Fails when its CA file cannot be used.
    pub fn with_shared(config: JevConfig, shared: &HttpShared) -> Result<Self, JevConfigError> {
        Ok(Self {
            client: shared.client(&config)?,
            limiter: shared.limiter(&config),
            config,
        })
    }

    /// The model requests are sent with.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// The concurrency limiter (for diagnostics and tests).
    pub fn limiter(&self) -> &AdaptiveLimiter {
        &self.limiter
    }

    async fn send(&self, request: &JevRequest, timeout: Duration) -> Result<Value, JevError> {
        let slot = self.limiter.acquire().await;
        let response = self
            .client
            .post(self.config.endpoint())
            .bearer_auth(&self.config.api_key)
            .header("content-type", "application/json")
            .body(request.body())
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| {
                let failure = if e.is_timeout() {
                    Failure::TimedOut
                } else if e.is_connect() || e.is_request() {
                    Failure::Unreachable {
                        certificate: refused_certificate(&e),
                    }
                } else {
                    Failure::Other
                };
                JevError::new(
                    failure,
                    format!("System One request failed: {}", error_chain(&e)),
                )
            })?;
        let status = response.status().as_u16();
        let wait = retry_after(response.headers());
        let body = response.bytes().await.map_err(|e| {
            JevError::new(
                Failure::CutOff,
                format!("System One response was cut off: {}", error_chain(&e)),
            )
        })?;
        if status == 429 || status == 503 {
            self.limiter.throttled(&slot, wait);
        }
        if !(200..300).contains(&status) {
            let detail = serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|v| {
                    v.pointer("/error/message")
                        .or_else(|| v.get("message"))
                        .or_else(|| v.get("error"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(200).collect());
            return Err(JevError::new(
                Failure::Status(status),
                format!("System One answered HTTP {status}: {detail}"),
            ));
        }
        self.limiter.succeeded();
        serde_json::from_slice(&body).map_err(|e| {
            JevError::classed(
                ErrorClass::Unknown,
                Failure::Status(status),
                format!("System One answered with a body that is not JSON: {e}"),
            )
        })
    }
}

/// The reason a TLS certificate was not accepted, when that is why a request failed: rustls'
/// own error, found by its type along the chain. An `io::Error` wrapping another error (the
/// connector's, once or twice) is walked into: its own `source` skips what it wraps.
fn refused_certificate(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut next = Some(e);
    while let Some(err) = next {
        if let Some(rustls::Error::InvalidCertificate(why)) = err.downcast_ref::<rustls::Error>() {
            return Some(why.to_string());
        }
        next = match err
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => err.source(),
        };
    }
    None
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl Jev for HttpJev {
    fn ask<'a>(
        &'a self,
        request: &'a JevRequest,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, JevError>> {
        Box::pin(self.send(request, timeout))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refused certificate is found by its type however deep the connector wraps it (an
    /// `io::Error` around an `io::Error` around rustls' error, under an error with a source).
    #[test]
    fn a_refused_certificate_is_found_by_its_type_along_the_chain() {
        #[derive(Debug, thiserror::Error)]
        #[error("client error (Connect)")]
        struct Outer(#[source] std::io::Error);
        let tls = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let wrapped =
            std::io::Error::other(std::io::Error::new(std::io::ErrorKind::InvalidData, tls));
        let outer = Outer(wrapped);
        assert_eq!(
            refused_certificate(&outer).as_deref(),
            Some("UnknownIssuer")
        );
        let refused = Outer(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert_eq!(refused_certificate(&refused), None);
    }
    fn cfg(
        key: Option<&str>,
        base_url: Option<&str>,
        model: Option<&str>,
    ) -> Result<JevConfig, JevConfigError> {
        JevConfig::from_settings(&JevSettings {
            api_key: key.map(str::to_owned),
            base_url: base_url.map(str::to_owned),
            model: model.map(str::to_owned),
            max_concurrency: None,
            ca_file: None,
        })
    }

    /// A connection left unused for the pool's idle time is closed by the client (the daemon
    /// passes its warm idle, D-150); reqwest's own default would keep it for 90 s.
    #[tokio::test]
    async fn an_unused_connection_closes_after_the_pool_idle() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = socket.read(&mut buf).await.unwrap();
                assert!(n > 0, "the client closed before its request ended");
                request.extend_from_slice(&buf[..n]);
            }
            socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await
                .unwrap();
            // The client keeps the connection, then lets it go: the read ends.
            let deadline = std::time::Duration::from_secs(10);
            tokio::time::timeout(deadline, socket.read(&mut buf)).await
        });
        let shared = HttpShared::new(Duration::from_millis(200)).unwrap();
        let body = shared.client.get(&url).send().await.unwrap().text().await;
        assert_eq!(body.unwrap(), "ok");
        let closed = server.await.unwrap();
        assert!(
            matches!(closed, Ok(Ok(0))),
            "the idle connection was not closed: {closed:?}"
        );
    }

    #[test]
    fn checks_the_settings() {
        assert_eq!(
            cfg(None, None, None).unwrap_err(),
            JevConfigError::MissingKey
        );
        let c = cfg(Some("k"), None, None).unwrap();
        assert_eq!(
            (c.endpoint().as_str(), c.model.as_str()),
            ("https://api.typesafe.ai/v1/systemone", "jev-1.13.0")
        );
        let c = cfg(Some("k"), Some("http://127.0.0.1:9/"), Some("jev-2")).unwrap();
        assert_eq!(
            (c.endpoint().as_str(), c.model.as_str()),
            ("http://127.0.0.1:9/v1/systemone", "jev-2")
        );
        assert_eq!(
            cfg(Some("k"), None, Some("../evil")).unwrap_err(),
            JevConfigError::InvalidModel("../evil".into())
        );
        assert_eq!(
            cfg(Some("k"), Some("http://example.com"), None).unwrap_err(),
            JevConfigError::PlainHttp("example.com".into())
        );
        assert!(cfg(Some("k"), Some("http://localhost:8080"), None).is_ok());
        assert!(cfg(Some("k"), Some("http://[::1]:8080"), None).is_ok());
        assert!(cfg(Some("k"), Some("ftp://x"), None).is_err());
    }

    /// The host is the URL's, not the text before the first `:` or `/`: a loopback name in
    /// the user part or a port-like tail does not let the key go out over plain http.
    #[test]
    fn the_key_goes_over_plain_http_only_to_a_loopback_host() {
        for (url, host) in [
            ("http://localhost@evil.example/", "evil.example"),
            ("http://127.0.0.1:80@evil.example", "evil.example"),
            (
                "http://LOCALHOST.evil.example:8080",
                "localhost.evil.example",
            ),
            ("http://127.0.0.2.evil.example", "127.0.0.2.evil.example"),
        ] {
            assert_eq!(
                cfg(Some("k"), Some(url), None).unwrap_err(),
                JevConfigError::PlainHttp(host.into()),
                "{url}"
            );
        }
        for url in [
            "http://127.0.0.9:1",
            "http://LocalHost",
            "http://[0:0:0:0:0:0:0:1]",
        ] {
            assert!(cfg(Some("k"), Some(url), None).is_ok(), "{url}");
        }
        assert!(matches!(
            cfg(Some("k"), Some("https://"), None).unwrap_err(),
            JevConfigError::InvalidBaseUrl(_)
        ));
        assert_eq!(host_of("https://api.typesafe.ai/v1"), "api.typesafe.ai");
        assert_eq!(host_of("http://127.0.0.1:9/"), "127.0.0.1:9");
        assert_eq!(host_of("not a url"), "not a url");
    }

    #[test]
    fn the_window_grows_fast_until_the_first_throttle_then_by_one_a_round() {
        let l = AdaptiveLimiter::new(4, 64);
        for _ in 0..4 {
            l.succeeded();
        }
        assert_eq!(l.limit(), 8, "one per success at first: a round doubles it");
        l.set_ceiling(6);
        assert_eq!(l.limit(), 6, "a lower ceiling applies at once");
        l.set_ceiling(64);
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_throttles_cuts_once_and_retry_after_pauses_sending() {
        let l = AdaptiveLimiter::new(8, 64);
        let slots = [l.acquire().await, l.acquire().await, l.acquire().await];
        for slot in &slots {
            l.throttled(slot, Some(Duration::from_millis(500)));
        }
        assert_eq!(l.limit(), 4, "one burst, one cut");
        assert_eq!(l.seen(), (3, 3));
        drop(slots);
        // After the cut the window grows by one per window of successes.
        for _ in 0..3 {
            l.succeeded();
        }
        assert_eq!(l.limit(), 4);
        l.succeeded();
        assert_eq!(l.limit(), 5);
        // Nothing is sent during the pause.
        let start = Instant::now();
        let slot = l.acquire().await;
        assert!(
            start.elapsed() >= Duration::from_millis(499),
            "{:?}",
            start.elapsed()
        );
        // A throttle for a request sent after the cut cuts again.
        l.throttled(&slot, None);
        assert_eq!(l.limit(), 2);
    }

    #[test]
    fn retry_after_reads_milliseconds_or_seconds() {
        use reqwest::header::{HeaderMap, HeaderValue};
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        h.insert("retry-after-ms", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
    }
}
