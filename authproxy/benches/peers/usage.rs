//! A process's CPU and memory, read from `/proc`.

use std::time::{Duration, Instant};

/// Waits (up to two minutes) until `pid` uses less than a tenth of a core: what it still had
/// queued when the load stopped is done.
pub fn settle(pid: u32) {
    let cpu_ticks = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
        // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
        fields.get(11..13).map_or(0u64, |times| {
            times.iter().filter_map(|t| t.parse::<u64>().ok()).sum()
        })
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last = cpu_ticks();
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        let now = cpu_ticks();
        // 100 ticks a second: under 2 ticks in 200 ms is under a tenth of a core.
        if now - last < 2 {
            return;
        }
        last = now;
    }
}

pub fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{field}:")))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
