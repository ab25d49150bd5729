//! Prompt messages and completion values from C.
//!
//! The `emcp_prompt_get *` and `emcp_completion *` handles are valid only until their
//! callback returns.

use core::ffi::c_char;

use emcp::device::{Completion, PromptGet, Reference, Role};

use crate::status::*;
use crate::text::{bytes, decode_out, taken, tri, utf8};
use crate::{ffi_boundary, non_null};

/// An in-progress `prompts/get` (opaque; valid during the callback only).
pub struct emcp_prompt_get {
    _private: [u8; 0],
}

/// An in-progress `completion/complete` (opaque; valid during the callback only).
pub struct emcp_completion {
    _private: [u8; 0],
}

/// Message role: the user.
pub const EMCP_ROLE_USER: u32 = 0;
/// Message role: the assistant.
pub const EMCP_ROLE_ASSISTANT: u32 = 1;

fn role(r: u32) -> Option<Role> {
    match r {
        EMCP_ROLE_USER => Some(Role::User),
        EMCP_ROLE_ASSISTANT => Some(Role::Assistant),
        _ => None,
    }
}

/// # Safety
/// `get` must be the handle of a prompt callback that has not returned.
unsafe fn prompt<'c>(get: *mut emcp_prompt_get) -> &'c mut PromptGet<'c> {
    // SAFETY: a `&mut PromptGet` cast by the device, alive during the callback.
    unsafe { &mut *get.cast::<PromptGet<'c>>() }
}

/// # Safety
/// `c` must be the handle of a completion callback that has not returned.
unsafe fn completion<'c>(c: *mut emcp_completion) -> &'c mut Completion<'c> {
    // SAFETY: a `&mut Completion` cast by the device, alive during the callback.
    unsafe { &mut *c.cast::<Completion<'c>>() }
}

/// The index of the prompt being rendered.
///
/// # Safety
/// `get` is the running callback's handle; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_index(
    get: *mut emcp_prompt_get,
    out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get, out);
        unsafe { *out = prompt(get).prompt() };
        EMCP_OK
    })
}

/// A prompt argument, decoded into `buf` (NUL-terminated when there is room).
/// `EMCP_NOT_FOUND` when it was not given, `EMCP_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `get` is the running callback's handle; `name` points to `name_len` bytes; `buf` to
/// `buf_len` writable bytes; `len_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_arg(
    get: *mut emcp_prompt_get,
    name: *const c_char,
    name_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get, name, buf, len_out);
        let name = tri!(unsafe { utf8(name, name_len) });
        let Some(value) = unsafe { prompt(get) }.arg(name) else {
            return EMCP_NOT_FOUND;
        };
        unsafe { decode_out(value, buf, buf_len, len_out) }
    })
}

/// The result's description (only before the first message).
///
/// # Safety
/// `get` is the running callback's handle; `text` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_description(
    get: *mut emcp_prompt_get,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get);
        let t = tri!(unsafe { utf8(text, len) });
        taken(unsafe { prompt(get) }.description(t))
    })
}

/// Start a text message (`EMCP_ROLE_USER` or `EMCP_ROLE_ASSISTANT`) written in parts.
///
/// # Safety
/// `get` is the running callback's handle.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_text_begin(
    get: *mut emcp_prompt_get,
    message_role: u32,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get);
        let Some(r) = role(message_role) else {
            return EMCP_INVALID_PARAMETER;
        };
        taken(unsafe { prompt(get) }.text_begin(r))
    })
}

/// Append text to the open message.
///
/// # Safety
/// `get` is the running callback's handle; `text` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_text_part(
    get: *mut emcp_prompt_get,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get);
        let t = tri!(unsafe { utf8(text, len) });
        taken(unsafe { prompt(get) }.part(t))
    })
}

/// Append a prompt argument verbatim to the open message (no buffer needed).
/// `EMCP_NOT_FOUND` when it was not given.
///
/// # Safety
/// `get` is the running callback's handle; `name` points to `name_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_text_arg(
    get: *mut emcp_prompt_get,
    name: *const c_char,
    name_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get, name);
        let name = tri!(unsafe { utf8(name, name_len) });
        let g = unsafe { prompt(get) };
        let Some(value) = g.arg(name) else {
            return EMCP_NOT_FOUND;
        };
        taken(g.part_str(value))
    })
}

/// A whole text message.
///
/// # Safety
/// `get` is the running callback's handle; `text` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_text(
    get: *mut emcp_prompt_get,
    message_role: u32,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get);
        let Some(r) = role(message_role) else {
            return EMCP_INVALID_PARAMETER;
        };
        let t = tri!(unsafe { utf8(text, len) });
        taken(unsafe { prompt(get) }.text(r, t))
    })
}

/// An image message (base64-encoded on the fly).
///
/// # Safety
/// `get` is the running callback's handle; `mime` and `data` point to their lengths.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_image(
    get: *mut emcp_prompt_get,
    message_role: u32,
    mime: *const c_char,
    mime_len: usize,
    data: *const u8,
    data_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get, mime);
        let Some(r) = role(message_role) else {
            return EMCP_INVALID_PARAMETER;
        };
        let m = tri!(unsafe { utf8(mime, mime_len) });
        let d = tri!(unsafe { bytes(data, data_len) });
        taken(unsafe { prompt(get) }.image(r, m, d))
    })
}

/// Completion reference kinds.
pub const EMCP_REF_PROMPT: u32 = 0;
/// A resource template (or resource) reference.
pub const EMCP_REF_RESOURCE: u32 = 1;

/// What is being completed: `EMCP_REF_PROMPT` with the prompt's index, or
/// `EMCP_REF_RESOURCE` (`index_out` is then untouched; the URI comes from
/// `emcp_completion_text(c, EMCP_COMPLETION_URI, ...)`).
///
/// # Safety
/// `c` is the running callback's handle; the out-parameters are writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_completion_ref(
    c: *mut emcp_completion,
    kind_out: *mut u32,
    index_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(c, kind_out, index_out);
        match unsafe { completion(c) }.reference() {
            Reference::Prompt(i) => unsafe {
                *kind_out = EMCP_REF_PROMPT;
                *index_out = i;
            },
            Reference::Resource(_) => unsafe { *kind_out = EMCP_REF_RESOURCE },
        }
        EMCP_OK
    })
}

/// Which text of a completion request to copy out.
fn completion_text<'a>(c: &Completion<'a>, which: u32) -> Option<emcp::wire::json::Str<'a>> {
    match which {
        EMCP_COMPLETION_URI => match c.reference() {
            Reference::Resource(uri) => Some(uri),
            Reference::Prompt(_) => None,
        },
        EMCP_COMPLETION_ARGUMENT => Some(c.argument()),
        EMCP_COMPLETION_VALUE => Some(c.value()),
        _ => None,
    }
}

/// `emcp_completion_text`: the referenced URI (resource references only).
pub const EMCP_COMPLETION_URI: u32 = 0;
/// `emcp_completion_text`: the argument's name.
pub const EMCP_COMPLETION_ARGUMENT: u32 = 1;
/// `emcp_completion_text`: what the user typed so far.
pub const EMCP_COMPLETION_VALUE: u32 = 2;

/// Copy one text of the request (`EMCP_COMPLETION_URI`, `_ARGUMENT`, `_VALUE`), decoded,
/// into `buf` (NUL-terminated when there is room). `EMCP_NOT_FOUND` for the URI of a
/// prompt reference; `EMCP_BUFFER_TOO_SMALL` (nothing written) when it does not fit.
///
/// # Safety
/// `c` is the running callback's handle; `buf` points to `buf_len` writable bytes;
/// `len_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_completion_text(
    c: *mut emcp_completion,
    which: u32,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(c, buf, len_out);
        let Some(s) = completion_text(unsafe { completion(c) }, which) else {
            return EMCP_NOT_FOUND;
        };
        unsafe { decode_out(s, buf, buf_len, len_out) }
    })
}

/// Offer one completion value (at most 100; more are dropped with `EMCP_OUTPUT_FULL`).
///
/// # Safety
/// `c` is the running callback's handle; `value` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_completion_offer(
    c: *mut emcp_completion,
    value: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(c);
        let v = tri!(unsafe { utf8(value, len) });
        if unsafe { completion(c) }.offer(v) {
            EMCP_OK
        } else {
            EMCP_OUTPUT_FULL
        }
    })
}
