//! Framing: bytes in, complete lines out.
//!
//! MCP's stdio transport (and every other byte stream emcp serves) carries one JSON-RPC
//! message per line. [`Framer`] accumulates bytes of any chunking — one byte at a time or
//! many messages per read — into a fixed line buffer of `N` bytes and hands out complete
//! lines. It never parses JSON.
//!
//! - `\n` ends a line; a `\r` before it is dropped (CRLF tolerated).
//! - Blank lines (nothing but spaces, tabs and `\r`) are skipped.
//! - A line may hold `N` bytes before its `\n` (a `\r` counts). A longer line, blank
//!   or not, is *reported* once ([`Frame::TooLong`]) and discarded up to the next
//!   `\n`; the line after it is framed normally.
//! - When the whole line is already in the input and nothing is buffered, the frame
//!   borrows the input directly (no copy).
//!
//! ```
//! use emcp::wire::framing::{Frame, Framer, Frames};
//! let mut framer: Framer<64> = Framer::new();
//! let mut input: &[u8] = b"{\"a\":1}\r\n\n{\"b\"";
//! let mut lines = 0;
//! while !input.is_empty() {
//!     let (used, frame) = framer.push(input);
//!     if let Some(Frame::Line(line)) = frame {
//!         assert_eq!(line, b"{\"a\":1}");
//!         lines += 1;
//!     }
//!     input = input.get(used..).unwrap_or(&[]);
//! }
//! assert_eq!(lines, 1);
//! assert_eq!(framer.buffered(), 4); // `{"b"` waits for its newline
//! ```

// The newline search: two 8-byte words per step on hosts, a machine word per step on
// small targets. The forms live in `json::find::newline`, tested against each other.
#[cfg(emcp_fast)]
use crate::wire::json::find::newline::fast as find_newline;
#[cfg(not(emcp_fast))]
use crate::wire::json::find::newline::word as find_newline;

/// What [`Framer::push`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A complete line without its `\r\n` / `\n`.
    Line(&'a [u8]),
    /// A line overflowed the buffer: answer it with an error; the rest of it is dropped.
    TooLong,
}

/// Default line buffer size used by the examples: 4 KiB.
pub const DEFAULT_LINE_LEN: usize = 4096;

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// `line` without one trailing `\r`. Out of line on small targets (smaller there).
#[cfg_attr(not(emcp_fast), inline(never))]
fn strip_cr(line: &[u8]) -> &[u8] {
    match line.split_last() {
        Some((b'\r', rest)) => rest,
        _ => line,
    }
}

/// What a framer does, whatever holds its line buffer: [`Framer`] owns an array,
/// [`SliceFramer`] borrows a caller's buffer (e.g. across a C ABI).
pub trait Frames {
    /// Feed bytes. Returns how many bytes of `input` were consumed and, when a line was
    /// completed (or found too long), the frame. Call again with the unconsumed rest until
    /// it is empty; a `(n, None)` return always consumed all of `input`.
    fn push<'a>(&'a mut self, input: &'a [u8]) -> (usize, Option<Frame<'a>>);

    /// End of input: a final line without a newline is still a message. Returns it (and
    /// empties the buffer), or `None` when nothing (or only blanks) was pending.
    fn finish(&mut self) -> Option<Frame<'_>>;

    /// Forget any partial line (e.g. after the link was lost).
    fn reset(&mut self);

    /// Bytes of an incomplete line held in the buffer.
    fn buffered(&self) -> usize;

    /// The longest line it frames (its buffer's length): a longer one is
    /// [`Frame::TooLong`], answered with this limit
    /// ([`Server::handle_frame_limit`](crate::Server::handle_frame_limit)). 0, the
    /// default, when not known: the answer then names none.
    fn limit(&self) -> usize {
        0
    }
}

/// A framer's progress through the current line.
#[derive(Clone, Copy, Debug, Default)]
struct State {
    len: usize,
    /// Dropping bytes of an overlong line until the next newline.
    discarding: bool,
}

impl State {
    fn push<'a>(&mut self, buf: &'a mut [u8], input: &'a [u8]) -> (usize, Option<Frame<'a>>) {
        let mut consumed = 0;
        let mut rest = input;
        loop {
            let newline = find_newline(rest);
            let (chunk, ends_line) = match newline {
                Some(i) => (rest.get(..i).unwrap_or(&[]), true),
                None => (rest, false),
            };
            let step = chunk.len() + usize::from(ends_line);
            consumed += step;
            rest = rest.get(step..).unwrap_or(&[]);

            if self.discarding {
                if ends_line {
                    self.discarding = false;
                    continue;
                }
                return (consumed, None);
            }

            // The length check comes first, before the blank-line check, so that a
            // blank line too long for the buffer is reported however the input is
            // chunked (when it arrives in pieces, its start is buffered before it is
            // known to be blank).
            if chunk.len() > buf.len().saturating_sub(self.len) {
                // Too long: report once, drop the rest of the line.
                self.len = 0;
                self.discarding = !ends_line;
                return (consumed, Some(Frame::TooLong));
            }
            // Zero-copy: the whole line is in the input.
            let direct = self.len == 0 && ends_line;
            if direct && is_blank(chunk) {
                continue;
            }
            let line = if direct {
                chunk
            } else {
                // `chunk` fits (checked above); `dst` is exactly as long. A zip rather
                // than `copy_from_slice`, whose length check is a panic path (it stays
                // in the Rust firmware's image, where the framer's capacity is a
                // constant).
                if let Some(dst) = buf.get_mut(self.len..self.len + chunk.len()) {
                    for (d, &b) in dst.iter_mut().zip(chunk) {
                        *d = b;
                    }
                }
                self.len += chunk.len();
                if !ends_line {
                    return (consumed, None);
                }
                let len = core::mem::take(&mut self.len);
                if is_blank(buf.get(..len).unwrap_or(&[])) {
                    continue;
                }
                buf.get(..len).unwrap_or(&[])
            };
            return (consumed, Some(Frame::Line(strip_cr(line))));
        }
    }

    fn finish<'a>(&mut self, buf: &'a [u8]) -> Option<Frame<'a>> {
        let len = self.len;
        self.len = 0;
        if self.discarding {
            self.discarding = false;
            return None;
        }
        let line = strip_cr(buf.get(..len).unwrap_or(&[]));
        if is_blank(line) {
            None
        } else {
            Some(Frame::Line(line))
        }
    }
}

/// A newline framer with an `N`-byte line buffer of its own.
pub struct Framer<const N: usize> {
    buf: [u8; N],
    state: State,
}

impl<const N: usize> Default for Framer<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Framer<N> {
    /// An empty framer.
    pub const fn new() -> Self {
        Self {
            buf: [0; N],
            state: State {
                len: 0,
                discarding: false,
            },
        }
    }
}

impl<const N: usize> Frames for Framer<N> {
    fn push<'a>(&'a mut self, input: &'a [u8]) -> (usize, Option<Frame<'a>>) {
        self.state.push(&mut self.buf, input)
    }
    fn finish(&mut self) -> Option<Frame<'_>> {
        self.state.finish(&self.buf)
    }
    fn reset(&mut self) {
        self.state = State::default();
    }
    fn buffered(&self) -> usize {
        self.state.len
    }
    fn limit(&self) -> usize {
        N
    }
}

/// A newline framer over a caller's line buffer (its length is the line limit).
pub struct SliceFramer<'b> {
    buf: &'b mut [u8],
    state: State,
}

impl<'b> SliceFramer<'b> {
    /// An empty framer using `buf` as its line buffer.
    pub fn new(buf: &'b mut [u8]) -> Self {
        Self {
            buf,
            state: State::default(),
        }
    }
}

impl Frames for SliceFramer<'_> {
    fn push<'a>(&'a mut self, input: &'a [u8]) -> (usize, Option<Frame<'a>>) {
        self.state.push(self.buf, input)
    }
    fn finish(&mut self) -> Option<Frame<'_>> {
        self.state.finish(self.buf)
    }
    fn reset(&mut self) {
        self.state = State::default();
    }
    fn buffered(&self) -> usize {
        self.state.len
    }
    fn limit(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    #[derive(Debug, PartialEq)]
    enum Out {
        Line(Vec<u8>),
        TooLong,
    }

    fn run<const N: usize>(chunks: &[&[u8]]) -> Vec<Out> {
        let mut f: Framer<N> = Framer::new();
        let mut buf = [0u8; N];
        let slice = run_with(&mut SliceFramer::new(&mut buf), chunks);
        let own = run_with(&mut f, chunks);
        assert_eq!(slice, own, "SliceFramer and Framer agree");
        own
    }

    fn run_with(f: &mut impl Frames, chunks: &[&[u8]]) -> Vec<Out> {
        let mut out = Vec::new();
        for chunk in chunks {
            let mut rest: &[u8] = chunk;
            loop {
                let (used, frame) = f.push(rest);
                match frame {
                    Some(Frame::Line(l)) => out.push(Out::Line(l.to_vec())),
                    Some(Frame::TooLong) => out.push(Out::TooLong),
                    None => {}
                }
                rest = &rest[used..];
                if rest.is_empty() {
                    break;
                }
            }
        }
        if let Some(Frame::Line(l)) = f.finish() {
            out.push(Out::Line(l.to_vec()));
        }
        out
    }

    fn line(s: &str) -> Out {
        Out::Line(s.as_bytes().to_vec())
    }

    #[test]
    fn lines_crlf_and_blanks() {
        let out = run::<16>(&[b"a\r\n\n  \r\nbc\nd"]);
        assert_eq!(out, vec![line("a"), line("bc"), line("d")]);
    }

    #[test]
    fn byte_at_a_time_equals_whole() {
        let input = b"{\"x\":1}\r\n\r\n{\"y\":2}\n0123456789abcdefXYZ\n{}\n";
        let whole = run::<16>(&[input]);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(run::<16>(&bytes), whole);
        for split in 0..input.len() {
            let (a, b) = input.split_at(split);
            assert_eq!(run::<16>(&[a, b]), whole, "split at {split}");
        }
        assert_eq!(
            whole,
            vec![
                line("{\"x\":1}"),
                line("{\"y\":2}"),
                Out::TooLong,
                line("{}")
            ]
        );
    }

    #[test]
    fn overlong_reported_once_then_recovers() {
        let out = run::<4>(&[b"abcdefghij", b"klmnop\nok\n"]);
        assert_eq!(out, vec![Out::TooLong, line("ok")]);
        // exactly N bytes fits
        assert_eq!(run::<4>(&[b"abcd\n"]), vec![line("abcd")]);
        assert_eq!(run::<4>(&[b"ab", b"c\r\n"]), vec![line("abc")]);
        assert_eq!(run::<4>(&[b"abcd\r\n"]), vec![Out::TooLong]);
        assert_eq!(run::<4>(&[b"ab", b"cd\r\n"]), vec![Out::TooLong]);
        assert_eq!(run::<4>(&[b"abcde\n"]), vec![Out::TooLong]);
        assert_eq!(
            run::<4>(&[b"ab", b"cde\nx\n"]),
            vec![Out::TooLong, line("x")]
        );
    }

    /// Found by the `framer` fuzz target: a blank line longer than the buffer was
    /// skipped when it arrived whole but reported when it arrived in pieces.
    #[test]
    fn overlong_blank_line_is_reported_however_chunked() {
        let input = b"      \r\nok\n";
        let whole = run::<4>(&[input]);
        assert_eq!(whole, vec![Out::TooLong, line("ok")]);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(run::<4>(&bytes), whole);
        for split in 0..input.len() {
            let (a, b) = input.split_at(split);
            assert_eq!(run::<4>(&[a, b]), whole, "split at {split}");
        }
        // A blank line that fits is still skipped.
        assert_eq!(run::<4>(&[b"  \r\nok\n"]), vec![line("ok")]);
    }

    #[test]
    fn finish_drops_discarded_tail() {
        assert_eq!(run::<4>(&[b"abcdefg"]), vec![Out::TooLong]);
    }
}
