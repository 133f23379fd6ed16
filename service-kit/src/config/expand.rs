//! Strict `${NAME}` / `${NAME:-default}` substitution in configuration values.
//!
//! Substitution runs on the parsed YAML tree, value by value, not on the raw text: a secret that
//! contains `#`, `: ` or a quote cannot change the document's structure, and a problem names the
//! key it belongs to. `$${` writes a literal `${`.

use config::{Value, ValueKind};

use super::problems::ConfigProblems;

/// Where variable values come from; tests pass a map, the binaries the process environment.
pub trait VariableSource {
    fn get(&self, name: &str) -> Option<String>;
}

/// The process environment.
pub struct ProcessEnv;

impl VariableSource for ProcessEnv {
    fn get(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl<F: Fn(&str) -> Option<String>> VariableSource for F {
    fn get(&self, name: &str) -> Option<String> {
        self(name)
    }
}

/// Expands every string in `value`; `key` is the dotted path of `value`, used in problems.
/// Returns false when `value` could not be expanded: the caller drops it, so it is reported
/// once (here) and not again as a wrong type later.
pub(crate) fn expand_value(
    value: &mut Value,
    key: &str,
    vars: &dyn VariableSource,
    problems: &mut ConfigProblems,
) -> bool {
    match &mut value.kind {
        ValueKind::String(text) if text.contains('$') => match expand_str(text, vars) {
            Ok(expanded) => *text = expanded,
            Err(message) => {
                problems.push(key, message);
                return false;
            }
        },
        ValueKind::Table(table) => {
            // Sorted so problems come out in a stable order.
            let mut keys: Vec<String> = table.keys().cloned().collect();
            keys.sort();
            for child_key in keys {
                let child_path = join_key(key, &child_key);
                let keep = table
                    .get_mut(&child_key)
                    .is_none_or(|child| expand_value(child, &child_path, vars, problems));
                if !keep {
                    table.remove(&child_key);
                }
            }
        }
        ValueKind::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                if !expand_value(item, &format!("{key}[{index}]"), vars, problems) {
                    *item = Value::new(None, ValueKind::Nil);
                }
            }
        }
        _ => {}
    }
    true
}

pub(crate) fn join_key(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}.{child}")
    }
}

/// Expands one string. The error is a message without the string itself, which may hold secrets.
pub fn expand_str(text: &str, vars: &dyn VariableSource) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(escaped) = after.strip_prefix("${") {
            out.push_str("${");
            rest = escaped;
        } else if let Some(body) = after.strip_prefix('{') {
            let close = body
                .find('}')
                .ok_or_else(|| "has a `${` without its closing `}`".to_owned())?;
            out.push_str(&resolve(&body[..close], vars)?);
            rest = &body[close + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn resolve(reference: &str, vars: &dyn VariableSource) -> Result<String, String> {
    let (name, default) = match reference.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (reference, None),
    };
    if !is_variable_name(name) {
        return Err(format!(
            "`${{{name}}}` is not a valid variable reference (use ${{NAME}} or ${{NAME:-default}})"
        ));
    }
    match (vars.get(name), default) {
        // Shell semantics: `:-` also replaces a variable that is set but empty.
        (Some(value), Some(default)) if value.is_empty() => Ok(default.to_owned()),
        (Some(value), _) => Ok(value),
        (None, Some(default)) => Ok(default.to_owned()),
        (None, None) => Err(format!(
            "environment variable {name} is not set (write ${{{name}:-default}} to allow a default)"
        )),
    }
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<String> {
        match name {
            "HOST" => Some("db.internal".into()),
            "EMPTY" => Some(String::new()),
            "SECRET" => Some("a#b: c\"d".into()),
            _ => None,
        }
    }

    #[test]
    fn substitutes_set_variables_and_defaults() {
        assert_eq!(
            expand_str("http://${HOST}:9200", &vars).unwrap(),
            "http://db.internal:9200"
        );
        assert_eq!(
            expand_str("${MISSING:-fallback}", &vars).unwrap(),
            "fallback"
        );
        assert_eq!(expand_str("${EMPTY:-fallback}", &vars).unwrap(), "fallback");
        assert_eq!(expand_str("${EMPTY}", &vars).unwrap(), "");
        assert_eq!(expand_str("${MISSING:-}", &vars).unwrap(), "");
        assert_eq!(expand_str("${SECRET}", &vars).unwrap(), "a#b: c\"d");
    }

    #[test]
    fn dollars_that_are_not_references_stay() {
        assert_eq!(
            expand_str("cost $5 and $$${HOST}", &vars).unwrap(),
            "cost $5 and $${HOST}"
        );
        assert_eq!(expand_str("$${HOST}", &vars).unwrap(), "${HOST}");
        assert_eq!(expand_str("end$", &vars).unwrap(), "end$");
    }

    #[test]
    fn unknown_and_malformed_references_are_errors_naming_the_variable_only() {
        let error = expand_str("${MISSING}", &vars).unwrap_err();
        assert!(error.contains("MISSING is not set"), "{error}");
        assert!(expand_str("${HOST", &vars).unwrap_err().contains("closing"));
        assert!(
            expand_str("${1BAD}", &vars)
                .unwrap_err()
                .contains("not a valid")
        );
        assert!(
            !expand_str("x ${SECRET} ${NOPE}", &vars)
                .unwrap_err()
                .contains("a#b")
        );
    }
}
