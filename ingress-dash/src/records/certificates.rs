//! Certificates behind TLS entries: parsed from a TLS Secret's `tls.crt` (the leaf, first in
//! the chain; the key is never read, see [`crate::kube::watched_kinds::TlsSecret`]) or taken from the
//! cert-manager `Certificate` that writes the Secret, and each entry's [`CertificateStatus`]
//! with the hosts no subject name covers (RFC 6125 wildcards: `*` is the whole left-most
//! label only).

use std::collections::{BTreeSet, HashMap};

use k8s_openapi::jiff::Timestamp;

use crate::kube::watched_kinds::{CertManagerCertificate, TlsSecret};
use crate::records::backends::Availability;
use crate::records::{CertificateSource, CertificateStatus, Tls};

/// A Secret by namespace and name.
pub type SecretKey = (String, String);

/// What a certificate says of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedCertificate {
    pub subject_names: Vec<String>,
    /// Unix seconds.
    pub not_before: i64,
    /// Unix seconds.
    pub not_after: i64,
    pub issuer: String,
}

/// Reads the first certificate of a PEM chain (`tls.crt`).
pub fn parse_certificate(pem: &[u8]) -> Result<ParsedCertificate, String> {
    let mut blocks = x509_parser::pem::Pem::iter_from_buffer(pem);
    let block = match blocks.next() {
        Some(Ok(block)) => block,
        Some(Err(error)) => return Err(format!("tls.crt is not PEM: {error}")),
        None => return Err("tls.crt holds no certificate".to_owned()),
    };
    if block.label != "CERTIFICATE" {
        // Nothing of the block is told: a key put there by mistake must not be echoed.
        return Err("tls.crt does not start with a CERTIFICATE block".to_owned());
    }
    let certificate = block
        .parse_x509()
        .map_err(|error| format!("tls.crt is not an X.509 certificate: {error}"))?;
    let mut subject_names: Vec<String> = Vec::new();
    if let Ok(Some(names)) = certificate.subject_alternative_name() {
        for name in &names.value.general_names {
            if let x509_parser::extensions::GeneralName::DNSName(name) = name {
                subject_names.push((*name).to_owned());
            }
        }
    }
    if subject_names.is_empty() {
        subject_names.extend(
            certificate
                .subject()
                .iter_common_name()
                .filter_map(|name| name.as_str().ok())
                .map(str::to_owned),
        );
    }
    let validity = certificate.validity();
    Ok(ParsedCertificate {
        subject_names,
        not_before: validity.not_before.timestamp(),
        not_after: validity.not_after.timestamp(),
        issuer: certificate.issuer().to_string(),
    })
}

/// RFC 3339 of Unix seconds.
pub fn rfc3339(seconds: i64) -> String {
    Timestamp::from_second(seconds)
        .map(|time| time.to_string())
        .unwrap_or_default()
}

/// Unix seconds of an RFC 3339 time.
pub fn unix_seconds(time: &str) -> Option<i64> {
    time.parse::<Timestamp>().ok().map(|time| time.as_second())
}

/// Whether `name` (a subject name, maybe `*.example.com`) covers `host` (a rule host, maybe a
/// wildcard itself, which only the same wildcard covers).
pub fn covers(name: &str, host: &str) -> bool {
    let (name, host) = (name.to_ascii_lowercase(), host.to_ascii_lowercase());
    if name == host {
        return true;
    }
    match name.strip_prefix("*.") {
        Some(parent) if !host.starts_with('*') => host
            .split_once('.')
            .is_some_and(|(label, rest)| !label.is_empty() && rest == parent),
        _ => false,
    }
}

/// What a cert-manager Certificate says of the Secret it writes.
#[derive(Debug, Clone, PartialEq)]
struct Managed {
    certificate: String,
    subject_names: Vec<String>,
    not_before: Option<String>,
    not_after: Option<String>,
    issuer: Option<String>,
    ready: Option<(String, String)>,
}

/// The TLS Secrets and cert-manager Certificates of one watched scope.
#[derive(Debug, Default)]
pub struct CertificateIndex {
    secrets: HashMap<SecretKey, Result<ParsedCertificate, String>>,
    /// By the Secret the Certificate writes.
    managed: HashMap<SecretKey, Managed>,
    /// The Secret each Certificate (namespace, name) writes, for its deletion.
    written_by: HashMap<(String, String), SecretKey>,
}

fn secret_key(secret: &TlsSecret) -> SecretKey {
    (
        secret.metadata.namespace.clone().unwrap_or_default(),
        secret.metadata.name.clone().unwrap_or_default(),
    )
}

impl CertificateIndex {
    /// Takes the Secrets of `listed` (a complete list applied to an empty index) in place of
    /// this index's; the Secrets that may have changed.
    pub fn take_secrets(&mut self, listed: CertificateIndex) -> BTreeSet<SecretKey> {
        let mut affected: BTreeSet<SecretKey> = self.secrets.keys().cloned().collect();
        affected.extend(listed.secrets.keys().cloned());
        self.secrets = listed.secrets;
        affected
    }

    /// Takes the cert-manager Certificates of `listed` (a complete list applied to an empty
    /// index) in place of this index's; the Secrets they write that may have changed.
    pub fn take_certificates(&mut self, listed: CertificateIndex) -> BTreeSet<SecretKey> {
        let mut affected: BTreeSet<SecretKey> = self.managed.keys().cloned().collect();
        affected.extend(listed.managed.keys().cloned());
        self.managed = listed.managed;
        self.written_by = listed.written_by;
        affected
    }

    pub fn apply_secret(&mut self, secret: &TlsSecret) -> BTreeSet<SecretKey> {
        let key = secret_key(secret);
        let parsed = match (&secret.data.certificate, secret.type_.as_deref()) {
            (_, Some(other)) if other != "kubernetes.io/tls" => Err(format!(
                "the Secret is of type {other}, not kubernetes.io/tls"
            )),
            (Some(pem), _) => parse_certificate(&pem.0),
            (None, _) => Err("the Secret has no tls.crt".to_owned()),
        };
        if let Err(error) = &parsed {
            tracing::debug!(namespace = %key.0, secret = %key.1, %error, "unreadable certificate");
        }
        self.secrets.insert(key.clone(), parsed);
        BTreeSet::from([key])
    }

    pub fn delete_secret(&mut self, secret: &TlsSecret) -> BTreeSet<SecretKey> {
        let key = secret_key(secret);
        self.secrets.remove(&key);
        BTreeSet::from([key])
    }

    pub fn apply_certificate(
        &mut self,
        certificate: &CertManagerCertificate,
    ) -> BTreeSet<SecretKey> {
        let mut affected = self.delete_certificate(certificate);
        let namespace = certificate.metadata.namespace.clone().unwrap_or_default();
        let name = certificate.metadata.name.clone().unwrap_or_default();
        let spec = &certificate.spec;
        let mut subject_names = spec.dns_names.clone();
        if subject_names.is_empty() {
            subject_names.extend(spec.common_name.clone());
        }
        let status = certificate.status.clone().unwrap_or_default();
        let ready = status
            .conditions
            .iter()
            .find(|condition| condition.type_ == "Ready")
            .map(|condition| {
                (
                    condition.status.clone(),
                    condition.message.clone().unwrap_or_default(),
                )
            });
        let key = (namespace.clone(), spec.secret_name.clone());
        self.managed.insert(
            key.clone(),
            Managed {
                certificate: name.clone(),
                subject_names,
                not_before: status.not_before,
                not_after: status.not_after,
                issuer: spec.issuer_ref.as_ref().map(|issuer| {
                    format!(
                        "{}/{}",
                        issuer.kind.as_deref().unwrap_or("Issuer"),
                        issuer.name
                    )
                }),
                ready,
            },
        );
        self.written_by.insert((namespace, name), key.clone());
        affected.insert(key);
        affected
    }

    pub fn delete_certificate(
        &mut self,
        certificate: &CertManagerCertificate,
    ) -> BTreeSet<SecretKey> {
        let name = (
            certificate.metadata.namespace.clone().unwrap_or_default(),
            certificate.metadata.name.clone().unwrap_or_default(),
        );
        let Some(key) = self.written_by.remove(&name) else {
            return BTreeSet::new();
        };
        self.managed.remove(&key);
        BTreeSet::from([key])
    }

    /// The status of one TLS entry of a record in `namespace`; `rule_hosts`: the record's rule
    /// hosts that no TLS entry lists, which the certificate is expected to cover as well.
    pub fn status(
        &self,
        namespace: &str,
        entry: &Tls,
        secret_name: &str,
        rule_hosts: &[String],
        secrets: &Availability,
        certificates: &Availability,
    ) -> CertificateStatus {
        let key = (namespace.to_owned(), secret_name.to_owned());
        let mut status = CertificateStatus {
            secret_name: secret_name.to_owned(),
            hosts: entry.hosts.clone(),
            source: CertificateSource::NotRead,
            subject_names: Vec::new(),
            not_before: None,
            not_after: None,
            issuer: None,
            missing_hosts: Vec::new(),
            error: None,
        };
        let managed = match certificates {
            Availability::Ready => self.managed.get(&key),
            _ => None,
        };
        let secret = match secrets {
            Availability::Ready => Some(self.secrets.get(&key)),
            _ => None,
        };
        match (secret, managed) {
            (Some(Some(Ok(parsed))), _) => {
                status.source = CertificateSource::Secret;
                status.subject_names = parsed.subject_names.clone();
                status.not_before = Some(rfc3339(parsed.not_before));
                status.not_after = Some(rfc3339(parsed.not_after));
                status.issuer = Some(parsed.issuer.clone());
            }
            (Some(Some(Err(error))), None) => {
                status.source = CertificateSource::Secret;
                status.error = Some(format!(
                    "The certificate in the Secret {namespace}/{secret_name} cannot be read: {error}"
                ));
                return status;
            }
            (_, Some(managed)) => {
                status.source = CertificateSource::CertManager;
                status.subject_names = managed.subject_names.clone();
                status.not_before = managed.not_before.clone();
                status.not_after = managed.not_after.clone();
                status.issuer = managed.issuer.clone();
                if let Some((ready, message)) = &managed.ready
                    && ready != "True"
                {
                    status.error = Some(format!(
                        "cert-manager Certificate {namespace}/{} is not Ready: {message}",
                        managed.certificate
                    ));
                }
            }
            (Some(None), None) => {
                status.source = CertificateSource::Secret;
                status.error = Some(format!(
                    "The Secret {namespace}/{secret_name} does not exist (or is not of type \
                     kubernetes.io/tls)."
                ));
                return status;
            }
            (None, None) => {
                status.error = Some(not_read_reason(secrets, certificates));
                return status;
            }
        }
        let mut wanted: Vec<&String> = entry.hosts.iter().collect();
        wanted.extend(rule_hosts.iter().filter(|host| !entry.hosts.contains(host)));
        status.missing_hosts = wanted
            .into_iter()
            .filter(|host| !status.subject_names.iter().any(|name| covers(name, host)))
            .cloned()
            .collect();
        status
    }
}

/// Why neither the Secret nor a cert-manager Certificate tells an entry's certificate.
fn not_read_reason(secrets: &Availability, certificates: &Availability) -> String {
    let secrets = match secrets {
        Availability::Off => "Secrets are not read (certificates.read_secrets is false)".to_owned(),
        Availability::Pending => "Secrets have not been read yet".to_owned(),
        Availability::Failed { message, .. } => message.clone(),
        Availability::Ready => "the Secret was not found".to_owned(),
    };
    let certificates = match certificates {
        Availability::Off => "cert-manager is not installed".to_owned(),
        Availability::Pending => "cert-manager Certificates have not been read yet".to_owned(),
        Availability::Failed { message, .. } => message.clone(),
        Availability::Ready => "no cert-manager Certificate writes this Secret".to_owned(),
    };
    format!("{secrets}, and {certificates}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_cover_one_left_most_label() {
        assert!(covers("shop.example.com", "SHOP.example.com"));
        assert!(covers("*.example.com", "a.example.com"));
        assert!(!covers("*.example.com", "example.com"));
        assert!(!covers("*.example.com", "a.b.example.com"));
        assert!(covers("*.example.com", "*.example.com"));
        assert!(!covers("a.example.com", "*.example.com"));
        assert!(!covers("*.example.com", "*.a.example.com"));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(parse_certificate(b"not pem").is_err());
        assert!(
            parse_certificate(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
                .is_err()
        );
        assert!(
            parse_certificate(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
                .is_err()
        );
    }

    #[test]
    fn times_round_trip() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(unix_seconds("2026-01-02T03:04:05Z"), Some(1_767_323_045));
    }
}
