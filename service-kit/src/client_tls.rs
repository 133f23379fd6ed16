//! TLS towards a server with certificates of its own: a search cluster whose CA is private
//! (Elasticsearch 8 makes one on first start), often with mutual TLS. The configuration block
//! is the same in admin-console (`clusters[].tls`) and authproxy (`search.tls`).

use std::path::{Path, PathBuf};

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

/// The CA certificates and client identity of a [`ClientTlsSettings`], read once at start and
/// applied to every client built for that server.
#[derive(Clone)]
pub struct ClientTls {
    roots: Vec<reqwest::Certificate>,
    identity: Option<reqwest::Identity>,
    insecure: bool,
}

impl ClientTls {
    /// Reads and parses the files; the error names the file and what is wrong with it.
    pub fn load(settings: &ClientTlsSettings) -> anyhow::Result<Self> {
        let roots = match &settings.ca_file {
            Some(path) => reqwest::Certificate::from_pem_bundle(&read(path)?)
                .map_err(|error| anyhow::anyhow!("{} is not PEM: {error}", path.display()))?,
            None => Vec::new(),
        };
        let identity = match (&settings.client_cert_file, &settings.client_key_file) {
            (Some(certificate), Some(key)) => {
                let mut pem = read(certificate)?;
                pem.push(b'\n');
                pem.extend(read(key)?);
                Some(
                    reqwest::Identity::from_pem(&pem)
                        .map_err(|error| anyhow::anyhow!("client certificate or key: {error}"))?,
                )
            }
            _ => None,
        };
        Ok(Self {
            roots,
            identity,
            insecure: settings.insecure_skip_verify,
        })
    }

    pub fn skips_verification(&self) -> bool {
        self.insecure
    }

    /// `builder` with these roots, this identity and this verification setting.
    pub fn apply(&self, mut builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
        if !self.roots.is_empty() {
            builder = builder.tls_certs_merge(self.roots.clone());
        }
        if let Some(identity) = &self.identity {
            builder = builder.identity(identity.clone());
        }
        builder.tls_danger_accept_invalid_certs(self.insecure)
    }
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).map_err(|error| anyhow::anyhow!("reading {}: {error}", path.display()))
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
