//! Who may read the page: only GET and HEAD, only under the `Host` the page was started at
//! (127.0.0.1 or localhost with its port, against DNS rebinding), and only with the per-start
//! token, given once in the address and then kept in an `HttpOnly`, `SameSite=Strict` cookie.
//! Every answer, refusals included, carries the same strict headers.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};

/// The page's own scripts and styles only, nothing inline, no frames, no forms, no plugins.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// What a request may do, decided before any page is made.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Serve it.
    Allowed,
    /// The token was in the address and is right: keep it in the cookie and send the browser to
    /// the same place without it (so it leaves the address bar and the history). The move is a
    /// page of our own rather than a redirect: a browser opened on a file counts a redirect
    /// chain it started as cross-site and would not send a `SameSite=Strict` cookie after it.
    Welcome { location: String },
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

    /// The cookie's name: per port, because browsers send a cookie to every port of a host,
    /// and two repositories' pages may be open at once.
    fn cookie_name(&self) -> String {
        format!("stanley_ui_{}", self.port)
    }

    /// The `Set-Cookie` value that keeps the token for this browser session.
    fn set_cookie(&self) -> String {
        format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            self.cookie_name(),
            self.token
        )
    }

    /// Decides a request from its method, `Host`, query and cookies.
    fn check(&self, method: &Method, uri: &axum::http::Uri, headers: &HeaderMap) -> Access {
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
        if let Some(given) = query_token(uri.query()) {
            if same(given.as_bytes(), self.token.as_bytes()) {
                return Access::Welcome {
                    location: local_path(uri.path()),
                };
            }
            return refused_token();
        }
        // Any cookie of ours that holds the token will do: another server on this host may
        // have set one of the same name (browsers share cookies across ports).
        if self
            .cookie_tokens(headers)
            .any(|given| same(given.as_bytes(), self.token.as_bytes()))
        {
            Access::Allowed
        } else {
            refused_token()
        }
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

    fn cookie_tokens<'a>(&self, headers: &'a HeaderMap) -> impl Iterator<Item = &'a str> {
        let name = self.cookie_name();
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(move |(k, _)| *k == name)
            .map(|(_, v)| v)
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

/// Where to go after the token: this page's own path when it is a plain local one, else `/`
/// (never `//host` or `/\host`, which a browser reads as another site).
fn local_path(path: &str) -> String {
    let plain = path.starts_with('/')
        && !path.starts_with("//")
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.".contains(&b));
    if plain {
        path.to_owned()
    } else {
        "/".to_owned()
    }
}

/// The `token` parameter of a query, if there is one.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v)
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

/// Checks a request against `guard`; when it is allowed, calls `admitted` and runs `next`.
pub(crate) async fn enforce(
    guard: Guard,
    request: Request<Body>,
    next: axum::middleware::Next,
    admitted: impl FnOnce(),
) -> Response<Body> {
    let mut response = match guard.check(request.method(), request.uri(), request.headers()) {
        Access::Allowed => {
            admitted();
            next.run(request).await
        }
        Access::Welcome { location } => {
            let page = maud::html! {
                (maud::DOCTYPE)
                html lang="en" {
                    head {
                        meta charset="utf-8";
                        meta http-equiv="refresh" content={"0;url=" (location)};
                        title { "Stanley" }
                    }
                    body { p { a href=(location) { "Open the page" } } }
                }
            };
            let mut r = Response::new(Body::from(page.into_string()));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            if let Ok(cookie) = HeaderValue::from_str(&guard.set_cookie()) {
                r.headers_mut().insert(header::SET_COOKIE, cookie);
            }
            r
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

    fn guard() -> Guard {
        Guard::new(4242, "ab".repeat(32))
    }

    fn check(method: Method, uri: &str, pairs: &[(&str, &str)]) -> Access {
        guard().check(&method, &uri.parse().unwrap(), &headers(pairs))
    }

    fn status(access: Access) -> Option<StatusCode> {
        match access {
            Access::Refused { status, .. } => Some(status),
            _ => None,
        }
    }

    #[test]
    fn the_token_in_the_address_becomes_a_cookie_and_leaves_the_address() {
        let token = "ab".repeat(32);
        let access = check(
            Method::GET,
            &format!("/runs?token={token}"),
            &[("host", "127.0.0.1:4242")],
        );
        assert_eq!(
            access,
            Access::Welcome {
                location: "/runs".into()
            }
        );
        assert_eq!(
            guard().set_cookie(),
            format!("stanley_ui_4242={token}; Path=/; HttpOnly; SameSite=Strict")
        );
        let cookie = format!("other=1; stanley_ui_4242={token}");
        assert_eq!(
            check(
                Method::GET,
                "/runs",
                &[("host", "localhost:4242"), ("cookie", &cookie)]
            ),
            Access::Allowed
        );
    }

    #[test]
    fn the_way_on_after_the_token_stays_on_this_site() {
        let token = "ab".repeat(32);
        for (path, to) in [
            ("/flow", "/flow"),
            ("//evil.example/", "/"),
            ("/%5Cevil.example/", "/"),
            ("/runs/a%22b", "/"),
        ] {
            assert_eq!(
                check(
                    Method::GET,
                    &format!("{path}?token={token}"),
                    &[("host", "127.0.0.1:4242")]
                ),
                Access::Welcome {
                    location: to.into()
                },
                "{path}"
            );
        }
    }

    #[test]
    fn a_wrong_or_missing_token_is_refused() {
        let host = ("host", "127.0.0.1:4242");
        assert_eq!(
            status(check(Method::GET, "/", &[host])),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            status(check(Method::GET, "/?token=abab", &[host])),
            Some(StatusCode::UNAUTHORIZED)
        );
        let wrong = format!("stanley_ui_4242={}", "cd".repeat(32));
        assert_eq!(
            status(check(Method::GET, "/", &[host, ("cookie", &wrong)])),
            Some(StatusCode::UNAUTHORIZED)
        );
        // Another server on this host may have set a cookie of the same name: ours still counts.
        let tossed = format!("stanley_ui_4242=bad; stanley_ui_4242={}", "ab".repeat(32));
        assert_eq!(
            check(Method::GET, "/", &[host, ("cookie", &tossed)]),
            Access::Allowed
        );
        // Another port's cookie is not this page's.
        let other = format!("stanley_ui_4243={}", "ab".repeat(32));
        assert_eq!(
            status(check(Method::GET, "/", &[host, ("cookie", &other)])),
            Some(StatusCode::UNAUTHORIZED)
        );
    }

    #[test]
    fn only_our_host_and_port_are_answered() {
        let cookie = format!("stanley_ui_4242={}", "ab".repeat(32));
        for host in [
            "evil.example:4242",
            "127.0.0.1:80",
            "127.0.0.1",
            "localhost.evil.example:4242",
            "[::1]:4242",
            "127.0.0.2:4242",
        ] {
            assert_eq!(
                status(check(
                    Method::GET,
                    "/",
                    &[("host", host), ("cookie", &cookie)]
                )),
                Some(StatusCode::FORBIDDEN),
                "{host}"
            );
        }
        assert_eq!(
            status(check(Method::GET, "/", &[("cookie", &cookie)])),
            Some(StatusCode::FORBIDDEN)
        );
        // Two Host headers are refused rather than guessed at.
        assert_eq!(
            status(check(
                Method::GET,
                "/",
                &[
                    ("host", "127.0.0.1:4242"),
                    ("host", "evil.example:4242"),
                    ("cookie", &cookie)
                ]
            )),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            check(
                Method::GET,
                "/",
                &[("host", "LOCALHOST:4242"), ("cookie", &cookie)]
            ),
            Access::Allowed
        );
    }

    #[test]
    fn nothing_but_reads() {
        let cookie = format!("stanley_ui_4242={}", "ab".repeat(32));
        for method in [
            Method::POST,
            Method::PUT,
            Method::DELETE,
            Method::PATCH,
            Method::OPTIONS,
        ] {
            assert_eq!(
                status(check(
                    method.clone(),
                    "/",
                    &[("host", "127.0.0.1:4242"), ("cookie", &cookie)]
                )),
                Some(StatusCode::METHOD_NOT_ALLOWED),
                "{method}"
            );
        }
        assert_eq!(
            check(
                Method::HEAD,
                "/",
                &[("host", "127.0.0.1:4242"), ("cookie", &cookie)]
            ),
            Access::Allowed
        );
    }

    #[test]
    fn tokens_are_fresh_hex() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
