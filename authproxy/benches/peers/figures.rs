//! What one wrk run measured, the median over the rounds and the printed comparison.

#[derive(Clone, Copy, Default)]
pub struct Figures {
    pub requests_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// wrk's non-2xx answers and socket errors (timeouts included), summed.
    pub errors: u64,
}

/// One figure of each with the ratio authproxy / oauth2-proxy; `higher_is_better` says which
/// way is ahead. NaN is a latency of a run in which no request was answered ("none").
pub fn print_figure(
    name: &str,
    authproxy: f64,
    oauth2_proxy: f64,
    unit: &str,
    higher_is_better: bool,
) {
    let ratio = authproxy / oauth2_proxy;
    let ahead = match (authproxy.is_nan(), oauth2_proxy.is_nan()) {
        (false, true) => "authproxy",
        (true, false) => "oauth2-proxy",
        (true, true) => "-",
        _ if (authproxy > oauth2_proxy) == higher_is_better => "authproxy",
        _ => "oauth2-proxy",
    };
    let value = |v: f64| {
        if v.is_nan() {
            "none".to_owned()
        } else if v >= 100.0 {
            format!("{v:.0}{unit}")
        } else {
            format!("{v:.2}{unit}")
        }
    };
    let ratio = if ratio.is_finite() && ratio > 0.0 {
        format!("{ratio:.2}x")
    } else {
        "-".to_owned()
    };
    println!(
        "{:<46} {:>13} {:>13} {:>8}  {}",
        name,
        value(authproxy),
        value(oauth2_proxy),
        ratio,
        ahead
    );
}

/// The median of each figure on its own.
pub fn median(figures: &[Figures]) -> Figures {
    let middle = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Figures {
        requests_per_second: middle(figures.iter().map(|f| f.requests_per_second).collect()),
        p50_ms: middle(figures.iter().map(|f| f.p50_ms).collect()),
        p99_ms: middle(figures.iter().map(|f| f.p99_ms).collect()),
        errors: figures.iter().map(|f| f.errors).sum(),
    }
}

pub fn wrk(url: &str, headers: &[&str], seconds: u64, connections: u64) -> Figures {
    let report = test_support::wrk::run(url, headers, seconds, connections);
    Figures {
        requests_per_second: report.requests_per_second,
        p50_ms: report.p50_ms,
        p99_ms: report.p99_ms,
        errors: report.non_2xx + report.socket_errors,
    }
}
