//! The local web page (`stanleyctl ui`): a read-only view of runs, the improvement queue and
//! its candidates, and the flow, served with axum on 127.0.0.1 on a random port only while it
//! is wanted. Every address the page answers starts with its per-start token
//! (`http://127.0.0.1:<port>/<token>/…`); access rules are in [`guard`], what each page shows
//! in [`views`] and [`pages`]. Live updates are server-sent events carrying the page's new main
//! part.

mod guard;
mod pages;
mod views;

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Response, StatusCode, header};
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use stanley_core::Cancel;
use tokio::time::Instant;

use crate::error::RequestError;
use crate::state::DaemonState;
use guard::Guard;
use views::Page;

/// The most connections the page serves at once.
const MAX_CONNECTIONS: usize = 32;
/// How long a request's headers may take to arrive.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How often a live stream looks for a change.
const LIVE_TICK: Duration = Duration::from_millis(500);

use crate::state::page::Serving;

/// When the page was last wanted: its last allowed request, and its open live streams.
struct Seen {
    last: Mutex<Instant>,
    streams: AtomicUsize,
}

impl Seen {
    fn touch(&self) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        if self.streams.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        self.last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }
}

/// What every handler shares.
#[derive(Clone)]
struct Ctx {
    state: Arc<DaemonState>,
    seen: Arc<Seen>,
    stop: Cancel,
    repo: Arc<str>,
    /// Where every address of the page starts: `/<token>`.
    base: Arc<str>,
}

/// Starts the page, or returns the one serving: (its address, `http://127.0.0.1:<port>/<token>/`,
/// port, started).
pub(crate) fn open(state: &Arc<DaemonState>) -> Result<(String, u16, bool), RequestError> {
    let mut slot = state.ui().0.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(serving) = slot.as_ref().filter(|s| !s.stop.is_cancelled()) {
        return Ok((serving.url.clone(), serving.port, false));
    }
    let cannot = |e: std::io::Error| {
        RequestError::context(
            crate::error::Refusal::Internal,
            "cannot serve the page on 127.0.0.1",
            e,
        )
    };
    // Bound synchronously while the slot is held, so two callers never start two pages.
    let std_listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(cannot)?;
    std_listener.set_nonblocking(true).map_err(cannot)?;
    let listener = tokio::net::TcpListener::from_std(std_listener).map_err(cannot)?;
    let port = listener.local_addr().map_err(cannot)?.port();
    let guard = Guard::new(port, guard::new_token().map_err(cannot)?);
    let url = format!("http://127.0.0.1:{port}{}/", guard.base());
    let ctx = Ctx {
        state: state.clone(),
        seen: Arc::new(Seen {
            last: Mutex::new(Instant::now()),
            streams: AtomicUsize::new(0),
        }),
        stop: Cancel::new(),
        repo: state
            .config()
            .files
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
            .into(),
        base: guard.base().into(),
    };
    let app = router(ctx.clone(), guard);
    spawn_lifetime(ctx.clone(), state.config().ui_idle);
    let stop = ctx.stop.clone();
    let cleared = state.clone();
    tokio::spawn(async move {
        serve(listener, app, stop).await;
        cleared.ui().clear(port);
        tracing::info!(port, "the page stopped");
    });
    tracing::info!(port, "the page is serving on 127.0.0.1");
    *slot = Some(Serving {
        url: url.clone(),
        port,
        stop: ctx.stop.clone(),
    });
    Ok((url, port, true))
}

/// Serves the page's connections until `stop`: HTTP/1.1 only, at most [`MAX_CONNECTIONS`] at
/// once (more are closed on arrival, so other local users cannot use up the daemon's
/// descriptors through the page), each request's headers within [`HEADER_TIMEOUT`], and every
/// connection closed within a second of the stop.
async fn serve(listener: tokio::net::TcpListener, app: Router, stop: Cancel) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "the page could not accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let stop = stop.clone();
        connections.spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(1), connection).await;
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(Duration::from_secs(2), drained)
        .await
        .is_err()
    {
        connections.abort_all();
    }
}

/// Stops the page when the daemon stops, or when nobody has wanted it for `idle`.
fn spawn_lifetime(ctx: Ctx, idle: Duration) {
    let tick = (idle / 4).clamp(Duration::from_millis(20), Duration::from_secs(5));
    let daemon_stop = ctx.state.activity().stop_token();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = daemon_stop.cancelled() => break,
                () = ctx.stop.cancelled() => break,
                () = tokio::time::sleep(tick) => {}
            }
            if ctx.seen.idle_for() >= idle {
                tracing::info!(
                    idle_ms = idle.as_millis() as u64,
                    "the page was not wanted; stopping it"
                );
                break;
            }
        }
        ctx.stop.cancel();
    });
}

/// One handler for every address: the guard takes the token out of an address before it runs,
/// and axum routes before a layer runs, so the handler reads the address left.
fn router(ctx: Ctx, guard: Guard) -> Router {
    let admitted = ctx.clone();
    Router::new()
        .fallback(answer)
        .with_state(ctx)
        .layer(axum::middleware::from_fn(
            move |request: Request, next: axum::middleware::Next| {
                let (guard, ctx) = (guard.clone(), admitted.clone());
                async move {
                    guard::enforce(guard, request, next, move || {
                        ctx.seen.touch();
                        ctx.state.activity().touch();
                    })
                    .await
                }
            },
        ))
}

fn asset(content_type: &'static str, body: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(body));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// An embedded asset, a page, or (under `/events`) a page's stream of updates, by the address
/// after the token.
async fn answer(State(ctx): State<Ctx>, request: Request) -> Response<Body> {
    let path = request.uri().path().to_owned();
    match path.as_str() {
        "/assets/style.css" => return asset("text/css; charset=utf-8", pages::STYLE),
        "/assets/live.js" => return asset("text/javascript; charset=utf-8", pages::LIVE),
        _ => {}
    }
    let (live, page_path) = match path.strip_prefix("/events") {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => (
            true,
            if rest.is_empty() {
                "/".to_owned()
            } else {
                rest.to_owned()
            },
        ),
        _ => (false, path),
    };
    let Some(page) = Page::at(&page_path) else {
        let main = pages::problem("Not found", &format!("There is no page at {page_path}."));
        let mut response = html(&ctx, "Not found", None, &main);
        *response.status_mut() = StatusCode::NOT_FOUND;
        return response;
    };
    if live {
        let since = request
            .uri()
            .query()
            .and_then(|q| q.split('&').find_map(|p| p.strip_prefix("since=")))
            .unwrap_or("")
            .to_owned();
        return events(ctx, page, since).into_response();
    }
    let (title, status, main) = render(&ctx, page.clone()).await;
    // The stream sends the main part only once it differs from what this page shows.
    let address = format!(
        "{}/events{}?since={}",
        ctx.base,
        page.path(),
        fingerprint(&main)
    );
    let mut response = html(&ctx, &title, Some(&address), &maud::PreEscaped(main));
    *response.status_mut() = status;
    response
}

/// Reads and renders `page` off the async threads: its title, status and main part as HTML
/// with LF line ends only (SSE ends a line at CR too, and HTML reads both alike), the form both
/// the page and its stream send and fingerprint.
async fn render(ctx: &Ctx, page: Page) -> (String, StatusCode, String) {
    let (state, base) = (ctx.state.clone(), ctx.base.clone());
    let rendered =
        match tokio::task::spawn_blocking(move || views::render(&state, &base, &page)).await {
            Ok(r) => r,
            Err(e) => views::Rendered {
                title: "Error".into(),
                main: pages::problem("Error", &format!("the page could not be made: {e}")),
                status: StatusCode::INTERNAL_SERVER_ERROR,
            },
        };
    let main = rendered.main.into_string();
    let main = if main.contains('\r') {
        main.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        main
    };
    (rendered.title, rendered.status, main)
}

fn html(ctx: &Ctx, title: &str, live: Option<&str>, main: &maud::Markup) -> Response<Body> {
    let mut response = Response::new(Body::from(
        pages::frame(&ctx.repo, &ctx.base, title, live, main).into_string(),
    ));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

/// Counts an open live stream for as long as it lives.
struct Streaming(Arc<Seen>);

impl Drop for Streaming {
    fn drop(&mut self) {
        self.0.streams.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

/// A short name for a rendering, to tell whether the page a browser shows is current (stable
/// for the daemon's life, which is as long as a page's address is).
fn fingerprint(main: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    main.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// The page's main part whenever it differs from what the browser shows (`since`, the
/// fingerprint of its rendering), until the page stops.
fn events(
    ctx: Ctx,
    page: Page,
    since: String,
) -> Sse<impl futures::Stream<Item = Result<Event, Infallible>>> {
    ctx.seen.streams.fetch_add(1, Ordering::SeqCst);
    let streaming = Streaming(ctx.seen.clone());
    // The first look is at once: the page may have changed since it was loaded.
    let start = (ctx, page, since, streaming, Duration::ZERO);
    let stream = futures::stream::unfold(
        start,
        |(ctx, page, mut shown, streaming, mut wait)| async move {
            loop {
                tokio::select! {
                    biased;
                    () = ctx.stop.cancelled() => return None,
                    () = tokio::time::sleep(wait) => {}
                }
                wait = LIVE_TICK;
                ctx.state.activity().touch();
                let (_, _, main) = render(&ctx, page.clone()).await;
                let seen = fingerprint(&main);
                if seen != shown {
                    shown = seen;
                    let event = Event::default().event("page").data(&main);
                    return Some((Ok(event), (ctx, page, shown, streaming, wait)));
                }
            }
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::default())
}
