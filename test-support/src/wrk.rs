//! wrk (Debian's HTTP load generator), the benchmarks' client: one run on loopback and the
//! figures of its `--latency` report.

use std::process::Command;

/// What one wrk run reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrkReport {
    pub requests_per_second: f64,
    /// Latency percentiles; NaN when no request was answered (wrk then prints zeros).
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// "Non-2xx or 3xx responses: N".
    pub non_2xx: u64,
    /// "Socket errors: connect A, read B, write C, timeout D", summed.
    pub socket_errors: u64,
}

/// Runs `wrk -t2 -c<connections> -d<seconds>s --timeout 10s --latency` against `url` with
/// `headers` (`Name: value`); panics naming the output when wrk does not report.
pub fn run(url: &str, headers: &[&str], seconds: u64, connections: u64) -> WrkReport {
    let mut command = Command::new("wrk");
    command.args([
        "-t2",
        &format!("-c{connections}"),
        &format!("-d{seconds}s"),
        "--timeout",
        "10s",
        "--latency",
    ]);
    for header in headers {
        command.args(["-H", header]);
    }
    command.arg(url);
    let output = command.output().expect("running wrk");
    parse(&String::from_utf8_lossy(&output.stdout))
}

/// The figures of a wrk `--latency` report.
pub fn parse(text: &str) -> WrkReport {
    let lines = || text.lines().map(str::trim);
    let requests_per_second = lines()
        .find_map(|line| line.strip_prefix("Requests/sec:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no Requests/sec in wrk output:\n{text}"));
    // No request answered: wrk prints zero latencies, which are none.
    let answered = requests_per_second > 0.0;
    let percentile = |label: &str| {
        if !answered {
            return f64::NAN;
        }
        lines()
            .find_map(|line| line.strip_prefix(label))
            .map(|value| latency_ms(value.trim()))
            .unwrap_or_else(|| panic!("no {label} latency in wrk output:\n{text}"))
    };
    let non_2xx = lines()
        .find_map(|line| line.strip_prefix("Non-2xx or 3xx responses:"))
        .and_then(|count| count.trim().parse().ok())
        .unwrap_or(0);
    let socket_errors = lines()
        .find_map(|line| line.strip_prefix("Socket errors:"))
        .map(|list| {
            list.split(',')
                .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    WrkReport {
        requests_per_second,
        p50_ms: percentile("50%"),
        p99_ms: percentile("99%"),
        non_2xx,
        socket_errors,
    }
}

/// wrk's `1.23ms`, `850.00us`, `1.01s`, `1.50m`.
fn latency_ms(value: &str) -> f64 {
    let split = value
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let number: f64 = number.parse().unwrap_or(f64::NAN);
    match unit {
        "us" => number / 1000.0,
        "ms" => number,
        "s" => number * 1000.0,
        "m" => number * 60_000.0,
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "Running 5s test @ http://127.0.0.1:8080/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.10ms  850.00us  20.01ms   90.00%
  Latency Distribution
     50%  850.00us
     75%    1.20ms
     90%    2.00ms
     99%    1.01s
  320000 requests in 5.00s, 40.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:  64000.50
Transfer/sec:      8.00MB
";

    #[test]
    fn a_report_is_read_whole() {
        assert_eq!(
            parse(REPORT),
            WrkReport {
                requests_per_second: 64000.5,
                p50_ms: 0.85,
                p99_ms: 1010.0,
                non_2xx: 7,
                socket_errors: 5,
            }
        );
    }

    #[test]
    fn no_answer_has_no_latency() {
        let report = parse("  Latency Distribution\n     50%    0.00us\nRequests/sec:      0.00\n");
        assert!(report.p50_ms.is_nan() && report.p99_ms.is_nan());
        assert_eq!((report.non_2xx, report.socket_errors), (0, 0));
    }
}
