//! Percentages of the numbers clusters and metrics servers report, rounded for display.

use serde_json::Value;

/// `used / total` in percent, `None` when the total is missing or zero.
pub fn percent_of(used: &Value, total: &Value) -> Option<f64> {
    let (used, total) = (used.as_f64()?, total.as_f64()?);
    (total > 0.0).then(|| round2(100.0 * used / total))
}

/// Disk use of an `fs.total` object (`total_in_bytes`, `available_in_bytes`).
pub fn disk_used_percent(fs_total: &Value) -> Option<f64> {
    let total = fs_total["total_in_bytes"].as_f64()?;
    let available = fs_total["available_in_bytes"].as_f64()?;
    (total > 0.0).then(|| round2(100.0 * (total - available) / total))
}

pub fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}
