//! How Stanley reaches System One over HTTPS: HTTP/2 by ALPN when the server offers it, every
//! frame multiplexed on one connection; HTTP/1.1 when it does not; a private authority trusted
//! only through `STANLEY_JEV_CA_FILE`, and a clear line when that file cannot be used.

use std::time::Duration;

use serde_json::json;
use stanley_core::{Jev, JevRequest};
use stanley_tests::tls::Offer;
use stanley_tests::{FakeJev, TempRepo, TestEnv};

fn client(fake: &FakeJev, ca_file: Option<std::path::PathBuf>) -> stanley_adapters::HttpJev {
    let config = stanley_adapters::JevConfig::from_settings(&stanley_adapters::JevSettings {
        api_key: Some("k-123456789".to_owned()),
        base_url: Some(fake.base_url()),
        model: None,
        max_concurrency: None,
        ca_file,
    })
    .unwrap();
    stanley_adapters::HttpJev::new(config).unwrap()
}

fn request(n: usize) -> JevRequest {
    JevRequest {
        model: "jev-1.13.0".into(),
        state: json!({"request": format!("frame {n}")}),
        questions: json!({"ok": {"type": "noul", "prompt": "Is it fine?"}}),
    }
}

/// One call, then `n` at once; every one must be answered.
async fn burst(client: &stanley_adapters::HttpJev, n: usize) {
    let timeout = Duration::from_secs(10);
    client.ask(&request(0), timeout).await.unwrap();
    let asks = (1..=n).map(|i| async move { client.ask(&request(i), timeout).await });
    for answer in futures::future::join_all(asks).await {
        answer.unwrap();
    }
}

#[tokio::test]
async fn http2_carries_every_frame_on_one_connection() {
    let fake = FakeJev::start_tls(Offer::Http2).await;
    fake.set_latency(Duration::from_millis(30));
    let client = client(&fake, fake.ca_file());
    burst(&client, 40).await;
    let versions = fake.versions();
    assert_eq!(versions.len(), 41);
    assert!(versions.iter().all(|v| v == "HTTP/2.0"), "{versions:?}");
    assert_eq!(fake.connections(), (1, 0), "one connection, multiplexed");
    assert!(
        fake.load().0 > 1,
        "requests were in flight together on it: {:?}",
        fake.load()
    );
}

#[tokio::test]
async fn an_http1_server_gets_http1_over_a_connection_per_request_in_flight() {
    let fake = FakeJev::start_tls(Offer::Http1Only).await;
    fake.set_latency(Duration::from_millis(30));
    let client = client(&fake, fake.ca_file());
    burst(&client, 40).await;
    let versions = fake.versions();
    assert_eq!(versions.len(), 41);
    assert!(versions.iter().all(|v| v == "HTTP/1.1"), "{versions:?}");
    let (connections, refused) = fake.connections();
    assert_eq!(refused, 0);
    assert!(
        connections > 1 && connections <= 41,
        "HTTP/1.1 needs a connection per request in flight: {connections}"
    );
}

#[tokio::test]
async fn a_server_signed_by_an_unknown_authority_is_refused() {
    let fake = FakeJev::start_tls(Offer::Http2).await;
    let client = client(&fake, None);
    let err = client
        .ask(&request(0), Duration::from_secs(10))
        .await
        .unwrap_err();
    assert!(
        err.message.contains("certificate"),
        "the line names the certificate problem: {}",
        err.message
    );
    assert!(fake.requests().is_empty(), "no request reached the server");
    assert_eq!(fake.connections().0, 0);
}

#[test]
fn a_ca_file_that_cannot_be_used_is_one_clear_line() {
    let fake = FakeJev::start_tls_blocking(Offer::Http2);
    let dir = tempfile::tempdir().unwrap();
    let not_pem = dir.path().join("not.pem");
    std::fs::write(&not_pem, "hello\n").unwrap();
    let bad_pem = dir.path().join("bad.pem");
    std::fs::write(
        &bad_pem,
        "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let cases = [
        (
            dir.path().join("missing.pem"),
            "could not be read: No such file or directory (os error 2)",
        ),
        (
            not_pem,
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
        ),
        (
            bad_pem,
            "is not a PEM certificate file: invalid certificate encoding",
        ),
        ("ca.pem".into(), "must be an absolute path"),
    ];
    for (path, expected) in cases {
        let settings = stanley_adapters::JevSettings {
            api_key: Some("k".to_owned()),
            base_url: Some(fake.base_url()),
            ca_file: Some(path.clone()),
            ..Default::default()
        };
        let problem = stanley_adapters::JevConfig::from_settings(&settings)
            .map_err(|e| e.to_string())
            .and_then(|config| {
                stanley_adapters::HttpJev::new(config)
                    .map(drop)
                    .map_err(|e| e.message)
            })
            .unwrap_err();
        assert_eq!(
            problem,
            format!("STANLEY_JEV_CA_FILE {}: {expected}", path.display())
        );
    }
}

#[test]
fn a_review_over_http2_sends_every_request_on_one_connection() {
    let mut env = TestEnv::over_tls(Offer::Http2);
    env.set("STANLEY_CACHE", "off");
    let ca = env.jev.ca_file().unwrap();
    env.set("STANLEY_JEV_CA_FILE", ca.to_str().unwrap());
    env.jev.route("correctness", "review", 0.9);
    env.jev.set_latency(Duration::from_millis(20));
    let repo = TempRepo::with_hunks(3, 10);
    let out = env.stanley(
        &repo,
        &["Review these changes for correctness bugs", "--json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["output"]["data"]["coverage"]["failed"], 0);
    let versions = env.jev.versions();
    assert!(versions.len() > 10, "{versions:?}");
    assert!(versions.iter().all(|v| v == "HTTP/2.0"), "{versions:?}");
    assert_eq!(env.jev.connections(), (1, 0));
}

#[test]
fn without_the_ca_file_the_daemon_refuses_the_server_and_says_why() {
    let mut env = TestEnv::over_tls(Offer::Http2);
    env.jev.route("correctness", "review", 0.9);
    let repo = TempRepo::with_hunks(1, 1);
    let out = env.stanley(&repo, &["Review these changes for correctness bugs"]);
    assert!(env.jev.requests().is_empty());
    assert_eq!(out.code, 69, "{out:?}");
    let host = env.jev.base_url().replace("https://", "");
    assert_eq!(
        out.stderr,
        format!(
            "stanley: Jev error: {host} (TYPESAFE_BASE_URL) presented a TLS certificate that was \
             not accepted (UnknownIssuer); if a private authority or a TLS-inspecting proxy signs \
             it, set STANLEY_JEV_CA_FILE to that authority's PEM file\n"
        )
    );

    env.set("STANLEY_JEV_CA_FILE", "/nonexistent/ca.pem");
    let out = env.stanley(&repo, &["Review these changes for correctness bugs"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert!(
        out.stderr.contains(
            "STANLEY_JEV_CA_FILE /nonexistent/ca.pem: could not be read: No such file or directory (os error 2)"
        ),
        "{out:?}"
    );
}
