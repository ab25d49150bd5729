//! A tool call from C: arguments in (`emcp_args_*`), content out (`emcp_call_*`).
//!
//! The `emcp_tool_call *` a tool callback receives is valid only until the callback
//! returns, and only on the callback's own thread of control. Content functions return
//! `EMCP_WRONG_STATE` when the result cannot take that content: anything after
//! structured content, a text part without an open text block, data without an open
//! image/audio block.
//!
//! Every function here takes the handle first; its contract ("Pointers:") starts with
//! "`call` is the running callback's handle": the `emcp_tool_call *` given to a tool
//! (`call` or `poll`) callback that has not returned yet, used from inside it.

use core::ffi::c_char;

use emcp::device::{LogLevel, ToolCall};
use emcp::wire::json::{self, Kind, Value};

use crate::status::*;
use crate::text::{bytes, decode_out, opt_utf8, taken, tri, utf8};
use crate::{ffi_boundary, non_null};

/// An in-progress tool call (opaque; valid during the callback only).
pub struct emcp_tool_call {
    _private: [u8; 0],
}

/// The core's call behind a handle, for a function that changes the result.
///
/// # Safety
/// `call` is not NULL and is the handle given to a tool callback that has not returned
/// yet, used from inside that callback; no other reference made from it is live.
unsafe fn get<'c>(call: *mut emcp_tool_call) -> &'c mut ToolCall<'c> {
    // SAFETY: `run_tool` made the handle from a `&mut ToolCall` that it does not use
    // until the callback returns; by this function's contract the callback is still
    // running and nothing else holds a reference made from the handle.
    unsafe { &mut *call.cast::<ToolCall<'c>>() }
}

/// The core's call behind a handle, for a function that only reads it.
///
/// # Safety
/// As for [`get`]: no reference made from the handle that changes the call is live.
unsafe fn get_ref<'c>(call: *const emcp_tool_call) -> &'c ToolCall<'c> {
    // SAFETY: as in `get`; only read through, as C's `const` promises.
    unsafe { &*call.cast::<ToolCall<'c>>() }
}

/// The argument named by `(key, key_len)`, or the whole arguments object for a NULL key.
///
/// # Safety
/// `call` as for [`get_ref`]; `key`, unless NULL, points to `key_len` readable bytes.
unsafe fn arg<'c>(
    call: *const emcp_tool_call,
    key: *const c_char,
    key_len: usize,
) -> Result<Value<'c>, emcp_status> {
    // SAFETY: this function's contract is `get_ref`'s.
    let call = unsafe { get_ref(call) };
    if key.is_null() {
        return call.args().ok_or(EMCP_NOT_FOUND);
    }
    // SAFETY: not NULL (checked above); this function's contract: `key_len` readable
    // bytes. The key is only compared, not kept.
    let key = unsafe { utf8(key, key_len) }?;
    call.arg(key).ok_or(EMCP_NOT_FOUND)
}

/// A string argument, decoded (escapes resolved) into `buf`. When `buf_len` leaves room,
/// a NUL is written after the text. `*len_out` is its length without the NUL.
///
/// Returns `EMCP_NOT_FOUND` (no such argument), `EMCP_WRONG_TYPE` (not a string),
/// `EMCP_BUFFER_TOO_SMALL` (nothing written then).
///
/// Pointers: `call` is the running callback's handle; `key` points to `key_len` readable
/// bytes; `buf` to `buf_len` writable bytes; `len_out` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_str(
    call: *const emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, buf, len_out);
        // SAFETY: `call` not NULL (checked above); the contract: the running callback's
        // handle, and `key_len` readable bytes at `key`.
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(s) = v.as_str() else {
            return EMCP_WRONG_TYPE;
        };
        // SAFETY: not NULL (checked above); the contract: `buf_len` writable bytes at
        // `buf` (the caller's own memory, apart from the request line `s` lies in) and a
        // writable `size_t` at `len_out`.
        unsafe { decode_out(s, buf, buf_len, len_out) }
    })
}

/// An integer argument: an integer literal within `int64_t` (`-3`, `9007199254740993`),
/// or an integral number written with a fraction or exponent (`5.0`, `1e17`) within
/// `int64_t`, read exactly from its digits (`9007199254740993.0` is 9007199254740993; no
/// `double`). Anything else is `EMCP_WRONG_TYPE`.
///
/// Pointers: `call` is the running callback's handle; `key` points to `key_len` readable
/// bytes; `out` to a writable `int64_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_i64(
    call: *const emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    out: *mut i64,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        // SAFETY: `call` not NULL (checked above); the contract: the running callback's
        // handle, and `key_len` readable bytes at `key`.
        let v = tri!(unsafe { arg(call, key, key_len) });
        // Exact from the digits, no `f64`: `1e2` and `50.0` are 100 and 50.
        let n = v.as_i64_scaled(0).filter(|_| v.is_integral());
        let Some(n) = n else { return EMCP_WRONG_TYPE };
        // SAFETY: not NULL (checked above); the contract: a writable `int64_t`.
        unsafe { *out = n };
        EMCP_OK
    })
}

/// A number argument: any JSON number as a `double` (the nearest one for up to 19
/// significant digits; beyond the `double` range an infinity). Anything else is
/// `EMCP_WRONG_TYPE`.
///
/// Pointers: `call` is the running callback's handle; `key` points to `key_len` readable
/// bytes; `out` to a writable `double`.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_f64(
    call: *const emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    out: *mut f64,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        // SAFETY: `call` not NULL (checked above); the contract: the running callback's
        // handle, and `key_len` readable bytes at `key`.
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(f) = v.as_f64().filter(|_| v.kind() == Kind::Number) else {
            return EMCP_WRONG_TYPE;
        };
        // SAFETY: not NULL (checked above); the contract: a writable `double`.
        unsafe { *out = f };
        EMCP_OK
    })
}

/// Largest `scale` `emcp_args_get_scaled` takes: beyond it, exponents too large to
/// track could meet the scale, so larger ones are refused and every answer given is
/// exact.
pub const EMCP_MAX_SCALE: u32 = 1_000_000;

/// A number argument as a fixed-point integer: its value times `10^scale`, truncated
/// toward zero, read exactly from its decimal digits (`-12.56` at scale 1 is -125).
/// No `double` involved, so a firmware that uses this instead of `emcp_args_get_f64`
/// links no floating-point code. `EMCP_WRONG_TYPE` when the argument is not a number,
/// the result is outside `int64_t`, or `scale` is above `EMCP_MAX_SCALE`.
///
/// Pointers: `call` is the running callback's handle; `key` points to `key_len` readable
/// bytes; `out` to a writable `int64_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_scaled(
    call: *const emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    scale: u32,
    out: *mut i64,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        // SAFETY: `call` not NULL (checked above); the contract: the running callback's
        // handle, and `key_len` readable bytes at `key`.
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(n) = v.as_i64_scaled(scale) else {
            return EMCP_WRONG_TYPE;
        };
        // SAFETY: not NULL (checked above); the contract: a writable `int64_t`.
        unsafe { *out = n };
        EMCP_OK
    })
}

/// A boolean argument (`true` or `false`; anything else is `EMCP_WRONG_TYPE`).
///
/// Pointers: `call` is the running callback's handle; `key` points to `key_len` readable
/// bytes; `out` to a writable `bool`.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_bool(
    call: *const emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        // SAFETY: `call` not NULL (checked above); the contract: the running callback's
        // handle, and `key_len` readable bytes at `key`.
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(b) = v.as_bool() else {
            return EMCP_WRONG_TYPE;
        };
        // SAFETY: not NULL (checked above); the contract: a writable `bool`.
        unsafe { *out = b };
        EMCP_OK
    })
}

/// The raw JSON text of an argument (a NULL `key`: of the whole arguments object),
/// pointing into the request; valid during the callback. `EMCP_NOT_FOUND` when absent.
///
/// Pointers: `call` is the running callback's handle; `key` is NULL or points to
/// `key_len` readable bytes; `ptr_out` points to a writable `const char *`, `len_out` to
/// a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_raw(
    call: *const emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    ptr_out: *mut *const c_char,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, ptr_out, len_out);
        // SAFETY: `call` not NULL (checked above); the contract: the running callback's
        // handle, and `key` NULL or `key_len` readable bytes.
        let v = tri!(unsafe { arg(call, key, key_len) });
        // SAFETY: not NULL (checked above); the contract: a writable `const char *` and
        // a writable `size_t`.
        unsafe {
            *ptr_out = v.raw().as_ptr().cast();
            *len_out = v.raw().len();
        }
        EMCP_OK
    })
}

/// The index of the tool being called, in the configuration's `tools` array.
///
/// Pointers: `call` is the running callback's handle; `out` points to a writable
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_tool_index(
    call: *const emcp_tool_call,
    out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, out);
        // SAFETY: both not NULL (checked above); the contract: `call` the running
        // callback's handle, `out` a writable `size_t`.
        unsafe { *out = get_ref(call).tool() };
        EMCP_OK
    })
}

/// Whether the callback may return `EMCP_PENDING` (a job slot is free, nothing was
/// written yet, and the tool has a `poll` callback).
///
/// Pointers: `call` is the running callback's handle; `out` points to a writable `bool`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_can_defer(
    call: *const emcp_tool_call,
    out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, out);
        // SAFETY: both not NULL (checked above); the contract: `call` the running
        // callback's handle, `out` a writable `bool`.
        unsafe { *out = get_ref(call).can_defer() };
        EMCP_OK
    })
}

/// The job's state word (kept between `poll` calls; 0 at the first call).
///
/// Pointers: `call` is the running callback's handle; `out` points to a writable
/// `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_state(
    call: *const emcp_tool_call,
    out: *mut u32,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, out);
        // SAFETY: both not NULL (checked above); the contract: `call` the running
        // callback's handle, `out` a writable `uint32_t`.
        unsafe { *out = get_ref(call).state() };
        EMCP_OK
    })
}

/// Set the job's state word.
///
/// Pointers: `call` is the running callback's handle.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_set_state(call: *mut emcp_tool_call, state: u32) -> emcp_status {
    ffi_boundary!({
        non_null!(call);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        unsafe { get(call).set_state(state) };
        EMCP_OK
    })
}

/// Send `notifications/progress` (only if the client sent a progress token, and only
/// before any content). `total < 0` means no total; `message` may be NULL.
/// `*sent_out` tells whether it was sent.
///
/// Pointers: `call` is the running callback's handle; `message` is NULL or points to
/// `message_len` readable bytes; `sent_out` points to a writable `bool`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_progress(
    call: *mut emcp_tool_call,
    progress: f64,
    total: f64,
    message: *const c_char,
    message_len: usize,
    sent_out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, sent_out);
        // SAFETY: the contract: `message` NULL or `message_len` readable bytes, only
        // copied into the notification.
        let msg = tri!(unsafe { opt_utf8(message, message_len) });
        let total = (total >= 0.0).then_some(total);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let sent = unsafe { get(call) }.progress(progress, total, msg);
        // SAFETY: not NULL (checked above); the contract: a writable `bool`.
        unsafe { *sent_out = sent };
        EMCP_OK
    })
}

/// `emcp_call_progress` in whole units, without `double`: `total == 0` means no total.
/// The notification is the same as `emcp_call_progress` sends for these integers.
///
/// Pointers: as for `emcp_call_progress`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_progress_u64(
    call: *mut emcp_tool_call,
    progress: u64,
    total: u64,
    message: *const c_char,
    message_len: usize,
    sent_out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, sent_out);
        // SAFETY: the contract: `message` NULL or `message_len` readable bytes, only
        // copied into the notification.
        let msg = tri!(unsafe { opt_utf8(message, message_len) });
        let total = (total > 0).then_some(total);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let sent = unsafe { get(call) }.progress_u64(progress, total, msg);
        // SAFETY: not NULL (checked above); the contract: a writable `bool`.
        unsafe { *sent_out = sent };
        EMCP_OK
    })
}

/// Log levels for `emcp_call_log` (RFC 5424 order).
pub type emcp_log_level = u32;
/// debug
pub const EMCP_LOG_DEBUG: emcp_log_level = 0;
/// info
pub const EMCP_LOG_INFO: emcp_log_level = 1;
/// notice
pub const EMCP_LOG_NOTICE: emcp_log_level = 2;
/// warning
pub const EMCP_LOG_WARNING: emcp_log_level = 3;
/// error
pub const EMCP_LOG_ERROR: emcp_log_level = 4;
/// critical
pub const EMCP_LOG_CRITICAL: emcp_log_level = 5;
/// alert
pub const EMCP_LOG_ALERT: emcp_log_level = 6;
/// emergency
pub const EMCP_LOG_EMERGENCY: emcp_log_level = 7;

fn log_level(l: emcp_log_level) -> Option<LogLevel> {
    Some(match l {
        EMCP_LOG_DEBUG => LogLevel::Debug,
        EMCP_LOG_INFO => LogLevel::Info,
        EMCP_LOG_NOTICE => LogLevel::Notice,
        EMCP_LOG_WARNING => LogLevel::Warning,
        EMCP_LOG_ERROR => LogLevel::Error,
        EMCP_LOG_CRITICAL => LogLevel::Critical,
        EMCP_LOG_ALERT => LogLevel::Alert,
        EMCP_LOG_EMERGENCY => LogLevel::Emergency,
        _ => return None,
    })
}

/// Send `notifications/message` if the client enabled this level (before any content).
/// A library built without the feature `logging` never sends one (`*sent_out` false).
///
/// Pointers: `call` is the running callback's handle; `logger` points to `logger_len`
/// readable bytes, `data` to `data_len`; `sent_out` to a writable `bool`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_log(
    call: *mut emcp_tool_call,
    level: emcp_log_level,
    logger: *const c_char,
    logger_len: usize,
    data: *const c_char,
    data_len: usize,
    sent_out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, logger, data, sent_out);
        let Some(level) = log_level(level) else {
            return EMCP_INVALID_PARAMETER;
        };
        // SAFETY: not NULL (checked above); the contract: `logger_len` readable bytes,
        // only copied into the notification.
        let logger = tri!(unsafe { utf8(logger, logger_len) });
        // SAFETY: as for `logger`, with `data_len`.
        let data = tri!(unsafe { utf8(data, data_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let sent = unsafe { get(call) }.log(level, logger, data);
        // SAFETY: not NULL (checked above); the contract: a writable `bool`.
        unsafe { *sent_out = sent };
        EMCP_OK
    })
}

/// Run `f` on the call with a UTF-8 text argument; `f` says whether the core took it.
///
/// # Safety
/// `call` is NULL or as for [`get`]; `text` points to `len` readable bytes (NULL only
/// when `len` is 0).
unsafe fn with_text(
    call: *mut emcp_tool_call,
    text: *const c_char,
    len: usize,
    f: impl FnOnce(&mut ToolCall<'_>, &str) -> bool,
) -> emcp_status {
    non_null!(call);
    // SAFETY: this function's contract: `len` readable bytes (or NULL with 0), which `f`
    // copies into the result and does not keep.
    let t = tri!(unsafe { utf8(text, len) });
    // SAFETY: not NULL (checked above); this function's contract is `get`'s.
    taken(f(unsafe { get(call) }, t))
}

/// A text content block.
///
/// Pointers: `call` is the running callback's handle; `text` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_call_text(
    call: *mut emcp_tool_call,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        // SAFETY: the contract is `with_text`'s: the running callback's handle (or NULL,
        // refused there) and `len` readable bytes at `text`.
        unsafe { with_text(call, text, len, |c, t| c.text(t)) }
    })
}

/// Start a text block written in parts with `emcp_call_text_part`.
///
/// Pointers: `call` is the running callback's handle.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_text_begin(call: *mut emcp_tool_call) -> emcp_status {
    ffi_boundary!({
        non_null!(call);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(call) }.text_begin())
    })
}

/// Append text to the block opened by `emcp_call_text_begin`.
///
/// Pointers: `call` is the running callback's handle; `text` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_call_text_part(
    call: *mut emcp_tool_call,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        // SAFETY: the contract is `with_text`'s: the running callback's handle (or NULL,
        // refused there) and `len` readable bytes at `text`.
        unsafe { with_text(call, text, len, |c, t| c.part(t)) }
    })
}

/// Start an image block (`mime` e.g. `image/png`); feed bytes with `emcp_call_data`.
///
/// Pointers: `call` is the running callback's handle; `mime` points to `mime_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_image_begin(
    call: *mut emcp_tool_call,
    mime: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({
        // SAFETY: the contract is `with_text`'s: the running callback's handle (or NULL,
        // refused there) and `mime_len` readable bytes at `mime`.
        unsafe { with_text(call, mime, mime_len, |c, m| c.image_begin(m)) }
    })
}

/// Start an audio block (`mime` e.g. `audio/wav`); feed bytes with `emcp_call_data`.
///
/// Pointers: as for `emcp_call_image_begin`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_audio_begin(
    call: *mut emcp_tool_call,
    mime: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({
        // SAFETY: the contract is `with_text`'s: the running callback's handle (or NULL,
        // refused there) and `mime_len` readable bytes at `mime`.
        unsafe { with_text(call, mime, mime_len, |c, m| c.audio_begin(m)) }
    })
}

/// Append raw bytes to the open image/audio block (base64-encoded on the fly).
///
/// Pointers: `call` is the running callback's handle; `data` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_call_data(
    call: *mut emcp_tool_call,
    data: *const u8,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call);
        // SAFETY: the contract: `len` readable bytes (or NULL with 0), only encoded into
        // the result.
        let d = tri!(unsafe { bytes(data, len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(call) }.data(d))
    })
}

/// A `resource_link` block. `mime` may be NULL.
///
/// Pointers: `call` is the running callback's handle; `uri` points to `uri_len`
/// readable bytes, `name` to `name_len`; `mime` is NULL or points to `mime_len`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_resource_link(
    call: *mut emcp_tool_call,
    uri: *const c_char,
    uri_len: usize,
    name: *const c_char,
    name_len: usize,
    mime: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, uri, name);
        // SAFETY: the contract (for this and the next two texts): each text's length of
        // readable bytes (`mime` may be NULL), only copied into the result.
        let uri = tri!(unsafe { utf8(uri, uri_len) });
        // SAFETY: as above.
        let name = tri!(unsafe { utf8(name, name_len) });
        let mut r = emcp::model::registry::Resource::new(uri, name);
        // SAFETY: as above.
        r.mime_type = tri!(unsafe { opt_utf8(mime, mime_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(call) }.resource_link(&r))
    })
}

/// An embedded text resource block. `mime` may be NULL.
///
/// Pointers: `call` is the running callback's handle; `uri` points to `uri_len`
/// readable bytes, `text` to `text_len` (NULL only when `text_len` is 0); `mime` is NULL
/// or points to `mime_len`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_embedded_text(
    call: *mut emcp_tool_call,
    uri: *const c_char,
    uri_len: usize,
    mime: *const c_char,
    mime_len: usize,
    text: *const c_char,
    text_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, uri);
        // SAFETY: the contract (for this and the next two texts): each text's length of
        // readable bytes (`mime` may be NULL, `text` NULL with 0), only copied into the
        // result.
        let uri = tri!(unsafe { utf8(uri, uri_len) });
        // SAFETY: as above.
        let mime = tri!(unsafe { opt_utf8(mime, mime_len) });
        // SAFETY: as above.
        let text = tri!(unsafe { utf8(text, text_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(call) }.embedded_text(uri, mime, text))
    })
}

/// An embedded binary resource block (base64-encoded on the fly). `mime` may be NULL.
///
/// Pointers: `call` is the running callback's handle; `uri` points to `uri_len`
/// readable bytes, `data` to `data_len` (NULL only when `data_len` is 0); `mime` is NULL
/// or points to `mime_len`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_embedded_blob(
    call: *mut emcp_tool_call,
    uri: *const c_char,
    uri_len: usize,
    mime: *const c_char,
    mime_len: usize,
    data: *const u8,
    data_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, uri);
        // SAFETY: the contract (for this and the next two texts): each pointer's length of
        // readable bytes (`mime` may be NULL, `data` NULL with 0), only copied or encoded
        // into the result.
        let uri = tri!(unsafe { utf8(uri, uri_len) });
        // SAFETY: as above.
        let mime = tri!(unsafe { opt_utf8(mime, mime_len) });
        // SAFETY: as above.
        let data = tri!(unsafe { bytes(data, data_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(call) }.embedded_blob(uri, mime, data))
    })
}

/// `structuredContent` from JSON text (checked: `EMCP_INVALID_PARAMETER` if it is not
/// valid JSON). Content blocks must come before it; nothing may follow it.
///
/// Pointers: `call` is the running callback's handle; `json_text` points to `len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_structured(
    call: *mut emcp_tool_call,
    json_text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, json_text);
        // SAFETY: not NULL (checked above); the contract: `len` readable bytes, only
        // checked and copied into the result.
        let raw = tri!(unsafe { bytes(json_text.cast(), len) });
        let Ok(v) = json::parse(raw) else {
            return EMCP_INVALID_PARAMETER;
        };
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(call) }.structured(|w| w.raw_value(v.raw())))
    })
}

/// A text block saying why the tool failed, and `isError: true` on the result (set even
/// when the text is refused with `EMCP_WRONG_STATE`, e.g. after structured content).
///
/// Pointers: `call` is the running callback's handle; `message` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_call_error(
    call: *mut emcp_tool_call,
    message: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        // SAFETY: the contract is `with_text`'s: the running callback's handle (or NULL,
        // refused there) and `len` readable bytes at `message`.
        unsafe { with_text(call, message, len, |c, t| c.error(t)) }
    })
}
