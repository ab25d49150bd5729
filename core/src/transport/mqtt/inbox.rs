//! [`Inbox`]: bytes from the broker in, whole MQTT packets out, in a buffer of the
//! caller's size. A packet longer than the buffer keeps what fitted (its head: the
//! topic and properties of a PUBLISH) and is reported truncated once its last byte
//! has gone by, so the next packet starts in step.

use super::packet::{fixed_header, Malformed};

/// Where the packet being received stands.
#[derive(Debug, Default)]
pub struct Inbox {
    /// Bytes of it kept in the buffer.
    len: usize,
    /// Bytes of it received (kept or not).
    seen: usize,
    /// Its length, header included, once the fixed header is complete (0 before).
    total: usize,
}

impl Inbox {
    /// Nothing received.
    pub const fn new() -> Self {
        Self {
            len: 0,
            seen: 0,
            total: 0,
        }
    }

    /// Bytes of the current packet in the buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Start the next packet (after a complete one was handled).
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Take bytes into `buf`: how many of `bytes` were used, and `Some(truncated)`
    /// when a packet is complete in `buf[..self.len()]` (then handle it and
    /// [`Inbox::clear`] before pushing the rest). `Err` for a malformed fixed header,
    /// or a `buf` too short for one (under five bytes).
    pub fn push(
        &mut self,
        buf: &mut [u8],
        bytes: &[u8],
    ) -> Result<(usize, Option<bool>), Malformed> {
        let mut used = 0usize;
        loop {
            if self.total == 0 {
                let Some(&b) = bytes.get(used) else {
                    return Ok((used, None));
                };
                let slot = buf.get_mut(self.len).ok_or(Malformed)?;
                *slot = b;
                self.len += 1;
                self.seen = self.len;
                used += 1;
                let kept = buf.get(..self.len).ok_or(Malformed)?;
                if let Some((head, remaining)) = fixed_header(kept)? {
                    self.total = head.checked_add(remaining).ok_or(Malformed)?;
                    if self.seen >= self.total {
                        return Ok((used, Some(false)));
                    }
                }
                continue;
            }
            let left = bytes.get(used..).unwrap_or_default();
            if left.is_empty() {
                return Ok((used, None));
            }
            let n = left.len().min(self.total.saturating_sub(self.seen));
            let room = buf.len().saturating_sub(self.len);
            let k = n.min(room);
            if let (Some(dst), Some(src)) = (buf.get_mut(self.len..self.len + k), left.get(..k)) {
                dst.copy_from_slice(src);
                self.len += k;
            }
            self.seen += n;
            used += n;
            if self.seen >= self.total {
                return Ok((used, Some(self.len < self.total)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Feed `input` in pieces of `step`, collecting (packet bytes kept, truncated).
    fn packets(input: &[u8], cap: usize, step: usize) -> Vec<(Vec<u8>, bool)> {
        let mut buf = std::vec![0u8; cap];
        let mut inbox = Inbox::new();
        let mut out = Vec::new();
        for piece in input.chunks(step) {
            let mut rest = piece;
            while !rest.is_empty() {
                let (used, done) = inbox.push(&mut buf, rest).unwrap();
                rest = &rest[used..];
                if let Some(t) = done {
                    out.push((buf[..inbox.len()].to_vec(), t));
                    inbox.clear();
                }
            }
        }
        out
    }

    #[test]
    fn whole_packets_in_any_split() {
        let input = [0xd0, 0x00, 0x30, 0x03, 0, 1, b'a', 0xd0, 0x00];
        for step in 1..=input.len() {
            let p = packets(&input, 16, step);
            assert_eq!(
                p,
                [
                    (std::vec![0xd0, 0x00], false),
                    (std::vec![0x30, 0x03, 0, 1, b'a'], false),
                    (std::vec![0xd0, 0x00], false)
                ]
            );
        }
    }

    #[test]
    fn oversized_packet_truncated_then_in_step() {
        let mut input = std::vec![0x30, 0x80, 0x01]; // 128 bytes of body
        input.extend(core::iter::repeat_n(b'x', 128));
        input.extend([0xd0, 0x00]);
        for step in [1, 3, 7, 64, 200] {
            let p = packets(&input, 10, step);
            assert_eq!(p.len(), 2);
            assert_eq!(p[0].0.len(), 10);
            assert!(p[0].1);
            assert_eq!(p[1], (std::vec![0xd0, 0x00], false));
        }
    }

    #[test]
    fn malformed_length_is_an_error() {
        let mut buf = [0u8; 16];
        let mut inbox = Inbox::new();
        assert_eq!(
            inbox.push(&mut buf, &[0x30, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Err(Malformed)
        );
        let mut tiny = [0u8; 1];
        let mut inbox = Inbox::new();
        assert_eq!(inbox.push(&mut tiny, &[0x30, 0x80, 0x01]), Err(Malformed));
    }
}
