//! Streaming JSON writer.
//!
//! [`JsonWriter`] writes compact JSON straight into a [`Sink`] as it is produced: no
//! document is built, nothing is buffered beyond a few stack bytes for one number or
//! 64 bytes of base64 text (a float that is not an integer takes about 650 bytes of
//! stack for its exact digits). Commas are placed automatically, strings are escaped as
//! they go (unescaped runs are written as one slice), integers are formatted by hand
//! and binary blobs can be base64-encoded on the fly in any number of pieces.
//!
//! # Errors
//!
//! Writer methods return nothing. The first error (from the sink, or nesting deeper
//! than [`WRITER_MAX_DEPTH`]) is *sticky*: every later call writes nothing, and
//! [`JsonWriter::finish`], [`JsonWriter::is_ok`] and [`JsonWriter::error`] report it.
//! Code that produces a response therefore writes it start to finish and checks once.
//!
//! # Panic contract
//!
//! No method panics, whatever the call sequence (unbalanced `end_*` calls included).

use core::fmt;

#[cfg(emcp_fast)]
use super::find::special_flags;
use super::number::{format_f64, F64_MAX_LEN};
use super::scanner::Str;
use super::{find_special, SHORT_ESCAPES};

/// Whether [`JsonWriter::str`] would escape anything in `s`.
pub(crate) fn needs_escape(s: &str) -> bool {
    find_special(s.as_bytes()).is_some()
}

/// Where output bytes go. Implemented by device transports (UART, socket, pipe).
pub trait Sink {
    /// Write all of `bytes` or fail.
    ///
    /// # Errors
    ///
    /// [`SinkError::Full`] when there is no room (ideally having written nothing of
    /// `bytes`), [`SinkError::Io`] when the transport failed.
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError>;

    /// Remember where the current line starts, so that a line that does not fit can be
    /// taken back whole with [`Sink::rollback`]. The default does nothing: a streaming
    /// sink (a UART, a socket) never runs full.
    fn mark(&mut self) {}

    /// Drop everything written since the last [`Sink::mark`]. Returns false when the
    /// sink cannot (the default).
    fn rollback(&mut self) -> bool {
        false
    }

    /// Whether [`Sink::rollback`] may take lines back. The server watches such a sink
    /// for running full, to take back a response that did not fit and answer with an
    /// error instead; a sink that never can (a stream) is written to directly, one
    /// indirection less per piece. The default is true (watched); [`IoSink`] says
    /// false.
    fn can_rollback(&self) -> bool {
        true
    }

    /// The lines that follow belong to the exchange of the client request whose id
    /// (JSON text) is `request` — for a `subscriptions/listen` stream, its subscription
    /// id — or, for `None`, to no request (an legacy-era session notification).
    /// A transport with one stream per request (HTTP) routes by it; a single byte
    /// stream ignores it (the default). Lines written while a request is handled
    /// belong to that request unless routed otherwise. The server calls it when built
    /// with the cargo feature `routes` (which `http` and `input` turn on).
    fn route(&mut self, _request: Option<&[u8]>) {}

    /// A [`JsonWriter`] writing into this sink was refused by its [`Sink::write`] with
    /// `error` (the writer writes nothing after it). The default does nothing; a
    /// wrapper that watches its inner sink for an error learns of it here, and its
    /// `write` passes bytes on without looking at the answer.
    fn failed(&mut self, _error: SinkError) {}
}

/// Why a [`Sink`] refused bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SinkError {
    /// No room left (also: the writer's nesting capacity is exhausted).
    Full,
    /// The transport failed.
    Io,
}

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SinkError::Full => "output full",
            SinkError::Io => "output transport failed",
        })
    }
}

/// A fixed caller buffer. A write that does not fit fails with [`SinkError::Full`] and
/// writes nothing of that call.
///
/// ```
/// use emcp::wire::json::{Sink, SinkError, SliceSink};
///
/// let mut buf = [0u8; 4];
/// let mut sink = SliceSink::new(&mut buf);
/// assert_eq!(sink.write(b"abc"), Ok(()));
/// assert_eq!(sink.write(b"de"), Err(SinkError::Full));
/// assert_eq!(sink.written(), b"abc");
/// ```
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    len: usize,
    mark: usize,
}

impl<'b> SliceSink<'b> {
    /// An empty sink writing into `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink {
            buf,
            len: 0,
            mark: 0,
        }
    }

    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }

    /// Number of bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forget everything written; the whole buffer is available again.
    pub fn clear(&mut self) {
        self.len = 0;
        self.mark = 0;
    }

    /// Bytes still free.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.len)
    }

    /// Remove the first `n` written bytes (they were sent), moving the rest to the front.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.len);
        // A loop rather than `copy_within`, whose range checks are panic paths.
        if let Some(live) = self.buf.get_mut(..self.len) {
            let mut i = 0;
            while let Some(&b) = live.get(i + n) {
                if let Some(d) = live.get_mut(i) {
                    *d = b;
                }
                i += 1;
            }
        }
        self.len -= n;
        self.mark = self.mark.saturating_sub(n);
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let end = self.len.checked_add(bytes.len()).ok_or(SinkError::Full)?;
        let dst = self.buf.get_mut(self.len..end).ok_or(SinkError::Full)?;
        // A zip rather than `copy_from_slice`, whose length check is a panic path.
        for (d, &b) in dst.iter_mut().zip(bytes) {
            *d = b;
        }
        self.len = end;
        Ok(())
    }

    fn mark(&mut self) {
        self.mark = self.len;
    }

    fn rollback(&mut self) -> bool {
        self.len = self.mark.min(self.len);
        true
    }
}

/// Appends; [`SinkError::Full`] (and nothing appended) when the bytes do not fit.
impl<const N: usize> Sink for heapless::Vec<u8, N> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.extend_from_slice(bytes).map_err(|_| SinkError::Full)
    }
}

/// Appends; [`SinkError::Full`] (and nothing appended) when the bytes do not fit.
impl Sink for heapless::vec::VecView<u8> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.extend_from_slice(bytes).map_err(|_| SinkError::Full)
    }
}

/// Adapter: any [`embedded_io::Write`] is a [`Sink`]. Writes everything (like
/// `write_all`); a writer that accepts nothing becomes [`SinkError::Io`], and its first
/// error is kept for [`IoSink::take_error`]. Unlike `write_all` it cannot panic on a
/// misbehaving writer.
#[derive(Debug)]
pub struct IoSink<W: embedded_io::ErrorType> {
    writer: W,
    error: Option<Option<W::Error>>,
}

impl<W: embedded_io::Write> IoSink<W> {
    /// Wrap a writer.
    pub fn new(writer: W) -> Self {
        IoSink {
            writer,
            error: None,
        }
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut W {
        &mut self.writer
    }

    /// Whether a write failed; takes the failure: `Some(Some(e))` for the writer's
    /// error, `Some(None)` for a writer that accepted nothing.
    pub fn take_error(&mut self) -> Option<Option<W::Error>> {
        self.error.take()
    }
}

impl<W: embedded_io::Write> IoSink<W> {
    /// The rest of a write the writer did not take whole at once (`first`: its answer).
    #[cold]
    #[inline(never)]
    fn write_rest(
        &mut self,
        bytes: &[u8],
        mut first: Result<usize, W::Error>,
    ) -> Result<(), SinkError> {
        let mut rest = bytes;
        while !rest.is_empty() {
            match first {
                Ok(0) => {
                    self.error = Some(None);
                    return Err(SinkError::Io);
                }
                Err(e) => {
                    self.error = Some(Some(e));
                    return Err(SinkError::Io);
                }
                Ok(n) => rest = rest.get(n..).unwrap_or_default(),
            }
            if !rest.is_empty() {
                first = self.writer.write(rest);
            }
        }
        Ok(())
    }
}

impl<W: embedded_io::Write> Sink for IoSink<W> {
    /// The common case, the writer taking all of `bytes` at once, on a short path.
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        if self.error.is_some() {
            return Err(SinkError::Io);
        }
        match self.writer.write(bytes) {
            Ok(n) if n == bytes.len() => Ok(()),
            first => self.write_rest(bytes, first),
        }
    }

    /// A stream: what is written is gone.
    fn can_rollback(&self) -> bool {
        false
    }
}

/// Longest string content the writer assembles with its quotes (and comma) into one
/// sink write, on 64-bit targets (on 32-bit ones every piece is its own write: smaller
/// code).
#[cfg(emcp_fast)]
const JOIN_MAX: usize = 32;

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
/// copies (no call: for the short pieces a [`JsonWriter`] writes, copied into a
/// [`Sink`]'s buffer); does nothing when the lengths differ.
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

/// The high bit of every byte of a word: where [`special_flags`] flags a byte.
#[cfg(emcp_fast)]
const SPECIAL_HIGHS: u64 = (u64::MAX / 0xFF) << 7;

/// [`copy_small`] for `to` and `from` of the same length, at most 32 bytes, that also
/// returns the [`special_flags`] of every byte of `from` (of a word read anyway for the
/// copy; a byte read twice is flagged twice, which changes nothing): nonzero under
/// [`SPECIAL_HIGHS`] when `from` holds a byte to escape.
#[cfg(emcp_fast)]
#[inline(always)]
fn copy_flagged(to: &mut [u8], from: &[u8]) -> u64 {
    /// The first and last `K` bytes copied; `K` is 8 or 16. The flags of the words.
    #[inline(always)]
    fn two<const K: usize>(to: &mut [u8], from: &[u8]) -> u64 {
        let mut flags = 0;
        if let (Some(a), Some(b)) = (to.first_chunk_mut::<K>(), from.first_chunk::<K>()) {
            *a = *b;
            flags |= words_flags(b);
        }
        if let (Some(a), Some(b)) = (to.last_chunk_mut::<K>(), from.last_chunk::<K>()) {
            *a = *b;
            flags |= words_flags(b);
        }
        flags
    }
    let n = from.len();
    if to.len() != n {
        return 0;
    }
    match n {
        16.. => two::<16>(to, from),
        8.. => two::<8>(to, from),
        4.. => {
            let mut v = [b' '; 8];
            if let (Some(a), Some(b)) = (to.first_chunk_mut::<4>(), from.first_chunk::<4>()) {
                *a = *b;
                if let Some(x) = v.first_chunk_mut::<4>() {
                    *x = *b;
                }
            }
            if let (Some(a), Some(b)) = (to.last_chunk_mut::<4>(), from.last_chunk::<4>()) {
                *a = *b;
                if let Some(x) = v.last_chunk_mut::<4>() {
                    *x = *b;
                }
            }
            special_flags(u64::from_le_bytes(v))
        }
        // 0 to 3 bytes: the first, middle and last (blanks for none).
        _ => {
            let mut v = [b' '; 8];
            for (i, k) in [0, n / 2, n.wrapping_sub(1)].into_iter().enumerate() {
                if let (Some(a), Some(&b)) = (to.get_mut(k), from.get(k)) {
                    *a = b;
                    if let Some(x) = v.get_mut(i) {
                        *x = b;
                    }
                }
            }
            special_flags(u64::from_le_bytes(v))
        }
    }
}

/// A key the crate spells as a literal, for [`JsonWriter::key_raw`]: on 64-bit targets
/// `,"key":` whole (one write of static text), elsewhere the name alone (the texts
/// of a small target's flash stay shared).
#[cfg(emcp_fast)]
macro_rules! member_key {
    ($key:literal) => {
        concat!(",\"", $key, "\":").as_bytes()
    };
}
/// A key the crate spells as a literal, for [`JsonWriter::key_raw`]: on 64-bit targets
/// `,"key":` whole (one write of static text), elsewhere the name alone (the texts
/// of a small target's flash stay shared).
#[cfg(not(emcp_fast))]
macro_rules! member_key {
    ($key:literal) => {
        $key
    };
}
/// What [`member_key!`] gives.
#[cfg(emcp_fast)]
pub(crate) type MemberKey = &'static [u8];
/// What [`member_key!`] gives.
#[cfg(not(emcp_fast))]
pub(crate) type MemberKey = &'static str;
pub(crate) use member_key;

/// Room of a [`Joined`].
#[cfg(emcp_fast)]
const JOINED_LEN: usize = 192;

/// An object's text assembled on the stack, written in few, large sink writes (64-bit
/// targets): a descriptor's keys, its short strings and its fixed members. See
/// [`JsonWriter::join_flush`].
#[cfg(emcp_fast)]
pub(crate) struct Joined {
    buf: [u8; JOINED_LEN],
    len: usize,
    /// The object was opened (its start written).
    open: bool,
}

#[cfg(emcp_fast)]
impl Joined {
    /// Empty.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Joined {
            buf: [0; JOINED_LEN],
            len: 0,
            open: false,
        }
    }

    /// Append `bytes` when they fit; false (nothing appended) otherwise.
    #[inline(always)]
    fn push(&mut self, bytes: &[u8]) -> bool {
        let end = self.len + bytes.len();
        match self.buf.get_mut(self.len..end) {
            Some(to) => {
                copy_small(to, bytes);
                self.len = end;
                true
            }
            None => false,
        }
    }

    /// Append the string content `s` (its quotes are in the texts around it) when it
    /// fits and has nothing to escape; false (nothing appended) otherwise.
    #[inline(always)]
    fn push_plain(&mut self, s: &[u8]) -> bool {
        let n = s.len();
        let start = self.len;
        let Some(to) = self.buf.get_mut(start..start + n) else {
            return false;
        };
        let flags = match n {
            ..=32 => copy_flagged(to, s),
            _ => copy_flagged_long(to, s),
        };
        let plain = flags & SPECIAL_HIGHS == 0;
        if plain {
            self.len = start + n;
        }
        plain
    }
}

/// [`copy_flagged`] for more than 16 bytes: 16 at a time, then the last 16 (again
/// in part): a copy and an escape search in one pass.
#[cfg(emcp_fast)]
fn copy_flagged_long(to: &mut [u8], from: &[u8]) -> u64 {
    let mut flags = 0;
    let (whole, _) = from.as_chunks::<16>();
    for (a, b) in to.as_chunks_mut::<16>().0.iter_mut().zip(whole) {
        *a = *b;
        flags |= words_flags(b);
    }
    if let (Some(a), Some(b)) = (to.last_chunk_mut::<16>(), from.last_chunk::<16>()) {
        *a = *b;
        flags |= words_flags(b);
    }
    flags
}

/// The [`special_flags`] of the 8-byte words of `b` (8 or 16 bytes).
#[cfg(emcp_fast)]
#[inline(always)]
fn words_flags(b: &[u8]) -> u64 {
    let mut flags = 0;
    for w in b.as_chunks::<8>().0 {
        flags |= special_flags(u64::from_le_bytes(*w));
    }
    flags
}

/// Maximum nesting the writer tracks for automatic commas.
pub const WRITER_MAX_DEPTH: usize = 32;

/// Streaming JSON writer over a [`Sink`].
///
/// Commas are inserted automatically: in an object, [`key`](Self::key) writes the
/// comma (when not the first member) and `"key":`, and the value follows without a
/// comma; in an array every value after the first gets a comma. At the top level
/// (depth 0) no commas are written, so envelopes can be assembled with
/// [`raw`](Self::raw). The first error is sticky (see the [module docs](self)).
/// Nesting deeper than [`WRITER_MAX_DEPTH`] is a sticky [`SinkError::Full`], never a
/// panic. No whitespace is ever emitted, and the output never contains a raw newline
/// unless passed to [`raw`](Self::raw)/[`raw_value`](Self::raw_value).
///
/// The writer does not check that `end_*` calls match their `begin_*`: an extra
/// `end_*` at the top level writes its bracket and nothing else.
///
/// ```
/// use emcp::wire::json::{JsonWriter, SliceSink};
///
/// let mut buf = [0u8; 64];
/// let mut sink = SliceSink::new(&mut buf);
/// let mut w = JsonWriter::new(&mut sink);
/// w.begin_object();
/// w.key("id");
/// w.u64(7);
/// w.key("tags");
/// w.begin_array();
/// w.str("a\"b\n");
/// w.f64(21.5);
/// w.null();
/// w.end_array();
/// w.end_object();
/// assert_eq!(w.finish(), Ok(()));
/// assert_eq!(sink.written(), br#"{"id":7,"tags":["a\"b\n",21.5,null]}"#);
/// ```
pub struct JsonWriter<'s> {
    sink: &'s mut dyn Sink,
    error: Option<SinkError>,
    /// Open containers.
    depth: u8,
    /// The next value (or key) at the current level needs a leading comma.
    comma: bool,
    /// `comma` of each enclosing level, bit `d` for level `d`.
    outer: u32,
    /// base64 bytes waiting for a full 3-byte group, the latest in the low byte
    /// (bits above the group are ignored).
    carry: u32,
    /// How many (0..=2 between calls).
    carry_len: u8,
    /// The string opened by `string_begin` or `base64_begin` and not yet closed.
    open: OpenString,
}

/// Which kind of string value is open, for [`JsonWriter::string_end_any`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpenString {
    None,
    Text,
    Base64,
}

impl fmt::Debug for JsonWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonWriter")
            .field("error", &self.error)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#[inline(always)]
fn b64(sextet: u8) -> u8 {
    BASE64
        .get(usize::from(sextet & 0x3F))
        .copied()
        .unwrap_or(b'=')
}

/// Write the digits of `v` into `buf` ending just before `end` (room for 20 digits
/// needed); returns the index of the first digit.
fn format_u64(buf: &mut [u8], end: usize, mut v: u64) -> usize {
    let mut pos = end;
    loop {
        let (q, digit) = div_rem_10(v);
        prepend(buf, &mut pos, b'0' + digit);
        v = q;
        if v == 0 {
            return pos;
        }
    }
}

/// `v` in decimal, in `buf` (the writer's own digit loop, for other layers that need
/// a number inside a string or a header).
pub(crate) fn decimal(v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let start = format_u64(buf, 20, v);
    buf.get(start..).unwrap_or_default()
}

/// `v / 10` and `v % 10` by long division in 16-bit steps: only 32-bit divisions,
/// where a 64-bit division would be a library call (about 1 KB) on a 32-bit target.
fn div_rem_10(v: u64) -> (u64, u8) {
    let mut q = 0u64;
    let mut r = 0u32;
    let mut rest = v;
    for _ in 0..4 {
        // The next 16 bits from the top; r < 10, so this fits 32 bits.
        let part = r << 16 | (rest >> 48) as u32;
        rest <<= 16;
        q = q << 16 | u64::from(part / 10);
        r = part % 10;
    }
    (q, r as u8)
}

/// `v` as an integer when it is one below 2^53 in magnitude (where every integer is a
/// double, and core prints its digits); `None` for `-0`. Read from the bits, without
/// float conversions.
fn small_integer(v: f64) -> Option<i64> {
    let bits = v.to_bits();
    let negative = bits >> 63 != 0;
    let field = (bits >> 52 & 0x7FF) as u32;
    let fraction = bits & ((1 << 52) - 1);
    if field == 0 {
        // Zero (subnormals are not integers).
        return (fraction == 0 && !negative).then_some(0);
    }
    // |v| = (2^52 + fraction) · 2^(field - 1075): an integer below 2^53 when the
    // shift is 0..=52 and drops no one bits.
    let shift = 1075u32.checked_sub(field).filter(|&s| s <= 52)?;
    let m = fraction | 1 << 52;
    if m & ((1 << shift) - 1) != 0 {
        return None;
    }
    let magnitude = (m >> shift) as i64;
    Some(if negative { -magnitude } else { magnitude })
}

/// Put `b` just before `buf[*pos]` (nothing if there is no room). Forced inline on
/// 64-bit hosts only: elsewhere the compiler's choice is smaller (24 bytes on M3).
#[cfg_attr(emcp_fast, inline(always))]
fn prepend(buf: &mut [u8], pos: &mut usize, b: u8) {
    if let Some(p) = pos.checked_sub(1) {
        if let Some(d) = buf.get_mut(p) {
            *d = b;
            *pos = p;
        }
    }
}

/// `core::fmt` output escaped into the writer, for [`JsonWriter::string_fmt`].
struct Escaper<'w, 's> {
    w: &'w mut JsonWriter<'s>,
}

impl fmt::Write for Escaper<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.w.put_escaped(s.as_bytes());
        match self.w.error {
            None => Ok(()),
            Some(_) => Err(fmt::Error),
        }
    }
}

impl<'s> JsonWriter<'s> {
    /// A writer at the top level, writing into `sink`.
    #[inline(never)] // called from many places
    pub fn new(sink: &'s mut dyn Sink) -> Self {
        JsonWriter {
            sink,
            error: None,
            depth: 0,
            comma: false,
            outer: 0,
            carry: 0,
            carry_len: 0,
            open: OpenString::None,
        }
    }

    /// Raw text that starts with a member's comma, dropped when none is due (a key
    /// the crate spells as a literal, and what follows it).
    #[cfg(all(emcp_fast, feature = "stateless"))]
    pub(crate) fn raw_lead(&mut self, with_comma: &[u8]) {
        self.put_lead(with_comma);
    }

    /// Whether no error has occurred so far.
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }

    /// The first error, if any.
    pub fn error(&self) -> Option<SinkError> {
        self.error
    }

    /// `Ok` if everything was written.
    ///
    /// # Errors
    ///
    /// The first error: from the sink, or [`SinkError::Full`] for nesting deeper than
    /// [`WRITER_MAX_DEPTH`]. Everything after it was dropped.
    #[must_use = "the writer's sticky error is only seen by checking it"]
    pub fn finish(&self) -> Result<(), SinkError> {
        match self.error {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    // ---- plumbing -------------------------------------------------------------

    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.sink.write(bytes) {
                self.fail(e);
            }
        }
    }

    /// The sink refused a write: keep its error, and tell it ([`Sink::failed`]).
    #[cold]
    #[inline(never)]
    fn fail(&mut self, e: SinkError) {
        self.error = Some(e);
        self.sink.failed(e);
    }

    /// Write `with_comma` (whose first byte is `,`) or, when no comma is due, the rest.
    #[inline]
    fn put_lead(&mut self, with_comma: &[u8]) {
        let bytes = if self.comma {
            with_comma
        } else {
            with_comma.get(1..).unwrap_or_default()
        };
        self.put(bytes);
    }

    #[inline]
    fn after_value(&mut self) {
        self.comma = self.depth > 0;
    }

    /// `s` escaped: runs that need no escaping are written as they are.
    fn put_escaped(&mut self, s: &[u8]) {
        let mut rest = s;
        loop {
            let n = find_special(rest).unwrap_or(rest.len());
            let Some((run, tail)) = rest.split_at_checked(n) else {
                return;
            };
            if !run.is_empty() {
                self.put(run);
            }
            let Some((&b, tail)) = tail.split_first() else {
                return;
            };
            self.put_escape(b);
            rest = tail;
        }
    }

    /// A whole string: `,"` (comma when due), `content` (escaped unless `verbatim`),
    /// then `":` for a `key`, else `"`. On 64-bit targets a short string with nothing
    /// to escape (most keys and many values) goes to the sink as one write.
    fn put_string(&mut self, content: &[u8], key: bool, verbatim: bool) {
        #[cfg(emcp_fast)]
        if self.put_joined(content, key, verbatim) {
            return;
        }
        self.put_parts(content, key, verbatim);
    }

    /// [`put_string`](Self::put_string) one piece at a time (no copy).
    fn put_parts(&mut self, content: &[u8], key: bool, verbatim: bool) {
        let close: &[u8] = if key { b"\":" } else { b"\"" };
        self.put_lead(b",\"");
        if verbatim {
            // Verbatim content has no escape position: it goes out as one run.
            self.put(content);
        } else {
            self.put_escaped(content);
        }
        self.put(close);
    }

    /// [`put_string`](Self::put_string) for content of at most [`JOIN_MAX`] bytes with
    /// nothing to escape: `,"` (comma when due), `content` and `"` (`":` for a `key`)
    /// assembled on the stack and written at once. False, having written nothing, for
    /// any other content.
    #[cfg(emcp_fast)]
    #[inline]
    fn put_joined(&mut self, content: &[u8], key: bool, verbatim: bool) -> bool {
        let mut buf = [b' '; JOIN_MAX + 4];
        let [comma, quote, body @ ..] = &mut buf;
        *comma = b',';
        *quote = b'"';
        let n = content.len();
        let Some(to) = body.get_mut(..n).filter(|_| n <= JOIN_MAX) else {
            return false;
        };
        // The content is copied as at most two overlapping pieces and searched in the
        // words just read (bytes searched twice change nothing), without a loop.
        let flags = copy_flagged(to, content);
        if !verbatim && flags & SPECIAL_HIGHS != 0 {
            return false;
        }
        // Both bytes of a key's close; a value's ends before the colon.
        if let Some(end) = body.get_mut(n..).and_then(|s| s.first_chunk_mut::<2>()) {
            *end = *b"\":";
        }
        let start = usize::from(!self.comma);
        let end = 3 + n + usize::from(key);
        self.put(buf.get(start..end).unwrap_or_default());
        true
    }

    /// The escape for `b`: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`.
    fn put_escape(&mut self, b: u8) {
        let hex = |n: u8| HEX.get(usize::from(n & 0xF)).copied().unwrap_or(b'0');
        let mut escape = [b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b)];
        let mut len = escape.len();
        if let Some(&(_, letter)) = SHORT_ESCAPES.iter().find(|&&(raw, _)| raw == b) {
            if let Some(second) = escape.get_mut(1) {
                *second = letter;
            }
            len = 2;
        }
        self.put(escape.get(..len).unwrap_or_default());
    }

    /// Open a container whose opening text is `open`, written as it is: a comma, then
    /// a key and the bracket (`,"content":[`), or the brace and the object's first
    /// members up to the next value (`,{"type":"text","text":`). The comma is dropped
    /// when none is due.
    pub(crate) fn begin(&mut self, open: &[u8]) {
        self.open_with(open, true);
    }

    /// [`begin_object_raw`](Self::begin_object_raw) for `open` opening `levels`
    /// containers, each in the one before (`,"result":{"content":[{"type":"text",…`).
    #[cfg(emcp_fast)]
    pub(crate) fn begin_raw_n(&mut self, open: &[u8], levels: u8) {
        self.open_n(open, false, levels);
    }

    /// [`open_with`](Self::open_with) for `levels` containers.
    #[cfg(emcp_fast)]
    fn open_n(&mut self, open: &[u8], lead: bool, levels: u8) {
        if usize::from(self.depth) + usize::from(levels) > WRITER_MAX_DEPTH {
            // As a full sink (the sink is told: a guard takes the line back).
            if self.error.is_none() {
                self.fail(SinkError::Full);
            }
            return;
        }
        self.open_with(open, lead);
        // The inner ones are values of a container: a comma is due after each.
        for _ in 1..levels {
            self.outer |= 1u32 << self.depth;
            self.depth += 1;
        }
    }

    /// End the innermost container and open another in its place with `text`, written
    /// as it is (`},{"type":"text","text":`: the next object of an array).
    #[cfg(emcp_fast)]
    pub(crate) fn reopen(&mut self, text: &[u8]) {
        self.put(text);
        self.comma = false;
    }

    /// After a key written as part of other text ([`end_n`](Self::end_n)): the value
    /// follows without a comma.
    #[cfg(emcp_fast)]
    pub(crate) fn after_key(&mut self) {
        self.comma = false;
    }

    /// Open an object whose opening text, `{` included, is `open`, written as it is
    /// (an envelope's `,"result":{`: one write for both).
    pub(crate) fn begin_object_raw(&mut self, open: &[u8]) {
        self.open_with(open, false);
    }

    /// Open a container with `open`: after [`put_lead`](Self::put_lead) when `lead`,
    /// else as it is.
    fn open_with(&mut self, open: &[u8], lead: bool) {
        if usize::from(self.depth) >= WRITER_MAX_DEPTH {
            // As a full sink (the sink is told: a guard takes the line back).
            if self.error.is_none() {
                self.fail(SinkError::Full);
            }
            return;
        }
        if lead {
            self.put_lead(open);
        } else {
            self.put(open);
        }
        // The container is a value of the enclosing level: after it, a comma is due
        // there (unless that level is the top).
        let bit = 1u32 << self.depth;
        if self.depth > 0 {
            self.outer |= bit;
        } else {
            self.outer &= !bit;
        }
        self.depth += 1;
        self.comma = false;
    }

    /// Close a container with `close`, its bracket and anything after it as it is
    /// (`}}\n` ends a result object, the envelope and the line in one write).
    pub(crate) fn end(&mut self, close: &[u8]) {
        self.put(close);
        if self.depth > 0 {
            self.depth -= 1;
            self.comma = self.outer & (1u32 << self.depth) != 0;
        }
    }

    /// [`end`](Self::end) for `close` closing `levels` containers (`}]`).
    #[cfg(emcp_fast)]
    pub(crate) fn end_n(&mut self, close: &[u8], levels: u8) {
        self.put(close);
        for _ in 0..levels {
            if self.depth > 0 {
                self.depth -= 1;
                self.comma = self.outer & (1u32 << self.depth) != 0;
            }
        }
    }

    /// After a member written as part of other text (a result's brace and its
    /// `"resultType":"complete"`): a comma is due before the next.
    #[cfg(emcp_fast)]
    pub(crate) fn member_done(&mut self) {
        self.after_value();
    }

    /// A member the crate spells whole as a literal, comma first (`,"isError":true`):
    /// written at once, the comma dropped when none is due.
    pub(crate) fn member_lit(&mut self, member: &'static [u8]) {
        self.put_lead(member);
        self.after_value();
    }

    // ---- containers -------------------------------------------------------------

    /// `{`
    pub fn begin_object(&mut self) {
        self.begin(b",{");
    }

    /// `}`
    pub fn end_object(&mut self) {
        self.end(b"}");
    }

    /// `[`
    pub fn begin_array(&mut self) {
        self.begin(b",[");
    }

    /// `]`
    pub fn end_array(&mut self) {
        self.end(b"]");
    }

    /// An object key, escaped: `"key":` (preceded by a comma when not the first).
    /// On 64-bit targets the one-write path is inline: a key is mostly a literal, whose
    /// copy and escape search then fold away at the call.
    #[cfg_attr(emcp_fast, inline)]
    pub fn key(&mut self, key: &str) {
        #[cfg(emcp_fast)]
        if !self.put_joined(key.as_bytes(), true, false) {
            self.put_string(key.as_bytes(), true, false);
        }
        #[cfg(not(emcp_fast))]
        self.put_string(key.as_bytes(), true, false);
        self.comma = false;
    }

    /// An object key the crate spells as a literal, as [`member_key!`] gives it: on
    /// 64-bit targets `,"name":` whole, one write of static text (the comma dropped
    /// when none is due), nothing copied or searched; elsewhere [`key_lit`](Self::key_lit).
    #[cfg(emcp_fast)]
    pub(crate) fn key_raw(&mut self, key: MemberKey) {
        self.put_lead(key);
        self.comma = false;
    }

    /// An object key the crate spells as a literal, as [`member_key!`] gives it: on
    /// 64-bit targets `,"name":` whole, one write of static text (the comma dropped
    /// when none is due), nothing copied or searched; elsewhere [`key_lit`](Self::key_lit).
    #[cfg(not(emcp_fast))]
    pub(crate) fn key_raw(&mut self, key: MemberKey) {
        self.key_lit(key);
    }

    /// An object key the crate spells as a literal (a protocol name), written as it is:
    /// such a key has nothing to escape, so it is not searched for escapes. Keys from a
    /// device or the client go through [`key`](Self::key).
    pub(crate) fn key_lit(&mut self, key: &'static str) {
        self.put_string(key.as_bytes(), true, true);
        self.comma = false;
    }

    // ---- strings ----------------------------------------------------------------

    /// A string value the crate spells as a literal, written as it is (see
    /// [`key_lit`](Self::key_lit)).
    pub(crate) fn str_lit(&mut self, s: &'static str) {
        self.str_as(s, true);
    }

    /// A string value, written as it is when `plain` (known to need no escaping, see
    /// [`needs_escape`]), else escaped.
    pub(crate) fn str_as(&mut self, s: &str, plain: bool) {
        self.put_string(s.as_bytes(), false, plain);
        self.after_value();
    }

    /// A string value, escaped.
    pub fn str(&mut self, s: &str) {
        self.str_as(s, false);
    }

    /// A string value copied from validated input without decoding (its raw escaped
    /// form is already valid JSON string content).
    ///
    /// ```
    /// use emcp::wire::json::{parse, JsonWriter, SliceSink};
    ///
    /// let v = parse(br#"{"name":"caf\u00e9"}"#).unwrap();
    /// let mut buf = [0u8; 32];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.str_raw(v.get("name").unwrap().as_str().unwrap());
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""caf\u00e9""#);
    /// ```
    pub fn str_raw(&mut self, s: Str<'_>) {
        self.put_string(s.raw(), false, true);
        self.after_value();
    }

    /// Open a string value written in parts ([`string_part`](Self::string_part),
    /// [`string_char`](Self::string_char)), closed by
    /// [`string_end`](Self::string_end).
    pub fn string_begin(&mut self) {
        self.put_lead(b",\"");
        self.open = OpenString::Text;
    }

    /// Part of an open string, escaped.
    pub fn string_part(&mut self, s: &str) {
        self.put_escaped(s.as_bytes());
    }

    /// Part of an open string, escaped: bytes the caller knows to be UTF-8 (e.g. cut
    /// from a `&str` at ASCII boundaries), written without checking them again.
    pub(crate) fn string_part_utf8(&mut self, s: &[u8]) {
        self.put_escaped(s);
    }

    /// One character of an open string, escaped.
    pub fn string_char(&mut self, c: char) {
        let mut utf8 = [0u8; 4];
        self.put_escaped(c.encode_utf8(&mut utf8).as_bytes());
    }

    /// Text produced by `core::fmt`, escaped, as part of an open string.
    pub fn string_part_fmt(&mut self, args: fmt::Arguments<'_>) {
        // An error is either the sticky sink error (already recorded) or a failing
        // `Display` impl, whose partial output stays.
        let _ = fmt::write(&mut Escaper { w: self }, args);
    }

    /// A validated string's content as part of an open string, copied verbatim
    /// (its escapes are kept as received; no buffer, no decoding).
    ///
    /// ```
    /// use emcp::wire::json::{parse, JsonWriter, SliceSink};
    ///
    /// let v = parse(br#""caf\u00e9""#).unwrap();
    /// let mut buf = [0u8; 32];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.string_begin();
    /// w.string_part("un ");
    /// w.string_str(v.as_str().unwrap());
    /// w.string_end();
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""un caf\u00e9""#);
    /// ```
    pub fn string_str(&mut self, s: Str<'_>) {
        self.put(s.raw());
    }

    /// Close a string opened with [`string_begin`](Self::string_begin).
    pub fn string_end(&mut self) {
        self.put(b"\"");
        self.open = OpenString::None;
        self.after_value();
    }

    /// Close whichever string is open: a text string as
    /// [`string_end`](Self::string_end), a base64 string as
    /// [`base64_end`](Self::base64_end) (flushing its padding). Does nothing when no
    /// string is open.
    pub fn string_end_any(&mut self) {
        match self.open {
            OpenString::Text => self.string_end(),
            OpenString::Base64 => self.base64_end(),
            OpenString::None => {}
        }
    }

    /// A string value produced by `core::fmt` (escaped as it is written). If a
    /// `Display` implementation fails, the string is closed with what it produced.
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 32];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.string_fmt(format_args!("{}\"C", 21));
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""21\"C""#);
    /// ```
    pub fn string_fmt(&mut self, args: fmt::Arguments<'_>) {
        self.string_begin();
        // A formatting error is either our sticky sink error (already recorded) or a
        // failing `Display` impl; in both cases the string is closed.
        let _ = fmt::write(&mut Escaper { w: self }, args);
        self.string_end();
    }

    // ---- numbers and literals ---------------------------------------------------

    /// An unsigned integer, exact (hand-written digits, no `core::fmt`).
    pub fn u64(&mut self, v: u64) {
        self.number(v, false, false);
    }

    /// A signed integer, exact (hand-written digits, no `core::fmt`).
    pub fn i64(&mut self, v: i64) {
        self.number(v.unsigned_abs(), v < 0, false);
    }

    /// An unsigned integer as a string value (`"42"`, e.g. a pagination cursor),
    /// without `core::fmt`.
    pub(crate) fn u64_str(&mut self, v: u64) {
        self.number(v, false, true);
    }

    /// `magnitude` with its sign, in quotes when `quoted`.
    fn number(&mut self, magnitude: u64, negative: bool, quoted: bool) {
        self.put_lead(if quoted { b",\"" } else { b"," });
        // Room for `-` and the 20 digits of u64::MAX (i64::MIN has 19).
        let mut buf = [0u8; 21];
        let mut start = format_u64(&mut buf, 21, magnitude);
        if negative {
            prepend(&mut buf, &mut start, b'-');
        }
        self.put(buf.get(start..).unwrap_or_default());
        if quoted {
            self.put(b"\"");
        }
        self.after_value();
    }

    /// A float in shortest round-trip form, the text core's `Display` prints for an
    /// `f64`; NaN and ±inf become `null`. Magnitudes from 1e21 up and below 1e-6 use
    /// exponent form (core's `LowerExp`, also shortest round-trip), as JavaScript
    /// does, so the output stays short (`1e300`, not 301 digits). No `core::fmt` and
    /// no float arithmetic: integers below 2^53 are written as integers, everything
    /// else with exact big-integer arithmetic (Steele & White's free-format digits,
    /// about 650 bytes of stack; small numbers for `21.5`, more work for extreme
    /// exponents).
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 64];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.begin_array();
    /// for v in [21.5, 40.0, 0.1, 1e300, f64::NAN] {
    ///     w.f64(v);
    /// }
    /// w.end_array();
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), b"[21.5,40,0.1,1e300,null]");
    /// ```
    pub fn f64(&mut self, v: f64) {
        if !v.is_finite() {
            self.null();
            return;
        }
        // Integral values (`40.0`, progress counts): the integer digits, which are
        // the shortest form below 2^53.
        if let Some(i) = small_integer(v) {
            self.i64(i);
            return;
        }
        let mut buf = [0u8; 1 + F64_MAX_LEN];
        let start = if self.comma { 0 } else { 1 };
        if let Some((comma, text)) = buf.split_first_mut() {
            *comma = b',';
            let len = format_f64(v, text);
            self.put(buf.get(start..=len).unwrap_or_default());
        }
        self.after_value();
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) {
        self.put_lead(if v { b",true" } else { b",false" });
        self.after_value();
    }

    /// `null`.
    pub fn null(&mut self) {
        self.put_lead(b",null");
        self.after_value();
    }

    // ---- joined text (64-bit) ------------------------------------------------------

    /// Open an object whose text is assembled in `j` ([`Joined`]): `j` starts with
    /// `,{` and the object's first members. The text goes to the sink only when `j`
    /// runs full, a piece is written directly ([`join_raw`](Self::join_raw), a string
    /// to escape) or the object ends ([`join_end`](Self::join_end)).
    #[cfg(emcp_fast)]
    pub(crate) fn join_flush(&mut self, j: &mut Joined) {
        let text = j.buf.get(..j.len).unwrap_or_default();
        if j.open {
            self.put(text);
        } else {
            self.open_with(text, true);
            j.open = true;
        }
        j.len = 0;
    }

    /// Append the literal text `lit` to `j` (written first when it does not fit).
    #[cfg(emcp_fast)]
    #[inline(always)]
    pub(crate) fn join_lit(&mut self, j: &mut Joined, lit: &[u8]) {
        if !j.push(lit) {
            self.join_lit_flushed(j, lit);
        }
    }

    /// [`join_lit`](Self::join_lit) when `lit` does not fit: after what `j` holds.
    #[cfg(emcp_fast)]
    #[cold]
    #[inline(never)]
    fn join_lit_flushed(&mut self, j: &mut Joined, lit: &[u8]) {
        self.join_flush(j);
        if !j.push(lit) {
            self.put(lit);
        }
    }

    /// Append the content of a string value, `s`, to `j` (its quotes are in the texts
    /// before and after it); escaped (written directly, after what `j` holds) when it
    /// has anything to escape or does not fit.
    #[cfg(emcp_fast)]
    #[inline(always)]
    pub(crate) fn join_str(&mut self, j: &mut Joined, s: &str) {
        if !j.push_plain(s.as_bytes()) {
            self.join_str_flushed(j, s);
        }
    }

    /// [`join_str`](Self::join_str) when `s` does not fit or has anything to escape:
    /// after what `j` holds.
    #[cfg(emcp_fast)]
    #[cold]
    #[inline(never)]
    fn join_str_flushed(&mut self, j: &mut Joined, s: &str) {
        self.join_flush(j);
        if j.push_plain(s.as_bytes()) {
            return;
        }
        self.put_escaped(s.as_bytes());
    }

    /// JSON text `json` after what `j` holds (which is written first), as it is.
    #[cfg(emcp_fast)]
    pub(crate) fn join_raw(&mut self, j: &mut Joined, json: &[u8]) {
        self.join_flush(j);
        self.put(json);
    }

    /// Write what `j` holds, closing the object it opened (the text ends with its
    /// `}`).
    #[cfg(emcp_fast)]
    pub(crate) fn join_end(&mut self, j: &mut Joined) {
        if !j.open {
            self.join_flush(j);
        }
        self.end(j.buf.get(..j.len).unwrap_or_default());
    }

    // ---- raw output ---------------------------------------------------------------

    /// Pre-validated JSON text as a value (e.g. a static schema, a raw id span); it is
    /// written verbatim, with the comma logic of a value.
    pub fn raw_value(&mut self, json: &[u8]) {
        // On 64-bit targets no empty write when no comma is due; elsewhere the
        // smaller code.
        #[cfg(emcp_fast)]
        if self.comma {
            self.put(b",");
        }
        #[cfg(not(emcp_fast))]
        self.put_lead(b",");
        self.put(json);
        self.after_value();
    }

    /// Raw bytes with no comma logic at all (envelope prefixes, the final newline).
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 64];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.raw(br#"{"jsonrpc":"2.0","id":"#);
    /// w.raw_value(b"\"a-1\"");
    /// w.raw(br#","result":"#);
    /// w.begin_object();
    /// w.end_object();
    /// w.raw(b"}\n");
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), b"{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"result\":{}}\n");
    /// ```
    pub fn raw(&mut self, bytes: &[u8]) {
        self.put(bytes);
    }

    /// Tell the sink which exchange the next lines belong to ([`Sink::route`]).
    #[cfg(feature = "routes")]
    pub fn route(&mut self, request: Option<&[u8]>) {
        self.sink.route(request);
    }

    // ---- base64 -------------------------------------------------------------------

    /// Open a base64 (RFC 4648, padded) string value, fed by
    /// [`base64_part`](Self::base64_part) and closed by
    /// [`base64_end`](Self::base64_end).
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 16];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.base64_begin();
    /// w.base64_part(b"foo");
    /// w.base64_part(b"ba");
    /// w.base64_end();
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""Zm9vYmE=""#);
    /// ```
    pub fn base64_begin(&mut self) {
        self.put_lead(b",\"");
        self.carry_len = 0;
        self.open = OpenString::Base64;
    }

    /// More bytes of an open base64 string. Up to two bytes are carried over to the
    /// next part; full groups (on a 64-bit target led by the carried one) are encoded
    /// up to `B64_RUN` at a time into a stack buffer and written as one run (the base64
    /// alphabet needs no escaping).
    pub fn base64_part(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        let mut out = [0u8; 4 * B64_RUN];
        let mut n = 0;
        // First complete a group carried over from the previous part: on a 64-bit
        // target it leads the first run; on a 32-bit one (smaller code) it is its own
        // sink write.
        #[cfg(emcp_fast)]
        if self.carry_len > 0 {
            let need = 3usize.saturating_sub(usize::from(self.carry_len));
            let Some((head, tail)) = rest.split_at_checked(need) else {
                self.carry_in(rest);
                self.carry_len += rest.len() as u8;
                return;
            };
            self.carry_in(head);
            if let Some(o) = out.first_chunk_mut::<4>() {
                *o = encode_full_group(self.carry);
                n = 4;
            }
            rest = tail;
        }
        #[cfg(not(emcp_fast))]
        while self.carry_len > 0 {
            let Some((&c, tail)) = rest.split_first() else {
                return;
            };
            rest = tail;
            self.carry = self.carry << 8 | u32::from(c);
            self.carry_len = (self.carry_len + 1) % 3;
            if self.carry_len == 0 {
                self.put(&encode_group(self.carry));
            }
        }
        // Full groups, up to `B64_RUN` per sink write. On a 64-bit target, while 14
        // input bytes remain, four groups per step: two overlapping big-endian words,
        // each of whose top 6 bytes is encoded as four character pairs (`B64_PAIRS`);
        // then (and on a 32-bit target throughout) one group at a time.
        loop {
            #[cfg(emcp_fast)]
            for o in out.get_mut(n..).unwrap_or_default().as_chunks_mut::<16>().0 {
                let Some((w, _)) = rest.split_first_chunk::<14>() else {
                    break;
                };
                let (Some(x), Some(y)) = (w.first_chunk::<8>(), w.last_chunk::<8>()) else {
                    break;
                };
                let (v, u) = (u64::from_be_bytes(*x), u64::from_be_bytes(*y));
                let [a, b] = b64_pair(v >> 52);
                let [c, d] = b64_pair(v >> 40);
                let [e, f] = b64_pair(v >> 28);
                let [g, h] = b64_pair(v >> 16);
                let [i, j] = b64_pair(u >> 52);
                let [k, l] = b64_pair(u >> 40);
                let [m, p] = b64_pair(u >> 28);
                let [q, r] = b64_pair(u >> 16);
                *o = [a, b, c, d, e, f, g, h, i, j, k, l, m, p, q, r];
                rest = rest.get(12..).unwrap_or_default();
                n += 16;
            }
            while let Some(o) = out.get_mut(n..).and_then(|o| o.first_chunk_mut::<4>()) {
                let Some((&[x, y, z], tail)) = rest.split_first_chunk::<3>() else {
                    break;
                };
                *o = encode_full_group(u32::from(x) << 16 | u32::from(y) << 8 | u32::from(z));
                rest = tail;
                n += 4;
            }
            if n == 0 {
                break;
            }
            self.put(out.get(..n).unwrap_or_default());
            if rest.len() < 3 {
                break;
            }
            n = 0;
        }
        self.carry_in(rest);
        self.carry_len = rest.len() as u8;
    }

    /// `bytes` (the few a part ends with) appended to the carried group.
    #[inline(always)]
    fn carry_in(&mut self, bytes: &[u8]) {
        for &c in bytes {
            self.carry = self.carry << 8 | u32::from(c);
        }
    }

    /// Flush the carried bytes with padding and close the base64 string.
    pub fn base64_end(&mut self) {
        // One carried byte gives two characters and `==`, two give three and `=`.
        let carried = usize::from(self.carry_len);
        if carried > 0 {
            // The carried bytes at the top of a group filled up with zero bytes.
            let mut group = encode_group(self.carry << (8 * 3usize.saturating_sub(carried)));
            for c in group.iter_mut().skip(carried + 1) {
                *c = b'=';
            }
            self.put(&group);
        }
        self.carry_len = 0;
        self.string_end();
    }

    /// A whole base64 string value: `base64_begin` + `base64_part` + `base64_end`.
    pub fn base64(&mut self, bytes: &[u8]) {
        self.base64_begin();
        self.base64_part(bytes);
        self.base64_end();
    }
}

/// Groups encoded per sink write by [`JsonWriter::base64_part`]: 64 output bytes of
/// stack on a 32-bit target, 128 on a 64-bit one. The buffer is zeroed on every call,
/// so it is no bigger than a streamed part needs: 128 bytes take a 64-byte part and a
/// carried group in one run (a bigger part takes one sink write per 96 bytes).
#[cfg(not(emcp_fast))]
const B64_RUN: usize = 16;
#[cfg(emcp_fast)]
const B64_RUN: usize = 32;

/// The two base64 characters of every 12-bit value (8 KiB): on 64-bit targets only,
/// where [`JsonWriter::base64_part`] encodes 12 bytes with eight lookups in it (and a
/// lone group with two). A 32-bit target (a microcontroller's flash) encodes character
/// by character instead.
#[cfg(emcp_fast)]
// Evaluated at compile time: an index out of range would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
static B64_PAIRS: [[u8; 2]; 4096] = {
    let mut table = [[0u8; 2]; 4096];
    let mut i = 0;
    while i < 4096 {
        table[i] = [BASE64[i >> 6], BASE64[i & 0x3F]];
        i += 1;
    }
    table
};

/// The two base64 characters of the low 12 bits of `v` ([`B64_PAIRS`]).
#[cfg(emcp_fast)]
#[inline(always)]
fn b64_pair(v: u64) -> [u8; 2] {
    B64_PAIRS
        .get(v as usize & 0xFFF)
        .copied()
        .unwrap_or_default()
}

/// The four base64 characters of one 3-byte group inside a run of
/// [`JsonWriter::base64_part`], the low 24 bits of `group`: two lookups in
/// [`B64_PAIRS`] on a 64-bit target, [`encode_group`] on a 32-bit one.
#[inline(always)]
fn encode_full_group(group: u32) -> [u8; 4] {
    #[cfg(emcp_fast)]
    {
        let [a, b] = b64_pair(u64::from(group >> 12));
        let [c, d] = b64_pair(u64::from(group));
        [a, b, c, d]
    }
    #[cfg(not(emcp_fast))]
    encode_group(group)
}

/// The four base64 characters of one 3-byte group, the low 24 bits of `group`: four
/// table lookups in straight-line code (as a loop over the shifts it cost about 58
/// instructions a group on Cortex-M3; this costs about 13, in 16 bytes less code).
#[inline(never)]
fn encode_group(group: u32) -> [u8; 4] {
    [
        b64((group >> 18) as u8),
        b64((group >> 12) as u8),
        b64((group >> 6) as u8),
        b64(group as u8),
    ]
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
pub(crate) mod tests;
