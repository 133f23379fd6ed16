//! Oracles of configuration loading with `${NAME}` substitution ([`ConfigLoader`]), shared by
//! the fuzz targets in `fuzz/` and the crates' `tests/fuzz_regressions.rs`, so a kept input is
//! judged exactly as the fuzzer judged it. Each service names where its values go in its own
//! `fuzzing::CONFIG_TEMPLATES`. Not an API.

use std::collections::HashMap;
use std::fmt::Debug;

use super::{ConfigLoader, Validate, expand_str};
use serde::de::DeserializeOwned;

/// Marks every variable value in the leak check: no fixed message contains it.
const MARK: &str = "\u{1F510}secret";

/// The input cut at NUL bytes: the first text, then `NAME=value` pairs.
fn split(data: &[u8]) -> (String, HashMap<String, String>) {
    let mut parts = data.split(|byte| *byte == 0);
    let first = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let vars = parts
        .map(|part| {
            let part = String::from_utf8_lossy(part);
            match part.split_once('=') {
                Some((name, value)) => (name.to_owned(), value.to_owned()),
                None => (part.into_owned(), String::new()),
            }
        })
        .collect();
    (first, vars)
}

/// `${` written as `$${`, so the text comes out of substitution unchanged.
fn escape(text: &str) -> String {
    text.replace("${", "$${")
}

/// `expand_str`: `template NUL NAME=value NUL …`. Text without `$` is unchanged; an escaped
/// text comes back as written; a variable's value is inserted as it is (never expanded again);
/// an error never shows a variable's value.
pub fn expand(data: &[u8]) {
    let (template, vars) = split(data);
    let lookup = |name: &str| vars.get(name).cloned();
    let result = expand_str(&template, &lookup);
    if !template.contains('$') {
        assert_eq!(result.as_deref(), Ok(template.as_str()));
    }
    assert_eq!(
        expand_str(&escape(&template), &lookup).as_deref(),
        Ok(template.as_str())
    );
    for (name, value) in &vars {
        let reference = format!("${{{name}}}");
        if let Ok(expanded) = expand_str(&reference, &lookup)
            && !name.contains([':', '}'])
        {
            assert_eq!(&expanded, value, "{reference} is its value, unexpanded");
        }
    }
    if !template.contains(MARK) {
        let marked = |name: &str| vars.get(name).map(|value| format!("{MARK}{value}"));
        if let Err(message) = expand_str(&template, &marked) {
            assert!(
                !message.contains(MARK),
                "the error shows a value: {message}"
            );
            assert!(!message.is_empty());
        }
    }
}

/// A YAML double-quoted scalar holding exactly `text`.
fn yaml_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// `load_str::<T>`: `yaml NUL NAME=value NUL …` (the variables serve `${NAME}` and the
/// `<PREFIX>_SECTION__KEY` overrides). Loading is deterministic, a refusal lists at least one
/// problem and every problem says something; and a value substituted into one of `templates`
/// (`@` marks where) loads exactly as the same value written literally in the file.
pub fn load<T: DeserializeOwned + Validate + Debug>(prefix: &str, templates: &[&str], data: &[u8]) {
    let (yaml, vars) = split(data);
    let loader = || ConfigLoader::new(prefix).with_env(vars.clone());
    let first = loader().load_str::<T>(&yaml);
    let second = loader().load_str::<T>(&yaml);
    assert_eq!(
        format!("{first:?}"),
        format!("{second:?}"),
        "loading is deterministic"
    );
    if let Err(problems) = &first {
        assert!(!problems.is_empty());
        for problem in problems.iter() {
            assert!(!problem.message.is_empty(), "{problem:?}");
        }
    }

    if templates.is_empty() {
        return;
    }
    let value: String = yaml.chars().take(200).collect();
    let template = templates[data.len() % templates.len()];
    let env = HashMap::from([("FUZZ_VALUE".to_owned(), value.clone())]);
    let load = |text: String| {
        ConfigLoader::new(prefix)
            .with_env(env.clone())
            .load_str::<T>(&text)
    };
    let substituted = load(template.replace('@', "\"${FUZZ_VALUE}\""));
    let literal = load(template.replace('@', &yaml_quoted(&escape(&value))));
    assert_eq!(
        format!("{substituted:?}"),
        format!("{literal:?}"),
        "a substituted value loads as the same value written in the file"
    );
}
