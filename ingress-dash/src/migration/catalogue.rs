//! The catalogue of controller annotations (`ingress-dash/data/annotations/*.json`, embedded at
//! build time and parsed once): per controller its IngressClass controller ids, its annotation
//! prefix and, per annotation, what it does, which value forms are valid, where it goes in the
//! Gateway API and the documentation it was written from. The files carry a `version`; the
//! catalogue's version is theirs joined.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::values::ValueRule;

/// The embedded files, one per controller.
const FILES: &[(&str, &str)] = &[
    (
        "ingress-nginx.json",
        include_str!("../../data/annotations/ingress-nginx.json"),
    ),
    (
        "traefik.json",
        include_str!("../../data/annotations/traefik.json"),
    ),
    (
        "haproxy.json",
        include_str!("../../data/annotations/haproxy.json"),
    ),
    (
        "nginx-inc.json",
        include_str!("../../data/annotations/nginx-inc.json"),
    ),
];

/// Where an annotation stands for a move to the Gateway API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Support {
    /// A Gateway API field says the same (a filter, a match, a weight, a policy of the spec).
    GatewayApi,
    /// Needs a policy of the chosen Gateway implementation (timeouts, body size, rate limits...).
    ImplementationSpecific,
    /// Nothing says it (raw configuration snippets, removed features).
    NoEquivalent,
    /// A key under a controller's prefix that the catalogue does not know (often a typo).
    Unknown,
}

/// One annotation of a controller, as the data file describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The key without the controller's prefix.
    pub name: String,
    pub does: String,
    pub value: ValueRule,
    pub support: Support,
    #[serde(rename = "gatewayApi")]
    pub gateway_api: String,
    /// Raw proxy configuration: dangerous whatever its value.
    #[serde(default)]
    pub snippet: bool,
    /// An anchor of the controller's annotation page (`#rewrite`) or a whole URL.
    source: String,
}

/// One controller's file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    schema: u32,
    version: String,
    controller: String,
    #[serde(rename = "controllerIds")]
    controller_ids: Vec<String>,
    prefix: String,
    sources: BTreeMap<String, String>,
    annotations: Vec<Entry>,
}

/// One controller's annotations.
#[derive(Debug)]
pub struct Controller {
    /// A short name (`ingress-nginx`).
    pub name: String,
    /// `spec.controller` values of its IngressClasses (`k8s.io/ingress-nginx`).
    pub ids: Vec<String>,
    /// `nginx.ingress.kubernetes.io/`.
    pub prefix: String,
    /// The annotation page the entries' anchors belong to.
    annotations_page: String,
    entries: BTreeMap<String, Entry>,
}

impl Controller {
    /// The documentation of `entry`: its anchor on the controller's annotation page.
    pub fn source_of(&self, entry: &Entry) -> String {
        if entry.source.starts_with("https://") {
            entry.source.clone()
        } else {
            format!("{}{}", self.annotations_page, entry.source)
        }
    }

    #[cfg(test)]
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }
}

/// What the catalogue says about one annotation key.
#[derive(Debug)]
pub enum Lookup<'a> {
    Known(&'a Controller, &'a Entry),
    /// Under a controller's prefix, not in its file: `suggestion` is the closest known name
    /// when it is near enough to be a typo.
    UnknownKey {
        controller: &'a Controller,
        suggestion: Option<&'a str>,
    },
    /// No controller's annotation (cert-manager's, in-house ones, ...).
    Other,
}

/// Every controller's annotations.
#[derive(Debug)]
pub struct Catalogue {
    pub version: String,
    pub controllers: Vec<Controller>,
}

static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(|| {
    Catalogue::parse(FILES).unwrap_or_else(|error| panic!("the embedded catalogue: {error}"))
});

/// The embedded catalogue (its files are checked by the tests below, so parsing cannot fail in
/// a build whose tests pass).
pub fn catalogue() -> &'static Catalogue {
    &CATALOGUE
}

impl Catalogue {
    fn parse(files: &[(&str, &str)]) -> Result<Self, String> {
        let mut controllers = Vec::new();
        let mut versions = Vec::new();
        for (name, text) in files {
            let file: File =
                serde_json::from_str(text).map_err(|error| format!("{name}: {error}"))?;
            if file.schema != 1 {
                return Err(format!("{name}: schema {} is not 1", file.schema));
            }
            let Some(page) = file.sources.get("annotations") else {
                return Err(format!("{name}: sources.annotations is missing"));
            };
            let mut entries = BTreeMap::new();
            for entry in file.annotations {
                let key = entry.name.clone();
                if entries.insert(key.clone(), entry).is_some() {
                    return Err(format!("{name}: {key} twice"));
                }
            }
            versions.push(format!("{}@{}", file.controller, file.version));
            controllers.push(Controller {
                name: file.controller,
                ids: file.controller_ids,
                prefix: file.prefix,
                annotations_page: page.clone(),
                entries,
            });
        }
        Ok(Self {
            version: versions.join(","),
            controllers,
        })
    }

    /// The controller whose IngressClasses name `controller_id` (`spec.controller`).
    pub fn controller_by_id(&self, controller_id: &str) -> Option<&Controller> {
        self.controllers
            .iter()
            .find(|controller| controller.ids.iter().any(|id| id == controller_id))
    }

    pub fn lookup(&self, key: &str) -> Lookup<'_> {
        for controller in &self.controllers {
            // Prefixes are matched as written: API servers keep keys' case.
            let Some(name) = key.strip_prefix(controller.prefix.as_str()) else {
                continue;
            };
            return match controller.entries.get(name) {
                Some(entry) => Lookup::Known(controller, entry),
                None => Lookup::UnknownKey {
                    controller,
                    suggestion: closest(name, controller.entries.keys().map(String::as_str)),
                },
            };
        }
        Lookup::Other
    }
}

/// The known name within two edits of `name` (the nearest; none for long names: a key is at
/// most 63 characters after its prefix, and longer ones are no typo of ours).
fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower: Vec<char> = name.chars().map(|c| c.to_ascii_lowercase()).collect();
    if lower.len() > LONGEST {
        return None;
    }
    known
        // Two edits change the length by two at most: most names are ruled out by it alone.
        .filter(|candidate| candidate.len().abs_diff(lower.len()) <= 2)
        .filter_map(|candidate| Some((within_two_edits(&lower, candidate)?, candidate)))
        .min()
        .map(|(_, candidate)| candidate)
}

/// The longest name compared.
const LONGEST: usize = 80;

/// The Levenshtein distance between `a` and `b` when it is at most 2 (rows on the stack, given
/// up as soon as a whole row exceeds 2).
fn within_two_edits(a: &[char], b: &str) -> Option<usize> {
    let b: Vec<char> = b.chars().take(LONGEST + 1).collect();
    if b.len() > LONGEST {
        return None;
    }
    let mut previous = [0usize; LONGEST + 1];
    let mut current = [0usize; LONGEST + 1];
    for (j, cell) in previous.iter_mut().enumerate().take(b.len() + 1) {
        *cell = j;
    }
    for (i, left) in a.iter().enumerate() {
        current[0] = i + 1;
        let mut row_min = current[0];
        for (j, right) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(left != right);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
            row_min = row_min.min(current[j + 1]);
        }
        if row_min > 2 {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    Some(previous[b.len()]).filter(|distance| *distance <= 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_files_parse_with_sources_and_versions() {
        let catalogue = catalogue();
        assert_eq!(catalogue.controllers.len(), FILES.len());
        assert!(
            catalogue.version.contains("ingress-nginx@"),
            "{}",
            catalogue.version
        );
        let nginx = catalogue.controller_by_id("k8s.io/ingress-nginx").unwrap();
        assert!(
            nginx.entries().count() >= 40,
            "the most used ingress-nginx annotations"
        );
        for controller in &catalogue.controllers {
            assert!(controller.prefix.ends_with('/'), "{}", controller.name);
            for entry in controller.entries() {
                let source = controller.source_of(entry);
                assert!(source.starts_with("https://"), "{}: {source}", entry.name);
                assert!(!entry.does.is_empty() && !entry.gateway_api.is_empty());
                assert_eq!(
                    entry.snippet,
                    entry.name.contains("snippet"),
                    "{}: every snippet is marked, nothing else",
                    entry.name
                );
            }
        }
    }

    #[test]
    fn the_issue_s_examples_are_classified_as_it_says() {
        let catalogue = catalogue();
        let support = |key: &str| match catalogue.lookup(key) {
            Lookup::Known(_, entry) => (entry.support, entry.gateway_api.clone()),
            other => panic!("{key}: {other:?}"),
        };
        let (rewrite, field) = support("nginx.ingress.kubernetes.io/rewrite-target");
        assert_eq!(rewrite, Support::GatewayApi);
        assert!(field.contains("URLRewrite"), "{field}");
        let (redirect, field) = support("nginx.ingress.kubernetes.io/ssl-redirect");
        assert_eq!(redirect, Support::GatewayApi);
        assert!(field.contains("RequestRedirect") && field.contains("https"));
        let (canary, field) = support("nginx.ingress.kubernetes.io/canary-weight");
        assert_eq!(canary, Support::GatewayApi);
        assert!(field.contains("backendRefs[].weight"));
        assert_eq!(
            support("nginx.ingress.kubernetes.io/proxy-body-size").0,
            Support::ImplementationSpecific
        );
        for snippet in ["configuration-snippet", "server-snippet"] {
            let key = format!("nginx.ingress.kubernetes.io/{snippet}");
            assert_eq!(support(&key).0, Support::NoEquivalent);
        }
    }

    #[test]
    fn a_key_near_a_known_one_is_a_likely_typo() {
        let catalogue = catalogue();
        let Lookup::UnknownKey {
            controller,
            suggestion,
        } = catalogue.lookup("nginx.ingress.kubernetes.io/rewrite-targt")
        else {
            panic!()
        };
        assert_eq!(controller.name, "ingress-nginx");
        assert_eq!(suggestion, Some("rewrite-target"));
        let Lookup::UnknownKey { suggestion, .. } =
            catalogue.lookup("nginx.ingress.kubernetes.io/something-else-entirely")
        else {
            panic!()
        };
        assert_eq!(suggestion, None);
        assert_eq!(within_two_edits(&['a', 'b', 'c'], "abd"), Some(1));
        assert_eq!(within_two_edits(&['a', 'b', 'c'], "xyz"), None);
        assert_eq!(within_two_edits(&[], "ab"), Some(2));
        let long = format!("nginx.ingress.kubernetes.io/{}", "x".repeat(10_000));
        assert!(matches!(
            catalogue.lookup(&long),
            Lookup::UnknownKey {
                suggestion: None,
                ..
            }
        ));
        assert!(matches!(
            catalogue.lookup("cert-manager.io/cluster-issuer"),
            Lookup::Other
        ));
        assert!(matches!(
            catalogue.lookup("traefik.ingress.kubernetes.io/router.tls"),
            Lookup::Known(controller, _) if controller.name == "traefik"
        ));
        assert!(matches!(
            catalogue.lookup("nginx.org/client-max-body-size"),
            Lookup::Known(controller, _) if controller.name == "f5-nginx-ingress"
        ));
    }

    #[test]
    fn a_broken_file_is_refused_with_its_name() {
        let twice = r##"{"schema":1,"version":"1","controller":"x","controllerIds":[],"prefix":"x/","sources":{"annotations":"https://x"},"annotations":[
            {"name":"a","does":"d","value":{"type":"bool"},"support":"gateway_api","gatewayApi":"g","source":"#a"},
            {"name":"a","does":"d","value":{"type":"bool"},"support":"gateway_api","gatewayApi":"g","source":"#a"}]}"##;
        let error = Catalogue::parse(&[("x.json", twice)]).unwrap_err();
        assert!(
            error.contains("x.json") && error.contains("a twice"),
            "{error}"
        );
        let error = Catalogue::parse(&[("y.json", "{}")]).unwrap_err();
        assert!(error.starts_with("y.json"), "{error}");
    }
}
