//! `start`/`end` query parameters: Unix seconds, with the defaults and error rules of the
//! specification (milliseconds, non-numbers and `start >= end` are refused with the reason).

use serde::Deserialize;

use crate::error::Error;

/// Seconds past this look like milliseconds (it is the year 2286 in seconds, 1970 in ms).
const LOOKS_LIKE_MILLISECONDS: i64 = 10_000_000_000;

#[derive(Debug, Default, Deserialize)]
pub struct RangeParams {
    pub start: Option<String>,
    pub end: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub start: i64,
    pub end: i64,
}

impl TimeRange {
    /// `default_span` is how far before `end` an absent `start` is (24 h for the snapshot,
    /// 7 days for history); an absent `end` is `now`.
    pub fn parse(params: &RangeParams, default_span: i64, now: i64) -> Result<Self, Error> {
        let start = parse_seconds("start", params.start.as_deref())?;
        let end = parse_seconds("end", params.end.as_deref())?.unwrap_or(now);
        // Never before 1970: an `end` close to 0 with the default span gives an empty range.
        let start = start.unwrap_or_else(|| end.saturating_sub(default_span).max(0));
        if start >= end {
            return Err(Error::BadRequest(format!(
                "start ({start}) must be before end ({end})."
            )));
        }
        Ok(Self { start, end })
    }

    pub fn span(&self) -> i64 {
        self.end - self.start
    }
}

fn parse_seconds(name: &str, text: Option<&str>) -> Result<Option<i64>, Error> {
    let Some(text) = text.map(str::trim).filter(|text| !text.is_empty()) else {
        return Ok(None);
    };
    let value: i64 = text.parse().map_err(|_| {
        Error::BadRequest(format!(
            "{name} must be a whole number of Unix seconds, not \"{text}\"."
        ))
    })?;
    if value < 0 {
        return Err(Error::BadRequest(format!(
            "{name} must not be negative ({value})."
        )));
    }
    if value >= LOOKS_LIKE_MILLISECONDS {
        return Err(Error::BadRequest(format!(
            "{name} ({value}) looks like milliseconds; give Unix seconds (e.g. {}).",
            value / 1000
        )));
    }
    Ok(Some(value))
}

/// Unix seconds now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn params(start: Option<&str>, end: Option<&str>) -> RangeParams {
        RangeParams {
            start: start.map(str::to_owned),
            end: end.map(str::to_owned),
        }
    }

    #[test]
    fn defaults_are_relative_to_end_or_now() {
        let now = 1_700_000_000;
        assert_eq!(
            TimeRange::parse(&params(None, None), 86_400, now).unwrap(),
            TimeRange {
                start: now - 86_400,
                end: now
            }
        );
        assert_eq!(
            TimeRange::parse(&params(None, Some("1000000")), 100, now).unwrap(),
            TimeRange {
                start: 999_900,
                end: 1_000_000
            }
        );
    }

    #[test]
    fn each_rule_has_its_message() {
        let now = 1_700_000_000;
        let error = |start, end| {
            TimeRange::parse(&params(start, end), 100, now)
                .unwrap_err()
                .to_string()
        };
        assert!(error(Some("abc"), None).contains("whole number of Unix seconds"));
        assert!(error(Some("1700000000000"), None).contains("looks like milliseconds"));
        assert!(error(Some("20"), Some("10")).contains("must be before end"));
        assert!(error(Some("10"), Some("10")).contains("must be before end"));
        assert!(error(Some("-5"), None).contains("negative"));
        assert!(error(None, Some("0")).contains("must be before end"));
    }

    /// Query values as browsers and scripts send them, and as attackers do.
    fn value() -> impl Strategy<Value = Option<String>> {
        prop_oneof![
            Just(None),
            any::<i64>().prop_map(|n| Some(n.to_string())),
            (0..LOOKS_LIKE_MILLISECONDS * 2).prop_map(|n| Some(n.to_string())),
            "[ +-]{0,2}[0-9]{1,22}[ ]?".prop_map(Some),
            any::<String>().prop_map(Some),
        ]
    }

    fn as_number(text: &Option<String>) -> Option<i64> {
        text.as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .and_then(|t| t.parse().ok())
    }

    proptest! {
        #[test]
        fn parsing_never_panics_and_accepted_ranges_are_valid(
            start in value(),
            end in value(),
            default_span in 1i64..=400 * 86_400,
            now in 0..LOOKS_LIKE_MILLISECONDS,
        ) {
            let params = params(start.as_deref(), end.as_deref());
            match TimeRange::parse(&params, default_span, now) {
                Ok(range) => {
                    prop_assert!(range.start < range.end, "{range:?}");
                    prop_assert!(range.start >= 0, "{range:?}");
                    prop_assert!(range.end < LOOKS_LIKE_MILLISECONDS, "{range:?}");
                    // Given values are used as given; absent ones take their defaults.
                    prop_assert_eq!(range.end, as_number(&end).unwrap_or(now));
                    prop_assert_eq!(
                        range.start,
                        as_number(&start).unwrap_or((range.end - default_span).max(0))
                    );
                }
                Err(error) => {
                    prop_assert!(matches!(error, Error::BadRequest(_)), "{error:?}");
                    prop_assert!(!error.to_string().is_empty());
                }
            }
        }
    }
}
