//! Per-key rate limits: a token bucket per API key. Each request of the interface takes
//! a token from its key's bucket; the bucket holds at most `burst` tokens and gains
//! `per_second` a second. A request that finds its bucket empty is refused with 429
//! `TOO_MANY_REQUESTS` and `Retry-After`, the whole seconds until a token is there.
//!
//! Buckets are kept by a hash of the key, never the key itself. A bucket that has filled
//! up again is the same as no bucket: when the table grows past [`MAX_BUCKETS`], full
//! buckets are dropped, so that keys sent once (guessed or revoked) do not pile up.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use consign::{Error, ErrorCategory};

/// Buckets kept before the full ones are dropped.
pub const MAX_BUCKETS: usize = 10_000;

/// The rate limit of each API key (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests a second a key may make, sustained.
    pub per_second: u32,
    /// Requests a key may make at once, after a quiet while.
    pub burst: u32,
}

impl Default for RateLimit {
    /// 50 requests a second per key, bursts of 200: far above what the stations of a
    /// packing room send, well below what one client in a loop can.
    fn default() -> Self {
        RateLimit { per_second: 50, burst: 200 }
    }
}

/// A key's bucket: tokens at an instant.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets of every key.
#[derive(Debug)]
pub(crate) struct Limiter {
    limit: RateLimit,
    hasher: std::collections::hash_map::RandomState,
    buckets: Mutex<HashMap<u64, Bucket>>,
}

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Limiter {
        Limiter { limit, hasher: std::collections::hash_map::RandomState::new(), buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes a token of `key`'s bucket at `now`.
    ///
    /// # Errors
    /// `TOO_MANY_REQUESTS` with the seconds until a token is there, when none is.
    pub(crate) fn take(&self, key: &str, now: Instant) -> Result<(), Error> {
        let (rate, burst) = (f64::from(self.limit.per_second.max(1)), f64::from(self.limit.burst.max(1)));
        let id = self.hasher.hash_one(key);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(&id) {
            buckets.retain(|_, b| b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate < burst);
        }
        let bucket = buckets.entry(id).or_insert(Bucket { tokens: burst, at: now });
        let tokens = (bucket.tokens + now.saturating_duration_since(bucket.at).as_secs_f64() * rate).min(burst);
        *bucket = Bucket { tokens, at: now };
        if tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - tokens) / rate).ceil().max(1.0);
        Err(Error::new(
            ErrorCategory::TooManyRequests,
            format!(
                "This API key may make {} requests a second ({} at once); wait before the next request.",
                self.limit.per_second, self.limit.burst
            ),
        )
        .with_retry_after(wait as u64))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code: a panic is a failed test")]

    use std::time::Duration;

    use super::*;

    /// A key may make its burst at once, then is refused with the seconds until a token
    /// is back; tokens come back at the rate; another key has its own bucket.
    #[test]
    fn a_key_gets_its_burst_then_its_rate_and_is_refused_between() {
        let limiter = Limiter::new(RateLimit { per_second: 2, burst: 3 });
        let start = Instant::now();
        for _ in 0..3 {
            limiter.take("csk_A", start).unwrap();
        }
        let refused = limiter.take("csk_A", start).unwrap_err();
        assert_eq!((refused.category(), refused.retry_after()), (ErrorCategory::TooManyRequests, Some(1)));
        limiter.take("csk_B", start).unwrap();
        let later = start + Duration::from_millis(500);
        limiter.take("csk_A", later).unwrap();
        assert!(limiter.take("csk_A", later).is_err());
        // a quiet while fills the bucket up to the burst, not beyond
        let quiet = later + Duration::from_secs(60);
        for _ in 0..3 {
            limiter.take("csk_A", quiet).unwrap();
        }
        assert!(limiter.take("csk_A", quiet).is_err());
    }

    /// At a slow rate the wait is the whole seconds until a token is back.
    #[test]
    fn the_wait_is_the_seconds_until_a_token() {
        let limiter = Limiter::new(RateLimit { per_second: 1, burst: 1 });
        let start = Instant::now();
        limiter.take("k", start).unwrap();
        assert_eq!(limiter.take("k", start + Duration::from_millis(100)).unwrap_err().retry_after(), Some(1));
    }

    /// Past the most buckets kept, the full ones go; the others stay.
    #[test]
    fn full_buckets_are_dropped_when_the_table_is_full() {
        let limiter = Limiter::new(RateLimit { per_second: 1000, burst: 3 });
        let start = Instant::now();
        for _ in 0..3 {
            limiter.take("busy", start).unwrap();
        }
        for i in 0..MAX_BUCKETS {
            limiter.take(&format!("once-{i}"), start).unwrap();
        }
        // 1.5 tokens later: the keys sent once are full again, the busy one is not
        let later = start + Duration::from_micros(1500);
        limiter.take("new", later).unwrap();
        let kept = limiter.buckets.lock().unwrap().len();
        assert_eq!(kept, 2, "the busy key and the new one");
        limiter.take("busy", later).unwrap();
        assert!(limiter.take("busy", later).is_err(), "the busy key kept what was left of its bucket");
    }
}
