use std::collections::HashMap;
use std::time::Duration;

use serde::Deserialize;

use super::*;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Sample {
    server: Server,
    secret: String,
    items: Vec<Item>,
}

impl Default for Sample {
    fn default() -> Self {
        Self {
            server: Server::default(),
            secret: "default-secret".into(),
            items: Vec::new(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Server {
    port: u16,
    #[serde(with = "humantime_serde")]
    timeout: Duration,
}

impl Default for Server {
    fn default() -> Self {
        Self {
            port: 8080,
            timeout: Duration::from_secs(30),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    name: String,
    #[allow(dead_code)]
    weight: u8,
}

impl Validate for Sample {
    fn validate(&self, problems: &mut ConfigProblems) {
        problems.check(self.secret.len() >= 8, "secret", "must be at least 8 bytes");
        for (index, item) in self.items.iter().enumerate() {
            problems.check(
                !item.name.is_empty(),
                &format!("items[{index}].name"),
                "must not be empty",
            );
        }
    }
}

fn loader(env: &[(&str, &str)]) -> ConfigLoader {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    ConfigLoader::new("SAMPLE").with_env(env)
}

fn problems_of(result: Result<Sample, ConfigProblems>) -> Vec<String> {
    result
        .expect_err("the configuration should be rejected")
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn empty_text_gives_defaults() {
    let sample: Sample = loader(&[]).load_str("").unwrap();
    assert_eq!(sample.server.port, 8080);
    assert_eq!(sample.server.timeout, Duration::from_secs(30));
}

#[test]
fn substitution_keeps_yaml_typing_and_special_characters() {
    let sample: Sample = loader(&[("PORT", "9001"), ("SECRET", "pa#ss: \"word\"")])
        .load_str("server:\n  port: ${PORT}\n  timeout: ${TIMEOUT:-5s}\nsecret: ${SECRET}\n")
        .unwrap();
    assert_eq!(sample.server.port, 9001);
    assert_eq!(sample.server.timeout, Duration::from_secs(5));
    assert_eq!(sample.secret, "pa#ss: \"word\"");
}

#[test]
fn environment_overrides_the_file() {
    let sample: Sample = loader(&[("SAMPLE_SERVER__PORT", "7000")])
        .load_str("server:\n  port: 9001\n")
        .unwrap();
    assert_eq!(sample.server.port, 7000);
}

#[test]
fn every_problem_is_reported_once_with_its_key() {
    let yaml = "server:\n  port: 70000\n  timeout: soon\n  colour: red\nsecret: ${MISSING}\nitems:\n  - name: ''\n    weight: 1\n  - name: b\n    weight: heavy\n";
    let problems = problems_of(loader(&[]).load_str(yaml));
    assert_eq!(
        problems,
        vec![
            "items[0].name: must not be empty",
            "items[1].weight: expected an integer, found a string",
            "secret: environment variable MISSING is not set (write ${MISSING:-default} to allow a default)",
            "server.colour: is not a known key (expected `port` or `timeout`)",
            "server.port: is out of range for an unsigned 16 bit integer",
            "server.timeout: invalid value: expected a duration: a number and a unit such as \
             500ms, 30s, 5m, 2h or 7d (units: ms, s, m, h, d, w; combine them as in 1h30m; no \
             sign), found a string",
        ],
        "{problems:#?}"
    );
}

/// Settings with enums, where `config`'s own message names neither the accepted values nor
/// (safely) the value given.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Modes {
    mode: Mode,
    targets: Vec<Target>,
}

impl Default for Modes {
    fn default() -> Self {
        Self {
            mode: Mode::Open,
            targets: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Open,
    TrustedHeaders,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Target {
    #[allow(dead_code)]
    name: String,
    #[allow(dead_code)]
    kind: Kind,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Production,
    Staging,
    Development,
}

impl Validate for Modes {
    fn validate(&self, _problems: &mut ConfigProblems) {}
}

#[test]
fn unknown_enum_values_name_the_accepted_ones_never_the_value() {
    let secret = "hunter2-secret";
    let yaml = format!(
        "targets:\n  - {{name: a, kind: staging}}\n  - {{name: b, kind: {secret}}}\n  - {{name: c, kind: ''}}\nmode: {secret}\n"
    );
    let problems: Vec<String> = loader(&[])
        .load_str::<Modes>(&yaml)
        .expect_err("refused")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        vec![
            "mode: must be open or trusted_headers",
            "targets[1].kind: must be one of production, staging, or development",
            "targets[2].kind: must be one of production, staging, or development",
        ],
        "{problems:#?}"
    );
    // An environment override is read the same way.
    let overridden = loader(&[("SAMPLE_MODE", secret)])
        .load_str::<Modes>("mode: open\n")
        .expect_err("refused")
        .to_string();
    assert_eq!(overridden, "mode: must be open or trusted_headers");
    // A valid value still loads.
    let modes: Modes = loader(&[]).load_str("mode: trusted_headers\n").unwrap();
    assert_eq!(modes.mode, Mode::TrustedHeaders);
}

#[test]
fn semantic_problems_are_collected_after_type_problems_are_fixed() {
    let problems =
        problems_of(loader(&[]).load_str("secret: short\nitems:\n  - name: ''\n    weight: 1\n"));
    assert_eq!(
        problems,
        vec![
            "items[0].name: must not be empty",
            "secret: must be at least 8 bytes"
        ]
    );
}

#[test]
fn malformed_yaml_is_one_line_with_its_position() {
    let problems = problems_of(loader(&[]).load_str("server:\n  port: [1\n"));
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("the file is not valid YAML"),
        "{problems:?}"
    );
    assert!(problems[0].contains("line"), "{problems:?}");
}

#[test]
fn no_value_is_echoed_in_problems() {
    let secret = "hunter2-very-secret";
    let yaml = format!("server:\n  port: {secret}\n  timeout: {secret}\nsecret: [{secret}]\n");
    let problems = loader(&[])
        .load_str::<Sample>(&yaml)
        .unwrap_err()
        .to_string();
    assert!(!problems.contains(secret), "{problems}");
    assert_eq!(problems.lines().count(), 3, "{problems}");
}

#[test]
fn missing_required_field_names_the_key() {
    let problems = problems_of(loader(&[]).load_str("items:\n  - name: a\n"));
    assert_eq!(problems, vec!["items[0].weight: is required"]);
}

#[test]
fn unreadable_file_is_a_problem_not_a_panic() {
    let problems = problems_of(loader(&[]).load_file(Path::new("/nonexistent/config.yaml")));
    assert!(problems[0].contains("cannot read the configuration file"));
}

#[test]
fn problems_in_several_array_elements_keep_their_file_indices() {
    let yaml = "items:\n  - name: a\n    weight: x\n  - name: b\n  - name: c\n    weight: y\n  - name: ''\n    weight: 2\nserver:\n  port: -1\n";
    let problems = problems_of(loader(&[]).load_str(yaml));
    assert_eq!(
        problems,
        vec![
            "items[0].weight: expected an integer, found a string",
            "items[1].weight: is required",
            "items[2].weight: expected an integer, found a string",
            "items[3].name: must not be empty",
            "server.port: is out of range for an unsigned 64 bit or less integer",
        ]
    );
}

/// Found by fuzzing (fuzz/regressions/config_*): the problems reported depended on the order of
/// a hash map, because collecting them stopped at a key it could not take out: a key with a
/// `.` in its name, or a value that came from an environment override. Every run must report
/// every problem.
#[test]
fn every_problem_is_reported_in_every_run() {
    let yaml = "server:\n  port: 1\n\"a.b\": 1\nbogus: 2\nitems:\n  - name: x\n    weight: 1\n    \"c[0]\": 3\n";
    for _ in 0..40 {
        let problems =
            problems_of(loader(&[("SAMPLE_SERVER__PORT", "abc")]).load_str::<Sample>(yaml));
        assert_eq!(
            problems,
            vec![
                "a: is not a known key (expected one of `server`, `secret`, `items`)",
                "bogus: is not a known key (expected one of `server`, `secret`, `items`)",
                "items[0].c[0]: is not a known key (expected `name` or `weight`)",
                "server.port: expected an integer, found a string",
            ],
            "{problems:#?}"
        );
    }
}

/// Found by fuzzing: an override whose name only differs from a file key in case was taken
/// out with that key, so whether its problem was reported depended on the map's order.
#[test]
fn a_bad_override_is_reported_whatever_else_is_wrong() {
    for _ in 0..40 {
        let problems = problems_of(
            loader(&[("SAMPLE_SERVER__PORT}\n  host:ORT", "x")])
                .load_str::<Sample>("servEr:\n  port: 1\nsu5: 1\n"),
        );
        assert_eq!(
            problems,
            vec![
                "servEr: is not a known key (expected one of `server`, `secret`, `items`)",
                "server.port}\n  host:ort: is not a known key (expected one of `server`, `secret`, `items`)",
                "su5: is not a known key (expected one of `server`, `secret`, `items`)",
            ],
            "{problems:#?}"
        );
    }
}

/// Found by fuzzing: a key ending in `]` without an index (`serve]:`) made the loader panic
/// ("the path ends with an index") instead of reporting it.
#[test]
fn a_key_ending_in_a_bracket_is_a_problem_not_a_panic() {
    let problems = problems_of(loader(&[]).load_str::<Sample>("serve]:\n  mode: a\nitems]: 1\n"));
    assert_eq!(
        problems,
        vec![
            "items]: is not a known key (expected one of `server`, `secret`, `items`)",
            "serve]: is not a known key (expected one of `server`, `secret`, `items`)",
        ]
    );
}

/// Found by fuzzing: a key holding a backtick was cut at it (`a` instead of ``a`b``), so it
/// could not be taken out and the problems after it depended on the map's order.
#[test]
fn a_key_with_a_backtick_is_named_whole() {
    for _ in 0..40 {
        let problems = problems_of(loader(&[]).load_str::<Sample>("\"a`b, c\": 1\nbogus: 2\n"));
        assert_eq!(
            problems,
            vec![
                "a`b, c: is not a known key (expected one of `server`, `secret`, `items`)",
                "bogus: is not a known key (expected one of `server`, `secret`, `items`)",
            ],
            "{problems:#?}"
        );
    }
}

/// Found by fuzzing: an empty key (`"": 1`) could not be taken out, so the problems after it
/// depended on the map's order.
#[test]
fn an_empty_key_is_reported_with_the_rest() {
    for _ in 0..40 {
        let problems = problems_of(loader(&[]).load_str::<Sample>("\"\": 1\nbogus: 2\n"));
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[1].starts_with("bogus: "), "{problems:#?}");
    }
}

/// Found by fuzzing (fuzz/regressions/config_*/key-beside-section-*): a key that `config` cannot
/// read as a path (`server.x:-y`) stays one key beside `server`; taking out `server` took it
/// out too, so its own problem was reported only when the map's order listed it first.
#[test]
fn a_key_beside_a_section_keeps_its_own_problem() {
    for _ in 0..40 {
        let problems = problems_of(loader(&[]).load_str::<Sample>("server:\n\"server.x:-y\": 1\n"));
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[0].starts_with("server: "), "{problems:#?}");
        assert!(
            problems[1].starts_with("server.x:-y: is not a known key"),
            "{problems:#?}"
        );
    }
}

/// Found by fuzzing (fuzz/regressions/config_ingress_dash/override-beside-section): an override
/// whose name is not a path (`SAMPLE_BOGUS__X]`) is one key of its own; taking out the override
/// `bogus` took it out too, so its problem was reported only when the map's order listed it
/// first.
#[test]
fn an_override_beside_another_keeps_its_own_problem() {
    for _ in 0..40 {
        let problems = problems_of(
            loader(&[("SAMPLE_BOGUS__Y", "1"), ("SAMPLE_BOGUS__X]", "1")]).load_str::<Sample>(""),
        );
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[0].starts_with("bogus: "), "{problems:#?}");
        assert!(problems[1].starts_with("bogus.x]: "), "{problems:#?}");
    }
}

/// Nine levels of aliases, each nine of the one before: a few hundred bytes that stand for
/// about 387 million nodes. Refused with one problem before anything is expanded.
fn alias_bomb() -> String {
    let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for level in 1..9 {
        let previous = format!("*a{}", level - 1);
        let items = [previous.as_str(); 9].join(", ");
        yaml.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    yaml
}

#[test]
fn an_alias_bomb_is_one_problem_not_an_exhausted_memory() {
    let yaml = alias_bomb();
    assert!(yaml.len() < 1000, "{}", yaml.len());
    let problems = problems_of(loader(&[]).load_str::<Sample>(&yaml));
    assert_eq!(
        problems,
        vec![format!(
            "the file uses YAML aliases that expand to more than {MAX_EXPANDED_NODES} nodes; \
             write the repeated values out or use fewer aliases"
        )]
    );
}

#[test]
fn a_file_with_a_few_aliases_still_loads() {
    let yaml = "defaults: &item {name: a, weight: 1}\nitems:\n  - *item\n  - *item\n";
    // `defaults` is not a key of Sample: the aliases were expanded and the rest was read.
    let problems = problems_of(loader(&[]).load_str::<Sample>(yaml));
    assert_eq!(
        problems,
        vec!["defaults: is not a known key (expected one of `server`, `secret`, `items`)"]
    );
    let yaml = "items:\n  - &item {name: a, weight: 1}\n  - *item\nsecret: longenough\n";
    let sample = loader(&[]).load_str::<Sample>(yaml).expect("loads");
    assert_eq!(sample.items.len(), 2);
    assert_eq!(sample.items[1].name, "a");
}

#[test]
fn deep_nesting_and_huge_files_are_one_problem_each() {
    let deep = format!("items: {}{}\n", "[".repeat(5000), "]".repeat(5000));
    let problems = problems_of(loader(&[]).load_str::<Sample>(&deep));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("the file is not valid YAML: recursion limit exceeded"),
        "{problems:?}"
    );
    let huge = format!("secret: {}\n", "x".repeat(MAX_FILE_BYTES));
    let problems = problems_of(loader(&[]).load_str::<Sample>(&huge));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("the file is larger than 1 MiB"),
        "{problems:?}"
    );
}

#[test]
fn a_huge_file_is_refused_without_reading_it_all() {
    let path = std::env::temp_dir().join(format!("service-kit-huge-{}.yaml", std::process::id()));
    std::fs::write(
        &path,
        format!("secret: {}\n", "x".repeat(3 * MAX_FILE_BYTES)),
    )
    .unwrap();
    let result = loader(&[]).load_file::<Sample>(&path);
    std::fs::remove_file(&path).unwrap();
    let problems = problems_of(result);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("the file is larger than 1 MiB"),
        "{problems:?}"
    );
}

#[test]
fn config_paths_are_read_as_config_reads_them() {
    for path in ["a", "a.b", "a-b_c.d[0]", "a[ -1 ][2].b"] {
        assert!(is_config_path(path), "{path}");
    }
    for path in [
        "", "a.", ".a", "a.b:-c", "a]", "a[x]", "a[0", "é", "a[0]b", "a[+1]",
    ] {
        assert!(!is_config_path(path), "{path}");
    }
}

/// Found by fuzzing (fuzz/regressions/config_admin_console/conflicting-overrides): `config`
/// applies overrides in its hash map's order, so `SAMPLE_SERVER=` and `SAMPLE_SERVER__PORT=x`
/// made `server` a string in some runs and a table in others.
#[test]
fn conflicting_overrides_are_one_problem_in_every_run() {
    for _ in 0..40 {
        let problems = problems_of(
            loader(&[
                ("SAMPLE_SERVER", ""),
                ("SAMPLE_SERVER__PORT", "abc"),
                ("SAMPLE_SECRET", "longenough"),
                ("sample_secret", "other-value"),
            ])
            .load_str::<Sample>(""),
        );
        assert_eq!(
            problems,
            vec![
                "secret: is set by more than one environment override (SAMPLE_SECRET, \
                 sample_secret); keep one",
                "server: is set by more than one environment override (SAMPLE_SERVER, \
                 SAMPLE_SERVER__PORT); keep one",
                "server.port: expected an integer, found a string",
            ],
            "{problems:#?}"
        );
    }
}

/// Found by fuzzing (fuzz/regressions/config_ingress_dash/dotted-key-beside-section): `config`
/// reads a top-level `server.port` as `server: {port}` in its hash map's order, so beside
/// `server: x` either one won.
#[test]
fn a_dotted_key_beside_its_section_is_one_problem_in_every_run() {
    for _ in 0..40 {
        let problems = problems_of(loader(&[]).load_str::<Sample>("server.port: 1\nserver: x\n"));
        assert_eq!(
            problems,
            vec!["server.port: is also written as `server`; keep one"],
            "{problems:#?}"
        );
    }
}

/// A key that only looks like an element (`scopes[1]client_id`) keeps its name when an element
/// of the list it resembles was taken out (found by fuzzing: the name changed between runs).
#[test]
fn a_key_that_looks_like_an_element_is_not_renumbered() {
    let mut shifts = IndexShifts::default();
    shifts.0.push(("oidc.scopes".to_owned(), 0));
    assert_eq!(
        shifts.original("oidc.scopes[1]client_id"),
        "oidc.scopes[1]client_id"
    );
    assert_eq!(shifts.original("oidc.scopes[1]"), "oidc.scopes[2]");
    assert_eq!(shifts.original("oidc.scopes[1].x"), "oidc.scopes[2].x");
}
