//! Label and field selectors (`labelSelector`, `fieldSelector`) of lists and watches, with the
//! grammar and the field labels the API server supports for each kind
//! (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/ and
//! .../field-selectors/). A selector the server cannot parse, or a field label the kind does not
//! support, answers 400 as the API server does.

use serde_json::Value;

use crate::kind::Kind;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Operator {
    Equals(String),
    NotEquals(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    operator: Operator,
}

impl Requirement {
    fn matches(&self, value: Option<&str>) -> bool {
        match (&self.operator, value) {
            (Operator::Equals(expected), Some(value)) => value == expected,
            (Operator::Equals(_), None) => false,
            (Operator::NotEquals(expected), value) => value != Some(expected.as_str()),
            (Operator::In(values), Some(value)) => values.iter().any(|v| v == value),
            (Operator::In(_), None) => false,
            (Operator::NotIn(values), value) => {
                value.is_none_or(|v| !values.iter().any(|x| x == v))
            }
            (Operator::Exists, value) => value.is_some(),
            (Operator::DoesNotExist, value) => value.is_none(),
        }
    }
}

/// The selectors of one request: every requirement must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    labels: Vec<Requirement>,
    fields: Vec<Requirement>,
}

impl Selector {
    /// Parses `labelSelector` and `fieldSelector` for `kind`; the error is the message of a 400.
    pub fn parse(
        kind: Kind,
        labels: Option<&str>,
        fields: Option<&str>,
    ) -> Result<Selector, String> {
        let labels = match labels {
            Some(text) => parse_labels(text)?,
            None => Vec::new(),
        };
        let fields = match fields {
            Some(text) => parse_fields(kind, text)?,
            None => Vec::new(),
        };
        Ok(Selector { labels, fields })
    }

    pub fn is_everything(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    /// Whether `object` (as stored, without type meta) is selected.
    pub fn matches(&self, kind: Kind, object: &Value) -> bool {
        let labels = &object["metadata"]["labels"];
        self.labels
            .iter()
            .all(|requirement| requirement.matches(labels[&requirement.key].as_str()))
            && self.fields.iter().all(|requirement| {
                let value = field_value(kind, object, &requirement.key);
                requirement.matches(Some(value.as_str()))
            })
    }
}

/// The field labels each kind supports, beyond `metadata.name` and `metadata.namespace`.
fn extra_field_labels(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Event => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        Kind::Secret => &["type"],
        Kind::Namespace => &["status.phase"],
        Kind::Service => &["spec.clusterIP", "spec.type"],
        _ => &[],
    }
}

/// A field's value as the API server's field-set functions give it (absent fields are `""`).
fn field_value(kind: Kind, object: &Value, label: &str) -> String {
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    match label {
        "metadata.name" => text(&object["metadata"]["name"]),
        "metadata.namespace" => text(&object["metadata"]["namespace"]),
        // An event's source is its reporting component, or the deprecated source.component.
        "source" if kind == Kind::Event => {
            let reporting = text(&object["reportingComponent"]);
            if reporting.is_empty() {
                text(&object["source"]["component"])
            } else {
                reporting
            }
        }
        path => {
            let mut value = object;
            for segment in path.split('.') {
                value = &value[segment];
            }
            text(value)
        }
    }
}

fn parse_fields(kind: Kind, text: &str) -> Result<Vec<Requirement>, String> {
    let mut requirements = Vec::new();
    for term in split_unescaped(text, ',') {
        if term.is_empty() {
            continue;
        }
        let (key, operator, value) = if let Some((key, value)) = split_once_unescaped(&term, "!=") {
            (key, "!=", value)
        } else if let Some((key, value)) = split_once_unescaped(&term, "==") {
            (key, "==", value)
        } else if let Some((key, value)) = split_once_unescaped(&term, "=") {
            (key, "=", value)
        } else {
            return Err(format!(
                "invalid selector: '{text}'; can't understand '{term}'"
            ));
        };
        let key = key.trim().to_owned();
        let value = unescape(&value);
        if key != "metadata.name"
            && key != "metadata.namespace"
            && !extra_field_labels(kind).contains(&key.as_str())
        {
            return Err(match kind.crd() {
                Some(_) => format!(
                    "\"{key}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
                ),
                None => format!("field label not supported: {key}"),
            });
        }
        let operator = if operator == "!=" {
            Operator::NotEquals(value)
        } else {
            Operator::Equals(value)
        };
        requirements.push(Requirement { key, operator });
    }
    Ok(requirements)
}

/// Splits at `separator` where it is not escaped with a backslash (escapes kept).
fn split_unescaped(text: &str, separator: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            parts.last_mut().expect("never empty").push(c);
            escaped = false;
        } else if c == '\\' {
            parts.last_mut().expect("never empty").push(c);
            escaped = true;
        } else if c == separator {
            parts.push(String::new());
        } else {
            parts.last_mut().expect("never empty").push(c);
        }
    }
    parts
}

fn split_once_unescaped(term: &str, operator: &str) -> Option<(String, String)> {
    let mut index = 0;
    while index < term.len() {
        if term[index..].starts_with('\\') {
            index += 2;
            continue;
        }
        if term[index..].starts_with(operator) {
            return Some((
                term[..index].to_owned(),
                term[index + operator.len()..].to_owned(),
            ));
        }
        index += term[index..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

fn unescape(value: &str) -> String {
    let mut out = String::new();
    let mut escaped = false;
    for c in value.chars() {
        if escaped || c != '\\' {
            out.push(c);
            escaped = false;
        } else {
            escaped = true;
        }
    }
    out
}

fn parse_labels(text: &str) -> Result<Vec<Requirement>, String> {
    let invalid = |why: &str| format!("unable to parse requirement: {why} in \"{text}\"");
    let mut requirements = Vec::new();
    // Split at commas outside parentheses.
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (index, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| invalid("unbalanced ')'"))?
            }
            ',' if depth == 0 => {
                terms.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(invalid("unbalanced '('"));
    }
    terms.push(&text[start..]);
    for term in terms.into_iter().map(str::trim) {
        if term.is_empty() {
            if text.trim().is_empty() {
                continue;
            }
            return Err(invalid("empty requirement"));
        }
        let requirement = if let Some(key) = term.strip_prefix('!') {
            Requirement {
                key: label_key(key.trim(), &invalid)?,
                operator: Operator::DoesNotExist,
            }
        } else if let Some((key, value)) = term.split_once("!=") {
            Requirement {
                key: label_key(key.trim(), &invalid)?,
                operator: Operator::NotEquals(label_value(value.trim(), &invalid)?),
            }
        } else if let Some((key, value)) = term.split_once("==").or_else(|| term.split_once('=')) {
            Requirement {
                key: label_key(key.trim(), &invalid)?,
                operator: Operator::Equals(label_value(value.trim(), &invalid)?),
            }
        } else if let Some((key, rest)) = term.split_once(char::is_whitespace) {
            let rest = rest.trim();
            let (negated, set) = if let Some(set) = rest.strip_prefix("notin") {
                (true, set)
            } else if let Some(set) = rest.strip_prefix("in") {
                (false, set)
            } else {
                return Err(invalid("expected one of 'in', 'notin', '=', '==', '!='"));
            };
            let set = set
                .trim()
                .strip_prefix('(')
                .and_then(|set| set.strip_suffix(')'))
                .ok_or_else(|| invalid("expected a set in parentheses"))?;
            let values = set
                .split(',')
                .map(|value| label_value(value.trim(), &invalid))
                .collect::<Result<Vec<_>, _>>()?;
            Requirement {
                key: label_key(key.trim(), &invalid)?,
                operator: if negated {
                    Operator::NotIn(values)
                } else {
                    Operator::In(values)
                },
            }
        } else {
            Requirement {
                key: label_key(term, &invalid)?,
                operator: Operator::Exists,
            }
        };
        requirements.push(requirement);
    }
    Ok(requirements)
}

fn label_key(key: &str, invalid: &dyn Fn(&str) -> String) -> Result<String, String> {
    let (prefix, name) = key.rsplit_once('/').unwrap_or(("", key));
    let name_ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    let prefix_ok = key.rsplit_once('/').is_none()
        || (!prefix.is_empty()
            && prefix.len() <= 253
            && prefix
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-.".contains(c)));
    if name_ok && prefix_ok {
        Ok(key.to_owned())
    } else {
        Err(invalid(&format!("invalid label key \"{key}\"")))
    }
}

fn label_value(value: &str, invalid: &dyn Fn(&str) -> String) -> Result<String, String> {
    let ok = value.is_empty()
        || (value.len() <= 63
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()));
    if ok {
        Ok(value.to_owned())
    } else {
        Err(invalid(&format!("invalid label value \"{value}\"")))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn selected(kind: Kind, labels: Option<&str>, fields: Option<&str>, object: &Value) -> bool {
        Selector::parse(kind, labels, fields)
            .unwrap()
            .matches(kind, object)
    }

    #[test]
    fn label_selectors_follow_the_set_based_grammar() {
        let object = json!({"metadata": {"name": "a", "labels": {"app": "web", "tier": "front"}}});
        let kind = Kind::Service;
        assert!(selected(kind, Some("app=web"), None, &object));
        assert!(selected(kind, Some("app==web,tier"), None, &object));
        assert!(!selected(kind, Some("app!=web"), None, &object));
        assert!(selected(
            kind,
            Some("app in (api, web),!canary"),
            None,
            &object
        ));
        assert!(!selected(kind, Some("tier notin (front)"), None, &object));
        assert!(selected(kind, Some("missing notin (x)"), None, &object));
        assert!(!selected(kind, Some("missing"), None, &object));
        assert!(Selector::parse(kind, Some("app in (web"), None).is_err());
        assert!(Selector::parse(kind, Some("a b c"), None).is_err());
        assert!(Selector::parse(kind, Some("app=we b"), None).is_err());
    }

    #[test]
    fn event_field_selectors_match_the_involved_object() {
        let event = json!({
            "metadata": {"name": "web.1", "namespace": "team-a"},
            "involvedObject": {"kind": "Ingress", "name": "web", "namespace": "team-a"},
            "type": "Warning", "reason": "Sync", "source": {"component": "nginx"},
        });
        let kind = Kind::Event;
        let fields = "involvedObject.name=web,involvedObject.kind=Ingress,type=Warning";
        assert!(selected(kind, None, Some(fields), &event));
        assert!(!selected(kind, None, Some("type=Normal"), &event));
        assert!(selected(
            kind,
            None,
            Some("type!=Normal,source=nginx"),
            &event
        ));
        assert!(selected(
            kind,
            None,
            Some("metadata.namespace==team-a"),
            &event
        ));
        assert_eq!(
            Selector::parse(Kind::Ingress, None, Some("type=Warning")).unwrap_err(),
            "field label not supported: type"
        );
        assert!(
            Selector::parse(Kind::HttpRoute, None, Some("spec.x=y"))
                .unwrap_err()
                .contains("is not a known field selector")
        );
        assert!(Selector::parse(kind, None, Some("nonsense")).is_err());
    }
}
