//! The annotation explainer: for each annotation of one Ingress, what it does for the
//! Ingress's controller, whether its value is valid, where it goes in the Gateway API, and
//! warnings (snippets, unknown keys under a known prefix, annotations of another controller
//! than the one of the Ingress's class). Plain functions over the annotations and the
//! IngressClasses; the redaction rules decide which values are shown (and checked).

use std::collections::BTreeMap;

use serde::Serialize;

use super::catalogue::{Catalogue, Lookup, Support};
use super::values::Checked;
use crate::access::redaction::{LAST_APPLIED, REDACTED, Redaction};

/// The longest value shown (characters); a longer one ends with `…`. It is checked whole.
pub const MAX_VALUE_CHARS: usize = 256;

/// Whether an annotation's value has a form the controller accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Validity {
    Valid,
    Invalid,
    /// Free text, an unknown key, or a value the redaction rules hide.
    NotChecked,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// Raw proxy configuration.
    Snippet,
    /// Under a controller's prefix, unknown to the catalogue (often a typo).
    UnknownKey,
    /// The annotation's controller is not the one of the Ingress's class: it is ignored.
    OtherController,
    InvalidValue,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AnnotationWarning {
    pub code: WarningCode,
    pub message: String,
}

/// One annotation explained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AnnotationExplanation {
    pub key: String,
    /// `<redacted>` when the redaction rules hide it; at most [`MAX_VALUE_CHARS`] characters.
    pub value: String,
    /// The controller the annotation belongs to (`ingress-nginx`), by its prefix.
    pub controller: Option<String>,
    /// What it does for that controller.
    pub does: Option<String>,
    /// `null` for annotations of no controller.
    pub support: Option<Support>,
    /// The Gateway API field (or policy) that says the same.
    pub gateway_api: Option<String>,
    pub validity: Validity,
    /// The valid forms, when the value is checked.
    pub expected: Option<String>,
    /// The documentation the catalogue's entry was written from.
    pub source: Option<String>,
    pub warnings: Vec<AnnotationWarning>,
}

/// `GET /api/objects/ingresses/{namespace}/{name}/annotations`: one Ingress's annotations
/// explained for the controller of its class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct IngressAnnotations {
    pub namespace: String,
    pub name: String,
    /// `spec.ingressClassName`, else the legacy `kubernetes.io/ingress.class` annotation.
    pub ingress_class_name: Option<String>,
    /// `spec.controller` of that class (or of the default class).
    pub controller: Option<String>,
    /// The catalogue's name of that controller (`ingress-nginx`), when it knows it.
    pub controller_name: Option<String>,
    /// Why the controller is not known, or that the default class applies.
    pub controller_note: Option<String>,
    pub catalogue_version: String,
    /// In key order (`kubectl.kubernetes.io/last-applied-configuration` left out).
    pub annotations: Vec<AnnotationExplanation>,
}

/// The IngressClasses of the cluster (name → `spec.controller`) and the default one.
#[derive(Debug, Clone, Default)]
pub struct ClassIndex {
    pub controllers: BTreeMap<String, String>,
    /// The class marked `ingressclass.kubernetes.io/is-default-class: "true"`.
    pub default: Option<String>,
    /// Why the classes are not known (the service account may not list them, ...).
    pub unreadable: Option<String>,
}

/// The controller an Ingress is meant for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResolvedController {
    /// `spec.controller` of its IngressClass.
    pub id: Option<String>,
    /// The catalogue's name of that controller, when it has one.
    pub name: Option<String>,
    /// Why there is none, or how it was found (the default class).
    pub note: Option<String>,
}

impl ClassIndex {
    /// The controller of an Ingress whose class (`spec.ingressClassName`, else the legacy
    /// annotation) is `class`.
    pub fn resolve(&self, class: Option<&str>, catalogue: &Catalogue) -> ResolvedController {
        if let Some(reason) = &self.unreadable {
            return ResolvedController {
                note: Some(format!("The IngressClasses could not be read: {reason}")),
                ..Default::default()
            };
        }
        let (class, note) = match (class, &self.default) {
            (Some(class), _) => (class, None),
            (None, Some(default)) => (
                default.as_str(),
                Some(format!(
                    "No class set: the default IngressClass {default} applies."
                )),
            ),
            (None, None) => {
                return ResolvedController {
                    note: Some(
                        "No class set and no default IngressClass: no controller is bound to \
                         serve it (unless one watches Ingresses without a class)."
                            .to_owned(),
                    ),
                    ..Default::default()
                };
            }
        };
        let Some(id) = self.controllers.get(class) else {
            return ResolvedController {
                note: Some(format!("IngressClass {} does not exist.", bounded(class))),
                ..Default::default()
            };
        };
        ResolvedController {
            name: catalogue
                .controller_by_id(id)
                .map(|controller| controller.name.clone()),
            id: Some(id.clone()),
            note,
        }
    }
}

/// Explains every annotation of one Ingress (in key order).
pub fn explain(
    annotations: &BTreeMap<String, String>,
    controller: &ResolvedController,
    catalogue: &Catalogue,
    redaction: &Redaction,
) -> Vec<AnnotationExplanation> {
    annotations
        .iter()
        .map(|(key, value)| explain_one(key, value, controller, catalogue, redaction))
        .collect()
}

pub fn explain_one(
    key: &str,
    value: &str,
    ingress_controller: &ResolvedController,
    catalogue: &Catalogue,
    redaction: &Redaction,
) -> AnnotationExplanation {
    let hidden = key == LAST_APPLIED || redaction.is_redacted(key) || value == REDACTED;
    let mut explanation = AnnotationExplanation {
        key: key.to_owned(),
        value: if hidden {
            REDACTED.to_owned()
        } else {
            bounded(value)
        },
        controller: None,
        does: None,
        support: None,
        gateway_api: None,
        validity: Validity::NotChecked,
        expected: None,
        source: None,
        warnings: Vec::new(),
    };
    let owner = match catalogue.lookup(key) {
        Lookup::Other => return explanation,
        Lookup::UnknownKey {
            controller,
            suggestion,
        } => {
            explanation.support = Some(Support::Unknown);
            let hint = suggestion
                .map(|name| format!(" Did you mean {}{name}?", controller.prefix))
                .unwrap_or_default();
            explanation.warnings.push(AnnotationWarning {
                code: WarningCode::UnknownKey,
                message: format!(
                    "{} does not know this annotation and ignores it.{hint}",
                    controller.name
                ),
            });
            controller
        }
        Lookup::Known(controller, entry) => {
            explanation.does = Some(entry.does.clone());
            explanation.support = Some(entry.support);
            explanation.gateway_api = Some(entry.gateway_api.clone());
            explanation.source = Some(controller.source_of(entry));
            if entry.snippet {
                explanation.warnings.push(AnnotationWarning {
                    code: WarningCode::Snippet,
                    message: "Raw proxy configuration: whoever may edit this Ingress can change \
                              the proxy for every host and read what it holds (CVE-2021-25742). \
                              Controllers refuse snippets unless an operator allows them, and \
                              the Gateway API has no equivalent."
                        .to_owned(),
                });
            }
            if !hidden {
                match entry.value.check(value) {
                    Checked::Valid => explanation.validity = Validity::Valid,
                    Checked::Unchecked => {}
                    Checked::Invalid(why) => {
                        explanation.validity = Validity::Invalid;
                        explanation.warnings.push(AnnotationWarning {
                            code: WarningCode::InvalidValue,
                            message: format!(
                                "Invalid value: {why}. {} ignores the annotation or refuses \
                                 the Ingress.",
                                controller.name
                            ),
                        });
                    }
                }
                if !matches!(entry.value, super::values::ValueRule::String) {
                    explanation.expected = Some(entry.value.expected());
                }
            }
            controller
        }
    };
    explanation.controller = Some(owner.name.clone());
    if let Some(id) = &ingress_controller.id
        && !owner.ids.contains(id)
    {
        explanation.warnings.push(AnnotationWarning {
            code: WarningCode::OtherController,
            message: format!(
                "This Ingress's class belongs to {}: {} annotations are ignored.",
                ingress_controller.name.as_deref().unwrap_or(id),
                owner.name
            ),
        });
    }
    explanation
}

/// `text` cut at [`MAX_VALUE_CHARS`] characters (then ending with `…`).
pub fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_VALUE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::catalogue::catalogue;
    use super::*;

    fn nginx_class() -> ClassIndex {
        ClassIndex {
            controllers: BTreeMap::from([
                ("nginx".to_owned(), "k8s.io/ingress-nginx".to_owned()),
                (
                    "traefik".to_owned(),
                    "traefik.io/ingress-controller".to_owned(),
                ),
                ("gce".to_owned(), "k8s.io/ingress-gce".to_owned()),
            ]),
            default: Some("nginx".to_owned()),
            unreadable: None,
        }
    }

    fn one(key: &str, value: &str, class: Option<&str>) -> AnnotationExplanation {
        let controller = nginx_class().resolve(class, catalogue());
        explain_one(
            key,
            value,
            &controller,
            catalogue(),
            &Redaction::configured(true, &[]).unwrap(),
        )
    }

    #[test]
    fn a_valid_annotation_of_the_class_s_controller_is_explained_without_warnings() {
        let explained = one(
            "nginx.ingress.kubernetes.io/proxy-body-size",
            "8m",
            Some("nginx"),
        );
        assert_eq!(explained.controller.as_deref(), Some("ingress-nginx"));
        assert_eq!(explained.support, Some(Support::ImplementationSpecific));
        assert_eq!(explained.validity, Validity::Valid);
        assert!(explained.warnings.is_empty(), "{:?}", explained.warnings);
        assert!(
            explained
                .source
                .unwrap()
                .starts_with("https://kubernetes.github.io/ingress-nginx/")
        );
        assert!(explained.expected.unwrap().contains("8m"));
    }

    #[test]
    fn an_invalid_value_is_said_with_the_expected_form() {
        let explained = one(
            "nginx.ingress.kubernetes.io/ssl-redirect",
            "yes",
            Some("nginx"),
        );
        assert_eq!(explained.validity, Validity::Invalid);
        assert_eq!(explained.warnings[0].code, WarningCode::InvalidValue);
        assert!(
            explained.warnings[0]
                .message
                .contains("\"true\" or \"false\"")
        );
    }

    #[test]
    fn snippets_are_dangerous_and_their_values_stay_hidden() {
        let explained = one(
            "nginx.ingress.kubernetes.io/configuration-snippet",
            "proxy_set_header Authorization secret;",
            Some("nginx"),
        );
        assert_eq!(explained.value, REDACTED);
        assert_eq!(explained.validity, Validity::NotChecked);
        assert_eq!(explained.support, Some(Support::NoEquivalent));
        assert_eq!(explained.warnings[0].code, WarningCode::Snippet);
    }

    #[test]
    fn an_unknown_key_under_a_known_prefix_is_a_likely_typo() {
        let explained = one(
            "nginx.ingress.kubernetes.io/proxy-body-sise",
            "8m",
            Some("nginx"),
        );
        assert_eq!(explained.support, Some(Support::Unknown));
        assert_eq!(explained.warnings[0].code, WarningCode::UnknownKey);
        assert!(
            explained.warnings[0]
                .message
                .contains("Did you mean nginx.ingress.kubernetes.io/proxy-body-size?")
        );
    }

    #[test]
    fn annotations_of_another_controller_than_the_class_s_are_ignored() {
        let explained = one(
            "nginx.ingress.kubernetes.io/rewrite-target",
            "/",
            Some("traefik"),
        );
        let codes: Vec<_> = explained.warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, [WarningCode::OtherController]);
        assert!(explained.warnings[0].message.contains("belongs to traefik"));
        // A controller the catalogue does not know is named by its id.
        let explained = one(
            "nginx.ingress.kubernetes.io/rewrite-target",
            "/",
            Some("gce"),
        );
        assert!(explained.warnings[0].message.contains("k8s.io/ingress-gce"));
        // Without a class, the default class's controller applies.
        let explained = one("traefik.ingress.kubernetes.io/router.tls", "true", None);
        assert_eq!(explained.warnings[0].code, WarningCode::OtherController);
    }

    #[test]
    fn other_annotations_are_listed_without_a_verdict() {
        let explained = one(
            "cert-manager.io/cluster-issuer",
            "letsencrypt",
            Some("nginx"),
        );
        assert_eq!(explained.support, None);
        assert_eq!(explained.controller, None);
        assert!(explained.warnings.is_empty());
        assert_eq!(explained.value, "letsencrypt");
    }

    #[test]
    fn huge_values_are_cut_and_checked_whole() {
        let huge = "9".repeat(100_000);
        let explained = one(
            "nginx.ingress.kubernetes.io/limit-rps",
            &huge,
            Some("nginx"),
        );
        assert_eq!(explained.value.chars().count(), MAX_VALUE_CHARS + 1);
        assert!(explained.value.ends_with('…'));
        assert_eq!(explained.validity, Validity::Invalid);
        assert_eq!(bounded("ééé"), "ééé");
    }

    #[test]
    fn the_class_is_resolved_or_the_reason_said() {
        let catalogue = catalogue();
        let index = nginx_class();
        let nginx = index.resolve(Some("nginx"), catalogue);
        assert_eq!(nginx.name.as_deref(), Some("ingress-nginx"));
        assert_eq!(nginx.note, None);
        assert!(
            index
                .resolve(None, catalogue)
                .note
                .unwrap()
                .contains("default IngressClass nginx")
        );
        let missing = index.resolve(Some("nope"), catalogue);
        assert_eq!(missing.id, None);
        assert!(missing.note.unwrap().contains("nope does not exist"));
        let unreadable = ClassIndex {
            unreadable: Some("forbidden".to_owned()),
            ..index
        };
        assert!(
            unreadable
                .resolve(Some("nginx"), catalogue)
                .note
                .unwrap()
                .contains("forbidden")
        );
        assert!(
            ClassIndex::default()
                .resolve(None, catalogue)
                .note
                .unwrap()
                .contains("no default")
        );
    }
}
