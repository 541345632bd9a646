//! Injected time: every rule that depends on "now" or "today" asks a [`Clock`].

use std::sync::Mutex;

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, Offset, Utc};

/// The source of the current instant and of the host's local date.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
    /// Today's date where the host is ("today" of the shipment-date rules).
    fn today(&self) -> NaiveDate;
}

/// The machine's clock and time zone.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    fn today(&self) -> NaiveDate {
        chrono::Local::now().date_naive()
    }
}

/// A clock that stands still until told otherwise; for tests and reproducible runs.
///
/// ```
/// use consign::{Clock, FixedClock};
/// let clock = FixedClock::at("2026-11-21T09:00:00Z").unwrap();
/// clock.advance(chrono::Duration::days(1));
/// assert_eq!(clock.today().to_string(), "2026-11-22");
/// ```
#[derive(Debug)]
pub struct FixedClock {
    state: Mutex<(DateTime<Utc>, FixedOffset)>,
}

impl FixedClock {
    /// A clock at `instant`, with the local date taken in UTC.
    pub fn new(instant: DateTime<Utc>) -> Self {
        Self::with_offset(instant, Utc.fix())
    }

    /// A clock at `instant` whose local date is taken at `offset` from UTC.
    pub fn with_offset(instant: DateTime<Utc>, offset: FixedOffset) -> Self {
        FixedClock { state: Mutex::new((instant, offset)) }
    }

    /// A clock at an RFC 3339 instant, e.g. `2026-11-21T09:00:00Z`.
    ///
    /// # Errors
    /// When the text is not an RFC 3339 instant.
    pub fn at(rfc3339: &str) -> Result<Self, chrono::ParseError> {
        Ok(Self::new(DateTime::parse_from_rfc3339(rfc3339)?.with_timezone(&Utc)))
    }

    /// Moves the clock to `instant`.
    pub fn set(&self, instant: DateTime<Utc>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0 = instant;
    }

    /// Moves the clock forward (or back, for a negative duration).
    pub fn advance(&self, by: Duration) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0 += by;
    }
}

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).0
    }

    fn today(&self) -> NaiveDate {
        let (instant, offset) = *self.state.lock().unwrap_or_else(|p| p.into_inner());
        instant.with_timezone(&offset).date_naive()
    }
}
