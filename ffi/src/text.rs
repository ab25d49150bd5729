//! `emcp_str`: text as `(pointer, length)`.

use core::ffi::c_char;

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
        // SAFETY: the caller guarantees `ptr` points to `len` readable bytes for 'a.
        let bytes = unsafe { core::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) };
        core::str::from_utf8(bytes).ok()
    }

    /// Whether the text is absent or valid UTF-8 (a descriptor check).
    ///
    /// # Safety
    /// As for [`emcp_str::get`].
    pub(crate) unsafe fn is_absent_or_valid(&self) -> bool {
        self.ptr.is_null() || unsafe { self.get() }.is_some()
    }
}

/// Bytes from a C `(pointer, length)` pair; NULL is allowed when `len` is 0.
///
/// # Safety
/// `ptr` must point to `len` readable bytes valid for `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return (len == 0).then_some(&[]);
    }
    // SAFETY: guaranteed by the caller.
    Some(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// UTF-8 text from a C `(pointer, length)` pair; NULL is allowed when `len` is 0.
///
/// # Safety
/// As for [`bytes`].
pub(crate) unsafe fn utf8<'a>(ptr: *const c_char, len: usize) -> Option<&'a str> {
    unsafe { bytes(ptr.cast::<u8>(), len) }.and_then(|b| core::str::from_utf8(b).ok())
}

/// Copy `text` into a C buffer, NUL-terminating it when there is room for the NUL.
/// Returns the length, or `None` when the text itself does not fit.
///
/// # Safety
/// `buf` must point to `buf_len` writable bytes.
pub(crate) unsafe fn copy_out(text: &[u8], buf: *mut c_char, buf_len: usize) -> Option<usize> {
    if text.len() > buf_len {
        return None;
    }
    // SAFETY: `buf` has `buf_len` writable bytes, and text.len() <= buf_len.
    let dst = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), buf_len) };
    let (head, tail) = dst.split_at_mut(text.len());
    head.copy_from_slice(text);
    if let Some(nul) = tail.first_mut() {
        *nul = 0;
    }
    Some(text.len())
}
