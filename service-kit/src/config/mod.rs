//! Configuration loading, one recipe for every service:
//! YAML file → strict `${NAME}` substitution → environment overrides (`<PREFIX>_SECTION__KEY`) →
//! typed settings → validation that reports every problem at once.

mod expand;
mod limits;
/// The oracles of the configuration fuzz targets in `fuzz/` and their regression tests (not an
/// API).
#[doc(hidden)]
pub mod oracle;
mod problems;

use std::collections::HashMap;
use std::path::Path;

use config::{Config, ConfigError, Environment, File, FileFormat, Map, Source, Value, ValueKind};
use serde::de::DeserializeOwned;

pub use expand::{ProcessEnv, VariableSource, expand_str};
pub use limits::{MAX_EXPANDED_NODES, MAX_FILE_BYTES};
pub use problems::{ConfigProblem, ConfigProblems};

use problems::{NOT_A_VARIANT, one_of, problem_from_config_error, variants_of_serde_message};

/// Semantic checks that serde cannot express: ranges, URLs, cross-field rules.
/// Implementations push every problem they find instead of stopping at the first.
pub trait Validate {
    /// Takes values from the well-known environment variables a service documents (such as
    /// ingress-dash's `PORT` or authproxy's `SESSION_SECRET`), after the file and before
    /// validation. Most services have none.
    fn apply_environment(&mut self, _env: &dyn VariableSource, _problems: &mut ConfigProblems) {}

    fn validate(&self, problems: &mut ConfigProblems);

    /// Settings that are valid but probably not what the operator wants (e.g. a check that
    /// will refuse every caller). Printed by `--validate-config` and logged at start; they
    /// never make the configuration invalid.
    fn warnings(&self, _warnings: &mut ConfigProblems) {}
}

/// Loads settings of type `T` for one service.
pub struct ConfigLoader {
    env_prefix: String,
    /// `None` reads the process environment; tests pass their own.
    env: Option<HashMap<String, String>>,
}

impl ConfigLoader {
    /// `env_prefix` is the service's prefix for overrides, e.g. `AUTHPROXY` makes
    /// `AUTHPROXY_SERVER__PORT=9001` override `server.port`.
    pub fn new(env_prefix: &str) -> Self {
        Self {
            env_prefix: env_prefix.to_owned(),
            env: None,
        }
    }

    /// Uses `env` instead of the process environment, for substitution and overrides alike.
    pub fn with_env(mut self, env: HashMap<String, String>) -> Self {
        self.env = Some(env);
        self
    }

    /// Looks a variable up where this loader does (its own map, else the process environment).
    pub fn var(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(env) => env.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }

    pub fn load_file<T: DeserializeOwned + Validate>(
        &self,
        path: &Path,
    ) -> Result<T, ConfigProblems> {
        // One byte more than the limit is enough to refuse the file without reading all of it.
        let text = read_at_most(path, limits::MAX_FILE_BYTES + 1).map_err(|error| {
            let mut problems = ConfigProblems::new();
            problems.push(
                "",
                format!(
                    "cannot read the configuration file {}: {error}",
                    path.display()
                ),
            );
            problems
        })?;
        self.load_str(&text)
    }

    /// Loads from YAML text. An empty text means "all defaults".
    pub fn load_str<T: DeserializeOwned + Validate>(
        &self,
        yaml: &str,
    ) -> Result<T, ConfigProblems> {
        let mut problems = ConfigProblems::new();
        let mut tree = match parse_yaml(yaml) {
            Ok(tree) => tree,
            Err(problem) => {
                problems.push_problem(problem);
                return Err(problems);
            }
        };
        let lookup = |name: &str| self.var(name);
        let mut root = Value::new(None, ValueKind::Table(std::mem::take(&mut tree)));
        let _root_is_a_table = expand::expand_value(&mut root, "", &lookup, &mut problems);
        let ValueKind::Table(mut tree) = root.kind else {
            unreachable!("the root was built as a table")
        };

        // serde stops at the first bad field. To report them all, each bad key is recorded,
        // taken out (so its default applies, or its parent goes) and the rest deserialized
        // again. Taking out a required key makes serde complain about it next; such follow-on
        // complaints are not reported, the parent is taken out instead.
        const MAX_ROUNDS: usize = 64;
        let mut taken_out: Vec<String> = Vec::new();
        let mut shifts = IndexShifts::default();
        // Overrides (`<PREFIX>_SECTION__KEY`) taken out after a problem, like the file's keys.
        let mut overrides = self.overrides();
        for problem in self.take_conflicting_overrides(&mut overrides) {
            problems.push_problem(problem);
        }
        for _ in 0..MAX_ROUNDS {
            let error = match self.deserialize::<T>(&tree, &overrides) {
                Ok(mut settings) => {
                    // Keys the validation names are in today's indices; report the file's.
                    let mut semantic = ConfigProblems::new();
                    settings.apply_environment(&lookup, &mut semantic);
                    settings.validate(&mut semantic);
                    for problem in semantic.iter() {
                        problems.push(shifts.original(&problem.key), problem.message.clone());
                    }
                    problems.sort_by_key();
                    return problems.into_result(settings);
                }
                Err(error) => error,
            };
            let mut problem = problem_from_config_error(&error);
            if problem.message == NOT_A_VARIANT
                && let Some(accepted) = self.accepted_values::<T>(&tree, &overrides, &problem.key)
            {
                problem.message = one_of(&accepted);
            }
            let required = problem.message == REQUIRED;
            let original_key = shifts.original(&problem.key);
            if !(required && taken_out.contains(&original_key)) {
                let reported = ConfigProblem {
                    key: original_key,
                    message: problem.message.clone(),
                };
                // Again after its value in the file was taken out: an override holds it too.
                if !problems.iter().any(|known| known == &reported) {
                    problems.push_problem(reported);
                }
            }
            let target = if required {
                parent_key(&problem.key)
            } else {
                problem.key
            };
            let original_target = shifts.original(&target);
            // The file's value first; an override of it only once the file has none (a key
            // of the file that differs in case must not take an override with it).
            // An empty key (`"": 1`) is a key; an empty parent (a required key) is the root.
            let removed = !(required && target.is_empty())
                && (remove_path(&mut tree, &target, &mut shifts)
                    || self.remove_overrides(&mut overrides, &target));
            if !removed {
                break;
            }
            taken_out.push(original_target);
        }
        problems.sort_by_key();
        Err(problems)
    }

    /// The variables overrides are read from: this loader's map, else the process environment
    /// (its entries that are not UTF-8 cannot be overrides).
    fn overrides(&self) -> Map<String, String> {
        match &self.env {
            Some(env) => env.clone().into_iter().collect(),
            None => std::env::vars_os()
                .filter_map(|(name, value)| {
                    Some((name.into_string().ok()?, value.into_string().ok()?))
                })
                .collect(),
        }
    }

    /// Takes out overrides that `config` would apply in its hash map's order, so the outcome
    /// changed from run to run: two names for one key (`X_A__B` and `x_a__b`), or a key and a
    /// key below it (`X_A=1` and `X_A__B=2`). Each is one problem naming the variables.
    fn take_conflicting_overrides(
        &self,
        overrides: &mut Map<String, String>,
    ) -> Vec<ConfigProblem> {
        let prefix = format!("{}_", self.env_prefix.to_lowercase());
        let mut paths: Vec<(String, String)> = overrides
            .keys()
            .filter_map(|name| {
                let path = name
                    .to_lowercase()
                    .strip_prefix(&prefix)?
                    .replace("__", ".");
                Some((path, name.clone()))
            })
            .collect();
        paths.sort();
        let mut problems = Vec::new();
        for (path, _) in &paths {
            let names: Vec<&str> = paths
                .iter()
                .filter(|(other, _)| {
                    other == path || (is_config_path(other) && is_below(other, path))
                })
                .map(|(_, name)| name.as_str())
                .collect();
            if names.len() > 1
                && !problems
                    .iter()
                    .any(|known: &ConfigProblem| &known.key == path)
            {
                problems.push(ConfigProblem {
                    key: path.clone(),
                    message: format!(
                        "is set by more than one environment override ({}); keep one",
                        names.join(", ")
                    ),
                });
            }
        }
        for problem in &problems {
            overrides.retain(|name, _| {
                name.to_lowercase()
                    .strip_prefix(&prefix)
                    .is_none_or(|rest| rest.replace("__", ".") != problem.key)
            });
        }
        problems
    }

    /// Takes out the overrides of `key` and of everything below it; false when there are none.
    fn remove_overrides(&self, overrides: &mut Map<String, String>, key: &str) -> bool {
        let key = key.to_lowercase();
        let prefix = format!("{}_", self.env_prefix.to_lowercase());
        let before = overrides.len();
        overrides.retain(|name, _| {
            let Some(path) = name
                .to_lowercase()
                .strip_prefix(&prefix)
                .map(|rest| rest.replace("__", "."))
            else {
                return true;
            };
            // `config` reads a name it cannot parse as a path as one key of its own.
            !(path == key || (is_config_path(&path) && is_below(&path, &key)))
        });
        overrides.len() < before
    }

    /// The names the enum at `key` accepts, when `config` refused its value: `config` names
    /// neither them nor (safely) the value, so the same settings are read again through serde's
    /// own enum handling, which lists them. Problems serde meets first elsewhere (`config`
    /// reads tables in another order) are taken out, as the loader does; `None` when that does
    /// not lead to `key`.
    fn accepted_values<T: DeserializeOwned>(
        &self,
        tree: &Map<String, Value>,
        overrides: &Map<String, String>,
        key: &str,
    ) -> Option<Vec<String>> {
        const MAX_ROUNDS: usize = 16;
        let mut plain: serde_json::Value = self.deserialize(tree, overrides).ok()?;
        for _ in 0..MAX_ROUNDS {
            let error = serde_path_to_error::deserialize::<_, T>(plain.clone()).err()?;
            let message = error.inner().to_string();
            if error.path().to_string() == key {
                return message
                    .starts_with("unknown variant ")
                    .then(|| variants_of_serde_message(&message))
                    .flatten();
            }
            if !remove_json(&mut plain, error.path()) {
                return None;
            }
        }
        None
    }

    fn deserialize<T: DeserializeOwned>(
        &self,
        tree: &Map<String, Value>,
        overrides: &Map<String, String>,
    ) -> Result<T, ConfigError> {
        let overrides = Environment::with_prefix(&self.env_prefix)
            .prefix_separator("_")
            .separator("__")
            .try_parsing(true)
            .source(Some(overrides.clone()));
        Config::builder()
            .add_source(Layer(tree.clone()))
            .add_source(overrides)
            .build()?
            .try_deserialize()
    }
}

/// The file's text, cut after `limit` bytes.
fn read_at_most(path: &Path, limit: usize) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit as u64)
        .read_to_end(&mut bytes)?;
    if bytes.len() >= limit {
        // Refused for its size anyway; a cut in the middle of a character is not its fault.
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, ConfigProblem> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    if let Some(problem) = limits::check(yaml) {
        return Err(problem);
    }
    // The keys as written: `config` reads a top-level `a.b` as `a: {b}` in its hash map's
    // order, so `a.b` beside `a` (or `a.b.c`) came out differently from run to run.
    let written = File::from_str(yaml, FileFormat::Yaml)
        .collect()
        .map_err(|error| problem_from_config_error(&error))?;
    let mut keys: Vec<String> = written.keys().cloned().collect();
    keys.sort();
    for key in &keys {
        if !key.contains(['.', '[']) || !is_config_path(key) {
            continue;
        }
        if let Some(other) = keys
            .iter()
            .find(|other| *other != key && (is_below(key, other) || is_below(other, key)))
        {
            return Err(ConfigProblem {
                key: key.clone(),
                message: format!("is also written as `{other}`; keep one"),
            });
        }
    }
    let parsed = Config::builder()
        .add_source(Layer(written))
        .build()
        .map_err(|error| problem_from_config_error(&error))?;
    parsed
        .collect()
        .map_err(|error| problem_from_config_error(&error))
}

/// The already substituted file, as a source for `config`.
#[derive(Debug, Clone)]
struct Layer(Map<String, Value>);

impl Source for Layer {
    fn clone_into_box(&self) -> Box<dyn Source + Send + Sync> {
        Box::new(self.clone())
    }

    fn collect(&self) -> Result<Map<String, Value>, ConfigError> {
        Ok(self.0.clone())
    }
}

/// The message of a problem about a required key that is absent.
pub(crate) const REQUIRED: &str = "is required";

/// `a.b[2].c` → `a.b[2]`; `a.b[2]` → `a.b`; `a` → ``.
fn parent_key(key: &str) -> String {
    match key.rfind(['.', '[']) {
        Some(cut) => key[..cut].to_owned(),
        None => String::new(),
    }
}

/// Array elements taken out shift the indices of later elements. Problems are reported with
/// the indices of the file, so each removal is remembered and undone when naming a key.
#[derive(Default)]
struct IndexShifts(Vec<(String, usize)>);

impl IndexShifts {
    /// `key` (in today's indices) in the indices of the file as written.
    fn original(&self, key: &str) -> String {
        let mut key = key.to_owned();
        for (array, removed) in self.0.iter().rev() {
            let prefix = format!("{array}[");
            if let Some(rest) = key.strip_prefix(&prefix)
                && let Some((index, tail)) = rest.split_once(']')
                && let Ok(index) = index.parse::<usize>()
                && index >= *removed
                // An element's path goes on with `.` or `[`, or ends: `scopes[1]client_id`
                // is a key of its own, not an element of `scopes`.
                && (tail.is_empty() || tail.starts_with(['.', '[']))
            {
                key = format!("{prefix}{}]{tail}", index + 1);
            }
        }
        key
    }
}

/// Removes `a.b[2].c` from `tree`; false when the path does not lead anywhere.
fn remove_path(tree: &mut Map<String, Value>, path: &str, shifts: &mut IndexShifts) -> bool {
    let mut element_removed = false;
    let removed = remove_in_table(tree, path, &mut element_removed);
    // Only an element taken out of an array shifts the later ones; a key may end in `]` too.
    if element_removed
        && let Some((array, index)) = path.rsplit_once('[')
        && let Ok(index) = index.trim_end_matches(']').parse()
    {
        shifts.0.push((array.to_owned(), index));
    }
    removed
}

/// Removes what `path` names from `value`; false when it names nothing there (a missing
/// field, the root).
fn remove_json(value: &mut serde_json::Value, path: &serde_path_to_error::Path) -> bool {
    use serde_path_to_error::Segment;
    let segments: Vec<&Segment> = path.iter().collect();
    let Some((last, parents)) = segments.split_last() else {
        return false;
    };
    let mut current = value;
    for segment in parents {
        let next = match (segment, current) {
            (Segment::Map { key }, serde_json::Value::Object(map)) => map.get_mut(key),
            (Segment::Seq { index }, serde_json::Value::Array(items)) => items.get_mut(*index),
            _ => None,
        };
        let Some(next) = next else {
            return false;
        };
        current = next;
    }
    match (last, current) {
        (Segment::Map { key }, serde_json::Value::Object(map)) => map.remove(key).is_some(),
        (Segment::Seq { index }, serde_json::Value::Array(items)) if *index < items.len() => {
            items.remove(*index);
            true
        }
        _ => false,
    }
}

/// `config` reads `path` as a path (`a.b[0].c`: names of ASCII letters, digits, `_` and `-`,
/// each with optional `[i]` subscripts, as its parser does); any other key is one of its own.
fn is_config_path(path: &str) -> bool {
    path.split('.').all(|segment| {
        let (name, mut subscripts) = segment.split_at(segment.find('[').unwrap_or(segment.len()));
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return false;
        }
        while let Some(rest) = subscripts.strip_prefix('[') {
            let Some((index, tail)) = rest.split_once(']') else {
                return false;
            };
            let index = index.trim_matches([' ', '\t']);
            if index.starts_with('+') || index.parse::<isize>().is_err() {
                return false;
            }
            subscripts = tail;
        }
        subscripts.is_empty()
    })
}

/// `path` is `key` or lies below it (`key.x`, `key[0]`).
fn is_below(path: &str, key: &str) -> bool {
    path.strip_prefix(key)
        .is_some_and(|rest| rest.starts_with(['.', '[']))
}

/// Removes what `path` names in `table`, matching it against the keys the table really has: a
/// key may itself hold `.` or `[`. Only the key named exactly goes: the tree holds the keys
/// `config` sees (a top-level `"a.b": 1` was read as `a: {b: 1}` when the file was parsed; a
/// key it cannot read as a path, such as `a.b:-c`, stays one key), so a problem at `a` must
/// not take out a separate key `a.b:-c` whose own problem may not be reported yet.
fn remove_in_table(table: &mut Map<String, Value>, path: &str, element: &mut bool) -> bool {
    let mut removed = false;
    let keys: Vec<String> = table.keys().cloned().collect();
    for key in keys {
        if key == path {
            removed |= table.remove(&key).is_some();
        } else if let Some(rest) = path.strip_prefix(key.as_str())
            && rest.starts_with(['.', '['])
            && let Some(value) = table.get_mut(&key)
        {
            removed |= remove_in_value(value, rest, element);
        }
    }
    removed
}

/// `rest` is `.x…` below a table or `[i]…` below an array.
fn remove_in_value(value: &mut Value, rest: &str, element: &mut bool) -> bool {
    match &mut value.kind {
        ValueKind::Table(table) => rest
            .strip_prefix('.')
            .is_some_and(|rest| remove_in_table(table, rest, element)),
        ValueKind::Array(items) => {
            let Some((index, tail)) = rest.strip_prefix('[').and_then(|rest| rest.split_once(']'))
            else {
                return false;
            };
            let Ok(index) = index.parse::<usize>() else {
                return false;
            };
            if index >= items.len() {
                false
            } else if tail.is_empty() {
                items.remove(index);
                *element = true;
                true
            } else {
                remove_in_value(&mut items[index], tail, element)
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
