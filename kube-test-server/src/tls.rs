//! Real X.509 certificates for TLS Secrets (`kubernetes.io/tls`), made at start-up with rcgen: a
//! sample CA signs leaf certificates with the DNS names and validity a test asks for, so a
//! client parses real DER (subject alternative names, `notAfter`) exactly as in a cluster.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use k8s_openapi::ByteString;
use k8s_openapi::jiff::Timestamp;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType, SerialNumber,
};
use serde_json::{Value, json};

/// A certificate and its key, PEM-encoded, with what it says.
#[derive(Debug, Clone)]
pub struct IssuedCertificate {
    /// The leaf certificate followed by the CA's (as cert-manager writes `tls.crt`).
    pub certificate_pem: String,
    pub private_key_pem: String,
    pub dns_names: Vec<String>,
    pub not_before: SystemTime,
    pub not_after: SystemTime,
}

impl IssuedCertificate {
    /// `notAfter` as RFC 3339 (`2026-11-29T04:00:00Z`), as cert-manager's status gives it.
    pub fn not_after_rfc3339(&self) -> String {
        rfc3339(self.not_after)
    }

    pub fn not_before_rfc3339(&self) -> String {
        rfc3339(self.not_before)
    }
}

/// RFC 3339 at second precision, UTC.
pub fn rfc3339(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64);
    crate::wire::format_time(Timestamp::from_second(seconds).unwrap_or(Timestamp::UNIX_EPOCH))
}

/// Seconds since the epoch, which rcgen's times are built from (`date_time_ymd(1970, 1, 1)` plus
/// a duration: rcgen does not re-export its time type).
fn since_epoch(time: SystemTime) -> Duration {
    Duration::from_secs(
        time.duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs(),
    )
}

/// A CA that signs the sample certificates (ECDSA P-256). Its leaves share one key pair: making
/// one costs a signature, so thousands of TLS Secrets take well under a second.
pub struct CertificateAuthority {
    issuer: Issuer<'static, KeyPair>,
    certificate_pem: String,
    leaf_key: KeyPair,
    serial: std::sync::atomic::AtomicU64,
}

impl CertificateAuthority {
    /// A new CA named `common_name`, valid from a day ago for ten years.
    pub fn new(common_name: &str) -> Result<Self, rcgen::Error> {
        let now = SystemTime::now();
        let mut params = CertificateParams::default();
        params.distinguished_name = rcgen::DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        params
            .distinguished_name
            .push(DnType::OrganizationName, "kube-test-server");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let epoch = rcgen::date_time_ymd(1970, 1, 1);
        params.not_before = epoch + since_epoch(now - Duration::from_secs(86_400));
        params.not_after = epoch + since_epoch(now + Duration::from_secs(10 * 365 * 86_400));
        let key = KeyPair::generate()?;
        let certificate = params.self_signed(&key)?;
        Ok(Self {
            issuer: Issuer::new(params, key),
            certificate_pem: certificate.pem(),
            leaf_key: KeyPair::generate()?,
            serial: std::sync::atomic::AtomicU64::new(1),
        })
    }

    /// The CA certificate (PEM), as `ca.crt`.
    pub fn certificate_pem(&self) -> &str {
        &self.certificate_pem
    }

    /// A server certificate for `dns_names` (the first is also the subject's CN), valid from
    /// `not_before` to `not_after`.
    pub fn issue(
        &self,
        dns_names: &[String],
        not_before: SystemTime,
        not_after: SystemTime,
    ) -> Result<IssuedCertificate, rcgen::Error> {
        let mut params = CertificateParams::new(dns_names.to_vec())?;
        params.distinguished_name = rcgen::DistinguishedName::new();
        if let Some(first) = dns_names.first() {
            params.distinguished_name.push(DnType::CommonName, first);
        }
        let serial = self
            .serial
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        params.serial_number = Some(SerialNumber::from_slice(&serial.to_be_bytes()));
        let epoch = rcgen::date_time_ymd(1970, 1, 1);
        params.not_before = epoch + since_epoch(not_before);
        params.not_after = epoch + since_epoch(not_after);
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        debug_assert!(
            params
                .subject_alt_names
                .iter()
                .all(|san| matches!(san, SanType::DnsName(_)))
        );
        let certificate = params.signed_by(&self.leaf_key, &self.issuer)?;
        Ok(IssuedCertificate {
            certificate_pem: format!("{}{}", certificate.pem(), self.certificate_pem),
            private_key_pem: self.leaf_key.serialize_pem(),
            dns_names: dns_names.to_vec(),
            not_before,
            not_after,
        })
    }
}

/// A `kubernetes.io/tls` Secret holding `certificate` (`tls.crt`, `tls.key`, and `ca.crt` when
/// given), base64 in `data` as on the wire.
pub fn tls_secret(
    namespace: &str,
    name: &str,
    certificate: &IssuedCertificate,
    ca_pem: Option<&str>,
) -> Value {
    let encode =
        |text: &str| serde_json::to_value(ByteString(text.as_bytes().to_vec())).unwrap_or_default();
    let mut data = json!({
        "tls.crt": encode(&certificate.certificate_pem),
        "tls.key": encode(&certificate.private_key_pem),
    });
    if let Some(ca) = ca_pem {
        data["ca.crt"] = encode(ca);
    }
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "type": "kubernetes.io/tls",
        "data": data,
    })
}
