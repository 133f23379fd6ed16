//! `helm lint --strict` of the umbrella chart for the default values and every ci file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use test_support::{TempDir, pinned, repo_root};

use crate::{CI_FILES, chart, ci_file, text};

/// `helm lint --strict` needs no cluster: the pinned helm with its folders in a scratch dir.
fn helm_offline(home: &Path, args: &[&str]) -> Output {
    let helm = repo_root()
        .join(".cache/kube")
        .join(format!("helm-{}", pinned("HELM_VERSION")));
    assert!(
        helm.is_file(),
        "{} is not built; `make test` (scripts/install-kube.sh) builds it",
        helm.display()
    );
    Command::new(&helm)
        .args(args)
        .env("HOME", home)
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"))
        .output()
        .expect("running helm")
}

/// `helm lint --strict` of the umbrella chart, which renders every subchart's templates with the
/// umbrella's values (their schemas included). Each subchart alone (`--with-subcharts`) cannot
/// render: its templates call platform-common's named templates, which only the umbrella brings.
#[test]
fn helm_lint_strict_passes_for_the_default_values_and_every_ci_file() {
    let mut found: Vec<String> = std::fs::read_dir(chart().join("ci"))
        .expect("reading helm/search-platform/ci")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, CI_FILES, "install every ci file in this test file");
    let home = TempDir::new("helm-lint");
    let chart = chart();
    let chart = chart.to_str().unwrap();
    let mut failures = Vec::new();
    let mut sets: Vec<Option<PathBuf>> = vec![None];
    sets.extend(CI_FILES.iter().map(|name| Some(ci_file(name))));
    for values in &sets {
        let mut args = vec!["lint", "--strict", chart];
        if let Some(file) = values {
            args.extend(["--values", file.to_str().unwrap()]);
        }
        let output = helm_offline(home.path(), &args);
        let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
        if !output.status.success() || all.contains("[ERROR]") || all.contains("[WARNING]") {
            failures.push(format!("helm {}:\n{all}", args.join(" ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
