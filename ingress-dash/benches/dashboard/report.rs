//! The figures of one scale, their goals, and the tables printed: each scale's, then the scales
//! side by side with the ratio of the largest to the smallest.

use std::time::Duration;

use serde::Deserialize;

use super::measure::ms;

/// What web/bench/first-render.mjs prints (medians of its runs).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Browser {
    pub first_render_ms: f64,
    pub from_snapshot_ms: f64,
    pub dom_rows: f64,
    pub js_heap_mi_b: f64,
    pub runs: Vec<BrowserRun>,
}

/// One page load of web/bench/first-render.mjs.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserRun {
    pub first_render_ms: f64,
    /// The app's `ingress-dash:*` performance marks, ms from the navigation's start.
    #[serde(default)]
    pub marks: std::collections::BTreeMap<String, f64>,
    /// The snapshot fetch's timing (absent when the page started from the stream).
    pub fetch: Option<FetchTiming>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FetchTiming {
    pub start: f64,
    pub first_byte: f64,
    pub end: f64,
}

impl BrowserRun {
    /// Where the time of this page load went, e.g. `fetch 180-190-1010, read 1020, shown 1650`.
    pub fn breakdown(&self) -> String {
        let fetch = self.fetch.as_ref().map_or("no fetch".to_owned(), |f| {
            format!("fetch {:.0}-{:.0}-{:.0}", f.start, f.first_byte, f.end)
        });
        let mark = |name: &str| {
            self.marks
                .get(name)
                .map_or("-".to_owned(), |ms| format!("{ms:.0}"))
        };
        format!(
            "{fetch}, read {}, parsed {}, sorted {}, shown {:.0}",
            mark("snapshot-received"),
            mark("snapshot-parsed"),
            mark("rows-sorted"),
            self.first_render_ms
        )
    }
}

pub struct Figures {
    pub ingresses: usize,
    pub namespaces: usize,
    pub commit: String,
    pub load_before: String,
    pub load_after: String,
    pub populate: Duration,
    pub idle_mib: f64,
    pub first_snapshot: Duration,
    /// When the first client held every record (None: not within 2 minutes).
    pub first_complete: Option<Duration>,
    /// The events the first client received after its snapshot, by kind.
    pub first_events: Vec<String>,
    pub watched_mib: f64,
    pub keeper_snapshot_bytes: usize,
    pub keeper_items: usize,
    pub keeper_errors: Vec<String>,
    pub states: Vec<(&'static str, usize)>,
    pub snapshot_p50: Duration,
    pub snapshot_p95: Duration,
    pub snapshots: usize,
    pub items: usize,
    pub gzip_bytes: usize,
    pub raw_bytes: usize,
    pub api_calls: u64,
    pub snapshots_mib: f64,
    pub trimmed_mib: Option<f64>,
    pub connected_mib: f64,
    pub clients: usize,
    pub connected: usize,
    pub received: usize,
    pub expected: usize,
    pub sse_p50: Duration,
    pub sse_p99: Duration,
    pub browser: Result<Browser, String>,
    pub watches_one: usize,
    pub watches_hundred: usize,
    pub gauge_hundred: String,
    pub watches_after: usize,
    pub gone_after: Duration,
    pub gauge_after: String,
}

/// The goals at a scale: one set up to 10,000 ingresses (memory per 10k, the web benchmark's
/// first render), another above (50,000 ingresses + 50,000 EndpointSlices).
pub struct Goals {
    pub memory_over_idle_mib: f64,
    pub snapshot_p95_ms: f64,
    pub sse_p99_ms: f64,
    pub first_render_ms: f64,
}

pub fn goals(ingresses: usize) -> Goals {
    if ingresses <= 10_000 {
        Goals {
            memory_over_idle_mib: 30.0 * ingresses.div_ceil(10_000) as f64,
            snapshot_p95_ms: 150.0,
            sse_p99_ms: 50.0,
            first_render_ms: 1_500.0,
        }
    } else {
        Goals {
            memory_over_idle_mib: 150.0,
            snapshot_p95_ms: 400.0,
            sse_p99_ms: 50.0,
            first_render_ms: 2_000.0,
        }
    }
}

/// One line of a table: a name, a number (for ratios) with its text, and whether the goal holds
/// (None: no goal).
struct Line {
    name: &'static str,
    value: f64,
    text: String,
    goal: String,
    ok: Option<bool>,
}

fn lines(f: &Figures) -> Vec<Line> {
    let g = goals(f.ingresses);
    let memory_goal = format!("< +{:.0} MiB", g.memory_over_idle_mib);
    let over = |mib: f64| mib - f.idle_mib;
    let states: Vec<String> = f
        .states
        .iter()
        .filter(|(_, count)| *count > 0)
        .map(|(state, count)| format!("{state} {count}"))
        .collect();
    let mut lines = vec![
        Line {
            name: "bulk load into kube-test-server (s)",
            value: f.populate.as_secs_f64(),
            text: format!("{:.1} s", f.populate.as_secs_f64()),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "idle resident memory (MiB)",
            value: f.idle_mib,
            text: format!("{:.1} MiB", f.idle_mib),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "first client: snapshot received (s)",
            value: f.first_snapshot.as_secs_f64(),
            text: format!(
                "{:.2} s, {:.1} MiB, {} items, {} errors{}",
                f.first_snapshot.as_secs_f64(),
                f.keeper_snapshot_bytes as f64 / 1_048_576.0,
                f.keeper_items,
                f.keeper_errors.len(),
                f.keeper_errors
                    .first()
                    .map(|error| format!(": {error}"))
                    .unwrap_or_default()
            ),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "first client: all records received (s)",
            value: f.first_complete.map_or(f64::NAN, |at| at.as_secs_f64()),
            text: format!(
                "{} (then: {})",
                f.first_complete
                    .map_or("not within 2 minutes".into(), |at| format!(
                        "{:.2} s",
                        at.as_secs_f64()
                    )),
                if f.first_events.is_empty() {
                    "no events".to_owned()
                } else {
                    f.first_events.join(", ")
                }
            ),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "memory over idle, all watched (MiB)",
            value: over(f.watched_mib),
            text: format!("+{:.1} MiB ({:.1})", over(f.watched_mib), f.watched_mib),
            goal: memory_goal.clone(),
            ok: Some(over(f.watched_mib) < g.memory_over_idle_mib),
        },
        Line {
            name: "memory over idle, after the snapshots (MiB)",
            value: over(f.snapshots_mib),
            text: format!("+{:.1} MiB ({:.1})", over(f.snapshots_mib), f.snapshots_mib),
            goal: memory_goal.clone(),
            ok: Some(over(f.snapshots_mib) < g.memory_over_idle_mib),
        },
        Line {
            name: "  the same after malloc_trim(0) (MiB)",
            value: f.trimmed_mib.map_or(f64::NAN, over),
            text: f
                .trimmed_mib
                .map_or("not probed (BENCH_TRIM_PROBE=1)".into(), |mib| {
                    format!("+{:.1} MiB ({mib:.1})", over(mib))
                }),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "memory over idle, 1,000 SSE clients (MiB)",
            value: over(f.connected_mib),
            text: format!("+{:.1} MiB ({:.1})", over(f.connected_mib), f.connected_mib),
            goal: memory_goal,
            ok: Some(over(f.connected_mib) < g.memory_over_idle_mib),
        },
        Line {
            name: "snapshot of all ingresses, p50 (ms)",
            value: ms(f.snapshot_p50),
            text: format!("{:.1} ms", ms(f.snapshot_p50)),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "snapshot of all ingresses, p95 (ms)",
            value: ms(f.snapshot_p95),
            text: format!(
                "{:.1} ms (of {}, {} items)",
                ms(f.snapshot_p95),
                f.snapshots,
                f.items
            ),
            goal: format!("< {:.0} ms", g.snapshot_p95_ms),
            ok: Some(ms(f.snapshot_p95) < g.snapshot_p95_ms && f.items == f.ingresses),
        },
        Line {
            name: "snapshot body (KiB)",
            value: f.raw_bytes as f64 / 1024.0,
            text: format!(
                "{:.0} KiB, {} B per item",
                f.raw_bytes as f64 / 1024.0,
                f.raw_bytes / f.items.max(1)
            ),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "snapshot gzip (KiB)",
            value: f.gzip_bytes as f64 / 1024.0,
            text: format!("{:.0} KiB", f.gzip_bytes as f64 / 1024.0),
            // A goal at 10k; none at 50k.
            goal: if f.ingresses <= 10_000 {
                "< 1 MB".into()
            } else {
                String::new()
            },
            ok: (f.ingresses <= 10_000).then_some(f.gzip_bytes < 1_000_000),
        },
        Line {
            name: "API list calls for the steady-state snapshots",
            value: f.api_calls as f64,
            text: f.api_calls.to_string(),
            goal: "0".into(),
            ok: Some(f.api_calls == 0),
        },
        Line {
            name: "records by backend state",
            value: 0.0,
            text: if states.is_empty() {
                "no backends in the records".into()
            } else {
                states.join(", ")
            },
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "SSE event latency p50, 1,000 clients (ms)",
            value: ms(f.sse_p50),
            text: format!("{:.1} ms", ms(f.sse_p50)),
            goal: String::new(),
            ok: None,
        },
        Line {
            name: "SSE event latency p99, 1,000 clients (ms)",
            value: ms(f.sse_p99),
            text: format!(
                "{:.1} ms ({} of {} events, {} clients)",
                ms(f.sse_p99),
                f.received,
                f.expected,
                f.connected
            ),
            goal: format!("< {:.0} ms", g.sse_p99_ms),
            ok: Some(
                ms(f.sse_p99) < g.sse_p99_ms
                    && f.received == f.expected
                    && f.connected == f.clients,
            ),
        },
    ];
    match &f.browser {
        Ok(browser) => {
            lines.push(Line {
                name: "first render in Chromium, median (ms)",
                value: browser.first_render_ms,
                text: format!(
                    "{:.0} ms (runs {}; {:.0} after the snapshot was read, {} DOM rows, JS heap {:.0} MiB)",
                    browser.first_render_ms,
                    browser
                        .runs
                        .iter()
                        .map(|run| format!("{:.0}", run.first_render_ms))
                        .collect::<Vec<_>>()
                        .join(" / "),
                    browser.from_snapshot_ms,
                    browser.dom_rows,
                    browser.js_heap_mi_b
                ),
                goal: format!("< {:.0} ms", g.first_render_ms),
                ok: Some(browser.first_render_ms < g.first_render_ms && browser.dom_rows < 200.0),
            });
        }
        Err(reason) => lines.push(Line {
            name: "first render in Chromium, median (ms)",
            value: f64::NAN,
            text: reason.clone(),
            goal: format!("< {:.0} ms", g.first_render_ms),
            ok: None,
        }),
    }
    lines.push(Line {
        name: "upstream watches, 1 then 100 clients on 2 ns",
        value: f.watches_hundred as f64,
        text: format!(
            "{} then {} (ingress_dash_watchers {})",
            f.watches_one, f.watches_hundred, f.gauge_hundred
        ),
        goal: "same".into(),
        ok: Some(f.watches_one > 0 && f.watches_hundred == f.watches_one),
    });
    lines.push(Line {
        name: "upstream watches after the clients left",
        value: f.watches_after as f64,
        text: format!(
            "{} after {:.1} s (ingress_dash_watchers {})",
            f.watches_after,
            f.gone_after.as_secs_f64(),
            f.gauge_after
        ),
        goal: "0".into(),
        ok: Some(f.watches_after == 0),
    });
    lines
}

fn verdict(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "ok",
        Some(false) => "MISSED",
        None => "",
    }
}

pub fn print_scale(f: &Figures) {
    println!();
    println!(
        "ingress-dash benchmark: {} ingresses + {} EndpointSlices in {} namespaces",
        f.ingresses, f.ingresses, f.namespaces
    );
    println!("commit: {}", f.commit);
    println!(
        "load average before / after: {} / {} (2 cores, shared)",
        f.load_before, f.load_after
    );
    println!("{:<46} {:<62} {:<12}", "measure", "measured", "goal");
    for line in lines(f) {
        println!(
            "{:<46} {:<62} {:<12} {}",
            line.name,
            line.text,
            line.goal,
            verdict(line.ok)
        );
    }
}

/// The scales side by side (figures only), the ratio of the last to the first, and the last
/// scale's goals.
pub fn print_side_by_side(all: &[Figures]) {
    let tables: Vec<Vec<Line>> = all.iter().map(lines).collect();
    let (Some(first), Some(last)) = (all.first(), all.last()) else {
        return;
    };
    println!();
    println!(
        "side by side (ratio = {} / {}):",
        last.ingresses, first.ingresses
    );
    print!("{:<46}", "measure");
    for f in all {
        print!(" {:>12}", format!("{}k", f.ingresses as f64 / 1000.0));
    }
    println!(" {:>7} {:<12}", "ratio", "goal");
    for (row, line) in tables[0].iter().enumerate() {
        if line.name == "records by backend state" {
            continue;
        }
        print!("{:<46}", line.name);
        for table in &tables {
            let value = table[row].value;
            print!(
                " {:>12}",
                if value.is_nan() {
                    "-".to_owned()
                } else {
                    format!("{value:.1}")
                }
            );
        }
        let (a, b) = (line.value, tables[tables.len() - 1][row].value);
        let ratio = if a > 0.0 && b.is_finite() {
            format!("{:.2}", b / a)
        } else {
            "-".into()
        };
        let last_line = &tables[tables.len() - 1][row];
        println!(
            " {:>7} {:<12} {}",
            ratio,
            last_line.goal,
            verdict(last_line.ok)
        );
    }
}
