//! A tool call from C: arguments in (`emcp_args_*`), content out (`emcp_call_*`).
//!
//! The `emcp_tool_call *` a tool callback receives is valid only until the callback
//! returns. Content functions return `EMCP_WRONG_STATE` when the result cannot take
//! that content: anything after structured content, a text part without an open text
//! block, data without an open image/audio block.

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

/// The core's call behind a handle.
///
/// # Safety
/// `call` must be a handle given to a tool callback that has not returned yet.
unsafe fn get<'c>(call: *mut emcp_tool_call) -> &'c mut ToolCall<'c> {
    // SAFETY: the handle is a `&mut ToolCall` cast by `run_tool`, alive during the callback.
    unsafe { &mut *call.cast::<ToolCall<'c>>() }
}

/// The argument named by `(key, key_len)`, or the whole arguments object for a NULL key.
unsafe fn arg<'c>(
    call: *mut emcp_tool_call,
    key: *const c_char,
    key_len: usize,
) -> Result<Value<'c>, emcp_status> {
    let call = unsafe { get(call) };
    if key.is_null() {
        return call.args().ok_or(EMCP_NOT_FOUND);
    }
    let key = unsafe { utf8(key, key_len) }?;
    call.arg(key).ok_or(EMCP_NOT_FOUND)
}

/// A string argument, decoded (escapes resolved) into `buf`. When `buf_len` leaves room,
/// a NUL is written after the text. `*len_out` is its length without the NUL.
///
/// Returns `EMCP_NOT_FOUND` (no such argument), `EMCP_WRONG_TYPE` (not a string),
/// `EMCP_BUFFER_TOO_SMALL` (nothing written then).
///
/// # Safety
/// `call` is the handle of the running callback; `key` points to `key_len` bytes; `buf`
/// to `buf_len` writable bytes; `len_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_str(
    call: *mut emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, buf, len_out);
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(s) = v.as_str() else {
            return EMCP_WRONG_TYPE;
        };
        unsafe { decode_out(s, buf, buf_len, len_out) }
    })
}

/// An integer argument: an integer literal within i64 (`-3`, `9007199254740993`), or an
/// integral number written with a fraction or exponent (`5.0`, `1e17`) within i64, read
/// exactly from its digits (`9007199254740993.0` is 9007199254740993; no `double`).
/// Anything else is `EMCP_WRONG_TYPE`.
///
/// # Safety
/// As for `emcp_args_get_str`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_i64(
    call: *mut emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    out: *mut i64,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        let v = tri!(unsafe { arg(call, key, key_len) });
        // Exact from the digits, no `f64`: `1e2` and `50.0` are 100 and 50.
        let n = v.as_i64_scaled(0).filter(|_| v.is_integral());
        let Some(n) = n else { return EMCP_WRONG_TYPE };
        unsafe { *out = n };
        EMCP_OK
    })
}

/// A number argument.
///
/// # Safety
/// As for `emcp_args_get_str`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_f64(
    call: *mut emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    out: *mut f64,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(f) = v.as_f64().filter(|_| v.kind() == Kind::Number) else {
            return EMCP_WRONG_TYPE;
        };
        unsafe { *out = f };
        EMCP_OK
    })
}

/// A number argument as a fixed-point integer: its value times `10^scale`, truncated
/// toward zero, read exactly from its decimal digits (`-12.56` at scale 1 is -125).
/// No `double` involved, so a firmware that uses this instead of `emcp_args_get_f64`
/// links no floating-point code. `EMCP_WRONG_TYPE` when the argument is not a number,
/// the result is outside `int64_t`, or `scale` is above 1,000,000.
///
/// # Safety
/// As for `emcp_args_get_str`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_scaled(
    call: *mut emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    scale: u32,
    out: *mut i64,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(n) = v.as_i64_scaled(scale) else {
            return EMCP_WRONG_TYPE;
        };
        unsafe { *out = n };
        EMCP_OK
    })
}

/// A boolean argument.
///
/// # Safety
/// As for `emcp_args_get_str`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_bool(
    call: *mut emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, key, out);
        let v = tri!(unsafe { arg(call, key, key_len) });
        let Some(b) = v.as_bool() else {
            return EMCP_WRONG_TYPE;
        };
        unsafe { *out = b };
        EMCP_OK
    })
}

/// The raw JSON text of an argument (a NULL `key`: of the whole arguments object),
/// pointing into the request; valid during the callback. `EMCP_NOT_FOUND` when absent.
///
/// # Safety
/// As for `emcp_args_get_str`; `ptr_out` and `len_out` are writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_args_get_raw(
    call: *mut emcp_tool_call,
    key: *const c_char,
    key_len: usize,
    ptr_out: *mut *const c_char,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, ptr_out, len_out);
        let v = tri!(unsafe { arg(call, key, key_len) });
        unsafe {
            *ptr_out = v.raw().as_ptr().cast();
            *len_out = v.raw().len();
        }
        EMCP_OK
    })
}

/// The index of the tool being called, in the configuration's `tools` array.
///
/// # Safety
/// `call` is the running callback's handle; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_tool_index(
    call: *mut emcp_tool_call,
    out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, out);
        unsafe { *out = get(call).tool() };
        EMCP_OK
    })
}

/// Whether the callback may return `EMCP_PENDING` (a job slot is free, nothing was
/// written yet, and the tool has a `poll` callback).
///
/// # Safety
/// `call` is the running callback's handle; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_can_defer(
    call: *mut emcp_tool_call,
    out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, out);
        unsafe { *out = get(call).can_defer() };
        EMCP_OK
    })
}

/// The job's state word (kept between `poll` calls; 0 at the first call).
///
/// # Safety
/// `call` is the running callback's handle; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_state(call: *mut emcp_tool_call, out: *mut u32) -> emcp_status {
    ffi_boundary!({
        non_null!(call, out);
        unsafe { *out = get(call).state() };
        EMCP_OK
    })
}

/// Set the job's state word.
///
/// # Safety
/// `call` is the running callback's handle.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_set_state(call: *mut emcp_tool_call, state: u32) -> emcp_status {
    ffi_boundary!({
        non_null!(call);
        unsafe { get(call).set_state(state) };
        EMCP_OK
    })
}

/// Send `notifications/progress` (only if the client sent a progress token, and only
/// before any content). `total < 0` means no total; `message` may be NULL.
/// `*sent_out` tells whether it was sent.
///
/// # Safety
/// `call` is the running callback's handle; `message` points to `message_len` bytes or
/// is NULL; `sent_out` is writable.
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
        let msg = tri!(unsafe { opt_utf8(message, message_len) });
        let total = (total >= 0.0).then_some(total);
        let sent = unsafe { get(call) }.progress(progress, total, msg);
        unsafe { *sent_out = sent };
        EMCP_OK
    })
}

/// `emcp_call_progress` in whole units, without `double`: `total == 0` means no total.
/// The notification is the same as `emcp_call_progress` sends for these integers.
///
/// # Safety
/// As for `emcp_call_progress`.
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
        let msg = tri!(unsafe { opt_utf8(message, message_len) });
        let total = (total > 0).then_some(total);
        let sent = unsafe { get(call) }.progress_u64(progress, total, msg);
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
///
/// # Safety
/// `call` is the running callback's handle; `logger` and `data` point to their lengths
/// of bytes; `sent_out` is writable.
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
        let logger = tri!(unsafe { utf8(logger, logger_len) });
        let data = tri!(unsafe { utf8(data, data_len) });
        let sent = unsafe { get(call) }.log(level, logger, data);
        unsafe { *sent_out = sent };
        EMCP_OK
    })
}

/// Run `f` on the call with a UTF-8 text argument; `f` says whether the core took it.
unsafe fn with_text(
    call: *mut emcp_tool_call,
    text: *const c_char,
    len: usize,
    f: impl FnOnce(&mut ToolCall<'_>, &str) -> bool,
) -> emcp_status {
    non_null!(call);
    let t = tri!(unsafe { utf8(text, len) });
    taken(f(unsafe { get(call) }, t))
}

/// A text content block.
///
/// # Safety
/// `call` is the running callback's handle; `text` points to `len` bytes (NULL if 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_call_text(
    call: *mut emcp_tool_call,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({ unsafe { with_text(call, text, len, |c, t| c.text(t)) } })
}

/// Start a text block written in parts with `emcp_call_text_part`.
///
/// # Safety
/// `call` is the running callback's handle.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_text_begin(call: *mut emcp_tool_call) -> emcp_status {
    ffi_boundary!({
        non_null!(call);
        taken(unsafe { get(call) }.text_begin())
    })
}

/// Append text to the block opened by `emcp_call_text_begin`.
///
/// # Safety
/// `call` is the running callback's handle; `text` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_text_part(
    call: *mut emcp_tool_call,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({ unsafe { with_text(call, text, len, |c, t| c.part(t)) } })
}

/// Start an image block (`mime` e.g. `image/png`); feed bytes with `emcp_call_data`.
///
/// # Safety
/// `call` is the running callback's handle; `mime` points to `mime_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_image_begin(
    call: *mut emcp_tool_call,
    mime: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({ unsafe { with_text(call, mime, mime_len, |c, m| c.image_begin(m)) } })
}

/// Start an audio block (`mime` e.g. `audio/wav`); feed bytes with `emcp_call_data`.
///
/// # Safety
/// As for `emcp_call_image_begin`.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_audio_begin(
    call: *mut emcp_tool_call,
    mime: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({ unsafe { with_text(call, mime, mime_len, |c, m| c.audio_begin(m)) } })
}

/// Append raw bytes to the open image/audio block (base64-encoded on the fly).
///
/// # Safety
/// `call` is the running callback's handle; `data` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_data(
    call: *mut emcp_tool_call,
    data: *const u8,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call);
        let d = tri!(unsafe { bytes(data, len) });
        taken(unsafe { get(call) }.data(d))
    })
}

/// A `resource_link` block. `mime` may be NULL.
///
/// # Safety
/// `call` is the running callback's handle; each text points to its length of bytes.
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
        let uri = tri!(unsafe { utf8(uri, uri_len) });
        let name = tri!(unsafe { utf8(name, name_len) });
        let mut r = emcp::model::registry::Resource::new(uri, name);
        r.mime_type = tri!(unsafe { opt_utf8(mime, mime_len) });
        taken(unsafe { get(call) }.resource_link(&r))
    })
}

/// An embedded text resource block. `mime` may be NULL.
///
/// # Safety
/// `call` is the running callback's handle; each text points to its length of bytes.
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
        let uri = tri!(unsafe { utf8(uri, uri_len) });
        let mime = tri!(unsafe { opt_utf8(mime, mime_len) });
        let text = tri!(unsafe { utf8(text, text_len) });
        taken(unsafe { get(call) }.embedded_text(uri, mime, text))
    })
}

/// An embedded binary resource block (base64-encoded on the fly). `mime` may be NULL.
///
/// # Safety
/// `call` is the running callback's handle; each pointer points to its length of bytes.
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
        let uri = tri!(unsafe { utf8(uri, uri_len) });
        let mime = tri!(unsafe { opt_utf8(mime, mime_len) });
        let data = tri!(unsafe { bytes(data, data_len) });
        taken(unsafe { get(call) }.embedded_blob(uri, mime, data))
    })
}

/// `structuredContent` from JSON text (checked: `EMCP_INVALID_PARAMETER` if it is not
/// valid JSON). Content blocks must come before it; nothing may follow it.
///
/// # Safety
/// `call` is the running callback's handle; `json_text` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_structured(
    call: *mut emcp_tool_call,
    json_text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(call, json_text);
        let raw = tri!(unsafe { bytes(json_text.cast(), len) });
        let Ok(v) = json::parse(raw) else {
            return EMCP_INVALID_PARAMETER;
        };
        taken(unsafe { get(call) }.structured(|w| w.raw_value(v.raw())))
    })
}

/// A text block saying why the tool failed, and `isError: true` on the result (set even
/// when the text is refused with `EMCP_WRONG_STATE`, e.g. after structured content).
///
/// # Safety
/// `call` is the running callback's handle; `message` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_call_error(
    call: *mut emcp_tool_call,
    message: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({ unsafe { with_text(call, message, len, |c, t| c.error(t)) } })
}
