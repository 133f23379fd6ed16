//! The `_cat` APIs' output: `format=json` or the text table, with `h` (names, aliases,
//! wildcards), `v`, `s` and `bytes` as the clusters read them.

use std::cmp::Ordering;

use serde_json::{Map, Value};

use crate::wire::{Call, Reply, ok};

/// Renders `rows` (every known column) as the request asks; `defaults` are the columns shown
/// without `h`; `aliases` map short names to columns.
pub(crate) fn render(
    call: &Call,
    rows: &[Map<String, Value>],
    defaults: &[&str],
    aliases: &[(&str, &str)],
) -> Reply {
    let resolve = |name: &str| -> String {
        aliases
            .iter()
            .find(|(alias, _)| *alias == name)
            .map(|(_, column)| column.to_string())
            .unwrap_or_else(|| name.to_owned())
    };
    let known: Vec<String> = rows
        .first()
        .map(|row| row.keys().cloned().collect())
        .unwrap_or_default();
    let columns: Vec<String> = match call.param("h") {
        Some(h) if !h.is_empty() => h
            .split(',')
            .flat_map(|name| {
                let name = resolve(name.trim());
                if name.contains('*') {
                    known
                        .iter()
                        .filter(|column| crate::wire::wildcard(&name, column))
                        .cloned()
                        .collect()
                } else {
                    vec![name]
                }
            })
            .collect(),
        _ => defaults.iter().map(|column| column.to_string()).collect(),
    };
    let mut rows: Vec<&Map<String, Value>> = rows.iter().collect();
    if let Some(sort) = call.param("s") {
        let keys: Vec<(String, bool)> = sort
            .split(',')
            .map(|key| match key.split_once(':') {
                Some((name, order)) => (resolve(name), order == "desc"),
                None => (resolve(key), false),
            })
            .collect();
        rows.sort_by(|a, b| {
            keys.iter()
                .map(|(column, desc)| {
                    let order = compare(a.get(column), b.get(column));
                    if *desc { order.reverse() } else { order }
                })
                .find(|order| order.is_ne())
                .unwrap_or(Ordering::Equal)
        });
    }
    if call.param("format") == Some("json") {
        let list: Vec<Value> = rows
            .iter()
            .map(|row| {
                Value::Object(
                    columns
                        .iter()
                        .map(|column| {
                            (
                                column.clone(),
                                row.get(column).cloned().unwrap_or(Value::Null),
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        return ok(&Value::Array(list));
    }
    let cell = |row: &Map<String, Value>, column: &str| match row.get(column) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let mut table: Vec<Vec<String>> = Vec::new();
    if call.flag("v") {
        table.push(columns.clone());
    }
    for row in &rows {
        table.push(columns.iter().map(|column| cell(row, column)).collect());
    }
    let widths: Vec<usize> = (0..columns.len())
        .map(|i| {
            table
                .iter()
                .map(|line| line[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for line in &table {
        let cells: Vec<String> = line
            .iter()
            .zip(&widths)
            .map(|(value, width)| {
                if value.parse::<f64>().is_ok() {
                    format!("{value:>width$}")
                } else {
                    format!("{value:<width$}")
                }
            })
            .collect();
        text.push_str(cells.join(" ").trim_end());
        text.push('\n');
    }
    Reply::Text(200, text)
}

fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    let text = |value: Option<&Value>| match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let (a, b) = (text(a), text(b));
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        _ => a.cmp(&b),
    }
}

/// A size as `_cat` shows it: in the unit of `bytes=` when given, else human (`1.2gb`).
pub(crate) fn bytes(value: u64, call: &Call) -> String {
    const UNITS: [(&str, u64); 6] = [
        ("pb", 1 << 50),
        ("tb", 1 << 40),
        ("gb", 1 << 30),
        ("mb", 1 << 20),
        ("kb", 1 << 10),
        ("b", 1),
    ];
    if let Some(unit) = call.param("bytes")
        && let Some((_, size)) = UNITS.iter().find(|(name, _)| *name == unit)
    {
        return (value / size).to_string();
    }
    let (name, size) = UNITS
        .iter()
        .find(|(_, size)| value >= *size)
        .copied()
        .unwrap_or(("b", 1));
    let scaled = value as f64 / size as f64;
    let text = format!("{scaled:.1}");
    format!("{}{name}", text.trim_end_matches(".0"))
}
