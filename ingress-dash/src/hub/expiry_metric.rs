//! `ingress_dash_certificate_expiry_timestamp_seconds{namespace,ingress,secret}`: the notAfter
//! of each TLS entry's certificate, as Unix seconds, for alerts ("expires within 14 days").
//! Written into `/_metrics` by hand (service-kit's `MetricsText`) so that a series goes away
//! with its ingress or TLS entry, which the `metrics` facade cannot do. A namespace's series
//! exist while its watcher runs.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

use service_kit::metrics::MetricsText;

const NAME: &str = "ingress_dash_certificate_expiry_timestamp_seconds";

/// (scope, namespace, ingress) → (secret, notAfter) of each of its TLS entries.
type Series = BTreeMap<(String, String, String), Vec<(String, i64)>>;

/// The expiries every watcher knows.
#[derive(Default)]
pub struct ExpiryGauges {
    series: Mutex<Series>,
}

impl ExpiryGauges {
    fn lock(&self) -> std::sync::MutexGuard<'_, Series> {
        self.series
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sets the expiries of one ingress (empty: it is gone, or has no known certificate).
    pub fn set(&self, scope: &str, namespace: &str, ingress: &str, expiries: Vec<(String, i64)>) {
        let key = (scope.to_owned(), namespace.to_owned(), ingress.to_owned());
        let mut series = self.lock();
        if expiries.is_empty() {
            series.remove(&key);
        } else {
            series.insert(key, expiries);
        }
    }

    /// Forgets a scope whose watcher stopped.
    pub fn forget(&self, scope: &str) {
        self.lock().retain(|(owner, _, _), _| owner != scope);
    }
}

/// A label value escaped as the text format wants (`\\`, `\"`, `\n`).
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl MetricsText for ExpiryGauges {
    fn write_metrics(&self, out: &mut String) {
        let series = self.lock();
        if series.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "# HELP {NAME} notAfter of the certificate of each TLS entry of an ingress (Unix seconds)."
        );
        let _ = writeln!(out, "# TYPE {NAME} gauge");
        for ((_, namespace, ingress), expiries) in series.iter() {
            for (secret, not_after) in expiries {
                let _ = writeln!(
                    out,
                    "{NAME}{{namespace=\"{}\",ingress=\"{}\",secret=\"{}\"}} {not_after}",
                    escape(namespace),
                    escape(ingress),
                    escape(secret)
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_come_and_go_with_their_ingress() {
        let gauges = ExpiryGauges::default();
        gauges.set(
            "shop",
            "shop",
            "web",
            vec![("web-tls".into(), 1_800_000_000)],
        );
        gauges.set(
            "shop",
            "shop",
            "api\"x",
            vec![("api-tls".into(), 1_700_000_000)],
        );
        let mut text = String::new();
        gauges.write_metrics(&mut text);
        assert!(text.contains(
            "ingress_dash_certificate_expiry_timestamp_seconds{namespace=\"shop\",ingress=\"web\",secret=\"web-tls\"} 1800000000\n"
        ), "{text}");
        assert!(text.contains("ingress=\"api\\\"x\""), "{text}");
        gauges.set("shop", "shop", "web", Vec::new());
        gauges.forget("other");
        let mut text = String::new();
        gauges.write_metrics(&mut text);
        assert!(!text.contains("\"web\""), "{text}");
        gauges.forget("shop");
        let mut text = String::new();
        gauges.write_metrics(&mut text);
        assert_eq!(text, "");
    }
}
