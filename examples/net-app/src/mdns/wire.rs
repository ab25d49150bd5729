//! The DNS message format (RFC 1035 §4.1) as far as the responder needs it: a
//! query's header and question names read, an answer written into the caller's
//! buffer.
//!
//! Panic contract: nothing here panics, whatever the input. Every read goes
//! through `get` and returns `None` past the end; a name is at most 255 bytes and
//! follows at most [`MAX_JUMPS`] compression pointers, each pointing before itself,
//! so reading one ends after at most 255 labels and 16 jumps; every write checks its
//! room and returns [`Error::Full`] instead of writing past the buffer.

/// The header's length.
pub const HEADER: usize = 12;
/// Record types.
pub const TYPE_A: u16 = 1;
pub const TYPE_PTR: u16 = 12;
pub const TYPE_TXT: u16 = 16;
pub const TYPE_SRV: u16 = 33;
/// The question type asking for every record of a name.
pub const TYPE_ANY: u16 = 255;
/// The Internet class.
pub const CLASS_IN: u16 = 1;
/// A record's class bit in an mDNS answer: the record replaces what caches hold for
/// its name and type (RFC 6762 §10.2), for the records only this device has.
pub const CACHE_FLUSH: u16 = 0x8000;
/// The longest name on the wire, in bytes.
pub const MAX_NAME: usize = 255;
/// The compression pointers followed in one name.
pub const MAX_JUMPS: usize = 16;
/// The header's flags of an answer: a response (QR), authoritative (AA).
pub const FLAGS_ANSWER: u16 = 0x8400;
/// The flags a standard query has clear: QR, the opcode (QUERY is 0), the rcode.
const NOT_QUERY: u16 = 0xF80F;

/// Why no answer was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// The datagram is not a well-formed DNS message.
    Malformed,
    /// The answer would not fit the buffer.
    Full,
}

/// The big-endian `u16` at `at`, if `msg` holds it.
pub fn u16_at(msg: &[u8], at: usize) -> Option<u16> {
    let bytes = msg.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes(bytes.try_into().ok()?))
}

/// The header fields the responder reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub id: u16,
    pub flags: u16,
    pub questions: u16,
}

impl Header {
    /// The header of `msg`, if it has one.
    pub fn read(msg: &[u8]) -> Option<Header> {
        Some(Header {
            id: u16_at(msg, 0)?,
            flags: u16_at(msg, 2)?,
            questions: u16_at(msg, 4)?,
        })
    }

    /// A standard query (not a response, opcode QUERY, rcode 0).
    pub fn is_query(&self) -> bool {
        self.flags & NOT_QUERY == 0
    }
}

/// A name read from a message: its labels in wire form (a length byte, then the
/// label's bytes), without the root label, compression pointers followed.
pub struct Name {
    bytes: [u8; MAX_NAME],
    len: usize,
}

impl Name {
    /// The name at `at` in `msg`, and the offset just past where it is written (past
    /// its first compression pointer, if it has one); `None` when it is malformed:
    /// cut short, longer than [`MAX_NAME`], a reserved label type, a pointer that does
    /// not point before itself, more than [`MAX_JUMPS`] pointers.
    pub fn read(msg: &[u8], at: usize) -> Option<(Name, usize)> {
        let mut name = Name {
            bytes: [0; MAX_NAME],
            len: 0,
        };
        let mut at = at;
        let mut end = None;
        let mut jumps = 0;
        loop {
            let len = *msg.get(at)?;
            match len >> 6 {
                0 if len == 0 => return Some((name, end.unwrap_or(at.checked_add(1)?))),
                0 => {
                    let start = at.checked_add(1)?;
                    let stop = start.checked_add(usize::from(len))?;
                    name.push(msg.get(start..stop)?)?;
                    at = stop;
                }
                3 => {
                    let low = *msg.get(at.checked_add(1)?)?;
                    let target = usize::from(u16::from_be_bytes([len & 0x3F, low]));
                    if target >= at || jumps >= MAX_JUMPS {
                        return None;
                    }
                    jumps += 1;
                    if end.is_none() {
                        end = Some(at.checked_add(2)?);
                    }
                    at = target;
                }
                _ => return None,
            }
        }
    }

    /// Append one label (at most 63 bytes, by its length byte's type).
    fn push(&mut self, label: &[u8]) -> Option<()> {
        let len = u8::try_from(label.len()).ok()?;
        let stop = self.len.checked_add(1)?.checked_add(label.len())?;
        let (first, rest) = self.bytes.get_mut(self.len..stop)?.split_first_mut()?;
        *first = len;
        for (to, from) in rest.iter_mut().zip(label) {
            *to = *from;
        }
        self.len = stop;
        Some(())
    }

    /// Whether this is the name `labels` (ASCII letters compared without case).
    pub fn is(&self, labels: &[&str]) -> bool {
        let mut rest = self.wire();
        for label in labels {
            let Some((&len, tail)) = rest.split_first() else {
                return false;
            };
            let Some((this, tail)) = tail.split_at_checked(usize::from(len)) else {
                return false;
            };
            if !this.eq_ignore_ascii_case(label.as_bytes()) {
                return false;
            }
            rest = tail;
        }
        rest.is_empty()
    }

    /// The labels in wire form, without the root label.
    pub fn wire(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

/// A message being written into a caller's buffer.
pub struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> Writer<'a> {
    pub fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, len: 0 }
    }

    /// The bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let stop = self.len.checked_add(bytes.len()).ok_or(Error::Full)?;
        let room = self.buf.get_mut(self.len..stop).ok_or(Error::Full)?;
        for (to, from) in room.iter_mut().zip(bytes) {
            *to = *from;
        }
        self.len = stop;
        Ok(())
    }

    pub fn u16(&mut self, value: u16) -> Result<(), Error> {
        self.put(&value.to_be_bytes())
    }

    pub fn u32(&mut self, value: u32) -> Result<(), Error> {
        self.put(&value.to_be_bytes())
    }

    /// Overwrite the `u16` written at `at`.
    pub fn set_u16(&mut self, at: usize, value: u16) -> Result<(), Error> {
        let stop = at
            .checked_add(2)
            .filter(|s| *s <= self.len)
            .ok_or(Error::Full)?;
        let room = self.buf.get_mut(at..stop).ok_or(Error::Full)?;
        for (to, from) in room.iter_mut().zip(value.to_be_bytes()) {
            *to = from;
        }
        Ok(())
    }

    /// One label: its length (at most 63), then its bytes.
    pub fn label(&mut self, label: &str) -> Result<(), Error> {
        let len = u8::try_from(label.len())
            .ok()
            .filter(|l| *l <= 63)
            .ok_or(Error::Malformed)?;
        self.put(&[len])?;
        self.put(label.as_bytes())
    }

    /// A compression pointer to the name written at `to`.
    pub fn pointer(&mut self, to: usize) -> Result<(), Error> {
        let to = u16::try_from(to)
            .ok()
            .filter(|t| *t < 0x4000)
            .ok_or(Error::Full)?;
        self.u16(0xC000 | to)
    }

    /// The message written.
    pub fn finish(self) -> usize {
        self.len
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::expect_used)]
mod tests {
    extern crate std;

    use super::*;

    fn name(msg: &[u8], at: usize) -> Option<(std::vec::Vec<u8>, usize)> {
        Name::read(msg, at).map(|(n, end)| (n.wire().to_vec(), end))
    }

    #[test]
    fn names_with_pointers() {
        // 12: "a" "local" root; 21: "b" then a pointer to "local" (14).
        let mut msg = std::vec![0u8; 12];
        msg.extend_from_slice(b"\x01a\x05local\x00\x01b\xc0\x0e");
        assert_eq!(name(&msg, 12), Some((b"\x01a\x05local".to_vec(), 21)));
        assert_eq!(name(&msg, 21), Some((b"\x01b\x05local".to_vec(), 25)));
        let (n, _) = Name::read(&msg, 21).expect("a name");
        assert!(n.is(&["B", "LOCAL"]) && !n.is(&["b"]) && !n.is(&["b", "local", "x"]));
    }

    #[test]
    fn malformed_names() {
        let header = [0u8; 12];
        let cases: &[&[u8]] = &[
            b"\xc0\x0c",         // a pointer to itself
            b"\xc0\x0e\xc0\x0c", // two pointers to each other (the second forward)
            b"\xc0\xff",         // past the end
            b"\x3fab",           // a label past the end
            b"\x40\x00",         // reserved label types
            b"\x80\x00",
            b"\x01a", // no root label
            b"\xc0",  // half a pointer
            b"",      // nothing
        ];
        for case in cases {
            let msg = [&header[..], case].concat();
            assert!(name(&msg, 12).is_none(), "{case:?}");
        }
        // Longer than 255 bytes: 128 labels of one byte.
        let long = [&header[..], &b"\x01x".repeat(128), b"\x00"].concat();
        assert!(name(&long, 12).is_none());
        // 17 pointers, each one back to the one before: one too many.
        let mut chain = std::vec![0u8; 12];
        chain.extend_from_slice(b"\x00");
        for i in 0..17u16 {
            let to = if i == 0 { 12 } else { 13 + (i - 1) * 2 };
            chain.extend_from_slice(&(0xC000 | to).to_be_bytes());
        }
        assert!(name(&chain, chain.len() - 2).is_none());
        assert!(
            name(&chain, chain.len() - 4).is_some(),
            "16 pointers are followed"
        );
    }

    #[test]
    fn writer_stops_at_the_end() {
        let mut buf = [0u8; 5];
        let mut w = Writer::new(&mut buf);
        assert_eq!(w.u32(1), Ok(()));
        assert_eq!(w.u16(2), Err(Error::Full));
        assert_eq!(w.set_u16(3, 7), Err(Error::Full), "past what was written");
        assert_eq!(w.set_u16(2, 7), Ok(()));
        assert_eq!(w.label(&"y".repeat(64)), Err(Error::Malformed));
        assert_eq!(w.finish(), 4);
        assert_eq!(buf, [0, 0, 0, 7, 0]);
    }
}
