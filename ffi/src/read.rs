//! A resource read from C: which resource, template variables, contents out.
//!
//! The `emcp_resource_read *` a read callback receives is valid only until it returns,
//! and only on the callback's own thread of control. Every function here takes it first;
//! its contract ("Pointers:") starts with "`read` is the running callback's handle": the
//! `emcp_resource_read *` given to a read callback that has not returned yet, used from
//! inside it.

use core::ffi::c_char;

use emcp::device::{ResourceRead, Target};

use crate::status::*;
use crate::text::{bytes, opt_utf8, taken, tri, utf8};
use crate::{ffi_boundary, non_null};

/// An in-progress resource read (opaque; valid during the callback only).
pub struct emcp_resource_read {
    _private: [u8; 0],
}

/// What a read targets: a static resource.
pub const EMCP_TARGET_RESOURCE: u32 = 0;
/// What a read targets: a resource template.
pub const EMCP_TARGET_TEMPLATE: u32 = 1;

/// The core's read behind a handle, for a function that writes contents.
///
/// # Safety
/// `read` is not NULL and is the handle given to a read callback that has not returned
/// yet, used from inside that callback; no other reference made from it is live.
unsafe fn get<'c>(read: *mut emcp_resource_read) -> &'c mut ResourceRead<'c> {
    // SAFETY: `CDevice::read_resource` made the handle from a `&mut ResourceRead` that it
    // does not use until the callback returns; by this function's contract the callback
    // is still running and nothing else holds a reference made from the handle.
    unsafe { &mut *read.cast::<ResourceRead<'c>>() }
}

/// The core's read behind a handle, for a function that only reads it.
///
/// # Safety
/// As for [`get`]: no reference made from the handle that changes the read is live.
unsafe fn get_ref<'c>(read: *const emcp_resource_read) -> &'c ResourceRead<'c> {
    // SAFETY: as in `get`; only read through, as C's `const` promises.
    unsafe { &*read.cast::<ResourceRead<'c>>() }
}

/// The requested URI (decoded), valid during the callback.
///
/// Pointers: `read` is the running callback's handle; `ptr_out` points to a writable
/// `const char *`, `len_out` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_uri(
    read: *const emcp_resource_read,
    ptr_out: *mut *const c_char,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read, ptr_out, len_out);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let uri = unsafe { get_ref(read) }.uri();
        // SAFETY: not NULL (checked above); the contract: a writable `const char *` and
        // a writable `size_t`.
        unsafe {
            *ptr_out = uri.as_ptr().cast();
            *len_out = uri.len();
        }
        EMCP_OK
    })
}

/// What the URI matched: `EMCP_TARGET_RESOURCE` or `EMCP_TARGET_TEMPLATE`, and the
/// index in the configuration's array.
///
/// Pointers: `read` is the running callback's handle; `kind_out` points to a writable
/// `uint32_t`, `index_out` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_target(
    read: *const emcp_resource_read,
    kind_out: *mut u32,
    index_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read, kind_out, index_out);
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let (kind, index) = match unsafe { get_ref(read) }.target() {
            Target::Resource(i) => (EMCP_TARGET_RESOURCE, i),
            Target::Template(i) => (EMCP_TARGET_TEMPLATE, i),
        };
        // SAFETY: not NULL (checked above); the contract: a writable `uint32_t` and a
        // writable `size_t`.
        unsafe {
            *kind_out = kind;
            *index_out = index;
        }
        EMCP_OK
    })
}

/// The value of a template variable (still percent-encoded), valid during the callback.
/// `EMCP_NOT_FOUND` when the template has no such variable.
///
/// Pointers: `read` is the running callback's handle; `name` points to `name_len`
/// readable bytes; `ptr_out` to a writable `const char *`, `len_out` to a writable
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_var(
    read: *const emcp_resource_read,
    name: *const c_char,
    name_len: usize,
    ptr_out: *mut *const c_char,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read, name, ptr_out, len_out);
        // SAFETY: not NULL (checked above); the contract: `name_len` readable bytes, only
        // compared.
        let name = tri!(unsafe { utf8(name, name_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        let Some(value) = unsafe { get_ref(read) }.var(name) else {
            return EMCP_NOT_FOUND;
        };
        // SAFETY: not NULL (checked above); the contract: a writable `const char *` and
        // a writable `size_t`.
        unsafe {
            *ptr_out = value.as_ptr().cast();
            *len_out = value.len();
        }
        EMCP_OK
    })
}

/// Text contents (`mime` may be NULL: no `mimeType`).
///
/// Pointers: `read` is the running callback's handle; `mime` is NULL or points to
/// `mime_len` readable bytes; `text` points to `text_len` readable bytes (NULL only when
/// `text_len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_read_text(
    read: *mut emcp_resource_read,
    mime: *const c_char,
    mime_len: usize,
    text: *const c_char,
    text_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        // SAFETY: the contract: NULL or `mime_len` readable bytes, only copied.
        let m = tri!(unsafe { opt_utf8(mime, mime_len) });
        // SAFETY: the contract: `text_len` readable bytes (or NULL with 0), only copied.
        let t = tri!(unsafe { utf8(text, text_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(read) }.text(m, t))
    })
}

/// Start text contents written in parts with `emcp_read_text_part` (`mime` may be
/// NULL).
///
/// Pointers: `read` is the running callback's handle; `mime` is NULL or points to
/// `mime_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_text_begin(
    read: *mut emcp_resource_read,
    mime: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        // SAFETY: the contract: NULL or `mime_len` readable bytes, only copied.
        let m = tri!(unsafe { opt_utf8(mime, mime_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(read) }.text_begin(m))
    })
}

/// Append text to the open text contents (`EMCP_WRONG_STATE` when none is open).
///
/// Pointers: `read` is the running callback's handle; `text` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_read_text_part(
    read: *mut emcp_resource_read,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        // SAFETY: the contract: `len` readable bytes (or NULL with 0), only copied.
        let t = tri!(unsafe { utf8(text, len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(read) }.part(t))
    })
}

/// Start binary contents; feed bytes with `emcp_read_data` (base64-encoded on the fly,
/// any total size in constant memory). `mime` may be NULL.
///
/// Pointers: as for `emcp_read_text_begin`.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_blob_begin(
    read: *mut emcp_resource_read,
    mime: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        // SAFETY: the contract: NULL or `mime_len` readable bytes, only copied.
        let m = tri!(unsafe { opt_utf8(mime, mime_len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(read) }.blob_begin(m))
    })
}

/// Append bytes to the open binary contents (`EMCP_WRONG_STATE` when none is open).
///
/// Pointers: `read` is the running callback's handle; `data` points to `len` readable
/// bytes (NULL only when `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn emcp_read_data(
    read: *mut emcp_resource_read,
    data: *const u8,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        // SAFETY: the contract: `len` readable bytes (or NULL with 0), only encoded.
        let d = tri!(unsafe { bytes(data, len) });
        // SAFETY: not NULL (checked above); the contract: the running callback's handle.
        taken(unsafe { get(read) }.data(d))
    })
}
