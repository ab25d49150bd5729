//! `emcp_status`: what every fallible function returns.
//!
//! Values are explicit and grouped by hundreds; a retired value stays reserved forever.
//! A status is a plain `uint32_t` on the C side, so a callback may return any value:
//! Rust reads it with a total conversion (`is_ok`, `step`), never a transmute.

/// A status code.
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
/// More resources than the server can track for subscriptions (32).
pub const EMCP_TOO_MANY_RESOURCES: emcp_status = 303;

/// The output buffer has too little room: take output, then feed the rest again.
pub const EMCP_OUTPUT_FULL: emcp_status = 400;
/// The write callback reported a failure.
pub const EMCP_WRITE_FAILED: emcp_status = 401;

/// A tool callback's own failure (any status other than OK or PENDING means the same).
pub const EMCP_TOOL_FAILED: emcp_status = 500;
/// From the authorization callback: the tool may not run; the client is told the reason.
pub const EMCP_DENIED: emcp_status = 501;
/// From the authorization callback: over a rate limit; the client is told to retry later.
pub const EMCP_RETRY_LATER: emcp_status = 502;

/// A panic was caught at the boundary (host builds only; never expected).
pub const EMCP_PANIC: emcp_status = 900;

/// Read a C status as success or failure (total: any unknown value is a failure).
pub(crate) fn is_ok(s: emcp_status) -> bool {
    s == EMCP_OK
}
