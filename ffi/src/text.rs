//! `emcp_str`: text as `(pointer, length)`.

use core::ffi::c_char;

use emcp::wire::json::Str;

use crate::status::{
    emcp_status, EMCP_BUFFER_TOO_SMALL, EMCP_INVALID_PARAMETER, EMCP_NULL_PARAMETER, EMCP_OK,
    EMCP_WRONG_STATE,
};

/// UTF-8 text as a pointer and a length in bytes (not NUL-terminated).
///
/// `{NULL, 0}` means "absent" for optional descriptor fields. In C, `EMCP_STR("text")`
/// makes one from a string literal.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_str {
    /// The first byte, or NULL.
    pub ptr: *const c_char,
    /// Length in bytes.
    pub len: usize,
}

impl emcp_str {
    /// The text, or `None` when absent (NULL) or not UTF-8.
    ///
    /// # Safety
    /// `ptr` must point to `len` readable bytes that stay valid and unchanged for
    /// `'a` (descriptors: for the server's life).
    pub(crate) unsafe fn get<'a>(&self) -> Option<&'a str> {
        if self.ptr.is_null() {
            return None;
        }
        // SAFETY: not NULL (checked above); this function's contract: `ptr` points to
        // `len` readable bytes that stay unchanged for 'a.
        let bytes = unsafe { core::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) };
        core::str::from_utf8(bytes).ok()
    }
}

/// Bytes from a C `(pointer, length)` pair: NULL is allowed only when `len` is 0
/// (`EMCP_NULL_PARAMETER` otherwise).
///
/// # Safety
/// `ptr` must point to `len` readable bytes valid for `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], emcp_status> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(EMCP_NULL_PARAMETER)
        };
    }
    // SAFETY: not NULL (checked above); this function's contract: `ptr` points to `len`
    // readable bytes that stay unchanged for 'a (u8 has no alignment to meet).
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// UTF-8 text from a C `(pointer, length)` pair (`EMCP_INVALID_PARAMETER` when it is not
/// UTF-8; NULL as for [`bytes`]).
///
/// # Safety
/// As for [`bytes`].
pub(crate) unsafe fn utf8<'a>(ptr: *const c_char, len: usize) -> Result<&'a str, emcp_status> {
    // SAFETY: `bytes` asks what this function's contract promises, for the same pointer
    // and length (`c_char` and `u8` have the same size).
    let b = unsafe { bytes(ptr.cast::<u8>(), len) }?;
    core::str::from_utf8(b).map_err(|_| EMCP_INVALID_PARAMETER)
}

/// Optional UTF-8 text: NULL means absent.
///
/// # Safety
/// As for [`bytes`].
pub(crate) unsafe fn opt_utf8<'a>(
    ptr: *const c_char,
    len: usize,
) -> Result<Option<&'a str>, emcp_status> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: `utf8` asks what this function's contract promises.
    unsafe { utf8(ptr, len) }.map(Some)
}

/// `EMCP_OK` when the core took the content, `EMCP_WRONG_STATE` when it refused it.
pub(crate) fn taken(ok: bool) -> emcp_status {
    if ok {
        EMCP_OK
    } else {
        EMCP_WRONG_STATE
    }
}

/// Decode a JSON string into a C buffer: `EMCP_BUFFER_TOO_SMALL` (and nothing written)
/// when it does not fit; a NUL follows when there is room; `*len_out` is the length.
///
/// # Safety
/// `buf` must point to `buf_len` writable bytes that do not overlap `s` (the request
/// line lives in the server's line buffer, which the caller does not touch while the
/// server lives), and `len_out` be writable.
pub(crate) unsafe fn decode_out(
    s: Str<'_>,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> emcp_status {
    let n = s.decoded_len();
    if n > buf_len {
        return EMCP_BUFFER_TOO_SMALL;
    }
    // SAFETY: this function's contract: `buf` points to `buf_len` writable bytes that do
    // not overlap `s`, the only other memory used while `dst` lives.
    let dst = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), buf_len) };
    let Ok(text) = s.unescape_into(dst) else {
        return EMCP_BUFFER_TOO_SMALL;
    };
    let n = text.len();
    if let Some(nul) = dst.get_mut(n) {
        *nul = 0;
    }
    // SAFETY: this function's contract: `len_out` points to a writable `size_t`.
    unsafe { *len_out = n };
    EMCP_OK
}

/// Unwrap a `Result<T, emcp_status>` or return the status.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(status) => return status,
        }
    };
}
pub(crate) use tri;
