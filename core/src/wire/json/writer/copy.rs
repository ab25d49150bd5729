//! Short copies without a call: at most two overlapping fixed-size copies, for the
//! short pieces a [`JsonWriter`](super::JsonWriter) writes into a sink's buffer.

/// The first `K` and the last `K` bytes of `from` copied to `to`: all of them when both
/// have the same length, `K` to `2K` bytes.
#[inline(always)]
fn copy_ends<const K: usize>(to: &mut [u8], from: &[u8]) {
    if let (Some(a), Some(b)) = (to.first_chunk_mut::<K>(), from.first_chunk::<K>()) {
        *a = *b;
    }
    if let (Some(a), Some(b)) = (to.last_chunk_mut::<K>(), from.last_chunk::<K>()) {
        *a = *b;
    }
}

/// `to.copy_from_slice(from)`, up to 32 bytes as at most two overlapping fixed-size
/// copies (no call: for the short pieces a [`JsonWriter`](super::JsonWriter) writes, copied into a
/// [`Sink`](super::Sink)'s buffer); does nothing when the lengths differ.
///
/// ```
/// let mut to = [0u8; 11];
/// emcp::wire::json::writer::copy_small(&mut to, b"hello world");
/// assert_eq!(&to, b"hello world");
/// ```
#[inline(always)]
pub fn copy_small(to: &mut [u8], from: &[u8]) {
    let n = from.len();
    if to.len() != n {
        return;
    }
    match n {
        33.. => to.copy_from_slice(from),
        16.. => copy_ends::<16>(to, from),
        8.. => copy_ends::<8>(to, from),
        4.. => copy_ends::<4>(to, from),
        // 0 to 3 bytes: the first, middle and last (no loop, which would become a call).
        _ => {
            for k in [0, n / 2, n.wrapping_sub(1)] {
                if let (Some(a), Some(&b)) = (to.get_mut(k), from.get(k)) {
                    *a = b;
                }
            }
        }
    }
}

/// [`copy_small`] up to 128 bytes: from 16 bytes (a key, a base64 run, a long string)
/// as two overlapping 16-, 32- or 64-byte copies, shorter ones as [`copy_small`] (the
/// sizes tested smallest first: most pieces are short), longer ones through
/// `copy_from_slice`; nothing when the lengths differ. For a host's sink buffer.
///
/// ```
/// let text = [7u8; 100];
/// let mut to = [0u8; 100];
/// emcp::wire::json::writer::copy_medium(&mut to, &text);
/// assert_eq!(to, text);
/// ```
#[inline(always)]
pub fn copy_medium(to: &mut [u8], from: &[u8]) {
    if to.len() != from.len() {
        return;
    }
    match from.len() {
        0..16 => copy_small(to, from),
        16..33 => copy_ends::<16>(to, from),
        33..65 => copy_ends::<32>(to, from),
        65..129 => copy_ends::<64>(to, from),
        _ => to.copy_from_slice(from),
    }
}
