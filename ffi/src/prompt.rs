//! Prompt messages and completion values from C.
//!
//! The `emcp_prompt_get *` and `emcp_completion *` handles are valid only until their
//! callback returns, and only on the callback's own thread of control. Every function
//! here takes one first; its contract ("Pointers:") starts with "`get` (or `c`) is the
//! running callback's handle": the handle given to a prompt (or completion) callback
//! that has not returned yet, used from inside it.

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

/// The core's prompt request behind a handle, for a function that writes messages.
///
/// # Safety
/// `get` is not NULL and is the handle given to a prompt callback that has not returned
/// yet, used from inside that callback; no other reference made from it is live.
unsafe fn prompt<'c>(get: *mut emcp_prompt_get) -> &'c mut PromptGet<'c> {
    // SAFETY: `CDevice::get_prompt` made the handle from a `&mut PromptGet` that it does
    // not use until the callback returns; by this function's contract the callback is
    // still running and nothing else holds a reference made from the handle.
    unsafe { &mut *get.cast::<PromptGet<'c>>() }
}

/// The core's prompt request behind a handle, for a function that only reads it.
///
/// # Safety
/// As for [`prompt`]: no reference made from the handle that changes the request is live.
unsafe fn prompt_ref<'c>(get: *const emcp_prompt_get) -> &'c PromptGet<'c> {
    // SAFETY: as in `prompt`; only read through, as C's `const` promises.
    unsafe { &*get.cast::<PromptGet<'c>>() }
}

/// The core's completion request behind a handle, for a function that offers values.
///
/// # Safety
/// `c` is not NULL and is the handle given to a completion callback that has not
/// returned yet, used from inside that callback; no other reference made from it is
/// live.
unsafe fn completion<'c>(c: *mut emcp_completion) -> &'c mut Completion<'c> {
    // SAFETY: `CDevice::complete` made the handle from a `&mut Completion` that it does
    // not use until the callback returns; by this function's contract the callback is
    // still running and nothing else holds a reference made from the handle.
    unsafe { &mut *c.cast::<Completion<'c>>() }
}

/// The core's completion request behind a handle, for a function that only reads it.
///
/// # Safety
/// As for [`completion`]: no reference made from the handle that changes the request is
/// live.
unsafe fn completion_ref<'c>(c: *const emcp_completion) -> &'c Completion<'c> {
    // SAFETY: as in `completion`; only read through, as C's `const` promises.
    unsafe { &*c.cast::<Completion<'c>>() }
}

/// The index of the prompt being rendered.
///
/// Pointers: `get` is the running callback's handle; `out` points to a writable
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_index(
    get: *const emcp_prompt_get,
    out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get, out);
        // SAFETY: both not NULL (checked above); the contract: `get` the running
        // callback's handle, `out` a writable `size_t`.
        unsafe { *out = prompt_ref(get).prompt() };
        EMCP_OK
    })
}

/// A prompt argument, decoded into `buf` (NUL-terminated when there is room);
/// `*len_out` is its length without the NUL. `EMCP_NOT_FOUND` when it was not given,
/// `EMCP_BUFFER_TOO_SMALL` (nothing written) when it does not fit.
///
/// Pointers: `get` is the running callback's handle; `name` points to `name_len`
/// readable bytes; `buf` to `buf_len` writable bytes; `len_out` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_arg(
    get: *const emcp_prompt_get,
    name: *const c_char,
    name_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get, name, buf, len_out);
        // SAFETY: not NULL (checked above); the contract: `name_len` readable bytes, only
        // compared.
        let name = tri!(unsafe { utf8(name, name_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let Some(value) = unsafe { prompt_ref(get) }.arg(name) else {
            return EMCP_NOT_FOUND;
        };
        // SAFETY: not NULL (checked above); the contract: `buf_len` writable bytes at
        // `buf` (the caller's own memory, apart from the request line `value` lies in)
        // and a writable `size_t` at `len_out`.
        unsafe { decode_out(value, buf, buf_len, len_out) }
    })
}

/// The result's description (only before the first message).
///
/// Pointers: `get` is the running callback's handle; `text` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_description(
    get: *mut emcp_prompt_get,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get);
        // SAFETY: the contract: `len` readable bytes (or NULL with 0), only copied.
        let t = tri!(unsafe { utf8(text, len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { prompt(get) }.description(t))
    })
}

/// Start a text message (`EMCP_ROLE_USER` or `EMCP_ROLE_ASSISTANT`) written in parts.
///
/// Pointers: `get` is the running callback's handle.
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
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { prompt(get) }.text_begin(r))
    })
}

/// Append text to the open message.
///
/// Pointers: `get` is the running callback's handle; `text` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_text_part(
    get: *mut emcp_prompt_get,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get);
        // SAFETY: the contract: `len` readable bytes (or NULL with 0), only copied.
        let t = tri!(unsafe { utf8(text, len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { prompt(get) }.part(t))
    })
}

/// Append a prompt argument verbatim to the open message (no buffer needed).
/// `EMCP_NOT_FOUND` when it was not given.
///
/// Pointers: `get` is the running callback's handle; `name` points to `name_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_prompt_text_arg(
    get: *mut emcp_prompt_get,
    name: *const c_char,
    name_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(get, name);
        // SAFETY: not NULL (checked above); the contract: `name_len` readable bytes, only
        // compared.
        let name = tri!(unsafe { utf8(name, name_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let g = unsafe { prompt(get) };
        let Some(value) = g.arg(name) else {
            return EMCP_NOT_FOUND;
        };
        taken(g.part_str(value))
    })
}

/// A whole text message (`EMCP_ROLE_USER` or `EMCP_ROLE_ASSISTANT`).
///
/// Pointers: `get` is the running callback's handle; `text` points to `len` readable
/// bytes (NULL only when `len` is 0).
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
        // SAFETY: the contract: `len` readable bytes (or NULL with 0), only copied.
        let t = tri!(unsafe { utf8(text, len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { prompt(get) }.text(r, t))
    })
}

/// An image message (`mime` e.g. `image/png`; `data` base64-encoded on the fly).
///
/// Pointers: `get` is the running callback's handle; `mime` points to `mime_len`
/// readable bytes, `data` to `data_len` (NULL only when `data_len` is 0).
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
        // SAFETY: not NULL (checked above); the contract: `mime_len` readable bytes, only
        // copied.
        let m = tri!(unsafe { utf8(mime, mime_len) });
        // SAFETY: the contract: `data_len` readable bytes (or NULL with 0), only encoded.
        let d = tri!(unsafe { bytes(data, data_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { prompt(get) }.image(r, m, d))
    })
}

/// What `emcp_completion_ref` reports: a prompt reference.
pub const EMCP_REF_PROMPT: u32 = 0;
/// What `emcp_completion_ref` reports: a resource template (or resource) reference.
pub const EMCP_REF_RESOURCE: u32 = 1;

/// What is being completed: `EMCP_REF_PROMPT` with the prompt's index, or
/// `EMCP_REF_RESOURCE` (`index_out` is then untouched; the URI comes from
/// `emcp_completion_text(c, EMCP_COMPLETION_URI, ...)`).
///
/// Pointers: `c` is the running callback's handle; `kind_out` points to a writable
/// `uint32_t`, `index_out` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_completion_ref(
    c: *const emcp_completion,
    kind_out: *mut u32,
    index_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(c, kind_out, index_out);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        match unsafe { completion_ref(c) }.reference() {
            // SAFETY: not NULL (checked above); the contract: a writable `uint32_t` and a
            // writable `size_t`.
            Reference::Prompt(i) => unsafe {
                *kind_out = EMCP_REF_PROMPT;
                *index_out = i;
            },
            // SAFETY: not NULL (checked above); the contract: a writable `uint32_t`.
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

/// Most values `emcp_completion_offer` takes in one completion.
pub const EMCP_MAX_COMPLETIONS: usize = 100;
const _: () = assert!(EMCP_MAX_COMPLETIONS == emcp::device::MAX_COMPLETIONS);

/// `emcp_completion_text`: the referenced URI (resource references only).
pub const EMCP_COMPLETION_URI: u32 = 0;
/// `emcp_completion_text`: the argument's name.
pub const EMCP_COMPLETION_ARGUMENT: u32 = 1;
/// `emcp_completion_text`: what the user typed so far.
pub const EMCP_COMPLETION_VALUE: u32 = 2;

/// Copy one text of the request (`EMCP_COMPLETION_URI`, `_ARGUMENT`, `_VALUE`), decoded,
/// into `buf` (NUL-terminated when there is room); `*len_out` is its length without the
/// NUL. `EMCP_NOT_FOUND` for the URI of a prompt reference or an unknown `which`;
/// `EMCP_BUFFER_TOO_SMALL` (nothing written) when it does not fit.
///
/// Pointers: `c` is the running callback's handle; `buf` points to `buf_len` writable
/// bytes; `len_out` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_completion_text(
    c: *const emcp_completion,
    which: u32,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(c, buf, len_out);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let Some(s) = completion_text(unsafe { completion_ref(c) }, which) else {
            return EMCP_NOT_FOUND;
        };
        // SAFETY: not NULL (checked above); the contract: `buf_len` writable bytes at
        // `buf` (the caller's own memory, apart from the request line `s` lies in) and a
        // writable `size_t` at `len_out`.
        unsafe { decode_out(s, buf, buf_len, len_out) }
    })
}

/// Offer one completion value (at most `EMCP_MAX_COMPLETIONS`; more are dropped with
/// `EMCP_OUTPUT_FULL`).
///
/// Pointers: `c` is the running callback's handle; `value` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_completion_offer(
    c: *mut emcp_completion,
    value: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(c);
        // SAFETY: the contract: `len` readable bytes (or NULL with 0), only copied.
        let v = tri!(unsafe { utf8(value, len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        if unsafe { completion(c) }.offer(v) {
            EMCP_OK
        } else {
            EMCP_OUTPUT_FULL
        }
    })
}
