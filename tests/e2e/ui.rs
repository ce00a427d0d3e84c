//! `stanleyctl ui`: the daemon's read-only page, driven in a real headless Chromium over
//! WebDriver against real records (a check run with findings, delegated jobs, a validated
//! candidate, a flow journal made by the Stop hook): each page shows what it should, a flow
//! decision appears live without a reload, the pages work without JavaScript, every address
//! carries the token in its path and nothing links elsewhere, requests without the token, with
//! a foreign `Host` or with another method are refused, and another local user's server on
//! another loopback port neither receives the token nor locks the reader out. Screenshots go to
//! `target/ui-screenshots/`.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use stanley_tests::browser::{Browser, screenshot_dir};
use stanley_tests::fake_jev::flow_stop_answers;
use stanley_tests::testenv::{Output, bin_dir, run, wait_until};
use stanley_tests::{TempRepo, TestEnv};

use crate::security::{OTHER_UID, second_user_available};

const HOOK_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hooks");
const TODO: &str = "Audit the TODO comments";
const LIVE: Duration = Duration::from_secs(20);

/// The flow the page shows: a parser phase with a check, then a docs phase a person decides.
fn flow_file() -> Value {
    json!({
        "goal": "Ship the parser with docs", "title": "Parser",
        "phases": [
            {"id": "parse", "name": "Parser", "done_when": "parser.txt exists", "check": "test -f parser.txt"},
            {"id": "docs", "name": "Docs", "done_when": "a person approves the wording"}
        ],
        "limits": {"max_blocks_per_session": 20}
    })
}

/// The page's address, port and whether it was started, from `stanleyctl ui --no-open --json`.
fn open(env: &TestEnv, repo: &TempRepo) -> (String, u16, bool) {
    let out = env.stanleyctl(repo, &["ui", "--no-open", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    (
        doc["url"].as_str().unwrap().to_owned(),
        doc["port"].as_u64().unwrap() as u16,
        doc["started"].as_bool().unwrap(),
    )
}

/// The page's token, from its address (`http://127.0.0.1:<port>/<token>/`).
fn token_of(url: &str) -> String {
    url.split('/').nth(3).unwrap().to_owned()
}

/// The address of `path` (`runs`, `flow`, `runs/<id>`, …) under the page's address `url`.
fn at(url: &str, path: &str) -> String {
    format!("{url}{path}")
}

/// Every address the page in `browser` names (links, the stylesheet, the script, the live
/// stream), as the browser resolves them, is under the page's own address `url`.
fn assert_every_address_stays_under(browser: &Browser, url: &str) {
    let found = browser.run(
        "const out = [];
         document.querySelectorAll('[href]').forEach(e => out.push(e.href));
         document.querySelectorAll('[src]').forEach(e => out.push(e.src));
         const live = document.body.getAttribute('data-live');
         if (live) { out.push(new URL(live, document.baseURI).href); }
         return out;",
    );
    let found = found.as_array().unwrap();
    assert!(!found.is_empty(), "the page names no address");
    for address in found {
        let address = address.as_str().unwrap();
        assert!(
            address.starts_with(url),
            "{address} is not under {url} (on {})",
            browser.url()
        );
    }
}

/// A raw HTTP/1.1 GET (or another method) with exactly these headers: (status, head, body).
fn raw(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, String, String) {
    try_raw(port, method, path, headers).unwrap()
}

fn try_raw(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<(u16, String, String)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes())?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok((status, head.to_lowercase(), body.to_owned()))
}

/// Sets `BROWSER` to a stand-in that records what it was given; returns where.
fn stand_in_browser(env: &mut TestEnv, scratch: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let record = scratch.join("browser-args");
    let browser = scratch.join("browser");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > {0}.tmp && mv {0}.tmp {0}\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.set("BROWSER", browser.to_str().unwrap());
    let _ = std::fs::remove_file(&record);
    record
}

/// Runs `stanleyctl ui` with a stand-in browser and returns what the browser was given (the
/// redirect file's address).
fn opened_file(env: &mut TestEnv, repo: &TempRepo, scratch: &std::path::Path) -> String {
    let record = stand_in_browser(env, scratch);
    let out = env.stanleyctl(repo, &["ui"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("opened it with"), "{}", out.stderr);
    assert!(wait_until(Duration::from_secs(20), || record.exists()));
    std::fs::read_to_string(&record).unwrap().trim().to_owned()
}

/// Feeds the recorded Stop input to `stanleyctl hook stop`.
fn stop(env: &TestEnv, repo: &TempRepo) -> Output {
    let input = std::fs::read_to_string(format!("{HOOK_FIXTURES}/stop_transcript_only.json"))
        .unwrap()
        .replace("{{cwd}}", repo.root().to_str().unwrap())
        .replace(
            "{{transcript}}",
            &format!("{HOOK_FIXTURES}/transcript.jsonl"),
        );
    let mut cmd = env.command("stanleyctl", repo.root());
    cmd.args(["hook", "stop"]);
    run(cmd, Some(input.as_bytes()))
}

/// A repository with real records: a check run with findings, a validated candidate, a pending
/// delegated job, and a flow whose first stop was blocked.
struct Scene {
    env: TestEnv,
    repo: TempRepo,
    /// The stand-in agent's records (kept alive with the scene).
    scratch: tempfile::TempDir,
    /// What the flow's judge answers next: "continue" or "ask_human".
    next: Arc<Mutex<&'static str>>,
    /// The check run's id.
    run_id: String,
    /// The validated candidate's id.
    candidate: String,
}

fn scene() -> Scene {
    let (env, scratch) = crate::agent::agent_env("finished");
    env.jev.route("check", "check", 0.9);
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    // The flow's judge answers what the test says next ("continue", then "ask_human").
    let next = Arc::new(Mutex::new("continue"));
    let said = next.clone();
    env.jev.respond(move |body| {
        let questions = body["questions"].as_object()?;
        if !questions.contains_key("current_phase") {
            return None;
        }
        let phase = body["state"]["current_phase"].as_str()?;
        let next = *said.lock().unwrap();
        Some::<Map<String, Value>>(flow_stop_answers(
            questions,
            phase,
            next == "continue",
            next,
        ))
    });
    let repo = TempRepo::with_files(&[
        ("src/parse.js", "export const parse = (s) => Number(s);\n"),
        ("test/parse.test.js", &crate::runs::long_test("", false)),
    ]);
    repo.write("test/parse.test.js", &crate::runs::long_test("", true));
    let checked = env.stanley(&repo, &[crate::check::REQUEST, "--json"]);
    assert_eq!(checked.code, 0, "{checked:?}");
    let run_id = env.stanleyctl(&repo, &["runs", "list", "--json"]).json()[0]["runId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(env.stanley(&repo, &[TODO]).code, 0);
    let work = env.stanleyctl(&repo, &["queue", "work", "--json"]);
    assert_eq!(
        work.json()["processed"][0]["status"],
        "validated",
        "{work:?}"
    );
    // A second delegation stays pending.
    assert_eq!(
        env.stanley(&repo, &["Rename the logger module everywhere"])
            .code,
        0
    );
    repo.write(".stanley/flow.json", &flow_file().to_string());
    let blocked = stop(&env, &repo);
    assert!(blocked.stdout.contains("\"block\""), "{blocked:?}");
    let candidate = stanley_workflows::improve::JobId::of_request(TODO).to_string();
    Scene {
        env,
        repo,
        scratch,
        next,
        run_id,
        candidate,
    }
}

#[test]
fn the_page_shows_runs_the_queue_candidates_and_a_live_flow_in_a_real_browser() {
    let Scene {
        mut env,
        repo,
        scratch,
        next,
        run_id,
        candidate,
    } = scene();
    let (url, port, started) = open(&env, &repo);
    assert!(started);
    let token = token_of(&url);
    assert_eq!(url, format!("http://127.0.0.1:{port}/{token}/"));
    assert!(
        token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{url}"
    );
    // Asking again reuses the page that serves.
    assert_eq!(open(&env, &repo), (url.clone(), port, false));
    let shots = screenshot_dir();
    let browser = Browser::start(true);

    // `stanleyctl ui` opens the browser on its redirect file, which moves on to the address.
    let file = opened_file(&mut env, &repo, scratch.path());
    browser.goto(&file);
    assert!(
        browser.wait_for(LIVE, |b| b.url() == url
            && b.text("h1").contains("Overview")),
        "{}: {}",
        browser.url(),
        browser.text("body")
    );
    let cards = browser.text(".cards");
    assert!(
        cards.contains("1 pending of 2 jobs") && cards.contains("1 candidates waiting"),
        "{cards}"
    );
    assert!(browser.text("#flow-line").contains("in phase parse"));
    assert_every_address_stays_under(&browser, &url);
    // No cookie: the page keeps nothing in the browser that other ports of 127.0.0.1 get.
    assert_eq!(browser.cookies(), Vec::<Value>::new());
    browser.screenshot(&shots.join("overview.png"));

    // The navigation's links lead on, the token still in the address.
    browser.run("document.querySelector('nav a[href$=\"/runs\"]').click(); return true");
    assert!(
        browser.wait_for(LIVE, |b| b.url() == at(&url, "runs")
            && b.text("h1") == "Runs"),
        "{}: {}",
        browser.url(),
        browser.text("body")
    );
    assert_every_address_stays_under(&browser, &url);
    let table = browser.text("table.runs");
    assert!(
        table.contains("complete") && table.contains("check"),
        "{table}"
    );
    // A new request appears in the open list without a reload.
    let rows = "return document.querySelectorAll('table.runs tbody tr').length";
    let before = browser.run(rows).as_u64().unwrap();
    assert!(
        browser.wait_for(LIVE, |b| b.text("#live-state") == "on"),
        "the live stream did not open"
    );
    let again = env.stanley(&repo, &[crate::check::REQUEST]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        browser.wait_for(LIVE, |b| b.run(rows).as_u64() == Some(before + 1)),
        "the new run did not appear: {}",
        browser.text("main")
    );
    browser.screenshot(&shots.join("runs.png"));

    // One run: findings grouped by file, with their lines; coverage, limits, not checked.
    browser.goto(&at(&url, &format!("runs/{run_id}")));
    let files = browser.run(
        "return Array.from(document.querySelectorAll('table.findings tr.file th')).map(h => h.textContent)",
    );
    // One table: its header once, however many files.
    assert_eq!(
        browser.run("return document.querySelectorAll('table.findings thead').length"),
        1
    );
    assert!(
        files
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "test/parse.test.js"),
        "{files}"
    );
    let findings = browser.text("table.findings");
    assert!(findings.contains("skip_marker_added"), "{findings}");
    // What it says in words, and the changed lines it quotes.
    assert!(findings.contains("newly skipped"), "{findings}");
    let quoted = browser.text("table.findings pre.quote");
    assert!(quoted.contains("+ "), "{quoted}");
    insta::assert_snapshot!("run_page_findings", findings);
    let main = browser.text("main");
    for part in ["Coverage", "candidates", "judged", "Limits", "Not checked"] {
        assert!(main.contains(part), "{part}: {main}");
    }
    assert_every_address_stays_under(&browser, &url);
    browser.screenshot(&shots.join("run.png"));

    // The queue: both jobs with their states and diaries, and the candidate.
    browser.goto(&at(&url, "queue"));
    let jobs = browser.text("table.jobs");
    assert!(
        jobs.contains(&candidate) && jobs.contains("done") && jobs.contains("pending"),
        "{jobs}"
    );
    browser.run(&format!(
        "document.getElementById('diary-{candidate}').open = true; return true"
    ));
    assert!(
        browser
            .text(&format!("#diary-{candidate}"))
            .contains("validated")
    );
    assert!(browser.text("table.candidates").contains("todo_audit"));
    assert_every_address_stays_under(&browser, &url);
    browser.screenshot(&shots.join("queue.png"));

    // One candidate (through its link): its source, its validation and the exact commands.
    browser.run(&format!(
        "document.querySelector('a[href$=\"/candidates/{candidate}\"]').click(); return true"
    ));
    assert!(
        browser.wait_for(LIVE, |b| b.url()
            == at(&url, &format!("candidates/{candidate}"))),
        "{}",
        browser.url()
    );
    let source = browser.text("pre.source");
    assert!(source.contains("todo_audit"), "{source}");
    let commands = browser
        .run("return Array.from(document.querySelectorAll('pre.command')).map(p => p.textContent)");
    assert_eq!(
        commands,
        json!([
            format!("stanleyctl candidates promote {candidate}"),
            format!("stanleyctl candidates reject {candidate}")
        ])
    );
    assert!(browser.text("table.checks").contains("selected"));
    assert_every_address_stays_under(&browser, &url);
    browser.screenshot(&shots.join("candidate.png"));

    // The flow: phases, budgets, the block; then an advance and a person's question arrive live.
    browser.goto(&at(&url, "flow"));
    assert!(browser.text("table.phases").contains("parser.txt exists"));
    assert!(browser.text("#budget-blocks").starts_with("1 of 20"));
    assert!(browser.text("ol.timeline").contains("block"));
    assert!(
        browser.wait_for(LIVE, |b| b.text("#live-state") == "on"),
        "the live stream did not open: {}",
        browser.source()
    );
    browser.run("window.stanleyMark = 'not reloaded'; return true");
    repo.write("parser.txt", "the parser");
    let advanced = stop(&env, &repo);
    assert!(
        advanced.stdout.contains("now work on phase docs"),
        "{advanced:?}"
    );
    assert!(
        browser.wait_for(LIVE, |b| b.text("#current-phase") == "docs"),
        "the advance did not appear: {}",
        browser.text("main")
    );
    *next.lock().unwrap() = "ask_human";
    let asked = stop(&env, &repo);
    assert_eq!(asked.code, 0, "{asked:?}");
    assert!(
        browser.wait_for(LIVE, |b| b
            .text("#person-note")
            .contains("Waiting on a person")),
        "the person's question did not appear: {}",
        browser.text("main")
    );
    assert_eq!(
        browser.run("return window.stanleyMark || null"),
        json!("not reloaded"),
        "the page was reloaded"
    );
    let timeline = browser.text("ol.timeline");
    assert!(
        timeline.contains("advance") && timeline.contains("ask_human"),
        "{timeline}"
    );
    assert!(browser.text("#flow-state").contains("waiting"));
    assert_every_address_stays_under(&browser, &url);
    browser.screenshot(&shots.join("flow.png"));

    // Another browser without the token in its address gets nothing.
    let stranger = Browser::start(true);
    stranger.goto(&format!("http://127.0.0.1:{port}/runs"));
    let refused = stranger.text("body");
    assert!(refused.contains("needs the address"), "{refused}");
    assert!(!stranger.source().contains(&run_id));
    stranger.screenshot(&shots.join("refused.png"));
}

#[test]
fn the_pages_work_without_javascript() {
    let Scene {
        env,
        repo,
        scratch: _scratch,
        run_id,
        ..
    } = scene();
    let (url, _, _) = open(&env, &repo);
    let browser = Browser::start(false);
    browser.goto(&url);
    assert!(browser.text("h1").contains("Overview"));
    browser.goto(&at(&url, &format!("runs/{run_id}")));
    assert!(browser.text("table.findings").contains("skip_marker_added"));
    // The script never ran: the live state still says what the server wrote.
    assert!(browser.text("#live-state").starts_with("off"));
    browser.goto(&at(&url, "flow"));
    assert!(browser.text("ol.timeline").contains("block"));
    browser.screenshot(&screenshot_dir().join("flow-without-javascript.png"));
}

#[test]
fn requests_without_the_token_in_the_path_from_a_foreign_host_or_that_write_are_refused() {
    let Scene {
        env,
        repo,
        scratch: _scratch,
        run_id,
        ..
    } = scene();
    let (url, port, _) = open(&env, &repo);
    let token = token_of(&url);
    let host = format!("127.0.0.1:{port}");
    let run_path = format!("/{token}/runs/{run_id}");

    // The token is the first segment of every address; nothing is kept in a cookie.
    let (status, head, body) = raw(port, "GET", &run_path, &[("Host", &host)]);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("skip_marker_added"));
    assert!(!head.contains("set-cookie"), "{head}");
    for header in [
        "content-security-policy: default-src 'none'; script-src 'self'; style-src 'self'",
        "x-content-type-options: nosniff",
        "x-frame-options: deny",
        "referrer-policy: no-referrer",
        "cache-control: no-store",
        "cross-origin-opener-policy: same-origin",
        "cross-origin-resource-policy: same-origin",
    ] {
        assert!(head.contains(header), "{header}: {head}");
    }
    assert!(!head.contains("access-control-allow"), "no CORS: {head}");
    let (status, _, body) = raw(port, "GET", &format!("/{token}"), &[("Host", &host)]);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Overview"), "{body}");
    // The stylesheet and the script are behind the token too.
    for asset in ["assets/style.css", "assets/live.js"] {
        let (status, head, _) = raw(
            port,
            "GET",
            &format!("/{token}/{asset}"),
            &[("Host", &host)],
        );
        assert_eq!(status, 200, "{asset}");
        assert!(head.contains("referrer-policy: no-referrer"), "{head}");
        let (status, _, _) = raw(port, "GET", &format!("/{asset}"), &[("Host", &host)]);
        assert_eq!(status, 401, "{asset} without the token");
    }

    let refused = |status: u16, method: &str, path: &str, headers: &[(&str, &str)]| {
        let (got, head, body) = raw(port, method, path, headers);
        assert_eq!(got, status, "{method} {path} {headers:?}: {body}");
        assert!(!body.contains("skip_marker_added"), "{body}");
        assert!(!body.contains(&run_id), "{body}");
        assert!(head.contains("content-security-policy"), "{head}");
        assert!(!head.contains("set-cookie"), "{head}");
        (head, body)
    };
    let line = "Stanley: this page needs the address `stanleyctl ui` prints (its token is new each \
                time the page starts)\n";
    // The token missing, wrong, one character off, short, or not the first segment; and the
    // old scheme, the token in the query.
    let flipped = format!(
        "{}{}",
        &token[..63],
        if token.ends_with('0') { '1' } else { '0' }
    );
    for path in [
        format!("/runs/{run_id}"),
        format!("/{}/runs/{run_id}", "0".repeat(64)),
        format!("/{flipped}/runs/{run_id}"),
        format!("/{}/runs/{run_id}", &token[..32]),
        format!("/{token}0/runs/{run_id}"),
        format!("/runs/{token}/{run_id}"),
        format!("/events/runs/{run_id}"),
        format!("/runs/{run_id}?token={token}"),
        format!("/?token={token}"),
    ] {
        let (_, body) = refused(401, "GET", &path, &[("Host", &host)]);
        assert_eq!(body, line, "{path}");
    }
    // The old scheme's cookie admits nothing.
    refused(
        401,
        "GET",
        &format!("/runs/{run_id}"),
        &[
            ("Host", &host),
            ("Cookie", &format!("stanley_ui_{port}={token}")),
        ],
    );
    // DNS rebinding: a foreign name resolving to 127.0.0.1 sends its own Host, token or not.
    let (_, foreign) = refused(
        403,
        "GET",
        &run_path,
        &[("Host", &format!("attacker.example:{port}"))],
    );
    assert!(
        foreign.contains(&format!("only at 127.0.0.1:{port}")),
        "{foreign}"
    );
    refused(403, "GET", &run_path, &[("Host", "localhost:1")]);
    refused(403, "GET", &run_path, &[]);
    let (head, _) = refused(405, "POST", &run_path, &[("Host", &host)]);
    assert!(head.contains("allow: get, head"), "{head}");
    refused(405, "DELETE", &run_path, &[("Host", &host)]);
    // Writes are refused before the token is looked at.
    refused(405, "POST", &format!("/runs/{run_id}"), &[("Host", &host)]);
    refused(
        405,
        "OPTIONS",
        &run_path,
        &[("Host", &host), ("Origin", "http://attacker.example")],
    );
    // The listening socket is bound to 127.0.0.1 only (the kernel's own table says so).
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let listening: Vec<&str> = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (address, state) = (fields.get(1)?, fields.get(3)?);
            (address.ends_with(&format!(":{port:04X}")) && *state == "0A").then_some(*address)
        })
        .collect();
    assert_eq!(listening, vec![format!("0100007F:{port:04X}")]);
    let table6 = std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
    assert!(
        !table6.lines().any(|l| l
            .split_whitespace()
            .nth(1)
            .is_some_and(|a| a.ends_with(&format!(":{port:04X}")))
            && l.split_whitespace().nth(3) == Some("0A")),
        "no IPv6 listener"
    );
}

#[test]
fn the_page_stops_when_unwanted_and_the_next_one_has_a_new_port_and_token() {
    let mut env = TestEnv::new();
    env.set("STANLEY_UI_IDLE_MS", "300");
    let repo = TempRepo::with_files(&[("README.md", "# demo\n")]);
    let (first, port, started) = open(&env, &repo);
    assert!(started);
    assert!(
        wait_until(Duration::from_secs(20), || std::net::TcpStream::connect((
            "127.0.0.1",
            port
        ))
        .is_err()),
        "the page still listens on {port}"
    );
    let (second, _, started) = open(&env, &repo);
    assert!(started, "a new page was started");
    assert_ne!(first, second);
    assert_ne!(token_of(&first), token_of(&second));
}

#[test]
fn the_browser_is_given_a_private_redirect_file_never_the_token() {
    use std::os::unix::fs::PermissionsExt;
    let mut env = TestEnv::new();
    let scratch = tempfile::tempdir().unwrap();
    let record = stand_in_browser(&mut env, scratch.path());
    let repo = TempRepo::with_files(&[("README.md", "# demo\n")]);
    let out = env.stanleyctl(&repo, &["ui"]);
    assert_eq!(out.code, 0, "{out:?}");
    let url = out.stdout.lines().next().unwrap().to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && token_of(&url).len() == 64,
        "the address comes first: {}",
        out.stdout
    );
    assert!(out.stderr.contains("opened it with"), "{}", out.stderr);
    assert!(wait_until(Duration::from_secs(20), || record.exists()));
    let args = std::fs::read_to_string(&record).unwrap();
    let token = token_of(&url);
    assert!(
        !args.contains(&token),
        "the token is on the browser's command line: {args}"
    );
    let file = args.trim().strip_prefix("file://").expect("a file address");
    assert!(
        file.ends_with(&format!(
            "/ui-open-{}.html",
            url.split(':').nth(2).unwrap().split('/').next().unwrap()
        )),
        "one file per page: {file}"
    );
    let meta = std::fs::metadata(file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(
        file.starts_with(env.runtime_dir().to_str().unwrap()),
        "{file}"
    );
    let page = std::fs::read_to_string(file).unwrap();
    assert!(page.contains(&format!("content=\"0;url={url}\"")), "{page}");

    // Without a browser it says so, and the address is still printed first.
    env.set("BROWSER", "");
    let out = env.stanleyctl(&repo, &["ui"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.lines().next(), Some(url.as_str()));
    assert!(
        out.stderr.contains(
            "no browser found (set BROWSER, or run with a display); open the address above"
        ),
        "{}",
        out.stderr
    );
}

/// The page's answer to `path` (`/flow`, …) under `url`'s token.
fn page(url: &str, port: u16, path: &str) -> (u16, String) {
    let (status, _, body) = raw(
        port,
        "GET",
        &format!("/{}{path}", token_of(url)),
        &[("Host", &format!("127.0.0.1:{port}"))],
    );
    (status, body)
}

#[test]
fn records_a_repository_plants_are_refused_and_never_hang_the_page() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let repo = TempRepo::with_files(&[("README.md", "# demo\n")]);
    let stanley = repo.root().join(".stanley");
    std::fs::create_dir_all(&stanley).unwrap();
    // A flow file that is a link to an endless device.
    std::os::unix::fs::symlink("/dev/zero", stanley.join("flow.json")).unwrap();
    // A candidate folder a checkout made (0755), with a plausible record.
    let committed = stanley.join("candidates/imp_aaaaaaaaaaaa");
    std::fs::create_dir_all(&committed).unwrap();
    let record = json!({"schema": "stanley.candidate/v1", "id": "imp_aaaaaaaaaaaa",
        "status": "validated", "workflowId": "evil", "source": "../../evil.ts",
        "request": "x", "createdAt": "2026-12-01T00:00:00Z",
        "checks": {"loaded": true, "quarantined": [], "duplicateId": false, "outsideWrites": [], "routing": "selected"},
        "reasons": [], "agent": {"outcome": "finished", "toolCalls": 1, "durationMs": 1}, "summary": "x"});
    std::fs::write(committed.join("candidate.json"), record.to_string()).unwrap();
    for dir in [stanley.join("candidates"), committed.clone()] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A record in private folders that links to a FIFO nobody writes.
    let scratch = tempfile::tempdir().unwrap();
    let fifo = scratch.path().join("fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads a valid C string.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let private = stanley.join("candidates/imp_bbbbbbbbbbbb");
    std::fs::create_dir_all(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(&fifo, private.join("candidate.json")).unwrap();

    let (url, port, _) = open(&env, &repo);
    let (status, flow) = page(&url, port, "/flow");
    assert_eq!(status, 200);
    assert!(
        flow.contains("flow.json is a symbolic link; not read"),
        "{flow}"
    );
    let (status, queue) = page(&url, port, "/queue");
    assert_eq!(status, 200);
    assert!(queue.contains("No candidates yet."), "{queue}");
    let (status, _) = page(&url, port, "/candidates/imp_aaaaaaaaaaaa");
    assert_eq!(status, 404);
    assert_eq!(page(&url, port, "/").0, 200);
    // The same refusals outside the page: nothing listed, nothing promoted, one line for the flow.
    let listed = env.stanleyctl(&repo, &["candidates", "list"]);
    assert!(!listed.stdout.contains("imp_aaaaaaaaaaaa"), "{listed:?}");
    let promote = env.stanleyctl(&repo, &["candidates", "promote", "imp_aaaaaaaaaaaa"]);
    assert_eq!(promote.code, 65, "{promote:?}");
    assert!(!repo.root().join("evil.ts").exists());
    let status = env.stanleyctl(&repo, &["flow", "status"]);
    assert_ne!(status.code, 0);
    assert!(
        status
            .stderr
            .contains("flow.json is a symbolic link; not read"),
        "{status:?}"
    );
}

#[test]
fn the_page_holds_a_bounded_number_of_connections_and_the_daemon_keeps_answering() {
    let env = TestEnv::new();
    let repo = TempRepo::with_files(&[("README.md", "# demo\n")]);
    let (url, port, _) = open(&env, &repo);
    // Connections that never finish their headers, as another local user could open.
    let mut held: Vec<std::net::TcpStream> = (0..40)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\nX-Slow: ").unwrap();
            s.set_nonblocking(true).unwrap();
            s
        })
        .collect();
    // Past the bound, connections are closed on arrival: 8 of 40 see their end.
    let closed = |held: &mut [std::net::TcpStream]| -> usize {
        held.iter_mut()
            .map(|s| {
                let mut byte = [0u8; 1];
                match s.read(&mut byte) {
                    Ok(0) => 1,
                    Err(e) if e.kind() != std::io::ErrorKind::WouldBlock => 1,
                    _ => 0,
                }
            })
            .sum()
    };
    let mut seen = 0;
    assert!(
        wait_until(Duration::from_secs(20), || {
            seen = closed(&mut held);
            seen == 8
        }),
        "{seen} closed"
    );
    // The daemon itself keeps answering.
    let status = env.stanleyctl(&repo, &["daemon", "status"]);
    assert_eq!(status.code, 0, "{status:?}");
    drop(held);
    let (host, root) = (format!("127.0.0.1:{port}"), format!("/{}/", token_of(&url)));
    assert!(
        wait_until(Duration::from_secs(20), || {
            try_raw(port, "GET", &root, &[("Host", &host)])
                .is_ok_and(|(status, _, _)| status == 200)
        }),
        "the page serves again once they are gone"
    );
}

/// Another local user's web server on another loopback port (`foreign-page`, run as uid
/// 65534): every request it received, one line each.
struct ForeignPage {
    child: std::process::Child,
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl ForeignPage {
    fn start(page_port: u16) -> Self {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new(bin_dir().join("foreign-page"))
            .arg(page_port.to_string())
            .current_dir("/")
            .env_clear()
            .uid(OTHER_UID)
            .gid(OTHER_UID)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("start the foreign page");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let port = Arc::new(Mutex::new(None));
        let stdout = child.stdout.take().expect("piped stdout");
        let (sink, said) = (requests.clone(), port.clone());
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(p) = line.strip_prefix("ready ") {
                    *said.lock().unwrap() = p.parse::<u16>().ok();
                } else if let Some(request) = line.strip_prefix("request ") {
                    sink.lock().unwrap().push(request.to_owned());
                }
            }
        });
        assert!(
            wait_until(Duration::from_secs(10), || port.lock().unwrap().is_some()),
            "the foreign page did not start"
        );
        let port = port.lock().unwrap().unwrap();
        Self {
            child,
            port,
            requests,
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for ForeignPage {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn another_users_server_on_another_loopback_port_never_gets_the_token_nor_locks_the_page() {
    if !second_user_available(
        "another_users_server_on_another_loopback_port_never_gets_the_token_nor_locks_the_page",
    ) {
        return;
    }
    let env = TestEnv::new();
    let repo = TempRepo::with_files(&[("README.md", "# demo\n")]);
    let (url, port, _) = open(&env, &repo);
    let token = token_of(&url);
    assert_eq!(token.len(), 64, "{url}");
    let browser = Browser::start(true);
    browser.goto(&url);
    assert!(
        browser.wait_for(LIVE, |b| b.text("h1").contains("Overview")),
        "{}",
        browser.text("body")
    );
    browser.goto(&at(&url, "runs"));
    assert!(
        browser.wait_for(LIVE, |b| b.text("h1") == "Runs"),
        "{}",
        browser.text("body")
    );

    // Another user serves a page on another loopback port, and the reader goes there from ours
    // (as a link on any website could send them): it tosses cookies named like ours and fetches
    // from its own origin, so the browser sends it every cookie it has for 127.0.0.1.
    let attacker = ForeignPage::start(port);
    assert_ne!(attacker.port, port);
    let elsewhere = format!("http://127.0.0.1:{}/", attacker.port);
    browser.run(&format!(
        "window.location.href = {}; return true",
        Value::from(elsewhere.as_str())
    ));
    let fetched = |requests: &[String]| {
        requests
            .iter()
            .find(|r| r.starts_with("GET /seen HTTP/1.1"))
            .cloned()
    };
    assert!(
        wait_until(LIVE, || fetched(&attacker.requests()).is_some()),
        "the foreign page's fetch never arrived: {:?} (the browser shows {} {})",
        attacker.requests(),
        browser.url(),
        browser.text("body")
    );
    let requests = attacker.requests();
    for request in &requests {
        assert!(
            !request.to_lowercase().contains(&token),
            "another user's server received the page's token: {request:?}"
        );
    }
    // The cookies it tossed were set, and the browser sent them back to it.
    let seen = fetched(&requests).unwrap();
    assert!(
        seen.contains(&format!("stanley_ui_{port}=x")),
        "the tossed cookie is not in the browser: {seen:?}"
    );

    // Back on our page, with the tossed cookies in the browser: still ours, live updates too.
    browser.goto(&at(&url, "runs"));
    assert!(
        browser.wait_for(LIVE, |b| b.text("h1") == "Runs"),
        "{}",
        browser.text("body")
    );
    assert!(!browser.text("body").contains("needs the address"));
    assert!(
        browser.wait_for(LIVE, |b| b.text("#live-state") == "on"),
        "the live stream did not open after the cookie tossing: {}",
        browser.source()
    );
    // Nothing the foreign server saw later carries the token either.
    for request in attacker.requests() {
        assert!(
            !request.to_lowercase().contains(&token),
            "another user's server received the page's token: {request:?}"
        );
    }
}
