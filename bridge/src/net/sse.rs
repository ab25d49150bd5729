//! Server-sent events as they arrive: each event's `data` (its `data:` lines joined by
//! line breaks), bounded — an event over the limit is dropped whole and reported,
//! never kept growing. `event:`, `id:`, `retry:` and comment lines are skipped
//! (the bridge does not resume streams).

use std::io::{self, BufReader, Read};

/// What [`Events::next_event`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// An event's data.
    Data(Vec<u8>),
    /// An event (or one of its lines) over the limit, dropped.
    TooLong,
}

/// The events of a stream.
pub struct Events<R> {
    reader: BufReader<R>,
    max: usize,
}

impl<R: Read> Events<R> {
    /// Events of `reader`, each at most `max` bytes of data.
    pub fn new(reader: R, max: usize) -> Self {
        Events {
            reader: BufReader::with_capacity(16 * 1024, reader),
            max,
        }
    }

    /// The reader underneath (to move its deadline).
    pub fn get_mut(&mut self) -> &mut R {
        self.reader.get_mut()
    }

    /// The next event; `None` at the end of the stream (an unfinished event at the end
    /// is dropped, as the SSE rules say).
    ///
    /// ```
    /// use emcp_bridge::net::sse::{Event, Events};
    /// let stream = b"event: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: ping\n\ndata:x\n\ndata: y";
    /// let mut events = Events::new(&stream[..], 64);
    /// assert_eq!(events.next_event().unwrap(), Some(Event::Data(b"{\"a\":\n1}".to_vec())));
    /// assert_eq!(events.next_event().unwrap(), Some(Event::Data(b"x".to_vec())));
    /// assert_eq!(events.next_event().unwrap(), None);
    /// ```
    ///
    /// # Errors
    ///
    /// The reader's error.
    pub fn next_event(&mut self) -> io::Result<Option<Event>> {
        let mut data: Vec<u8> = Vec::new();
        let mut has_data = false;
        let mut oversize = false;
        loop {
            let Some((line, too_long)) = self.line()? else {
                return Ok(None);
            };
            if line.is_empty() && !too_long {
                if oversize {
                    return Ok(Some(Event::TooLong));
                }
                if has_data {
                    return Ok(Some(Event::Data(data)));
                }
                continue; // a blank line after comments only
            }
            if too_long {
                // Whatever field it was: a data line over the limit drops the event.
                oversize = true;
                data = Vec::new();
                continue;
            }
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (&line[..], &b""[..]),
            };
            if field != b"data" {
                continue;
            }
            if data.len() + value.len() + 1 > self.max {
                oversize = true;
                data = Vec::new();
                continue;
            }
            if oversize {
                continue;
            }
            if has_data {
                data.push(b'\n');
            }
            data.extend_from_slice(value);
            has_data = true;
        }
    }

    /// One line without its end (CRLF, LF or CR-LF tolerated as LF); a line over the
    /// limit is read to its end and returned empty with `true`; `None` at the end of
    /// the stream, also in the middle of a line.
    fn line(&mut self) -> io::Result<Option<(Vec<u8>, bool)>> {
        Ok(crate::pump::read_line(&mut self.reader, self.max + 16)?
            .filter(|line| line.terminated)
            .map(|line| (line.bytes, line.too_long)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_over_the_limit_is_dropped_and_the_next_one_read() {
        let mut stream = b"data: ".to_vec();
        stream.extend(vec![b'x'; 100]);
        stream.extend_from_slice(b"\n\ndata: a\ndata: ");
        stream.extend(vec![b'y'; 60]);
        stream.extend_from_slice(b"\n\ndata: ok\n\n");
        let mut e = Events::new(&stream[..], 32);
        assert_eq!(e.next_event().unwrap(), Some(Event::TooLong));
        assert_eq!(e.next_event().unwrap(), Some(Event::TooLong));
        assert_eq!(e.next_event().unwrap(), Some(Event::Data(b"ok".to_vec())));
        assert_eq!(e.next_event().unwrap(), None);
    }

    /// A reader that hands out one byte per read.
    struct Bytewise<'a>(&'a [u8]);

    impl Read for Bytewise<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            match (self.0.split_first(), out.first_mut()) {
                (Some((&b, rest)), Some(o)) => {
                    *o = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn events_split_anywhere_read_the_same() {
        let stream = b": hello\r\n\r\nevent: message\r\nid: 7\r\ndata: {\"a\":1}\r\n\r\ndata:two\ndata: lines\n\nretry: 10\n\ndata: last\n\n";
        fn all<R: Read>(r: &mut Events<R>) -> Vec<Event> {
            let mut v = Vec::new();
            while let Some(e) = r.next_event().unwrap() {
                v.push(e);
            }
            v
        }
        let whole = all(&mut Events::new(&stream[..], 64));
        assert_eq!(
            whole,
            [
                Event::Data(b"{\"a\":1}".to_vec()),
                Event::Data(b"two\nlines".to_vec()),
                Event::Data(b"last".to_vec())
            ]
        );
        assert_eq!(all(&mut Events::new(Bytewise(stream), 64)), whole);
    }

    #[test]
    fn an_endless_line_does_not_grow_memory() {
        // 8 MiB without a line end, read through a 32-byte limit.
        let endless = std::io::repeat(b'z').take(8 << 20);
        let mut e = Events::new(endless, 32);
        assert_eq!(e.next_event().unwrap(), None);
    }
}
