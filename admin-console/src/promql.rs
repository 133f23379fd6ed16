//! PromQL text built from configuration: label matchers with escaped values, and the queries on
//! elasticsearch_exporter's metric names.

use std::collections::BTreeMap;

/// `[a-zA-Z_][a-zA-Z0-9_]*`, Prometheus's label name rule.
pub fn is_label_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A label value as a PromQL double-quoted string: `\`, `"` and line breaks escaped.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The matchers that pick one cluster's series: `job="…",label="…"` (may be empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeriesFilter {
    matchers: Vec<String>,
}

impl SeriesFilter {
    pub fn new(job_name: Option<&str>, labels: &BTreeMap<String, String>) -> Self {
        let mut matchers = Vec::new();
        if let Some(job) = job_name.filter(|job| !job.is_empty()) {
            matchers.push(format!("job={}", quote(job)));
        }
        for (name, value) in labels {
            if is_label_name(name) && name != "job" || job_name.is_none() && name == "job" {
                matchers.push(format!("{name}={}", quote(value)));
            }
        }
        Self { matchers }
    }

    /// `metric{filter,extra}`.
    pub fn select(&self, metric: &str, extra: &[&str]) -> String {
        let all: Vec<&str> = self
            .matchers
            .iter()
            .map(String::as_str)
            .chain(extra.iter().copied())
            .collect();
        format!("{metric}{{{}}}", all.join(","))
    }

    /// For messages: `{job="es",env="prod"}`, or `any job and labels`.
    pub fn describe(&self) -> String {
        if self.matchers.is_empty() {
            "any job and labels".to_owned()
        } else {
            format!("{{{}}}", self.matchers.join(","))
        }
    }
}

/// The queries behind each snapshot and history field.
#[derive(Debug, Clone)]
pub struct ExporterQueries {
    /// One series per colour whose value is 1 (`elasticsearch_cluster_health_status`).
    pub health: String,
    /// Whether the exporter read the cluster's health at its last scrape (1) or not (0); the
    /// health series are missing when it did not.
    pub health_up: String,
    pub node_count: String,
    pub index_count: String,
    pub document_count: String,
    pub shard_count: String,
    pub unassigned_shards: String,
    pub memory_usage_percent: String,
    pub disk_usage_percent: String,
    pub cpu_usage_percent: String,
}

impl ExporterQueries {
    pub fn new(filter: &SeriesFilter) -> Self {
        let s = |metric: &str| filter.select(metric, &[]);
        // A cluster without indices has no per-index series: 0 (not "no value") where the
        // exporter's index collector read the cluster successfully.
        let no_indices = format!("0 * max({} == 1)", s("elasticsearch_index_stats_up"));
        Self {
            health: format!("{} == 1", s("elasticsearch_cluster_health_status")),
            health_up: s("elasticsearch_cluster_health_up"),
            node_count: format!("max({})", s("elasticsearch_cluster_health_number_of_nodes")),
            // Index series come with `--es.indices`; several scrapes of one index count once.
            index_count: format!(
                "count(count by (index) ({})) or {no_indices}",
                s("elasticsearch_indices_docs_primary")
            ),
            document_count: format!(
                "sum(max by (index) ({})) or {no_indices}",
                s("elasticsearch_indices_docs_primary")
            ),
            shard_count: format!("max({})", s("elasticsearch_cluster_health_active_shards")),
            unassigned_shards: format!(
                "max({})",
                s("elasticsearch_cluster_health_unassigned_shards")
            ),
            memory_usage_percent: format!(
                "100 * sum({}) / sum({})",
                filter.select("elasticsearch_jvm_memory_used_bytes", &["area=\"heap\""]),
                filter.select("elasticsearch_jvm_memory_max_bytes", &["area=\"heap\""]),
            ),
            disk_usage_percent: format!(
                "100 * (1 - sum({}) / sum({}))",
                s("elasticsearch_filesystem_data_available_bytes"),
                s("elasticsearch_filesystem_data_size_bytes"),
            ),
            cpu_usage_percent: format!("avg({})", s("elasticsearch_os_cpu_percent")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quote("x\ny"), r#""x\ny""#);
        let labels = BTreeMap::from([("env".to_owned(), "pr\"od".to_owned())]);
        let filter = SeriesFilter::new(Some("es"), &labels);
        assert_eq!(
            filter.select("m", &["area=\"heap\""]),
            r#"m{job="es",env="pr\"od",area="heap"}"#
        );
        assert_eq!(SeriesFilter::default().select("m", &[]), "m{}");
    }

    #[test]
    fn index_counts_are_zero_when_the_index_collector_read_no_index() {
        let queries = ExporterQueries::new(&SeriesFilter::new(Some("es"), &BTreeMap::new()));
        assert_eq!(
            queries.index_count,
            r#"count(count by (index) (elasticsearch_indices_docs_primary{job="es"})) or 0 * max(elasticsearch_index_stats_up{job="es"} == 1)"#
        );
        assert!(
            queries
                .document_count
                .ends_with(r#" or 0 * max(elasticsearch_index_stats_up{job="es"} == 1)"#)
        );
    }

    #[test]
    fn label_names_follow_prometheus() {
        assert!(is_label_name("cluster_1"));
        assert!(!is_label_name("1x"));
        assert!(!is_label_name("a-b"));
    }
}
