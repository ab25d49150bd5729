//! Text assembled whole: the writer's calls for the hosts' serialisers, which write an
//! object's fixed text (its keys with their quotes and commas, several brackets) in few,
//! large sink writes ([`Joined`], [`JsonWriter::begin_raw_n`], ...), where a small
//! target's serialisers write one piece at a time with the writer's ordinary calls.
//! Both give the same bytes (the tests of `model::registry` compare them for every
//! descriptor); compiled everywhere, used on hosts.
#![cfg_attr(not(emcp_fast), allow(dead_code))]

use super::fast::{copy_flagged, copy_flagged_long, SPECIAL_HIGHS};
use super::{copy_small, JsonWriter, SinkError, WRITER_MAX_DEPTH};

/// Room of a [`Joined`].
const JOINED_LEN: usize = 192;

/// An object's text assembled on the stack, written in few, large sink writes: a
/// descriptor's keys, its short strings and its fixed members. See
/// [`JsonWriter::join_flush`].
pub(crate) struct Joined {
    buf: [u8; JOINED_LEN],
    len: usize,
    /// The object was opened (its start written).
    open: bool,
}

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

impl JsonWriter<'_> {
    /// Raw text that starts with a member's comma, dropped when none is due (a key
    /// the crate spells as a literal, and what follows it).
    #[cfg(feature = "stateless")]
    pub(crate) fn raw_lead(&mut self, with_comma: &[u8]) {
        self.put_lead(with_comma);
    }

    /// [`begin_object_raw`](Self::begin_object_raw) for `open` opening `levels`
    /// containers, each in the one before (`,"result":{"content":[{"type":"text",…`).
    pub(crate) fn begin_raw_n(&mut self, open: &[u8], levels: u8) {
        self.open_n(open, false, levels);
    }

    /// [`open_with`](Self::open_with) for `levels` containers.
    pub(crate) fn open_n(&mut self, open: &[u8], lead: bool, levels: u8) {
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
    pub(crate) fn reopen(&mut self, text: &[u8]) {
        self.put(text);
        self.comma = false;
    }

    /// After a key written as part of other text ([`end_n`](Self::end_n)): the value
    /// follows without a comma.
    pub(crate) fn after_key(&mut self) {
        self.comma = false;
    }

    /// [`end`](Self::end) for `close` closing `levels` containers (`}]`).
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
    pub(crate) fn member_done(&mut self) {
        self.after_value();
    }

    /// Open an object whose text is assembled in `j` ([`Joined`]): `j` starts with
    /// `,{` and the object's first members. The text goes to the sink only when `j`
    /// runs full, a piece is written directly ([`join_raw`](Self::join_raw), a string
    /// to escape) or the object ends ([`join_end`](Self::join_end)).
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
    #[inline(always)]
    pub(crate) fn join_lit(&mut self, j: &mut Joined, lit: &[u8]) {
        if !j.push(lit) {
            self.join_lit_flushed(j, lit);
        }
    }

    /// [`join_lit`](Self::join_lit) when `lit` does not fit: after what `j` holds.
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
    #[inline(always)]
    pub(crate) fn join_str(&mut self, j: &mut Joined, s: &str) {
        if !j.push_plain(s.as_bytes()) {
            self.join_str_flushed(j, s);
        }
    }

    /// [`join_str`](Self::join_str) when `s` does not fit or has anything to escape:
    /// after what `j` holds.
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
    pub(crate) fn join_raw(&mut self, j: &mut Joined, json: &[u8]) {
        self.join_flush(j);
        self.put(json);
    }

    /// Write what `j` holds, closing the object it opened (the text ends with its
    /// `}`).
    pub(crate) fn join_end(&mut self, j: &mut Joined) {
        if !j.open {
            self.join_flush(j);
        }
        self.end(j.buf.get(..j.len).unwrap_or_default());
    }
}
