//! Who may read the page: only GET and HEAD, only under the `Host` the page was started at
//! (127.0.0.1 or localhost with its port, against DNS rebinding), and only at an address whose
//! first segment is the per-start token (`/<token>/…`: a capability URL, every link the page
//! makes included). No cookie is set or read: browsers send a host's cookies to every port of
//! it, so a cookie would reach another local user's server on any loopback port, and that
//! server could set one of the same name. Every answer, refusals included, carries the same
//! strict headers.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, Uri, header};

/// The page's own scripts and styles only, nothing inline, no frames, no forms, no plugins.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// What a request may do, decided before any page is made.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Serve it as the page at `path`: what follows the token in the address (`/` when
    /// nothing does).
    Allowed { path: String },
    /// Refuse it with this status and line.
    Refused { status: StatusCode, why: String },
}

/// The access rules of one page start.
#[derive(Clone, Debug)]
pub(crate) struct Guard {
    port: u16,
    token: String,
}

impl Guard {
    pub(crate) fn new(port: u16, token: String) -> Self {
        Self { port, token }
    }

    /// Where every address of this page starts: `/<token>`.
    pub(crate) fn base(&self) -> String {
        format!("/{}", self.token)
    }

    /// Decides a request from its method, `Host` and path.
    fn check(&self, method: &Method, path: &str, headers: &HeaderMap) -> Access {
        if method != Method::GET && method != Method::HEAD {
            return Access::Refused {
                status: StatusCode::METHOD_NOT_ALLOWED,
                why: "this page is read-only: only GET and HEAD are answered".into(),
            };
        }
        if !self.host_allowed(headers) {
            return Access::Refused {
                status: StatusCode::FORBIDDEN,
                why: format!(
                    "this page answers only at 127.0.0.1:{0} or localhost:{0}",
                    self.port
                ),
            };
        }
        match self.after_token(path) {
            Some("") => Access::Allowed { path: "/".into() },
            Some(rest) => Access::Allowed { path: rest.into() },
            None => refused_token(),
        }
    }

    /// What follows the token in `path`, when its first segment is the token (compared without
    /// stopping at the first difference). A token anywhere else (a later segment, the query)
    /// does not count.
    fn after_token<'a>(&self, path: &'a str) -> Option<&'a str> {
        let rest = path.strip_prefix('/')?;
        let (given, after) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        same(given.as_bytes(), self.token.as_bytes()).then_some(after)
    }

    /// `Host` must be exactly 127.0.0.1 or localhost with this page's port: a page on another
    /// site that resolves its own name to 127.0.0.1 (DNS rebinding) sends its own name.
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let mut hosts = headers.get_all(header::HOST).iter();
        let (Some(host), None) = (hosts.next(), hosts.next()) else {
            return false;
        };
        let Ok(host) = host.to_str() else {
            return false;
        };
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        port == self.port.to_string()
            && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
    }
}

fn refused_token() -> Access {
    Access::Refused {
        status: StatusCode::UNAUTHORIZED,
        why: "this page needs the address `stanleyctl ui` prints (its token is new each time \
              the page starts)"
            .into(),
    }
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh token: 32 random bytes as hex.
pub(crate) fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(stanley_core::hash::hex(&bytes))
}

/// Adds the headers every answer carries.
fn harden(response: &mut Response<Body>) {
    let headers = response.headers_mut();
    let set = |headers: &mut HeaderMap, name: header::HeaderName, value: &'static str| {
        headers.insert(name, HeaderValue::from_static(value));
    };
    set(headers, header::CONTENT_SECURITY_POLICY, CSP);
    set(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(headers, header::X_FRAME_OPTIONS, "DENY");
    set(headers, header::REFERRER_POLICY, "no-referrer");
    set(headers, header::CACHE_CONTROL, "no-store");
    set(
        headers,
        header::HeaderName::from_static("cross-origin-opener-policy"),
        "same-origin",
    );
    set(
        headers,
        header::HeaderName::from_static("cross-origin-resource-policy"),
        "same-origin",
    );
}

/// The answer for a refused request: its line as plain text.
fn refusal(status: StatusCode, why: &str) -> Response<Body> {
    let mut response = Response::new(Body::from(format!("Stanley: {why}\n")));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if status == StatusCode::METHOD_NOT_ALLOWED {
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    }
    response
}

/// Checks a request against `guard`; when it is allowed, calls `admitted` and runs `next` on the
/// same request with the token taken out of its address (`/<token>/runs?x` becomes `/runs?x`).
pub(crate) async fn enforce(
    guard: Guard,
    mut request: Request<Body>,
    next: axum::middleware::Next,
    admitted: impl FnOnce(),
) -> Response<Body> {
    let access = guard.check(request.method(), request.uri().path(), request.headers());
    let mut response = match access {
        Access::Allowed { path } => {
            let address = match request.uri().query() {
                Some(query) => format!("{path}?{query}"),
                None => path,
            };
            match address.parse::<Uri>() {
                Ok(uri) => {
                    *request.uri_mut() = uri;
                    admitted();
                    next.run(request).await
                }
                Err(_) => refusal(StatusCode::BAD_REQUEST, "this address cannot be read"),
            }
        }
        Access::Refused { status, why } => refusal(status, &why),
    };
    harden(&mut response);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    fn token() -> String {
        "ab".repeat(32)
    }

    fn guard() -> Guard {
        Guard::new(4242, token())
    }

    fn check(method: Method, uri: &str, pairs: &[(&str, &str)]) -> Access {
        let uri: Uri = uri.parse().unwrap();
        guard().check(&method, uri.path(), &headers(pairs))
    }

    fn status(access: Access) -> Option<StatusCode> {
        match access {
            Access::Refused { status, .. } => Some(status),
            Access::Allowed { .. } => None,
        }
    }

    fn allowed(path: &str) -> Access {
        Access::Allowed { path: path.into() }
    }

    const HOST: (&str, &str) = ("host", "127.0.0.1:4242");

    #[test]
    fn the_token_as_the_first_segment_admits_and_leaves_the_rest_of_the_address() {
        let t = token();
        assert_eq!(guard().base(), format!("/{t}"));
        for (uri, path) in [
            (format!("/{t}/"), "/"),
            (format!("/{t}"), "/"),
            (format!("/{t}/runs"), "/runs"),
            (format!("/{t}/runs/review-1"), "/runs/review-1"),
            (format!("/{t}/events/flow?since=00ff"), "/events/flow"),
            (format!("/{t}/assets/style.css"), "/assets/style.css"),
            (format!("/{t}//elsewhere.example/"), "//elsewhere.example/"),
        ] {
            assert_eq!(check(Method::GET, &uri, &[HOST]), allowed(path), "{uri}");
        }
        assert_eq!(
            check(
                Method::GET,
                &format!("/{t}/flow"),
                &[("host", "localhost:4242")]
            ),
            allowed("/flow")
        );
    }

    #[test]
    fn a_wrong_missing_or_misplaced_token_is_refused() {
        let t = token();
        let wrong = "cd".repeat(32);
        for uri in [
            "/".to_owned(),
            "/runs".to_owned(),
            format!("/{wrong}/"),
            format!("/{wrong}/runs"),
            // One byte off, shorter, longer, in capitals.
            format!("/{}ac/", &t[..62]),
            format!("/{}/", &t[..63]),
            format!("/{t}a/"),
            format!("/{t}runs"),
            format!("/{}/", t.to_uppercase()),
            // The old scheme's place, a later segment, or the query.
            format!("/?token={t}"),
            format!("/runs?token={t}"),
            format!("/runs/{t}/"),
            format!("//{t}/"),
        ] {
            assert_eq!(
                status(check(Method::GET, &uri, &[HOST])),
                Some(StatusCode::UNAUTHORIZED),
                "{uri}"
            );
        }
    }

    #[test]
    fn cookies_count_for_nothing() {
        let t = token();
        // The old scheme's cookie, or any other, admits nothing without the token in the path.
        for cookie in [
            format!("stanley_ui_4242={t}"),
            format!("stanley_ui_4242=x; stanley_ui_4242={t}"),
            format!("token={t}"),
        ] {
            assert_eq!(
                status(check(Method::GET, "/runs", &[HOST, ("cookie", &cookie)])),
                Some(StatusCode::UNAUTHORIZED),
                "{cookie}"
            );
        }
        // And a tossed cookie changes nothing when the path has the token.
        assert_eq!(
            check(
                Method::GET,
                &format!("/{t}/runs"),
                &[HOST, ("cookie", "stanley_ui_4242=x; token=x")]
            ),
            allowed("/runs")
        );
    }

    #[test]
    fn only_our_host_and_port_are_answered() {
        let root = format!("/{}/", token());
        for host in [
            "evil.example:4242",
            "127.0.0.1:80",
            "127.0.0.1",
            "localhost.evil.example:4242",
            "[::1]:4242",
            "127.0.0.2:4242",
        ] {
            assert_eq!(
                status(check(Method::GET, &root, &[("host", host)])),
                Some(StatusCode::FORBIDDEN),
                "{host}"
            );
        }
        assert_eq!(
            status(check(Method::GET, &root, &[])),
            Some(StatusCode::FORBIDDEN)
        );
        // Two Host headers are refused rather than guessed at.
        assert_eq!(
            status(check(
                Method::GET,
                &root,
                &[HOST, ("host", "evil.example:4242")]
            )),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            check(Method::GET, &root, &[("host", "LOCALHOST:4242")]),
            allowed("/")
        );
    }

    #[test]
    fn nothing_but_reads() {
        let root = format!("/{}/", token());
        for method in [
            Method::POST,
            Method::PUT,
            Method::DELETE,
            Method::PATCH,
            Method::OPTIONS,
        ] {
            assert_eq!(
                status(check(method.clone(), &root, &[HOST])),
                Some(StatusCode::METHOD_NOT_ALLOWED),
                "{method}"
            );
        }
        assert_eq!(check(Method::HEAD, &root, &[HOST]), allowed("/"));
    }

    #[test]
    fn tokens_are_fresh_hex() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
