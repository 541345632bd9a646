//! An unpacked, non-negative `Decimal` for the hot path of [`super::RateBook::rate`].
//!
//! [`D`] holds exactly what a non-negative `rust_decimal::Decimal` holds (a mantissa
//! below 2^96 and a scale of 0 to 28) as plain integers, so additions, products and
//! comparisons are a few integer instructions instead of calls into `rust_decimal`.
//!
//! Every operation gives the very same value *and scale* as the `Decimal` operation
//! it replaces: `rust_decimal` is exact whenever the exact result fits (a product:
//! mantissa below 2^96 and scale at most 28; a sum: at the larger scale), and then we
//! compute the same exact result. When it does not fit, `Decimal` rounds, and we
//! hand the operation to `Decimal` itself (`None` from the fast function, the caller
//! falls back). The zero rules are `Decimal`'s too: a product with a zero factor is
//! `0` at scale 0; a sum with a zero operand is the other operand unchanged.

use std::cmp::Ordering;

use rust_decimal::{Decimal, RoundingStrategy};

use crate::money::{CENT_PLACES, MONEY_ROUNDING};

// `D::round_cents` rounds half up, which on non-negative amounts is the money policy
// only while that policy is half away from zero.
const _: () = assert!(matches!(MONEY_ROUNDING, RoundingStrategy::MidpointAwayFromZero));

/// 2^96: mantissas are below this.
const LIMIT: u128 = 1 << 96;

/// 10^0 ..= 10^28.
pub(crate) const POW10U: [u128; 29] = {
    let mut t = [1u128; 29];
    let mut i = 1;
    while i < 29 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^0 ..= 10^19.
const POW10_64: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// `m x 10^e` for `e <= 19`, in one widening multiply.
#[inline(always)]
pub(crate) fn wide(m: u64, e: u32) -> u128 {
    u128::from(m) * u128::from(POW10_64[e as usize])
}

/// A non-negative decimal: `m / 10^s`, `m < 2^96`, `s <= 28`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct D {
    pub m: u128,
    pub s: u32,
}

impl D {
    pub(crate) const ZERO: D = D { m: 0, s: 0 };

    /// `d` unpacked; `None` if it is negative (zero with the sign bit included).
    #[inline]
    pub(crate) fn of(d: Decimal) -> Option<D> {
        if d.is_sign_negative() {
            return None;
        }
        Some(D { m: d.mantissa().unsigned_abs(), s: d.scale() })
    }

    /// `d` unpacked, for values known to be non-negative (rate data, validated input).
    /// A negative `d` would be a bug upstream; it is read as its absolute value.
    #[inline(always)]
    pub(crate) fn pos(d: Decimal) -> D {
        // `serialize` is the flags word then lo, mid, hi, little endian: one load
        let x = u128::from_le_bytes(d.serialize());
        D { m: x >> 32, s: ((x as u32) >> 16) & 0xFF }
    }

    /// Back to a `Decimal` (same mantissa and scale, positive).
    #[inline]
    pub(crate) fn dec(self) -> Decimal {
        Decimal::from_parts(self.m as u32, (self.m >> 32) as u32, (self.m >> 64) as u32, false, self.s)
    }

    #[inline]
    pub(crate) fn is_zero(self) -> bool {
        self.m == 0
    }

    /// `self + o` exactly as `Decimal` adds, if no rounding is involved.
    #[inline(always)]
    pub(crate) fn add_fast(self, o: D) -> Option<D> {
        if self.m == 0 {
            return Some(o);
        }
        if o.m == 0 {
            return Some(self);
        }
        if (self.m | o.m) >> 64 == 0 && self.s.abs_diff(o.s) <= 19 {
            // 64-bit mantissas and a power of ten below 2^64: one widening multiply
            let (a, b, s) = if self.s >= o.s {
                (self.m, wide(o.m as u64, self.s - o.s), self.s)
            } else {
                (wide(self.m as u64, o.s - self.s), o.m, o.s)
            };
            let m = a.checked_add(b)?;
            return if m < LIMIT { Some(D { m, s }) } else { None };
        }
        let (a, b, s) = if self.s == o.s {
            (self.m, o.m, self.s)
        } else if self.s > o.s {
            (self.m, o.m.checked_mul(POW10U[(self.s - o.s) as usize])?, self.s)
        } else {
            (self.m.checked_mul(POW10U[(o.s - self.s) as usize])?, o.m, o.s)
        };
        let m = a.checked_add(b)?;
        if m < LIMIT {
            Some(D { m, s })
        } else {
            None
        }
    }

    /// `self + o` as `Decimal::checked_add`.
    #[inline(always)]
    pub(crate) fn checked_add(self, o: D) -> Option<D> {
        match self.add_fast(o) {
            Some(r) => Some(r),
            None => slow_add(self, o),
        }
    }

    /// `self * o` exactly as `Decimal` multiplies, if no rounding is involved.
    #[inline(always)]
    pub(crate) fn mul_fast(self, o: D) -> Option<D> {
        if self.m == 0 || o.m == 0 {
            return Some(D::ZERO);
        }
        let s = self.s + o.s;
        if s > 28 {
            return None;
        }
        let m = if (self.m | o.m) >> 64 == 0 { u128::from(self.m as u64) * u128::from(o.m as u64) } else { self.m.checked_mul(o.m)? };
        if m < LIMIT {
            Some(D { m, s })
        } else {
            None
        }
    }

    /// `self * o` as `Decimal::checked_mul`.
    #[inline(always)]
    pub(crate) fn checked_mul(self, o: D) -> Option<D> {
        match self.mul_fast(o) {
            Some(r) => Some(r),
            None => slow_mul(self, o),
        }
    }

    /// Numeric comparison (scale ignored), as `Decimal`'s `Ord`.
    #[inline(always)]
    pub(crate) fn cmp_value(self, o: D) -> Ordering {
        if self.s == o.s {
            return self.m.cmp(&o.m);
        }
        if (self.m | o.m) >> 64 == 0 && self.s.abs_diff(o.s) <= 19 {
            // one widening multiply, no overflow
            return if self.s > o.s {
                self.m.cmp(&(wide(o.m as u64, self.s - o.s)))
            } else {
                (wide(self.m as u64, o.s - self.s)).cmp(&o.m)
            };
        }
        let (a, b) = if self.s > o.s {
            (Some(self.m), o.m.checked_mul(POW10U[(self.s - o.s) as usize]))
        } else {
            (self.m.checked_mul(POW10U[(o.s - self.s) as usize]), Some(o.m))
        };
        match (a, b) {
            (Some(a), Some(b)) => a.cmp(&b),
            // the scaled-up side overflowed u128, so it is the larger (the other is < 2^96)
            (None, _) => Ordering::Greater,
            (_, None) => Ordering::Less,
        }
    }

    #[inline(always)]
    pub(crate) fn gt(self, o: D) -> bool {
        self.cmp_value(o) == Ordering::Greater
    }

    /// `Ord::max` of `Decimal`: `o` unless `self` is strictly larger (so of two equal
    /// values of different scales, `o` is kept).
    #[inline(always)]
    pub(crate) fn max(self, o: D) -> D {
        if self.gt(o) {
            self
        } else {
            o
        }
    }

    /// [`crate::money::round_cents`] on the unpacked form: the same value and scale
    /// (kept as is at a scale of at most [`CENT_PLACES`]). Being non-negative, half away
    /// from zero is half up. A property test pins it to the `Decimal` function.
    #[inline(always)]
    pub(crate) fn round_cents(self) -> D {
        if self.s <= CENT_PLACES {
            return self;
        }
        let p = POW10U[(self.s - CENT_PLACES) as usize];
        let (q, r) = match (u64::try_from(self.m), u64::try_from(p)) {
            (Ok(a), Ok(b)) => (u128::from(a / b), u128::from(a % b)),
            _ => (self.m / p, self.m % p),
        };
        let q = if r * 2 >= p { q + 1 } else { q };
        D { m: q, s: CENT_PLACES }
    }
}

/// The `Decimal` addition, for sums that `D::add_fast` leaves to it.
#[cold]
#[inline(never)]
fn slow_add(a: D, b: D) -> Option<D> {
    a.dec().checked_add(b.dec()).map(D::pos)
}

/// The `Decimal` product, for products that `D::mul_fast` leaves to it.
#[cold]
#[inline(never)]
fn slow_mul(a: D, b: D) -> Option<D> {
    a.dec().checked_mul(b.dec()).map(D::pos)
}
