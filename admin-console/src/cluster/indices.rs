//! The index list: one `_cat/indices` call (cached for a few seconds, shared by concurrent
//! requests), then filtering, sorting and paging here, so paging through 10,000 indices costs
//! one cluster call per cache period and a sort of small rows.

use std::cmp::Ordering;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::ClusterApi;
use super::views::Health;
use crate::error::Error;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IndexRow {
    pub name: String,
    pub health: Option<Health>,
    pub status: String,
    pub primaries: u64,
    pub replicas: u64,
    pub docs_count: u64,
    pub store_size_bytes: u64,
}

pub const CAT_INDICES_PATH: &str = "_cat/indices?format=json&bytes=b&expand_wildcards=all&h=health,status,index,pri,rep,docs.count,store.size";

/// Fetches every index row (hidden ones too) in one call.
pub async fn fetch_indices(cluster: &impl ClusterApi) -> Result<Arc<Vec<IndexRow>>, Error> {
    let rows = cluster.get_json(CAT_INDICES_PATH).await?;
    let rows = rows.as_array().ok_or_else(|| {
        Error::upstream("The _cat/indices answer is not a JSON array.".to_owned())
    })?;
    Ok(Arc::new(rows.iter().filter_map(index_row).collect()))
}

/// `_cat` values are strings (numbers too), and closed indices have null counts.
fn index_row(row: &Value) -> Option<IndexRow> {
    let number = |key: &str| -> u64 {
        match &row[key] {
            Value::String(text) => text.parse().unwrap_or(0),
            Value::Number(number) => number.as_u64().unwrap_or(0),
            _ => 0,
        }
    };
    Some(IndexRow {
        name: row["index"].as_str()?.to_owned(),
        health: row["health"].as_str().and_then(Health::parse),
        status: row["status"].as_str().unwrap_or("open").to_owned(),
        primaries: number("pri"),
        replicas: number("rep"),
        docs_count: number("docs.count"),
        store_size_bytes: number("store.size"),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum SortKey {
    Name,
    Health,
    Status,
    DocsCount,
    StoreSizeBytes,
    Primaries,
    Replicas,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Order {
    Asc,
    Desc,
}

/// The query string of the index list, before checking.
#[derive(Debug, Default, Deserialize)]
pub struct IndexQueryParams {
    pub page: Option<String>,
    pub size: Option<String>,
    pub sort: Option<String>,
    pub order: Option<String>,
    pub filter: Option<String>,
}

#[derive(Debug, Clone)]
pub struct IndexQuery {
    pub page: usize,
    pub size: usize,
    pub sort: SortKey,
    pub order: Order,
    /// Lower-cased substring of the index name.
    pub filter: Option<String>,
}

pub const MAX_PAGE_SIZE: usize = 500;

impl IndexQuery {
    pub fn parse(params: &IndexQueryParams) -> Result<Self, Error> {
        let page = parse_bounded(params.page.as_deref(), "page", 1, 1, usize::MAX)?;
        let size = parse_bounded(params.size.as_deref(), "size", 50, 1, MAX_PAGE_SIZE)?;
        let sort = match params.sort.as_deref() {
            None | Some("") => SortKey::Name,
            Some(text) => serde_json::from_value(Value::String(text.to_owned())).map_err(|_| {
                Error::BadRequest(format!(
                    "sort must be one of name, health, status, docsCount, storeSizeBytes, primaries, replicas, not \"{text}\"."
                ))
            })?,
        };
        let order = match params.order.as_deref() {
            None | Some("") => Order::Asc,
            Some("asc") => Order::Asc,
            Some("desc") => Order::Desc,
            Some(text) => {
                return Err(Error::BadRequest(format!(
                    "order must be asc or desc, not \"{text}\"."
                )));
            }
        };
        let filter = params
            .filter
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_lowercase);
        Ok(Self {
            page,
            size,
            sort,
            order,
            filter,
        })
    }
}

fn parse_bounded(
    text: Option<&str>,
    name: &str,
    default: usize,
    min: usize,
    max: usize,
) -> Result<usize, Error> {
    let Some(text) = text.filter(|text| !text.is_empty()) else {
        return Ok(default);
    };
    let value: usize = text.parse().map_err(|_| {
        Error::BadRequest(format!("{name} must be a whole number, not \"{text}\"."))
    })?;
    if value < min || value > max {
        return Err(Error::BadRequest(format!(
            "{name} must be between {min} and {max}, not {value}."
        )));
    }
    Ok(value)
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IndexPage {
    pub total: usize,
    pub page: usize,
    pub size: usize,
    pub sort: SortKey,
    pub order: Order,
    pub indices: Vec<IndexRow>,
}

/// Filters, sorts (ties broken by name, so pages are stable) and cuts one page.
pub fn page_of(rows: &[IndexRow], query: &IndexQuery) -> IndexPage {
    let mut matching: Vec<&IndexRow> = match &query.filter {
        None => rows.iter().collect(),
        Some(filter) => rows
            .iter()
            .filter(|row| row.name.to_lowercase().contains(filter.as_str()))
            .collect(),
    };
    let compare = |a: &&IndexRow, b: &&IndexRow| -> Ordering {
        let primary = match query.sort {
            SortKey::Name => Ordering::Equal,
            // Worst first in descending order: red > yellow > green, unknown lowest.
            SortKey::Health => a.health.cmp(&b.health),
            SortKey::Status => a.status.cmp(&b.status),
            SortKey::DocsCount => a.docs_count.cmp(&b.docs_count),
            SortKey::StoreSizeBytes => a.store_size_bytes.cmp(&b.store_size_bytes),
            SortKey::Primaries => a.primaries.cmp(&b.primaries),
            SortKey::Replicas => a.replicas.cmp(&b.replicas),
        };
        let ordered = primary.then_with(|| a.name.cmp(&b.name));
        match query.order {
            Order::Asc => ordered,
            Order::Desc => ordered.reverse(),
        }
    };
    let total = matching.len();
    let start = (query.page - 1).saturating_mul(query.size);
    let end = start.saturating_add(query.size).min(total);
    let indices = if start >= total {
        Vec::new()
    } else if end < total / 4 {
        // Only the first page(s): a partial selection instead of a full sort.
        matching.select_nth_unstable_by(end, compare);
        let mut head = matching[..end].to_vec();
        head.sort_by(compare);
        head[start..].iter().map(|row| (*row).clone()).collect()
    } else {
        matching.sort_by(compare);
        matching[start..end]
            .iter()
            .map(|row| (*row).clone())
            .collect()
    };
    IndexPage {
        total,
        page: query.page,
        size: query.size,
        sort: query.sort,
        order: query.order,
        indices,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, docs: u64, health: Option<Health>) -> IndexRow {
        IndexRow {
            name: name.to_owned(),
            health,
            status: "open".to_owned(),
            primaries: 1,
            replicas: 1,
            docs_count: docs,
            store_size_bytes: docs * 10,
        }
    }

    fn query(page: usize, size: usize, sort: SortKey, order: Order) -> IndexQuery {
        IndexQuery {
            page,
            size,
            sort,
            order,
            filter: None,
        }
    }

    #[test]
    fn pages_are_sorted_stable_and_bounded() {
        let rows: Vec<IndexRow> = (0..10_000)
            .map(|n| row(&format!("idx-{n:05}"), n % 7, Some(Health::Green)))
            .collect();
        let first = page_of(&rows, &query(1, 3, SortKey::DocsCount, Order::Desc));
        assert_eq!(first.total, 10_000);
        let names: Vec<_> = first.indices.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["idx-09995", "idx-09988", "idx-09981"]);
        let last = page_of(&rows, &query(3334, 3, SortKey::Name, Order::Asc));
        assert_eq!(last.indices.len(), 1);
        assert_eq!(last.indices[0].name, "idx-09999");
        assert!(
            page_of(&rows, &query(5000, 3, SortKey::Name, Order::Asc))
                .indices
                .is_empty()
        );
        // The partial-selection path and the full sort agree.
        let full = page_of(&rows, &query(2, 100, SortKey::DocsCount, Order::Asc));
        let mut sorted = rows.clone();
        sorted.sort_by(|a, b| a.docs_count.cmp(&b.docs_count).then(a.name.cmp(&b.name)));
        let expected: Vec<_> = sorted[100..200].iter().map(|r| r.name.clone()).collect();
        let got: Vec<_> = full.indices.iter().map(|r| r.name.clone()).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn filter_is_a_case_insensitive_substring() {
        let rows = vec![
            row("Logs-a", 1, None),
            row("metrics", 2, None),
            row("logs-b", 3, None),
        ];
        let mut q = query(1, 50, SortKey::Name, Order::Asc);
        q.filter = Some("logs".to_owned());
        let page = page_of(&rows, &q);
        assert_eq!(page.total, 2);
    }

    #[test]
    fn bad_parameters_say_which_rule_was_broken() {
        let params = |page: &str, size: &str, sort: &str, order: &str| IndexQueryParams {
            page: Some(page.into()),
            size: Some(size.into()),
            sort: Some(sort.into()),
            order: Some(order.into()),
            filter: None,
        };
        let message = |p: IndexQueryParams| IndexQuery::parse(&p).unwrap_err().to_string();
        assert!(message(params("0", "50", "name", "asc")).contains("page must be between"));
        assert!(message(params("1", "501", "name", "asc")).contains("size must be between"));
        assert!(message(params("x", "50", "name", "asc")).contains("whole number"));
        assert!(message(params("1", "50", "bogus", "asc")).contains("sort must be one of"));
        assert!(message(params("1", "50", "name", "up")).contains("order must be"));
        let ok = IndexQuery::parse(&params("2", "10", "docsCount", "desc")).unwrap();
        assert_eq!(
            (ok.page, ok.size, ok.sort, ok.order),
            (2, 10, SortKey::DocsCount, Order::Desc)
        );
    }
}
