//! Device-side policy: who may run which tool, and how often.
//!
//! Before a tool runs, the server asks the device ([`crate::Device::authorize`]). A
//! device can refuse — destructive tools only while a physical "arm" input is set, say
//! — or rate-limit a tool with a [`TokenBucket`] on its own monotonic clock. A refusal
//! is a tool result with `isError: true` and the reason, never a protocol error: the
//! model sees why, and the next request is served normally.

/// The device's answer to "may this tool run now?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Refuse, with the reason the client is shown (`isError` result).
    Deny(&'static str),
    /// Refuse for now: over a rate limit; the result says to retry after this many
    /// milliseconds.
    RetryAfter(u32),
}

/// A token bucket: at most `capacity` calls in a burst, refilled at one token every
/// `refill_ms` milliseconds of the device's monotonic clock.
///
/// ```
/// use emcp::state::policy::{TokenBucket, Verdict};
/// let mut bucket = TokenBucket::new(2, 1000);
/// assert_eq!(bucket.take(0), Verdict::Allow);
/// assert_eq!(bucket.take(10), Verdict::Allow);
/// assert_eq!(bucket.take(20), Verdict::RetryAfter(980));
/// assert_eq!(bucket.take(1000), Verdict::Allow); // one token back after 1 s
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TokenBucket {
    capacity: u32,
    refill_ms: u32,
    tokens: u32,
    /// Clock reading up to which refills have been counted.
    since: u64,
}

impl TokenBucket {
    /// A full bucket of `capacity` tokens (at least 1), one more every `refill_ms`
    /// (at least 1).
    pub const fn new(capacity: u32, refill_ms: u32) -> Self {
        let capacity = if capacity == 0 { 1 } else { capacity };
        TokenBucket {
            capacity,
            refill_ms: if refill_ms == 0 { 1 } else { refill_ms },
            tokens: capacity,
            since: 0,
        }
    }

    /// Take a token at clock reading `now_ms` (monotonic; a reading that goes back
    /// counts as no time passing). [`Verdict::Allow`] when one was there, otherwise
    /// [`Verdict::RetryAfter`] the time until the next one.
    pub fn take(&mut self, now_ms: u64) -> Verdict {
        let elapsed = now_ms.saturating_sub(self.since);
        let refills = elapsed / u64::from(self.refill_ms);
        if refills > 0 {
            let room = u64::from(self.capacity - self.tokens.min(self.capacity));
            self.tokens += u32::try_from(refills.min(room)).unwrap_or(0);
            self.since = if self.tokens >= self.capacity {
                now_ms
            } else {
                self.since + refills * u64::from(self.refill_ms)
            };
        } else if self.tokens >= self.capacity {
            self.since = now_ms.max(self.since);
        }
        if self.tokens > 0 {
            self.tokens -= 1;
            return Verdict::Allow;
        }
        let waited = now_ms.saturating_sub(self.since);
        let wait = u64::from(self.refill_ms).saturating_sub(waited).max(1);
        Verdict::RetryAfter(u32::try_from(wait).unwrap_or(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_refill_and_clock_going_back() {
        let mut b = TokenBucket::new(3, 100);
        for t in [0, 1, 2] {
            assert_eq!(b.take(t), Verdict::Allow);
        }
        assert_eq!(b.take(50), Verdict::RetryAfter(50));
        assert_eq!(b.take(100), Verdict::Allow);
        assert_eq!(b.take(101), Verdict::RetryAfter(99));
        // A long pause refills to capacity, not beyond.
        for t in [10_000, 10_001, 10_002] {
            assert_eq!(b.take(t), Verdict::Allow);
        }
        assert!(matches!(b.take(10_003), Verdict::RetryAfter(_)));
        // The clock going back is no time passing (and no panic).
        assert!(matches!(b.take(5), Verdict::RetryAfter(_)));
        // Degenerate parameters are raised to 1.
        let mut one = TokenBucket::new(0, 0);
        assert_eq!(one.take(0), Verdict::Allow);
        assert_eq!(one.take(0), Verdict::RetryAfter(1));
        assert_eq!(one.take(1), Verdict::Allow);
        // Far future readings do not overflow.
        assert_eq!(one.take(u64::MAX), Verdict::Allow);
    }
}
