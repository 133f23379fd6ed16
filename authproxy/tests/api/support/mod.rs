//! Servers and helpers the authproxy tests start themselves.

pub mod browser;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// `Basic base64(user:password)`.
pub fn basic(user: &str, password: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{user}:{password}")))
}

/// `(user, password)` from a Basic header value.
pub fn decode_basic(value: &str) -> (String, String) {
    let encoded = value.strip_prefix("Basic ").expect("a Basic header");
    let decoded = String::from_utf8(STANDARD.decode(encoded).unwrap()).unwrap();
    let (user, password) = decoded.split_once(':').unwrap();
    (user.to_owned(), password.to_owned())
}

/// A bcrypt hash at the lowest cost, so tests stay fast in debug builds.
pub fn bcrypt_hash(password: &str) -> String {
    bcrypt::hash(password, 4).unwrap()
}

/// The sum of the samples of `name` on a `/_metrics` text whose labels include every one of
/// `labels` (`key="value"`); 0 when there is none yet.
pub fn sample_sum(metrics: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    let prefix = format!("{name}{{");
    let wanted: Vec<String> = labels
        .iter()
        .map(|(key, value)| format!("{key}=\"{value}\""))
        .collect();
    metrics
        .lines()
        .filter(|line| line.starts_with(&prefix))
        .filter(|line| wanted.iter().all(|label| line.contains(label.as_str())))
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}
