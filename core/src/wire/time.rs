//! Timestamps on the wire: ISO 8601 / RFC 3339 text from milliseconds since the Unix
//! epoch (a device's clock; with the feature `tasks`, `Device::now_ms`).

/// Length of [`iso8601`]'s text: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub const ISO8601_LEN: usize = 24;

/// `ms` milliseconds after 1970-01-01T00:00:00Z as `YYYY-MM-DDTHH:MM:SS.mmmZ`, written
/// into `out`. Years past 9999 are written as 9999 (the text keeps its length).
///
/// ```
/// use emcp::wire::time::iso8601;
/// let mut buf = [0u8; 24];
/// assert_eq!(iso8601(0, &mut buf), "1970-01-01T00:00:00.000Z");
/// assert_eq!(iso8601(1_764_660_000_123, &mut buf), "2025-12-02T07:20:00.123Z");
/// ```
pub fn iso8601(ms: u64, out: &mut [u8; ISO8601_LEN]) -> &str {
    let days = ms / 86_400_000;
    let rem = ms % 86_400_000;
    let (y, m, d) = civil(days);
    let fields: [(u64, usize); 7] = [
        (y.min(9999), 4),
        (m, 2),
        (d, 2),
        (rem / 3_600_000, 2),
        (rem / 60_000 % 60, 2),
        (rem / 1000 % 60, 2),
        (rem % 1000, 3),
    ];
    let seps = *b"--T::.Z";
    let mut at = 0;
    for ((value, width), sep) in fields.into_iter().zip(seps) {
        let mut v = value;
        for k in (0..width).rev() {
            if let Some(b) = out.get_mut(at + k) {
                *b = b'0' + (v % 10) as u8;
            }
            v /= 10;
        }
        at += width;
        if let Some(b) = out.get_mut(at) {
            *b = sep;
        }
        at += 1;
    }
    // Only ASCII digits and separators were written.
    core::str::from_utf8(out).unwrap_or("1970-01-01T00:00:00.000Z")
}

/// Year, month, day of the `days`-th day after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_around_leap_days_and_centuries() {
        let mut b = [0u8; ISO8601_LEN];
        let day = 86_400_000u64;
        assert_eq!(iso8601(59 * day, &mut b), "1970-03-01T00:00:00.000Z");
        // 2000-02-29 is day 11016; 2100 is not a leap year.
        assert_eq!(iso8601(11_016 * day, &mut b), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(47_541 * day, &mut b), "2100-03-01T00:00:00.000Z");
        assert_eq!(iso8601(day - 1, &mut b), "1970-01-01T23:59:59.999Z");
        assert_eq!(iso8601(u64::MAX, &mut b).len(), ISO8601_LEN);
    }
}
