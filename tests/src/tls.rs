//! TLS for test servers: a throwaway certificate authority (rcgen) that issues a certificate for
//! `127.0.0.1` and `localhost`, written as a PEM file a client can be told to trust, and the
//! server side's rustls configuration with the ALPN protocols a test server offers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// Which application protocols a TLS test server offers by ALPN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// `h2`, then `http/1.1` (what an HTTP/2 server offers).
    Http2,
    /// `http/1.1` only (an older server or proxy).
    Http1Only,
}

/// A certificate authority made for one test, and a server certificate it issued.
pub struct TestCa {
    ca_file: PathBuf,
    chain: Vec<CertificateDer<'static>>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl TestCa {
    /// Makes the authority and the server certificate; the authority's PEM goes to
    /// `dir/ca.pem`.
    pub fn new(dir: &Path) -> Self {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Stanley test CA");
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key"))
            .expect("CA certificate");
        let server_key = KeyPair::generate().expect("server key");
        let server = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .expect("server params")
            .signed_by(&server_key, &ca)
            .expect("server certificate");
        let ca_file = dir.join("ca.pem");
        std::fs::write(&ca_file, ca.pem()).expect("write ca.pem");
        Self {
            ca_file,
            chain: vec![server.der().clone(), ca.der().clone()],
            key: PrivatePkcs8KeyDer::from(server_key.serialize_der()),
        }
    }

    /// The authority's PEM file.
    pub fn ca_file(&self) -> &Path {
        &self.ca_file
    }

    /// A server configuration presenting the certificate and offering `offer`.
    pub fn server_config(&self, offer: Offer) -> Arc<rustls::ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(
                self.chain.clone(),
                PrivateKeyDer::Pkcs8(self.key.clone_key()),
            )
            .expect("server certificate and key");
        config.alpn_protocols = match offer {
            Offer::Http2 => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
            Offer::Http1Only => vec![b"http/1.1".to_vec()],
        };
        Arc::new(config)
    }
}
