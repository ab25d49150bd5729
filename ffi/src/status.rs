//! `emcp_status`: what every fallible function returns, and `emcp_status_str`, its text.
//!
//! Values are explicit and grouped by hundreds; a retired value stays reserved forever.
//! A status is a plain `uint32_t` on the C side, so a callback may return any value:
//! Rust reads it with a total conversion (`is_ok`, `step`), never a transmute.

use core::ffi::c_char;

/// A status code: `EMCP_OK` or one of the `EMCP_*` values below, grouped by hundreds
/// (1xx parameters, 2xx storage, 3xx configuration, 4xx output, 5xx tools). A callback
/// may return any value; unknown ones count as failures. `emcp_status_str` gives its
/// text.
pub type emcp_status = u32;

/// Success.
pub const EMCP_OK: emcp_status = 0;
/// From a tool callback: the tool keeps running; the server polls it later.
pub const EMCP_PENDING: emcp_status = 1;

/// A required pointer was NULL.
pub const EMCP_NULL_PARAMETER: emcp_status = 100;
/// A parameter was invalid (text not UTF-8, JSON not valid, a value out of range).
pub const EMCP_INVALID_PARAMETER: emcp_status = 101;
/// The named argument, resource or variable does not exist.
pub const EMCP_NOT_FOUND: emcp_status = 102;
/// The argument exists but has another JSON type.
pub const EMCP_WRONG_TYPE: emcp_status = 103;
/// The caller's buffer is too small for the value.
pub const EMCP_BUFFER_TOO_SMALL: emcp_status = 104;
/// The call is not allowed now (e.g. content after structured content, a stream not open).
pub const EMCP_WRONG_STATE: emcp_status = 105;

/// The storage passed to `emcp_server_init` is smaller than `EMCP_SERVER_STORAGE_SIZE`.
pub const EMCP_STORAGE_TOO_SMALL: emcp_status = 200;
/// The storage is not aligned to `EMCP_SERVER_STORAGE_ALIGN`.
pub const EMCP_STORAGE_MISALIGNED: emcp_status = 201;

/// The configuration is invalid (a required text or callback missing, text not UTF-8).
pub const EMCP_INVALID_CONFIG: emcp_status = 300;
/// A tool's input or output schema is not a JSON object.
pub const EMCP_INVALID_SCHEMA: emcp_status = 301;
/// A resource template is not a valid URI template.
pub const EMCP_INVALID_TEMPLATE: emcp_status = 302;
/// More resources than the server can track for subscriptions
/// (`EMCP_MAX_RESOURCES`).
pub const EMCP_TOO_MANY_RESOURCES: emcp_status = 303;

/// The output buffer has too little room: take output, then feed the rest again.
pub const EMCP_OUTPUT_FULL: emcp_status = 400;
/// The write callback reported a failure.
pub const EMCP_WRITE_FAILED: emcp_status = 401;
/// Reading the input failed (`emcp_serve_stdio`: stdin could not be read).
pub const EMCP_READ_FAILED: emcp_status = 402;

/// A tool callback's own failure (any status other than OK or PENDING means the same).
pub const EMCP_TOOL_FAILED: emcp_status = 500;
/// From the authorization callback: the tool may not run; the client is told the reason.
pub const EMCP_DENIED: emcp_status = 501;
/// From the authorization callback: over a rate limit; the client is told to retry later.
pub const EMCP_RETRY_LATER: emcp_status = 502;

/// An internal error (a panic inside the library) was caught before it reached the
/// caller (host builds only; never expected).
pub const EMCP_PANIC: emcp_status = 900;

/// A status text: NUL-terminated, in a `static` of its own. A string literal would land
/// in the section the library's C strings share, which the linker keeps or drops whole,
/// so a firmware that never calls `emcp_status_str` would still carry every text.
macro_rules! text {
    ($s:literal) => {{
        static TEXT: [u8; $s.len() + 1] = nul_terminated($s);
        &TEXT
    }};
}

/// `s` and a NUL, as the array of a `static` initialiser (evaluated at compile time:
/// `N` other than `s.len() + 1` is a build error).
#[allow(clippy::indexing_slicing)] // compile time only: an index out of range fails the build
const fn nul_terminated<const N: usize>(s: &str) -> [u8; N] {
    assert!(s.len() + 1 == N);
    let mut out = [0u8; N];
    let mut i = 0;
    while i < s.len() {
        assert!(s.as_bytes()[i] != 0);
        out[i] = s.as_bytes()[i];
        i += 1;
    }
    out
}

/// A short English text for a status, for logs: `"buffer too small"` for
/// `EMCP_BUFFER_TOO_SMALL`. Never NULL: a value that is not one of the `EMCP_*`
/// statuses gives `"unknown status"`. The text is a static NUL-terminated string: do not
/// free or modify it. May be called from anywhere, with any value.
#[no_mangle]
pub extern "C" fn emcp_status_str(status: emcp_status) -> *const c_char {
    let text: &'static [u8] = match status {
        EMCP_OK => text!("ok"),
        EMCP_PENDING => text!("pending"),
        EMCP_NULL_PARAMETER => text!("null parameter"),
        EMCP_INVALID_PARAMETER => text!("invalid parameter"),
        EMCP_NOT_FOUND => text!("not found"),
        EMCP_WRONG_TYPE => text!("wrong type"),
        EMCP_BUFFER_TOO_SMALL => text!("buffer too small"),
        EMCP_WRONG_STATE => text!("wrong state"),
        EMCP_STORAGE_TOO_SMALL => text!("storage too small"),
        EMCP_STORAGE_MISALIGNED => text!("storage misaligned"),
        EMCP_INVALID_CONFIG => text!("invalid configuration"),
        EMCP_INVALID_SCHEMA => text!("invalid schema"),
        EMCP_INVALID_TEMPLATE => text!("invalid URI template"),
        EMCP_TOO_MANY_RESOURCES => text!("too many resources"),
        EMCP_OUTPUT_FULL => text!("output full"),
        EMCP_WRITE_FAILED => text!("write failed"),
        EMCP_READ_FAILED => text!("read failed"),
        EMCP_TOOL_FAILED => text!("tool failed"),
        EMCP_DENIED => text!("denied"),
        EMCP_RETRY_LATER => text!("retry later"),
        EMCP_PANIC => text!("internal error (panic)"),
        _ => text!("unknown status"),
    };
    text.as_ptr().cast()
}

/// Read a C status as success or failure (total: any unknown value is a failure).
pub(crate) fn is_ok(s: emcp_status) -> bool {
    s == EMCP_OK
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ffi::CStr;

    /// The text of a status, as C reads it.
    fn text(status: emcp_status) -> &'static str {
        let p = emcp_status_str(status);
        assert!(!p.is_null());
        // SAFETY: `emcp_status_str` returns a pointer to a `static` array that ends in its
        // only NUL (`nul_terminated` checks both at compile time).
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    /// Every status this file defines, read from its source, so that a status added
    /// without a text fails here rather than printing "unknown status".
    fn defined() -> Vec<(String, emcp_status)> {
        include_str!("status.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("pub const EMCP_"))
            .filter_map(|l| {
                let (name, rest) = l.split_once(": emcp_status = ")?;
                let value = rest.strip_suffix(';')?.parse().ok()?;
                Some((format!("EMCP_{name}"), value))
            })
            .collect()
    }

    #[test]
    fn every_status_has_its_own_text() {
        let all = defined();
        // Every definition line was read (none dropped by the parse above).
        let lines = include_str!("status.rs")
            .matches("\npub const EMCP_")
            .count();
        assert!(lines > 0 && all.len() == lines, "read {all:?} of {lines}");
        let mut seen = std::collections::HashSet::new();
        for (name, value) in &all {
            let t = text(*value);
            assert_ne!(t, "unknown status", "{name} has no text");
            assert!(!t.is_empty() && t.is_ascii(), "{name}: {t:?}");
            assert!(seen.insert(t), "{name} shares its text {t:?}");
        }
        assert_eq!(text(EMCP_OK), "ok");
        assert_eq!(text(EMCP_BUFFER_TOO_SMALL), "buffer too small");
    }

    #[test]
    fn unknown_values_give_the_fixed_text() {
        let known: Vec<emcp_status> = defined().iter().map(|(_, v)| *v).collect();
        for v in [
            2,
            99,
            106,
            199,
            202,
            304,
            403,
            503,
            899,
            901,
            7777,
            u32::MAX,
        ] {
            assert!(!known.contains(&v));
            assert_eq!(text(v), "unknown status", "{v}");
        }
        // The same static text every time.
        assert_eq!(emcp_status_str(2), emcp_status_str(u32::MAX));
    }
}
