//! Dates and times as the interface writes them: a date as `YYYY-MM-DD`, a moment as
//! RFC 3339 UTC text with seconds. Validation, rating and storage read and write them
//! here alike.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};

/// RFC 3339 UTC text with seconds, as stored and shown.
pub(crate) fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The last date `YYYY-MM-DD` can write: no answer carries a later one (a computed
/// arrival past it is no estimate at all).
pub(crate) const LAST_DATE: NaiveDate = match NaiveDate::from_ymd_opt(9999, 12, 31) {
    Some(d) => d,
    None => NaiveDate::MAX,
};

/// A date written exactly as `YYYY-MM-DD`: four digits, a dash, two, a dash, two; no
/// sign, no spaces, and a real day. chrono's `%Y-%m-%d` alone would also read a sign,
/// one-digit months and days, and more digits of year.
pub(crate) fn parse_date(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().try_fold(0u32, |n, &c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')));
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
}
