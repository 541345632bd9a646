//! Money: `Decimal` amounts, the one rounding policy, and the cents the ledger stores.

use rust_decimal::{Decimal, RoundingStrategy};

/// Decimal places of a money amount: the cent.
pub(crate) const CENT_PLACES: u32 = 2;

/// How a money amount is brought to the cent: half away from zero (DECISIONS 1).
pub(crate) const MONEY_ROUNDING: RoundingStrategy = RoundingStrategy::MidpointAwayFromZero;

/// The money rounding policy of DECISIONS 1: to the cent, half away from zero.
/// Every amount consign rounds goes through this function (the rate calculation's
/// fixed-point form, `rating::fixed`, is pinned to it by a property test).
///
/// ```
/// use rust_decimal::Decimal;
/// assert_eq!(consign::round_cents(Decimal::new(1005, 3)), Decimal::new(101, 2)); // 1.005 -> 1.01
/// assert_eq!(consign::round_cents(Decimal::new(-1005, 3)), Decimal::new(-101, 2)); // -1.005 -> -1.01
/// ```
pub fn round_cents(amount: Decimal) -> Decimal {
    amount.round_dp_with_strategy(CENT_PLACES, MONEY_ROUNDING)
}

/// `amount` with exactly two decimals, e.g. `"123.40"`.
pub fn format2(amount: Decimal) -> String {
    let mut d = round_cents(amount);
    d.rescale(2);
    d.to_string()
}

/// An amount of whole cents as a decimal.
pub fn from_cents(cents: i64) -> Decimal {
    Decimal::new(cents, 2)
}

/// The cents of an amount rounded to the cent; `None` if it does not fit an `i64`.
pub fn to_cents(amount: Decimal) -> Option<i64> {
    let scaled = round_cents(amount).checked_mul(Decimal::ONE_HUNDRED)?;
    i64::try_from(scaled.trunc()).ok()
}

/// Largest amount consign accepts anywhere money is sent (guards overflow, not policy).
pub(crate) const MAX_AMOUNT: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(round_cents(dec!(1.005)), dec!(1.01));
        assert_eq!(round_cents(dec!(-1.005)), dec!(-1.01));
        assert_eq!(round_cents(dec!(1.004)), dec!(1.00));
    }

    #[test]
    fn two_decimals_always() {
        assert_eq!(format2(dec!(123.4)), "123.40");
        assert_eq!(format2(dec!(7)), "7.00");
        assert_eq!(format2(dec!(0.125)), "0.13");
    }

    #[test]
    fn cents_round_trip() {
        assert_eq!(to_cents(dec!(12.34)), Some(1234));
        assert_eq!(from_cents(1234), dec!(12.34));
        assert_eq!(to_cents(dec!(0.005)), Some(1));
    }
}
