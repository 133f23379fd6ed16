//! The live object as YAML: `metadata.managedFields` removed and redacted as everything served
//! is ([`Redaction::apply_to_object`]: annotation values with the records' rules,
//! `kubectl.kubernetes.io/last-applied-configuration` always, credential-named header and query
//! values in the spec, such as an HTTPRoute's header filters). Emitted with yaml-rust2
//! (the YAML crate already in the build); multi-line strings as literal blocks when that is
//! exact, else the whole document uses quoted strings.

use serde_json::Value;
use yaml_rust2::yaml::Hash;
use yaml_rust2::{Yaml, YamlEmitter};

use crate::access::redaction::Redaction;

/// `object` (a GET answer) as YAML text, ending with a newline.
pub fn render(mut object: Value, redaction: &Redaction) -> String {
    sanitise(&mut object, redaction);
    let literal_blocks = all_multiline_strings_fit_literal_blocks(&object);
    let document = to_yaml(object);
    let mut text = String::new();
    let mut emitter = YamlEmitter::new(&mut text);
    emitter.multiline_strings(literal_blocks);
    if emitter.dump(&document).is_err() {
        // Writing into a String does not fail; an empty answer rather than a panic if it did.
        return String::new();
    }
    let mut text = text
        .strip_prefix("---\n")
        .map(str::to_owned)
        .unwrap_or(text);
    text.push('\n');
    text
}

fn sanitise(object: &mut Value, redaction: &Redaction) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    redaction.apply_to_object(object);
}

/// A literal block (`|`) keeps a string exactly only when YAML can find its indentation (the
/// first line with text does not start with a blank) and its end (at most one final newline).
fn fits_literal_block(text: &str) -> bool {
    let first_text_line = text.lines().find(|line| !line.is_empty());
    first_text_line.is_some_and(|line| !line.starts_with([' ', '\t']))
        && !text.ends_with("\n\n")
        && !text.starts_with('\n')
}

fn all_multiline_strings_fit_literal_blocks(value: &Value) -> bool {
    match value {
        Value::String(text) => !text.contains('\n') || fits_literal_block(text),
        Value::Array(items) => items.iter().all(all_multiline_strings_fit_literal_blocks),
        Value::Object(map) => map.iter().all(|(key, value)| {
            !key.contains('\n') && all_multiline_strings_fit_literal_blocks(value)
        }),
        _ => true,
    }
}

fn to_yaml(value: Value) -> Yaml {
    match value {
        Value::Null => Yaml::Null,
        Value::Bool(flag) => Yaml::Boolean(flag),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => Yaml::Integer(integer),
            None => Yaml::Real(number.to_string()),
        },
        Value::String(text) => Yaml::String(text),
        Value::Array(items) => Yaml::Array(items.into_iter().map(to_yaml).collect()),
        Value::Object(map) => {
            let mut hash = Hash::new();
            for (key, value) in map {
                hash.insert(Yaml::String(key), to_yaml(value));
            }
            Yaml::Hash(hash)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use yaml_rust2::YamlLoader;

    use super::*;
    use crate::access::redaction::{LAST_APPLIED, REDACTED};

    fn from_yaml(yaml: &Yaml) -> Value {
        match yaml {
            Yaml::Null => Value::Null,
            Yaml::Boolean(flag) => json!(flag),
            Yaml::Integer(integer) => json!(integer),
            Yaml::Real(text) => json!(text.parse::<f64>().unwrap()),
            Yaml::String(text) => json!(text),
            Yaml::Array(items) => Value::Array(items.iter().map(from_yaml).collect()),
            Yaml::Hash(hash) => Value::Object(
                hash.iter()
                    .map(|(k, v)| (k.as_str().unwrap().to_owned(), from_yaml(v)))
                    .collect(),
            ),
            other => panic!("unexpected {other:?}"),
        }
    }

    fn round_trip(object: Value) -> (String, Value) {
        let text = render(object, &Redaction::configured(true, &[]).unwrap());
        let documents = YamlLoader::load_from_str(&text).expect("valid YAML");
        (text.clone(), from_yaml(&documents[0]))
    }

    #[test]
    fn managed_fields_go_and_credentials_are_redacted_everywhere() {
        let applied = json!({"metadata": {"annotations": {
            "nginx.ingress.kubernetes.io/configuration-snippet": "proxy_set_header Authorization \"Basic c2VjcmV0\";"}}})
        .to_string();
        let (text, parsed) = round_trip(json!({
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {
                "name": "web",
                "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
                "annotations": {
                    "nginx.ingress.kubernetes.io/configuration-snippet": "proxy_set_header Authorization \"Basic c2VjcmV0\";\nmore_set_headers \"X: y\";\n",
                    LAST_APPLIED: applied,
                    "nginx.ingress.kubernetes.io/rewrite-target": "/",
                },
            },
            "spec": {"rules": [{"host": "a.example.com"}]},
        }));
        assert!(!text.contains("managedFields"), "{text}");
        assert!(!text.contains("c2VjcmV0"), "{text}");
        let annotations = &parsed["metadata"]["annotations"];
        assert_eq!(
            annotations["nginx.ingress.kubernetes.io/configuration-snippet"],
            REDACTED
        );
        assert_eq!(annotations[LAST_APPLIED], REDACTED);
        assert_eq!(
            annotations["nginx.ingress.kubernetes.io/rewrite-target"],
            "/"
        );
        assert!(
            text.starts_with("apiVersion: networking.k8s.io/v1\n"),
            "{text}"
        );
    }

    #[test]
    fn last_applied_is_redacted_without_the_default_patterns() {
        let text = render(
            json!({"metadata": {"annotations": {LAST_APPLIED: "{\"token\":\"abc\"}"}}}),
            &Redaction::configured(false, &[]).unwrap(),
        );
        assert!(!text.contains("abc"), "{text}");
    }

    #[test]
    fn every_value_survives_the_round_trip() {
        let object = json!({
            "metadata": {"name": "web", "labels": {"app": "true", "n": "0x1f", "y": "yes", "e": ""}},
            "spec": {
                "numbers": [1, -2, 3.5, 1e300],
                "flags": [true, false, null],
                "text": ["- dash", "a: b", "#hash", " lead", "trail ", "'q'", "\"dq\"", "tab\there", "ünï", "2024-01-01"],
                "block": "line one\n  indented\nlast\n",
                "empty": {}, "none": [],
            },
        });
        let (text, parsed) = round_trip(object.clone());
        assert_eq!(parsed, object, "{text}");
        assert!(text.contains("block: |\n"), "{text}");
        // A string a literal block would change makes every string quoted instead.
        for awkward in [
            "  starts with blanks\nx",
            "two final newlines\n\n",
            "\nleading",
        ] {
            let object = json!({"a": awkward, "b": "x\ny"});
            let (text, parsed) = round_trip(object.clone());
            assert_eq!(parsed, object, "{text}");
        }
    }
}
