//! The production `Jev` port: an async HTTP client for TypeSafe's System One API
//! (`POST {base}/v1/systemone`, bearer key, JSON body), with failures classified for the executor
//! and an adaptive concurrency limit that halves on HTTP 429 and grows back on success.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use stanley_core::{BoxFuture, ErrorClass, Jev, JevError, JevRequest, Transport};
use thiserror::Error;
use tokio::sync::Notify;

/// The API root used when `TYPESAFE_BASE_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://api.typesafe.ai";
/// The model used when neither `TYPESAFE_MODEL` nor `TYPESAFE_DEFAULT_MODEL` is set.
pub const DEFAULT_MODEL: &str = "jev-1.13.0";
/// Most requests in flight at once per client.
pub const MAX_CONCURRENCY: usize = 16;

/// Settings read from the caller's environment.
#[derive(Clone)]
pub struct JevConfig {
    /// The API root (`…/v1/systemone` is appended).
    pub base_url: String,
    /// The bearer key.
    pub api_key: String,
    /// The model name.
    pub model: String,
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
}

fn valid_model(model: &str) -> bool {
    let mut chars = model.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && model.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
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
        let (scheme, rest) = base_url
            .split_once("://")
            .ok_or_else(|| JevConfigError::InvalidBaseUrl(base_url.clone()))?;
        let authority = rest.split('/').next().unwrap_or("");
        let host = match authority.rsplit_once(':') {
            Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) && !h.is_empty() => h,
            _ => authority,
        };
        match scheme {
            "https" if !host.is_empty() => {}
            "http" if is_loopback(host) => {}
            "http" if !host.is_empty() => return Err(JevConfigError::PlainHttp(host.to_owned())),
            _ => return Err(JevConfigError::InvalidBaseUrl(base_url)),
        }
        Ok(Self {
            base_url,
            api_key,
            model,
        })
    }

    /// The full endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("{}/v1/systemone", self.base_url)
    }
}

#[derive(Debug)]
struct LimitState {
    limit: usize,
    in_flight: usize,
    successes: usize,
}

/// A concurrency limit that halves on throttling and grows by one after `limit` successes.
#[derive(Debug)]
pub struct AdaptiveLimiter {
    state: Mutex<LimitState>,
    freed: Notify,
}

/// A slot held while a request is in flight.
#[derive(Debug)]
pub struct Slot<'a>(&'a AdaptiveLimiter);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.lock().in_flight -= 1;
        self.0.freed.notify_waiters();
    }
}

impl AdaptiveLimiter {
    /// A limiter starting at `limit`.
    pub fn new(limit: usize) -> Self {
        Self {
            state: Mutex::new(LimitState {
                limit: limit.clamp(1, MAX_CONCURRENCY),
                in_flight: 0,
                successes: 0,
            }),
            freed: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LimitState> {
        // Updates are single integer writes; a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current limit.
    pub fn limit(&self) -> usize {
        self.lock().limit
    }

    /// Waits for a free slot.
    pub async fn acquire(&self) -> Slot<'_> {
        loop {
            let notified = self.freed.notified();
            {
                let mut s = self.lock();
                if s.in_flight < s.limit {
                    s.in_flight += 1;
                    return Slot(self);
                }
            }
            notified.await;
        }
    }

    /// The API throttled us: halve the limit.
    pub fn throttled(&self) {
        let mut s = self.lock();
        s.limit = (s.limit / 2).max(1);
        s.successes = 0;
    }

    /// A request succeeded: grow by one after `limit` successes in a row.
    pub fn succeeded(&self) {
        let mut s = self.lock();
        s.successes += 1;
        if s.successes >= s.limit && s.limit < MAX_CONCURRENCY {
            s.limit += 1;
            s.successes = 0;
            drop(s);
            self.freed.notify_waiters();
        }
    }
}

/// The System One HTTP client.
#[derive(Clone)]
pub struct HttpJev {
    config: JevConfig,
    client: reqwest::Client,
    limiter: Arc<AdaptiveLimiter>,
}

impl std::fmt::Debug for HttpJev {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpJev")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The parts of an HTTP client that outlive one request: the connection pool and TLS setup
/// (expensive to build) and the adaptive limit. They hold no credentials.
#[derive(Clone, Debug)]
pub struct HttpShared {
    client: reqwest::Client,
    limiter: Arc<AdaptiveLimiter>,
}

impl HttpShared {
    /// Builds the connection pool and TLS configuration.
    pub fn new() -> Result<Self, JevError> {
        // Installing the process-wide TLS provider fails only when one is already installed,
        // which is what we want either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(concat!("stanley/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                JevError::new(None, "", format!("could not build the HTTP client: {e}"))
            })?;
        Ok(Self {
            client,
            limiter: Arc::new(AdaptiveLimiter::new(8)),
        })
    }
}

impl HttpJev {
    /// A client for `config` with a connection pool of its own.
    pub fn new(config: JevConfig) -> Result<Self, JevError> {
        Ok(Self::with_shared(config, &HttpShared::new()?))
    }

    /// A client for `config` over a shared pool: the key stays in this value, which lives only
    /// as long as the request that built it.
    pub fn with_shared(config: JevConfig, shared: &HttpShared) -> Self {
        Self {
            config,
            client: shared.client.clone(),
            limiter: shared.limiter.clone(),
        }
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
        let _slot = self.limiter.acquire().await;
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
                let name = if e.is_timeout() {
                    "TimeoutError"
                } else if e.is_connect() || e.is_request() {
                    "ConnectionError"
                } else {
                    "HttpError"
                };
                JevError::new(
                    None,
                    name,
                    format!("System One request failed: {}", error_chain(&e)),
                )
            })?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(|e| {
            JevError::new(
                None,
                "ConnectionReset",
                format!("System One response was cut off: {}", error_chain(&e)),
            )
        })?;
        if status == 429 {
            self.limiter.throttled();
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
                Some(status),
                "",
                format!("System One answered HTTP {status}: {detail}"),
            ));
        }
        self.limiter.succeeded();
        serde_json::from_slice(&body).map_err(|e| JevError {
            class: ErrorClass::Unknown,
            status: Some(status),
            transport: Transport::Other,
            message: format!("System One answered with a body that is not JSON: {e}"),
        })
    }
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
    fn cfg(
        key: Option<&str>,
        base_url: Option<&str>,
        model: Option<&str>,
    ) -> Result<JevConfig, JevConfigError> {
        JevConfig::from_settings(&JevSettings {
            api_key: key.map(str::to_owned),
            base_url: base_url.map(str::to_owned),
            model: model.map(str::to_owned),
        })
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

    #[test]
    fn the_limiter_halves_and_grows_back() {
        let l = AdaptiveLimiter::new(8);
        l.throttled();
        assert_eq!(l.limit(), 4);
        l.throttled();
        l.throttled();
        l.throttled();
        assert_eq!(l.limit(), 1);
        l.succeeded();
        assert_eq!(l.limit(), 2);
        l.succeeded();
        l.succeeded();
        assert_eq!(l.limit(), 3);
    }
}
