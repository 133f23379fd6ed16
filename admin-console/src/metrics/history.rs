//! The history shape of DECISIONS.md, the step rule that bounds its size, and the in-memory
//! store the background sampler fills for `internal` clusters.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::Serialize;

use super::Measurement;
use super::time_range::TimeRange;

/// No history answer has more points than this; the step grows with the range.
pub const MAX_POINTS: i64 = 500;

pub type HistoryPoint = Measurement;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MetricsHistory"))]
pub struct History {
    pub cluster_id: String,
    #[cfg_attr(test, ts(type = "\"internal\" | \"external_metrics\""))]
    pub source: &'static str,
    pub start: i64,
    pub end: i64,
    pub step: i64,
    pub points: Vec<HistoryPoint>,
    /// Why `points` is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reason: Option<String>,
    /// `internal` only: since when the console has history of the cluster (Unix seconds; when
    /// it started sampling, or the oldest sample kept once older ones were dropped).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub collecting_since: Option<i64>,
}

impl History {
    pub fn new(
        cluster_id: &str,
        source: &'static str,
        range: TimeRange,
        step: i64,
        points: Vec<HistoryPoint>,
        reason: Option<String>,
    ) -> Self {
        Self {
            cluster_id: cluster_id.to_owned(),
            source,
            start: range.start,
            end: range.end,
            step,
            points,
            reason,
            collecting_since: None,
        }
    }

    pub fn collecting_since(mut self, since: i64) -> Self {
        self.collecting_since = Some(since);
        self
    }
}

/// The smallest step of at least `min_step` seconds that keeps the range within
/// [`MAX_POINTS`] points, rounded up to a whole minute past one minute.
pub fn step_for(range: TimeRange, min_step: i64) -> i64 {
    let needed = (range.span() + MAX_POINTS - 1) / MAX_POINTS;
    let step = needed.max(min_step).max(1);
    if step > 60 {
        (step + 59) / 60 * 60
    } else {
        step
    }
}

/// The samples of one cluster, oldest first, at most `capacity` of them.
pub struct HistoryStore {
    capacity: usize,
    samples: Mutex<VecDeque<Measurement>>,
    /// When the store was made (the sampler starts with it), Unix seconds.
    created: i64,
    /// Whether a sample was dropped for want of room.
    dropped: std::sync::atomic::AtomicBool,
}

impl HistoryStore {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            samples: Mutex::new(VecDeque::new()),
            created: super::time_range::now(),
            dropped: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub fn record(&self, sample: Measurement) {
        let mut samples = self.samples.lock().unwrap_or_else(|p| p.into_inner());
        if samples.len() == self.capacity {
            samples.pop_front();
            self.dropped
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        samples.push_back(sample);
    }

    /// Since when there is history: the store's creation, or an older sample recorded (a
    /// backfill), or, once samples were dropped, the oldest one kept.
    pub fn collecting_since(&self) -> i64 {
        let samples = self.samples.lock().unwrap_or_else(|p| p.into_inner());
        let oldest = samples.front().map(|sample| sample.timestamp);
        if self.dropped.load(std::sync::atomic::Ordering::Relaxed) {
            oldest.unwrap_or(self.created)
        } else {
            oldest.map_or(self.created, |oldest| oldest.min(self.created))
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.samples.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// The latest sample of each `step` bucket of `range`, with its own timestamp: buckets
    /// without a sample have no point.
    pub fn points(&self, range: TimeRange, step: i64) -> Vec<Measurement> {
        let samples = self.samples.lock().unwrap_or_else(|p| p.into_inner());
        let mut points: Vec<Measurement> = Vec::new();
        let mut last_bucket = None;
        for sample in samples
            .iter()
            .filter(|sample| sample.timestamp >= range.start && sample.timestamp <= range.end)
        {
            let bucket = (sample.timestamp - range.start) / step.max(1);
            if last_bucket == Some(bucket) {
                points.pop();
            }
            points.push(sample.clone());
            last_bucket = Some(bucket);
        }
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_bounds_the_number_of_points() {
        let week = TimeRange {
            start: 0,
            end: 7 * 86_400,
        };
        let month = TimeRange {
            start: 0,
            end: 30 * 86_400,
        };
        for range in [week, month] {
            let step = step_for(range, 60);
            assert!(range.span() / step <= MAX_POINTS, "{step}");
            assert_eq!(step % 60, 0);
        }
        assert_eq!(
            step_for(
                TimeRange {
                    start: 0,
                    end: 3600
                },
                15
            ),
            15
        );
    }

    #[test]
    fn the_store_says_since_when_it_collects() {
        let store = HistoryStore::new(2);
        let created = store.created;
        assert_eq!(
            store.collecting_since(),
            created,
            "nothing yet: since it started"
        );
        store.record(Measurement::empty(created + 5));
        assert_eq!(store.collecting_since(), created);
        store.record(Measurement::empty(created - 600));
        assert_eq!(
            store.collecting_since(),
            created,
            "oldest first, as recorded"
        );
        store.record(Measurement::empty(created + 10));
        assert_eq!(
            store.collecting_since(),
            created - 600,
            "the oldest kept once full"
        );
    }

    #[test]
    fn the_store_is_bounded_and_never_invents_points() {
        let store = HistoryStore::new(3);
        for timestamp in [10, 20, 30, 40] {
            store.record(Measurement::empty(timestamp));
        }
        assert_eq!(store.len(), 3);
        let all = store.points(TimeRange { start: 0, end: 100 }, 1);
        let stamps: Vec<_> = all.iter().map(|p| p.timestamp).collect();
        assert_eq!(stamps, [20, 30, 40]);
        let coarse = store.points(TimeRange { start: 0, end: 100 }, 50);
        let stamps: Vec<_> = coarse.iter().map(|p| p.timestamp).collect();
        assert_eq!(stamps, [40]);
        assert!(
            store
                .points(
                    TimeRange {
                        start: 50,
                        end: 100
                    },
                    1
                )
                .is_empty()
        );
    }
}
