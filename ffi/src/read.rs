//! A resource read from C: which resource, template variables, contents out.
//!
//! The `emcp_resource_read *` a read callback receives is valid only until it returns.

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

/// # Safety
/// `read` must be the handle of a read callback that has not returned.
unsafe fn get<'c>(read: *mut emcp_resource_read) -> &'c mut ResourceRead<'c> {
    // SAFETY: the handle is a `&mut ResourceRead` cast by the device, alive during the callback.
    unsafe { &mut *read.cast::<ResourceRead<'c>>() }
}

/// The requested URI (decoded), valid during the callback.
///
/// # Safety
/// `read` is the running callback's handle; the out-parameters are writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_uri(
    read: *mut emcp_resource_read,
    ptr_out: *mut *const c_char,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read, ptr_out, len_out);
        let uri = unsafe { get(read) }.uri();
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
/// # Safety
/// `read` is the running callback's handle; the out-parameters are writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_target(
    read: *mut emcp_resource_read,
    kind_out: *mut u32,
    index_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read, kind_out, index_out);
        let (kind, index) = match unsafe { get(read) }.target() {
            Target::Resource(i) => (EMCP_TARGET_RESOURCE, i),
            Target::Template(i) => (EMCP_TARGET_TEMPLATE, i),
        };
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
/// # Safety
/// `read` is the running callback's handle; `name` points to `name_len` bytes; the
/// out-parameters are writable.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_var(
    read: *mut emcp_resource_read,
    name: *const c_char,
    name_len: usize,
    ptr_out: *mut *const c_char,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read, name, ptr_out, len_out);
        let name = tri!(unsafe { utf8(name, name_len) });
        let Some(value) = unsafe { get(read) }.var(name) else {
            return EMCP_NOT_FOUND;
        };
        unsafe {
            *ptr_out = value.as_ptr().cast();
            *len_out = value.len();
        }
        EMCP_OK
    })
}

/// Text contents (`mime` may be NULL).
///
/// # Safety
/// `read` is the running callback's handle; each text points to its length of bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_text(
    read: *mut emcp_resource_read,
    mime_type: *const c_char,
    mime_len: usize,
    text: *const c_char,
    text_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        let m = tri!(unsafe { opt_utf8(mime_type, mime_len) });
        let t = tri!(unsafe { utf8(text, text_len) });
        taken(unsafe { get(read) }.text(m, t))
    })
}

/// Start text contents written in parts with `emcp_read_text_part`.
///
/// # Safety
/// `read` is the running callback's handle; `mime_type` points to `mime_len` bytes or is NULL.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_text_begin(
    read: *mut emcp_resource_read,
    mime_type: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        let m = tri!(unsafe { opt_utf8(mime_type, mime_len) });
        taken(unsafe { get(read) }.text_begin(m))
    })
}

/// Append text to the open text contents (`EMCP_WRONG_STATE` when none is open).
///
/// # Safety
/// `read` is the running callback's handle; `text` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_text_part(
    read: *mut emcp_resource_read,
    text: *const c_char,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        let t = tri!(unsafe { utf8(text, len) });
        taken(unsafe { get(read) }.part(t))
    })
}

/// Start binary contents; feed bytes with `emcp_read_data` (base64-encoded on the fly,
/// any total size in constant memory).
///
/// # Safety
/// As for `emcp_read_text_begin`.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_blob_begin(
    read: *mut emcp_resource_read,
    mime_type: *const c_char,
    mime_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        let m = tri!(unsafe { opt_utf8(mime_type, mime_len) });
        taken(unsafe { get(read) }.blob_begin(m))
    })
}

/// Append bytes to the open binary contents (`EMCP_WRONG_STATE` when none is open).
///
/// # Safety
/// `read` is the running callback's handle; `data` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_read_data(
    read: *mut emcp_resource_read,
    data: *const u8,
    len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(read);
        let d = tri!(unsafe { bytes(data, len) });
        taken(unsafe { get(read) }.data(d))
    })
}
