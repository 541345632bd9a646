//! Arrival dates: business days in transit per service and zone, and each carrier's
//! calendar (the days it picks up and delivers, and the holidays it observes).
//!
//! A shipment is picked up on its shipment date, or on the carrier's next pickup day
//! when the carrier does not pick up that day. It then arrives on the `days`-th delivery
//! day after pickup, a delivery day being one the carrier (or service) delivers on that
//! is not a holiday. Saturday counts when the service delivers on Saturdays or Saturday
//! delivery is asked for. A service of 0 days arrives on its pickup day.
//!
//! Holidays are computed by rule for any year: the eleven US federal holidays by name
//! (those on a fixed date observed on the nearest weekday: Friday for a Saturday,
//! Monday for a Sunday), plus dates a carrier lists.

use chrono::{Datelike, NaiveDate, Weekday};

use super::Zone;

/// A set of weekdays: bit 0 Monday ... bit 6 Sunday.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Days(pub u8);

/// The weekday names of the CSV, Monday first.
pub(crate) const DAY_NAMES: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

impl Days {
    /// Monday to Friday.
    pub(crate) const WEEKDAYS: Days = Days(0b001_1111);
    /// Saturday alone.
    pub(crate) const SATURDAY: Days = Days(0b010_0000);

    /// `mon tue wed`: names separated by spaces, each once, at least one.
    pub(crate) fn parse(s: &str) -> Option<Days> {
        let mut bits = 0u8;
        for name in s.split(' ') {
            let i = DAY_NAMES.iter().position(|d| *d == name)?;
            if bits & (1 << i) != 0 {
                return None;
            }
            bits |= 1 << i;
        }
        (bits != 0).then_some(Days(bits))
    }

    /// The canonical text: names in week order.
    pub(crate) fn text(self) -> String {
        DAY_NAMES.iter().enumerate().filter(|(i, _)| self.0 & (1 << i) != 0).map(|(_, d)| *d).collect::<Vec<_>>().join(" ")
    }

    fn has(self, weekday: u32) -> bool {
        self.0 & (1 << weekday) != 0
    }
}

/// A US federal holiday, computed for any year. In the order of the calendar year.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holiday {
    NewYearsDay,
    MlkDay,
    PresidentsDay,
    MemorialDay,
    Juneteenth,
    IndependenceDay,
    LaborDay,
    ColumbusDay,
    VeteransDay,
    Thanksgiving,
    Christmas,
}

impl Holiday {
    pub(crate) const ALL: [Holiday; 11] = [
        Holiday::NewYearsDay,
        Holiday::MlkDay,
        Holiday::PresidentsDay,
        Holiday::MemorialDay,
        Holiday::Juneteenth,
        Holiday::IndependenceDay,
        Holiday::LaborDay,
        Holiday::ColumbusDay,
        Holiday::VeteransDay,
        Holiday::Thanksgiving,
        Holiday::Christmas,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Holiday::NewYearsDay => "new_years_day",
            Holiday::MlkDay => "mlk_day",
            Holiday::PresidentsDay => "presidents_day",
            Holiday::MemorialDay => "memorial_day",
            Holiday::Juneteenth => "juneteenth",
            Holiday::IndependenceDay => "independence_day",
            Holiday::LaborDay => "labor_day",
            Holiday::ColumbusDay => "columbus_day",
            Holiday::VeteransDay => "veterans_day",
            Holiday::Thanksgiving => "thanksgiving",
            Holiday::Christmas => "christmas",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<Holiday> {
        Holiday::ALL.into_iter().find(|h| h.as_str() == s)
    }

    /// The day it is observed for `year` (`None` before Juneteenth existed). New
    /// Year's Day on a Saturday is observed on December 31 of the year before.
    pub(crate) fn observed(self, year: i32) -> Option<NaiveDate> {
        let fixed = |month, day| NaiveDate::from_ymd_opt(year, month, day).map(nearest_weekday);
        match self {
            Holiday::NewYearsDay => fixed(1, 1),
            Holiday::MlkDay => nth_weekday(year, 1, Weekday::Mon, 3),
            Holiday::PresidentsDay => nth_weekday(year, 2, Weekday::Mon, 3),
            Holiday::MemorialDay => last_weekday(year, 5, Weekday::Mon),
            Holiday::Juneteenth if year < 2021 => None,
            Holiday::Juneteenth => fixed(6, 19),
            Holiday::IndependenceDay => fixed(7, 4),
            Holiday::LaborDay => nth_weekday(year, 9, Weekday::Mon, 1),
            Holiday::ColumbusDay => nth_weekday(year, 10, Weekday::Mon, 2),
            Holiday::VeteransDay => fixed(11, 11),
            Holiday::Thanksgiving => nth_weekday(year, 11, Weekday::Thu, 4),
            Holiday::Christmas => fixed(12, 25),
        }
    }
}

/// A Saturday is observed on the Friday before, a Sunday on the Monday after.
fn nearest_weekday(d: NaiveDate) -> NaiveDate {
    match d.weekday() {
        Weekday::Sat => d.pred_opt().unwrap_or(d),
        Weekday::Sun => d.succ_opt().unwrap_or(d),
        _ => d,
    }
}

/// The `n`th `weekday` of `month` in `year`.
fn nth_weekday(year: i32, month: u32, weekday: Weekday, n: u8) -> Option<NaiveDate> {
    NaiveDate::from_weekday_of_month_opt(year, month, weekday, n)
}

/// The last `weekday` of `month` in `year`.
fn last_weekday(year: i32, month: u32, weekday: Weekday) -> Option<NaiveDate> {
    nth_weekday(year, month, weekday, 5).or_else(|| nth_weekday(year, month, weekday, 4))
}

/// A set of [`Holiday`]s: bit i is `Holiday::ALL[i]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Holidays(pub u16);

impl Holidays {
    /// Every federal holiday.
    #[cfg(test)]
    pub(crate) const FEDERAL: Holidays = Holidays((1 << Holiday::ALL.len()) - 1);

    pub(crate) fn contains(self, h: Holiday) -> bool {
        self.0 & (1 << h as u16) != 0
    }

    pub(crate) fn with(self, h: Holiday) -> Holidays {
        Holidays(self.0 | (1 << h as u16))
    }

    /// The holidays of the set, in the order of the year.
    pub(crate) fn iter(self) -> impl Iterator<Item = Holiday> {
        Holiday::ALL.into_iter().filter(move |h| self.contains(*h))
    }
}

/// The days in `year` on which the holidays of `rules` are observed, in order (New
/// Year's Day of the year after included when it is observed on December 31).
pub(crate) fn observed_in(rules: Holidays, year: i32) -> Vec<NaiveDate> {
    let next_new_year = rules.contains(Holiday::NewYearsDay).then(|| Holiday::NewYearsDay.observed(year.saturating_add(1))).flatten();
    rules.iter().filter_map(|h| h.observed(year)).chain(next_new_year).filter(|d| d.year() == year).collect()
}

/// Years whose holidays are kept as bits; others are computed when asked.
const FIRST_YEAR: i32 = 2000;
const LAST_YEAR: i32 = 2100;

/// Days since 0001-01-01 (a Monday), as chrono counts them less one: the weekday is
/// this modulo 7, Monday 0.
fn day_number(d: NaiveDate) -> i32 {
    d.num_days_from_ce() - 1
}

/// A carrier's calendar: when it picks up and delivers, and when it is closed.
#[derive(Debug, Clone)]
pub(crate) struct Calendar {
    pub pickup: Days,
    pub delivery: Days,
    rules: Holidays,
    extra: Vec<NaiveDate>,
    /// Bit n: day `base + n` is a holiday (of the rules or listed), FIRST_YEAR to LAST_YEAR.
    closed: Box<[u64]>,
    base: i32,
}

impl Calendar {
    /// A calendar of `pickup` and `delivery` days, closed on the holidays of `rules` and
    /// the `extra` dates.
    pub(crate) fn new(pickup: Days, delivery: Days, rules: Holidays, extra: Vec<NaiveDate>) -> Calendar {
        let first = NaiveDate::from_ymd_opt(FIRST_YEAR, 1, 1).map_or(0, day_number);
        let last = NaiveDate::from_ymd_opt(LAST_YEAR, 12, 31).map_or(0, day_number);
        let span = usize::try_from(last - first + 1).unwrap_or(0);
        let mut closed = vec![0u64; span.div_ceil(64)];
        let mut mark = |d: NaiveDate| {
            if let Ok(n) = usize::try_from(day_number(d) - first) {
                if let Some(word) = closed.get_mut(n / 64) {
                    *word |= 1 << (n % 64);
                }
            }
        };
        for year in FIRST_YEAR..=LAST_YEAR {
            observed_in(rules, year).into_iter().for_each(&mut mark);
        }
        extra.iter().copied().for_each(mark);
        Calendar { pickup, delivery, rules, extra, closed: closed.into_boxed_slice(), base: first }
    }

    /// Monday to Friday, no holidays: a carrier without calendar rows.
    pub(crate) fn weekdays() -> Calendar {
        Calendar::new(Days::WEEKDAYS, Days::WEEKDAYS, Holidays::default(), Vec::new())
    }

    /// Whether the carrier is closed on day number `n` (a holiday).
    fn is_closed(&self, n: i32) -> bool {
        let Ok(i) = usize::try_from(n - self.base) else { return self.is_closed_slowly(n) };
        match self.closed.get(i / 64) {
            Some(word) => word & (1 << (i % 64)) != 0,
            None => self.is_closed_slowly(n),
        }
    }

    /// [`Calendar::is_closed`] outside the years kept as bits.
    fn is_closed_slowly(&self, n: i32) -> bool {
        let Some(d) = NaiveDate::from_num_days_from_ce_opt(n + 1) else { return false };
        self.extra.contains(&d) || observed_in(self.rules, d.year()).contains(&d)
    }

    /// The arrival of a shipment dated `ship` that takes `days` delivery days, picked up on
    /// `pickup` days and delivered on `delivery` days: the pickup day, then the `days`-th
    /// delivery day after it. `None` when no such day comes within a year (a calendar
    /// without a working pickup or delivery day), or after 9999-12-31, which
    /// `YYYY-MM-DD` cannot write.
    pub(crate) fn arrival(&self, ship: NaiveDate, days: u8, pickup: Days, delivery: Days) -> Option<NaiveDate> {
        const SEARCH: i32 = 400;
        let start = day_number(ship);
        let open = |n: i32, on: Days| on.has(n.rem_euclid(7) as u32) && !self.is_closed(n);
        let mut n = (start..start + SEARCH).find(|&n| open(n, pickup))?;
        let limit = n + SEARCH;
        let mut left = days;
        while left > 0 {
            n += 1;
            if n > limit {
                return None;
            }
            if open(n, delivery) {
                left -= 1;
            }
        }
        NaiveDate::from_num_days_from_ce_opt(n + 1).filter(|d| *d <= crate::dates::LAST_DATE)
    }
}

/// When a service arrives, zone by zone.
#[derive(Debug, Clone, Default)]
pub(crate) struct TransitTable {
    /// (zone, business days, guaranteed): a few rows, searched in turn.
    pub zones: Vec<(Zone, u8, bool)>,
    /// The row `*`: every zone without a row of its own.
    pub other: Option<(u8, bool)>,
}

impl TransitTable {
    pub(crate) fn get(&self, zone: Zone) -> Option<(u8, bool)> {
        self.zones.iter().find(|z| z.0 == zone).map_or(self.other, |z| Some((z.1, z.2)))
    }
}

/// A service's transit table with the days its carrier picks up and it delivers, and
/// the carrier's calendar.
#[derive(Debug, Clone)]
pub(crate) struct ServiceTransit {
    pub table: TransitTable,
    pub pickup: Days,
    pub delivery: Days,
    pub calendar: std::sync::Arc<Calendar>,
}

/// When a quoted shipment arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// Business days in transit, as the service's transit table gives them.
    pub transit_days: u8,
    /// The estimated delivery date.
    pub date: NaiveDate,
    /// Whether the carrier guarantees the date.
    pub guaranteed: bool,
}

impl ServiceTransit {
    /// The arrival in `zone` of a shipment dated `ship`; Saturday is a delivery day when
    /// `saturday` delivery was asked for.
    pub(crate) fn arrival(&self, zone: Zone, ship: NaiveDate, saturday: bool) -> Option<Arrival> {
        let (days, guaranteed) = self.table.get(zone)?;
        let delivery = if saturday { Days(self.delivery.0 | Days::SATURDAY.0) } else { self.delivery };
        let date = self.calendar.arrival(ship, days, self.pickup, delivery)?;
        Some(Arrival { transit_days: days, date, guaranteed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn set(holidays: &[Holiday]) -> Holidays {
        holidays.iter().fold(Holidays::default(), |set, h| set.with(*h))
    }

    fn six() -> Holidays {
        set(&[
            Holiday::NewYearsDay,
            Holiday::MemorialDay,
            Holiday::IndependenceDay,
            Holiday::LaborDay,
            Holiday::Thanksgiving,
            Holiday::Christmas,
        ])
    }

    fn texts(days: Vec<NaiveDate>) -> Vec<String> {
        days.into_iter().map(|d| d.to_string()).collect()
    }

    /// The federal holidays, observed, as the US Office of Personnel Management lists
    /// them for these years.
    #[test]
    fn federal_holidays_are_computed_for_any_year() {
        assert_eq!(
            texts(observed_in(Holidays::FEDERAL, 2026)),
            [
                "2026-01-01",
                "2026-01-19",
                "2026-02-16",
                "2026-05-25",
                "2026-06-19",
                "2026-07-03",
                "2026-09-07",
                "2026-10-12",
                "2026-11-11",
                "2026-11-26",
                "2026-12-25"
            ]
        );
        assert_eq!(
            texts(observed_in(Holidays::FEDERAL, 2027)),
            [
                "2027-01-01",
                "2027-01-18",
                "2027-02-15",
                "2027-05-31",
                "2027-06-18",
                "2027-07-05",
                "2027-09-06",
                "2027-10-11",
                "2027-11-11",
                "2027-11-25",
                "2027-12-24",
                "2027-12-31"
            ],
            "New Year's Day 2028 is a Saturday: observed on Friday 2027-12-31"
        );
        assert_eq!(
            texts(observed_in(Holidays::FEDERAL, 2028)),
            [
                "2028-01-17",
                "2028-02-21",
                "2028-05-29",
                "2028-06-19",
                "2028-07-04",
                "2028-09-04",
                "2028-10-09",
                "2028-11-10",
                "2028-11-23",
                "2028-12-25"
            ],
            "no New Year's Day in 2028's own days; Veterans Day on a Saturday is observed on Friday"
        );
        assert_eq!(
            texts(observed_in(six(), 2021)),
            ["2021-01-01", "2021-05-31", "2021-07-05", "2021-09-06", "2021-11-25", "2021-12-24", "2021-12-31"]
        );
        // Juneteenth from 2021 only
        assert!(observed_in(set(&[Holiday::Juneteenth]), 2020).is_empty());
        assert_eq!(texts(observed_in(set(&[Holiday::Juneteenth]), 2022)), ["2022-06-20"]);
        // far years, outside the bits, by the same rules
        assert_eq!(texts(observed_in(set(&[Holiday::Thanksgiving, Holiday::Christmas]), 2150)), ["2150-11-26", "2150-12-25"]);
    }

    fn weekday_calendar(rules: Holidays) -> Calendar {
        Calendar::new(Days::WEEKDAYS, Days::WEEKDAYS, rules, Vec::new())
    }

    #[test]
    fn a_two_day_service_shipped_the_day_before_thanksgiving_arrives_on_monday() {
        let c = weekday_calendar(six());
        assert_eq!(c.arrival(date("2026-11-25"), 2, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-11-30")));
        // without the holiday it would be Friday
        let plain = weekday_calendar(Holidays::default());
        assert_eq!(plain.arrival(date("2026-11-25"), 2, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-11-27")));
    }

    #[test]
    fn saturday_delivery_moves_a_friday_overnight_to_saturday() {
        let c = weekday_calendar(six());
        let friday = date("2026-12-04");
        assert_eq!(c.arrival(friday, 1, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-12-07")));
        assert_eq!(c.arrival(friday, 1, Days::WEEKDAYS, Days(Days::WEEKDAYS.0 | Days::SATURDAY.0)), Some(date("2026-12-05")));
    }

    #[test]
    fn a_date_without_pickup_counts_from_the_next_pickup_day() {
        let c = weekday_calendar(six());
        // Saturday and Sunday: picked up Monday, overnight arrives Tuesday
        assert_eq!(c.arrival(date("2026-12-05"), 1, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-12-08")));
        assert_eq!(c.arrival(date("2026-12-06"), 1, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-12-08")));
        // Christmas (Friday) and the weekend: picked up Monday the 28th
        assert_eq!(c.arrival(date("2026-12-25"), 1, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-12-29")));
        // 0 days: the pickup day itself
        assert_eq!(c.arrival(date("2026-12-25"), 0, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-12-28")));
    }

    #[test]
    fn no_arrival_is_computed_past_the_last_date_yyyy_mm_dd_writes() {
        let c = Calendar::weekdays();
        // Thursday 9999-12-30: a day's transit arrives on Friday the 31st, two would not
        assert_eq!(c.arrival(date("9999-12-30"), 1, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("9999-12-31")));
        assert_eq!(c.arrival(date("9999-12-30"), 2, Days::WEEKDAYS, Days::WEEKDAYS), None);
        assert_eq!(c.arrival(date("9999-12-31"), 0, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("9999-12-31")));
    }

    #[test]
    fn listed_dates_close_the_carrier_too() {
        let c = Calendar::new(Days::WEEKDAYS, Days::WEEKDAYS, six(), vec![date("2026-11-27")]);
        // the day after Thanksgiving listed: Wednesday's two-day arrives Tuesday
        assert_eq!(c.arrival(date("2026-11-25"), 2, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2026-12-01")));
        // a listed date beyond the years kept as bits
        let far = Calendar::new(Days::WEEKDAYS, Days::WEEKDAYS, Holidays::default(), vec![date("2150-06-02")]);
        assert_eq!(far.arrival(date("2150-06-01"), 1, Days::WEEKDAYS, Days::WEEKDAYS), Some(date("2150-06-03")));
    }

    #[test]
    fn day_lists_parse_in_any_order_and_print_in_week_order() {
        assert_eq!(Days::parse("sat mon").map(Days::text).as_deref(), Some("mon sat"));
        for bad in ["", "mon  tue", "mon,tue", "Mon", "mon mon", "funday"] {
            assert_eq!(Days::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_calendar_without_working_days_gives_no_date() {
        let c = Calendar::new(Days::SATURDAY, Days::WEEKDAYS, Holidays::default(), Vec::new());
        assert!(c.arrival(date("2026-11-25"), 1, Days::SATURDAY, Days(0)).is_none());
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            /// Whatever the calendar and service: never before the shipment date, never on a
            /// day the carrier does not deliver (unless 0 days: the pickup day), never on a
            /// holiday.
            #[test]
            fn the_estimate_is_never_before_the_ship_date_nor_on_a_closed_day(
                offset in 0i64..40_000,
                days in 0u8..12,
                pickup in 1u8..128,
                delivery in 1u8..128,
                postal in any::<bool>(),
                listed in proptest::collection::vec(0i64..40_000, 0..8),
            ) {
                let origin = NaiveDate::from_ymd_opt(2000, 1, 1).unwrap();
                let ship = origin + chrono::Duration::days(offset);
                let rules = if postal { Holidays::FEDERAL } else { six() };
                let extra: Vec<NaiveDate> = listed.iter().map(|o| origin + chrono::Duration::days(*o)).collect();
                let c = Calendar::new(Days(pickup), Days(delivery), rules, extra);
                if let Some(arrives) = c.arrival(ship, days, Days(pickup), Days(delivery)) {
                    prop_assert!(arrives >= ship);
                    prop_assert!(!c.is_closed(day_number(arrives)));
                    prop_assert!(!c.is_closed_slowly(day_number(arrives)), "the bits and the rules agree");
                    let weekday = arrives.weekday().num_days_from_monday();
                    if days > 0 {
                        prop_assert!(Days(delivery).has(weekday), "{arrives} is not a delivery day");
                        prop_assert!(arrives > ship);
                    } else {
                        prop_assert!(Days(pickup).has(weekday));
                    }
                }
            }
        }
    }
}
