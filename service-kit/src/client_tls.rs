//! TLS towards a server with certificates of its own: a search cluster whose CA is private
//! (Elasticsearch 8 makes one on first start), often with mutual TLS. The configuration block
//! is the same in admin-console (`clusters[].tls`) and authproxy (`search.tls`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use serde::Deserialize;

use crate::config::ConfigProblems;

/// The `tls` block: the system's roots are trusted, plus `ca_file` when given.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClientTlsSettings {
    /// PEM file with extra CA certificates.
    pub ca_file: Option<PathBuf>,
    /// PEM client certificate (chain) for mutual TLS, with `client_key_file`.
    pub client_cert_file: Option<PathBuf>,
    pub client_key_file: Option<PathBuf>,
    /// Accepts any server certificate. Only for test clusters; logged as a warning at start.
    pub insecure_skip_verify: bool,
}

impl ClientTlsSettings {
    /// Reports unreadable files and a certificate without its key (or the reverse) under
    /// `at` (the block's key path, e.g. `search.tls`).
    pub fn validate(&self, at: &str, problems: &mut ConfigProblems) {
        for (key, file) in [
            ("ca_file", &self.ca_file),
            ("client_cert_file", &self.client_cert_file),
            ("client_key_file", &self.client_key_file),
        ] {
            if let Some(path) = file {
                problems.check(
                    path.is_file(),
                    &format!("{at}.{key}"),
                    format!("{} is not a readable file", path.display()),
                );
            }
        }
        problems.check(
            self.client_cert_file.is_some() == self.client_key_file.is_some(),
            &format!("{at}.client_key_file"),
            "client_cert_file and client_key_file go together",
        );
    }
}

/// The rustls configuration of a [`ClientTlsSettings`], built once at start and shared by every
/// client towards that server (reqwest's and the relay's hyper client), so both trust and present
/// exactly the same certificates.
#[derive(Clone)]
pub struct ClientTls {
    config: Arc<rustls::ClientConfig>,
    insecure: bool,
}

impl ClientTls {
    /// Reads and parses the files; the error names the file and what is wrong with it.
    pub fn load(settings: &ClientTlsSettings) -> anyhow::Result<Self> {
        crate::install_crypto_provider();
        let provider = rustls::crypto::CryptoProvider::get_default()
            .cloned()
            .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
        let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?;
        let builder = if settings.insecure_skip_verify {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AcceptAnyCertificate(provider)))
        } else {
            // The system's roots (as reqwest uses by default), plus the configured CA.
            let extra_roots = match &settings.ca_file {
                Some(path) => certificates(path)?,
                None => Vec::new(),
            };
            let verifier =
                rustls_platform_verifier::Verifier::new_with_extra_roots(extra_roots, provider)?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
        };
        let config = match (&settings.client_cert_file, &settings.client_key_file) {
            (Some(certificate), Some(key)) => {
                let key = PrivateKeyDer::from_pem_slice(&read(key)?).map_err(|error| {
                    anyhow::anyhow!("{} holds no PEM private key: {error}", key.display())
                })?;
                builder
                    .with_client_auth_cert(certificates(certificate)?, key)
                    .map_err(|error| anyhow::anyhow!("client certificate or key: {error}"))?
            }
            _ => builder.with_no_client_auth(),
        };
        Ok(Self {
            config: Arc::new(config),
            insecure: settings.insecure_skip_verify,
        })
    }

    pub fn skips_verification(&self) -> bool {
        self.insecure
    }

    /// The configuration for hyper-rustls or any other rustls client.
    pub fn rustls_config(&self) -> rustls::ClientConfig {
        (*self.config).clone()
    }

    /// `builder` with this TLS configuration.
    pub fn apply(&self, builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
        builder.use_preconfigured_tls(self.rustls_config())
    }
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).map_err(|error| anyhow::anyhow!("reading {}: {error}", path.display()))
}

/// Every certificate of a PEM file; an error when there is none.
fn certificates(path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let certificates = CertificateDer::pem_slice_iter(&read(path)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| anyhow::anyhow!("{} is not PEM: {error}", path.display()))?;
    anyhow::ensure!(
        !certificates.is_empty(),
        "{} holds no PEM certificate",
        path.display()
    );
    Ok(certificates)
}

/// `insecure_skip_verify`: any certificate is accepted, but the handshake's signatures are
/// still checked (the peer must hold the key of the certificate it shows).
#[derive(Debug)]
struct AcceptAnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            certificate,
            signature,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            certificate,
            signature,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Whether a failed call failed because the server's certificate was refused, so the message
/// can say what to configure instead of only rustls' reason.
pub fn is_untrusted_certificate(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(rustls::Error::InvalidCertificate(_)) = error.downcast_ref::<rustls::Error>() {
            return true;
        }
        // rustls' error arrives wrapped in io::Errors, whose `source` skips the wrapped error.
        current = match error.downcast_ref::<std::io::Error>() {
            Some(io_error) => io_error.get_ref().map(|inner| inner as _),
            None => error.source(),
        };
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_certificate_is_found_inside_nested_io_errors() {
        let refused = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let wrapped = std::io::Error::other(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            refused,
        ));
        assert!(is_untrusted_certificate(&wrapped));
        let refused_connection = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(!is_untrusted_certificate(&refused_connection));
    }

    #[test]
    fn a_certificate_without_its_key_is_reported_with_the_key_path() {
        let settings = ClientTlsSettings {
            client_cert_file: Some("/nonexistent/client.pem".into()),
            ..Default::default()
        };
        let mut problems = ConfigProblems::default();
        settings.validate("search.tls", &mut problems);
        let text = problems.to_string();
        assert!(text.contains("search.tls.client_cert_file"), "{text}");
        assert!(
            text.contains(
                "search.tls.client_key_file: client_cert_file and client_key_file go together"
            ),
            "{text}"
        );
    }
}
