//! Configuration: the clusters list, its aliases, and validation that names every problem.

use admin_console::Settings;
use admin_console::config::MetricsSource;
use service_kit::config::ConfigLoader;

fn load(yaml: &str, env: &[(&str, &str)]) -> Result<Settings, Vec<String>> {
    ConfigLoader::new("ADMIN_CONSOLE")
        .with_env(
            env.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
        .load_str(yaml)
        .map_err(|problems| problems.iter().map(|p| p.to_string()).collect())
}

#[test]
fn the_example_file_loads_without_any_environment() {
    let path = test_support::repo_root().join("examples/admin-console.yaml");
    let settings: Settings = ConfigLoader::new("ADMIN_CONSOLE")
        .with_env(Default::default())
        .load_file(&path)
        .unwrap_or_else(|problems| panic!("{problems:?}"));
    assert!(!settings.clusters.is_empty());
}

#[test]
fn product_names_are_aliases_and_secrets_come_from_the_environment() {
    let yaml = r#"
clusters:
  - id: prod
    name: Production
    url: https://es.internal:9200
    metrics_source: prometheus
    prometheus_url: http://prometheus:9090
    prometheus_job_name: elasticsearch
    prometheus_labels:
      cluster: prod
    auth:
      username: console
      password: ${ES_PASSWORD}
    timeouts:
      request: 10s
"#;
    let settings = load(yaml, &[("ES_PASSWORD", "hunter2")]).unwrap();
    let cluster = &settings.clusters[0];
    assert_eq!(cluster.metrics_source, MetricsSource::ExternalMetrics);
    assert_eq!(
        cluster.metrics_server_url.as_deref(),
        Some("http://prometheus:9090")
    );
    assert_eq!(
        cluster.metrics_server_job_name.as_deref(),
        Some("elasticsearch")
    );
    assert_eq!(cluster.metrics_server_labels["cluster"], "prod");
    assert!(
        !format!("{settings:?}").contains("hunter2"),
        "secrets are redacted in Debug"
    );
}

#[test]
fn every_problem_is_reported_with_its_key_path() {
    let yaml = r#"
clusters:
  - id: a
    name: A
    url: http://127.0.0.1:9200
  - id: b
    name: B
    url: not-a-url
    metrics_source: external_metrics
  - id: a
    name: Again
    url: ftp://x
    metrics_server_url: "::"
    auth:
      username: u
      api_key: k
    tls:
      ca_file: /nonexistent/ca.pem
"#;
    let problems = load(yaml, &[]).unwrap_err();
    let text = problems.join("\n");
    for expected in [
        "clusters[1].url",
        "clusters[1].metrics_server_url: is required when metrics_source is external_metrics",
        "clusters[2].id: \"a\" is already the id of clusters[0]",
        "clusters[2].url: must use http or https",
        "clusters[2].metrics_server_url: is not a valid URL",
        "clusters[2].auth: must hold exactly one of",
        "clusters[2].tls.ca_file",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn unknown_keys_are_refused_and_missing_secrets_do_not_leak() {
    let problems = load(
        "clusters:\n  - id: a\n    name: A\n    url: http://x\n    colour: blue\n",
        &[],
    )
    .unwrap_err();
    assert!(problems.join("\n").contains("colour"), "{problems:?}");
    let problems = load(
        "clusters:\n  - id: a\n    name: A\n    url: http://x\n    auth:\n      bearer_token: ${TOKEN}\n",
        &[],
    )
    .unwrap_err();
    assert!(
        problems.join("\n").contains("TOKEN is not set"),
        "{problems:?}"
    );
}

#[test]
fn a_configuration_without_clusters_is_refused_with_what_to_add() {
    for yaml in ["", "server:\n  port: 8080\n", "clusters: []\n"] {
        let problems = load(yaml, &[]).unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("clusters: no cluster is configured"),
            "{problems:?}"
        );
        assert!(problems[0].contains("id, name and url"), "{problems:?}");
    }
}

#[test]
fn unknown_enum_values_name_the_accepted_ones_and_durations_their_forms() {
    let secret = "hunter2-value";
    let yaml = format!(
        "access:\n  mode: {secret}\n  roles: [{{group: ops, role: {secret}}}]\ninternal_history:\n  sample_interval: {secret}\nclusters:\n  - id: a\n    name: A\n    url: http://127.0.0.1:9200\n    metrics_source: {secret}\n    environment: {secret}\n    timeouts: {{relay: 5 parsecs}}\n"
    );
    let problems = load(&yaml, &[]).unwrap_err();
    let text = problems.join("\n");
    for expected in [
        "access.mode: must be open or trusted_headers",
        "access.roles[0].role: must be one of none, viewer, operator, or admin",
        "clusters[0].environment: must be one of production, staging, test, or development",
        "clusters[0].metrics_source: must be one of internal, external_metrics, or prometheus",
        "clusters[0].timeouts.relay: invalid value: expected a duration: a number and a unit such as 500ms, 30s, 5m",
        "internal_history.sample_interval: invalid value: expected a duration",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert_eq!(problems.len(), 6, "{text}");
    assert!(!text.contains(secret), "the value leaked:\n{text}");
    assert!(!text.contains("parsecs"), "the value leaked:\n{text}");
    // The same through an environment override.
    let problems = load(
        "clusters:\n  - {id: a, name: A, url: 'http://127.0.0.1:9200'}\n",
        &[("ADMIN_CONSOLE_ACCESS__MODE", secret)],
    )
    .unwrap_err();
    assert_eq!(problems, ["access.mode: must be open or trusted_headers"]);
}
