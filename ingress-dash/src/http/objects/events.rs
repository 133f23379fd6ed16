//! The events of one object: the field selector, and the newest [`MAX_EVENTS`] of what the API
//! server lists, in the answer's shape.
//!
//! Times follow the core/v1 Event reference: `lastTimestamp` is "the time at which the most
//! recent occurrence of this event was recorded"; events written through events.k8s.io/v1 carry
//! `eventTime` ("first observed") and, when repeated, `series.lastObservedTime` and
//! `series.count` instead. An event's time of last occurrence is therefore the later of
//! `lastTimestamp` and `series.lastObservedTime`, else `eventTime`, else `firstTimestamp`, else
//! the object's creation time; its first occurrence `firstTimestamp`, else `eventTime`.

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;

use super::Target;
use crate::access::redaction::SecretTexts;
use crate::error::Error;

/// Events in one answer, newest first.
pub const MAX_EVENTS: usize = 50;
/// Events read (over pages) before the newest are picked: bounds memory for a noisy object.
pub const MAX_READ: usize = 5_000;
/// Characters of a message kept (controllers sometimes put whole configuration dumps there).
pub const MAX_MESSAGE: usize = 1_024;
/// Characters kept of the short fields (reason, source, type).
const MAX_SHORT: usize = 256;

/// `?type=`: `warning` (the default), `normal` or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeFilter {
    Warning,
    Normal,
    All,
}

impl TypeFilter {
    pub fn parse(parameter: Option<&str>) -> Result<Self, Error> {
        let text = parameter.map(str::trim).unwrap_or_default();
        match text.to_ascii_lowercase().as_str() {
            "" | "warning" => Ok(Self::Warning),
            "normal" => Ok(Self::Normal),
            "all" => Ok(Self::All),
            _ => Err(Error::InvalidEventType(text.chars().take(32).collect())),
        }
    }
}

/// `involvedObject.kind=…,involvedObject.name=…,involvedObject.namespace=…[,type=…]` (the names
/// were checked: no `,`, `=` or `!` can be in them).
pub fn field_selector(target: &Target, filter: TypeFilter) -> String {
    let mut selector = format!(
        "involvedObject.kind={},involvedObject.name={},involvedObject.namespace={}",
        target.kind.name(),
        target.name,
        target.namespace
    );
    match filter {
        TypeFilter::Warning => selector.push_str(",type=Warning"),
        TypeFilter::Normal => selector.push_str(",type=Normal"),
        TypeFilter::All => {}
    }
    selector
}

/// The body of `GET /api/objects/{kind}/{namespace}/{name}/events`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ObjectEvents {
    /// Newest first, at most 50.
    pub events: Vec<ObjectEvent>,
}

/// One event, as `kubectl events` shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ObjectEvent {
    /// `Warning` or `Normal`.
    #[serde(rename = "type")]
    pub event_type: String,
    pub reason: String,
    /// At most 1,024 characters (longer ones end with "…").
    pub message: String,
    /// How many times it happened (at least 1).
    pub count: i32,
    /// RFC 3339.
    pub first_timestamp: Option<String>,
    /// RFC 3339: the most recent occurrence.
    pub last_timestamp: Option<String>,
    /// The component that reported it (`source.component`, else `reportingComponent`).
    pub source: Option<String>,
}

/// The newest [`MAX_EVENTS`] of `items`, newest first (ties by name, so the order is stable),
/// the object's `secrets` hidden in their messages (before they are cut).
pub fn select(items: Vec<Event>, secrets: &SecretTexts) -> ObjectEvents {
    let mut dated: Vec<(Option<Timestamp>, String, Event)> = items
        .into_iter()
        .map(|event| {
            let name = event.metadata.name.clone().unwrap_or_default();
            (last_seen(&event), name, event)
        })
        .collect();
    // `None` (no time at all) sorts last.
    dated.sort_by(|(a, a_name, _), (b, b_name, _)| b.cmp(a).then_with(|| a_name.cmp(b_name)));
    ObjectEvents {
        events: dated
            .into_iter()
            .take(MAX_EVENTS)
            .map(|(last, _, event)| ObjectEvent::from_event(event, last, secrets))
            .collect(),
    }
}

fn last_seen(event: &Event) -> Option<Timestamp> {
    let last = event.last_timestamp.as_ref().map(|time| time.0);
    let series = event
        .series
        .as_ref()
        .and_then(|series| series.last_observed_time.as_ref())
        .map(|time| time.0);
    last.max(series)
        .or_else(|| event.event_time.as_ref().map(|time| time.0))
        .or_else(|| event.first_timestamp.as_ref().map(|time| time.0))
        .or_else(|| {
            event
                .metadata
                .creation_timestamp
                .as_ref()
                .map(|time| time.0)
        })
}

impl ObjectEvent {
    fn from_event(event: Event, last: Option<Timestamp>, secrets: &SecretTexts) -> Self {
        let first = event
            .first_timestamp
            .as_ref()
            .map(|time| time.0)
            .or_else(|| event.event_time.as_ref().map(|time| time.0));
        let series_count = event.series.as_ref().and_then(|series| series.count);
        let count = series_count
            .filter(|count| *count > 0)
            .or(event.count)
            .unwrap_or(1)
            .max(1);
        let source = event
            .source
            .as_ref()
            .and_then(|source| source.component.clone())
            .or(event.reporting_component)
            .filter(|component| !component.is_empty());
        Self {
            event_type: bounded(event.type_.unwrap_or_default(), MAX_SHORT),
            reason: bounded(event.reason.unwrap_or_default(), MAX_SHORT),
            message: bounded(
                secrets.hide_in(event.message.unwrap_or_default()),
                MAX_MESSAGE,
            ),
            count,
            first_timestamp: first.map(|time| time.to_string()),
            last_timestamp: last.map(|time| time.to_string()),
            source: source.map(|source| bounded(source, MAX_SHORT)),
        }
    }
}

/// `text` cut to `max` characters, marked with "…" when cut.
fn bounded(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{EventSeries, EventSource};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, Time};

    use super::*;
    use crate::kube::object_reads::ObjectKind;

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + seconds).unwrap()
    }

    fn event(name: &str, last: Option<i64>) -> Event {
        Event {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                ..ObjectMeta::default()
            },
            type_: Some("Warning".into()),
            reason: Some("R".into()),
            message: Some(format!("message of {name}")),
            count: Some(2),
            first_timestamp: Some(Time(at(0))),
            last_timestamp: last.map(|s| Time(at(s))),
            source: Some(EventSource {
                component: Some("ingress-nginx".into()),
                host: None,
            }),
            ..Event::default()
        }
    }

    #[test]
    fn the_selector_names_the_object_and_the_type() {
        let target = Target {
            kind: ObjectKind::HttpRoute,
            namespace: "team-a".into(),
            name: "shop".into(),
        };
        assert_eq!(
            field_selector(&target, TypeFilter::Warning),
            "involvedObject.kind=HTTPRoute,involvedObject.name=shop,involvedObject.namespace=team-a,type=Warning"
        );
        assert!(!field_selector(&target, TypeFilter::All).contains("type="));
        assert_eq!(TypeFilter::parse(None).unwrap(), TypeFilter::Warning);
        assert_eq!(TypeFilter::parse(Some("ALL")).unwrap(), TypeFilter::All);
        assert!(matches!(
            TypeFilter::parse(Some("error")),
            Err(Error::InvalidEventType(_))
        ));
    }

    #[test]
    fn newest_first_by_the_documented_times_and_at_most_fifty() {
        let mut series = event("series", None);
        series.last_timestamp = None;
        series.first_timestamp = None;
        series.count = None;
        series.event_time = Some(MicroTime(at(10)));
        series.series = Some(EventSeries {
            count: Some(7),
            last_observed_time: Some(MicroTime(at(500))),
        });
        let mut created_only = event("created-only", None);
        created_only.first_timestamp = None;
        created_only.metadata.creation_timestamp = Some(Time(at(300)));
        let mut undated = event("undated", None);
        undated.first_timestamp = None;
        let selected = select(
            vec![
                event("old", Some(100)),
                undated,
                series,
                event("new", Some(400)),
                created_only,
            ],
            &SecretTexts::default(),
        );
        let order: Vec<&str> = selected
            .events
            .iter()
            .map(|e| e.message.trim_start_matches("message of "))
            .collect();
        assert_eq!(order, ["series", "new", "created-only", "old", "undated"]);
        let first = &selected.events[0];
        assert_eq!(first.count, 7);
        assert_eq!(first.first_timestamp, Some(at(10).to_string()));
        assert_eq!(first.last_timestamp, Some(at(500).to_string()));
        assert_eq!(first.source.as_deref(), Some("ingress-nginx"));

        let many: Vec<Event> = (0..80)
            .map(|i| event(&format!("e{i:02}"), Some(i)))
            .collect();
        let selected = select(many, &SecretTexts::default());
        assert_eq!(selected.events.len(), MAX_EVENTS);
        assert_eq!(selected.events[0].message, "message of e79");
    }

    #[test]
    fn long_messages_are_cut_on_a_character_boundary() {
        let mut long = event("long", Some(1));
        long.message = Some("é".repeat(5_000));
        let selected = select(vec![long], &SecretTexts::default());
        let message = &selected.events[0].message;
        assert_eq!(message.chars().count(), MAX_MESSAGE);
        assert!(message.ends_with('…'));
    }
}
