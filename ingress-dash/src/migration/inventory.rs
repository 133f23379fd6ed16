//! Migration readiness: the controller annotations in use, per Ingress, per namespace and over
//! the selection, each classified ([`Support`]) and its value checked; exported as JSON
//! ([`MigrationReport`]) or CSV ([`MigrationReport::to_csv`], one row per Ingress and
//! annotation, formula injection neutralised).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::catalogue::Support;
use super::explain::{AnnotationExplanation, ResolvedController, Validity, WarningCode};
use crate::hub::NamespaceError;

/// Counts over a namespace or the selection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MigrationCounts {
    pub ingresses: u64,
    /// Ingresses with at least one controller annotation.
    pub ingresses_with_annotations: u64,
    /// Controller annotations (one per Ingress and key).
    pub annotations: u64,
    pub gateway_api: u64,
    pub implementation_specific: u64,
    pub no_equivalent: u64,
    pub unknown: u64,
    pub invalid: u64,
    /// Annotations of another controller than the one of the Ingress's class: they have no
    /// effect today (when the class's controller is known).
    pub ignored: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NamespaceCounts {
    pub namespace: String,
    pub counts: MigrationCounts,
}

/// One annotation key over the selection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AnnotationUsage {
    pub key: String,
    pub controller: String,
    pub support: Support,
    pub gateway_api: Option<String>,
    pub source: Option<String>,
    /// Ingresses that carry it.
    pub ingresses: u64,
    pub namespaces: Vec<String>,
    /// Of which with an invalid value.
    pub invalid: u64,
}

/// One controller annotation of one Ingress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AnnotationUse {
    pub key: String,
    /// Redacted and bounded as in the explainer.
    pub value: String,
    pub support: Support,
    pub validity: Validity,
    pub warnings: Vec<WarningCode>,
}

/// An Ingress with controller annotations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct IngressUsage {
    pub namespace: String,
    pub name: String,
    pub ingress_class_name: Option<String>,
    /// `spec.controller` of its class, when known.
    pub controller: Option<String>,
    pub annotations: Vec<AnnotationUse>,
}

/// `GET /api/migration`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MigrationReport {
    /// The annotation catalogue's version (`controller@version`, comma-separated).
    pub catalogue_version: String,
    /// Why the Ingresses' controllers are unknown (IngressClasses not readable), if so.
    pub classes_note: Option<String>,
    pub totals: MigrationCounts,
    /// By namespace name.
    pub namespaces: Vec<NamespaceCounts>,
    /// By number of Ingresses (most first), then key.
    pub annotations: Vec<AnnotationUsage>,
    /// By namespace, then name.
    pub ingresses: Vec<IngressUsage>,
    /// Namespaces whose Ingresses could not be read: the counts leave them out.
    pub errors: Vec<NamespaceError>,
}

/// Collects Ingresses into a [`MigrationReport`].
#[derive(Debug, Default)]
pub struct Inventory {
    namespaces: BTreeMap<String, MigrationCounts>,
    usage: BTreeMap<String, (AnnotationUsage, BTreeSet<String>)>,
    ingresses: Vec<IngressUsage>,
}

impl Inventory {
    /// Adds one Ingress with its explained annotations; only controller annotations count.
    pub fn add(
        &mut self,
        namespace: &str,
        name: &str,
        class: Option<&str>,
        controller: &ResolvedController,
        explanations: Vec<AnnotationExplanation>,
    ) {
        let counts = self.namespaces.entry(namespace.to_owned()).or_default();
        counts.ingresses += 1;
        let mut uses = Vec::new();
        for explanation in explanations {
            let (Some(owner), Some(support)) = (&explanation.controller, explanation.support)
            else {
                continue;
            };
            counts.annotations += 1;
            *match support {
                Support::GatewayApi => &mut counts.gateway_api,
                Support::ImplementationSpecific => &mut counts.implementation_specific,
                Support::NoEquivalent => &mut counts.no_equivalent,
                Support::Unknown => &mut counts.unknown,
            } += 1;
            let invalid = explanation.validity == Validity::Invalid;
            counts.invalid += u64::from(invalid);
            counts.ignored += u64::from(
                explanation
                    .warnings
                    .iter()
                    .any(|warning| warning.code == WarningCode::OtherController),
            );
            let (usage, namespaces) =
                self.usage
                    .entry(explanation.key.clone())
                    .or_insert_with(|| {
                        let usage = AnnotationUsage {
                            key: explanation.key.clone(),
                            controller: owner.clone(),
                            support,
                            gateway_api: explanation.gateway_api.clone(),
                            source: explanation.source.clone(),
                            ingresses: 0,
                            namespaces: Vec::new(),
                            invalid: 0,
                        };
                        (usage, BTreeSet::new())
                    });
            usage.ingresses += 1;
            usage.invalid += u64::from(invalid);
            namespaces.insert(namespace.to_owned());
            uses.push(AnnotationUse {
                key: explanation.key,
                value: explanation.value,
                support,
                validity: explanation.validity,
                warnings: explanation.warnings.iter().map(|w| w.code).collect(),
            });
        }
        if uses.is_empty() {
            return;
        }
        counts.ingresses_with_annotations += 1;
        self.ingresses.push(IngressUsage {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            ingress_class_name: class.map(str::to_owned),
            controller: controller.id.clone(),
            annotations: uses,
        });
    }

    pub fn finish(
        self,
        catalogue_version: &str,
        classes_note: Option<String>,
        errors: Vec<NamespaceError>,
    ) -> MigrationReport {
        let mut totals = MigrationCounts::default();
        for counts in self.namespaces.values() {
            totals.ingresses += counts.ingresses;
            totals.ingresses_with_annotations += counts.ingresses_with_annotations;
            totals.annotations += counts.annotations;
            totals.gateway_api += counts.gateway_api;
            totals.implementation_specific += counts.implementation_specific;
            totals.no_equivalent += counts.no_equivalent;
            totals.unknown += counts.unknown;
            totals.invalid += counts.invalid;
            totals.ignored += counts.ignored;
        }
        let mut annotations: Vec<AnnotationUsage> = self
            .usage
            .into_values()
            .map(|(mut usage, namespaces)| {
                usage.namespaces = namespaces.into_iter().collect();
                usage
            })
            .collect();
        annotations.sort_by(|a, b| b.ingresses.cmp(&a.ingresses).then(a.key.cmp(&b.key)));
        let mut ingresses = self.ingresses;
        ingresses.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        MigrationReport {
            catalogue_version: catalogue_version.to_owned(),
            classes_note,
            totals,
            namespaces: self
                .namespaces
                .into_iter()
                .map(|(namespace, counts)| NamespaceCounts { namespace, counts })
                .collect(),
            annotations,
            ingresses,
            errors,
        }
    }
}

/// The CSV export's columns.
pub const CSV_HEADER: &str = "namespace,ingress,ingress_class,controller,annotation,value,support,gateway_api,validity,warnings";

impl MigrationReport {
    /// One row per Ingress and controller annotation (RFC 4180, CRLF line ends), every cell
    /// quoted and neutralised against formula injection ([`csv_cell`]).
    pub fn to_csv(&self) -> String {
        let gateway: BTreeMap<&str, &str> = self
            .annotations
            .iter()
            .map(|usage| {
                (
                    usage.key.as_str(),
                    usage.gateway_api.as_deref().unwrap_or(""),
                )
            })
            .collect();
        let mut out = String::with_capacity(128 * (self.ingresses.len() + 1));
        out.push_str(CSV_HEADER);
        out.push_str("\r\n");
        for ingress in &self.ingresses {
            for annotation in &ingress.annotations {
                let warnings: Vec<&str> = annotation
                    .warnings
                    .iter()
                    .map(|code| code.as_str())
                    .collect();
                let cells = [
                    ingress.namespace.as_str(),
                    ingress.name.as_str(),
                    ingress.ingress_class_name.as_deref().unwrap_or(""),
                    ingress.controller.as_deref().unwrap_or(""),
                    annotation.key.as_str(),
                    annotation.value.as_str(),
                    annotation.support.as_str(),
                    gateway.get(annotation.key.as_str()).copied().unwrap_or(""),
                    annotation.validity.as_str(),
                    &warnings.join(" "),
                ];
                let row: Vec<String> = cells.iter().map(|cell| csv_cell(cell)).collect();
                out.push_str(&row.join(","));
                out.push_str("\r\n");
            }
        }
        out
    }
}

/// One CSV cell, quoted (`"` doubled). A cell a spreadsheet would read as a formula (its first
/// character other than a space is `=`, `+`, `-`, `@`, a tab, a carriage return or a line
/// feed, or the full-width `＝`, `＋`, `－`, `＠`) starts with `'` instead; other control
/// characters become spaces.
pub fn csv_cell(text: &str) -> String {
    let first = text.trim_start_matches(' ').chars().next();
    let formula = first.is_some_and(|c| "=+-@\t\r\n＝＋－＠".contains(c));
    let mut out = String::with_capacity(text.len() + 3);
    out.push('"');
    if formula {
        out.push('\'');
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Support {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GatewayApi => "gateway_api",
            Self::ImplementationSpecific => "implementation_specific",
            Self::NoEquivalent => "no_equivalent",
            Self::Unknown => "unknown",
        }
    }
}

impl Validity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Valid => "valid",
            Self::Invalid => "invalid",
            Self::NotChecked => "not_checked",
        }
    }
}

impl WarningCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Snippet => "snippet",
            Self::UnknownKey => "unknown_key",
            Self::OtherController => "other_controller",
            Self::InvalidValue => "invalid_value",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::catalogue::catalogue;
    use super::super::explain::{ClassIndex, explain};
    use super::*;
    use crate::access::redaction::Redaction;

    fn add(inventory: &mut Inventory, namespace: &str, name: &str, annotations: &[(&str, &str)]) {
        let index = ClassIndex {
            controllers: BTreeMap::from([("nginx".to_owned(), "k8s.io/ingress-nginx".to_owned())]),
            ..Default::default()
        };
        let controller = index.resolve(Some("nginx"), catalogue());
        let annotations = annotations
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let redaction = Redaction::configured(true, &[]).unwrap();
        let explained = explain(&annotations, &controller, catalogue(), &redaction);
        inventory.add(namespace, name, Some("nginx"), &controller, explained);
    }

    fn report() -> MigrationReport {
        let mut inventory = Inventory::default();
        add(
            &mut inventory,
            "team-b",
            "shop",
            &[
                ("nginx.ingress.kubernetes.io/rewrite-target", "/$1"),
                ("nginx.ingress.kubernetes.io/proxy-body-size", "lots"),
                ("cert-manager.io/cluster-issuer", "letsencrypt"),
                ("traefik.ingress.kubernetes.io/router.tls", "true"),
            ],
        );
        add(
            &mut inventory,
            "team-a",
            "web",
            &[
                (
                    "nginx.ingress.kubernetes.io/rewrite-target",
                    "=HYPERLINK(\"http://x\")",
                ),
                ("nginx.ingress.kubernetes.io/server-snippet", "return 200;"),
                ("nginx.ingress.kubernetes.io/proxy-body-sise", "8m"),
            ],
        );
        add(&mut inventory, "team-a", "plain", &[("example.com/x", "1")]);
        inventory.finish("test@1", None, Vec::new())
    }

    #[test]
    fn counts_are_per_namespace_and_total() {
        let report = report();
        let team_a = &report.namespaces[0];
        assert_eq!(team_a.namespace, "team-a");
        assert_eq!(
            team_a.counts,
            MigrationCounts {
                ingresses: 2,
                ingresses_with_annotations: 1,
                annotations: 3,
                gateway_api: 1,
                implementation_specific: 0,
                no_equivalent: 1,
                unknown: 1,
                invalid: 0,
                ignored: 0,
            }
        );
        assert_eq!(report.totals.ingresses, 3);
        assert_eq!(report.totals.annotations, 6);
        assert_eq!(report.totals.invalid, 1, "proxy-body-size: lots");
        assert_eq!(
            report.namespaces[1].counts.ignored, 1,
            "Traefik's annotation on an ingress-nginx class"
        );
        let rewrite = &report.annotations[0];
        assert_eq!(rewrite.key, "nginx.ingress.kubernetes.io/rewrite-target");
        assert_eq!((rewrite.ingresses, rewrite.namespaces.len()), (2, 2));
        assert_eq!(
            report
                .ingresses
                .iter()
                .map(|i| i.name.as_str())
                .collect::<Vec<_>>(),
            ["web", "shop"],
            "only Ingresses with controller annotations, by namespace"
        );
    }

    #[test]
    fn the_csv_neutralises_formulas_and_quotes_every_cell() {
        let csv = report().to_csv();
        let mut lines = csv.split("\r\n");
        assert_eq!(lines.next(), Some(CSV_HEADER));
        assert!(
            csv.contains(r#""'=HYPERLINK(""http://x"")""#),
            "the formula is text: {csv}"
        );
        assert!(csv.contains(r#""<redacted>""#), "snippets stay hidden");
        assert!(!csv.contains("return 200"));
        assert_eq!(csv.matches("\r\n").count(), 1 + 6);
    }

    #[test]
    fn csv_cells_are_neutralised_whatever_the_trigger() {
        for text in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "  =1", "＝1"] {
            assert!(csv_cell(text).starts_with("\"'"), "{text:?}");
        }
        assert_eq!(csv_cell("a\"b"), r#""a""b""#);
        assert_eq!(csv_cell("8m"), r#""8m""#);
        assert_eq!(csv_cell("a\u{0}b\u{1b}"), "\"a b \"");
    }
}
