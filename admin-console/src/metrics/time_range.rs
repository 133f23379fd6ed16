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
        let start = start.unwrap_or(end - default_span);
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
    }
}
