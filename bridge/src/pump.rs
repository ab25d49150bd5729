//! The I/O loop around the [`Relay`]: one thread reads the host, one keeps the device
//! link open (opening it again after it went away, with the link's backoff) and reads
//! it, one per connection writes to the device, and the calling thread owns the relay,
//! writes the host and runs deadlines.
//!
//! At the end of the host's input the pump waits until every request has its
//! response (or its timeout), then closes the device's input, stops the link and
//! returns.
//!
//! What is read and not yet handled is bounded on both sides ([`QUEUE`] bytes each), so
//! the bridge's memory does not follow how far one side runs ahead of the other: the
//! stdio host's lines until the device was written what they asked for (beyond, the
//! host waits in its own writes), and the device's lines until the loop took them.
//! The loop never waits for the device (its writer thread does), so a device that
//! waits for its output to be read is always read.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use crate::link::Link;
use crate::message::Message;
use crate::relay::{self, Out, Relay};

/// Longest line read from either side; a longer one is dropped to the next newline
/// ([`Frame::TooLong`]: the host's is answered as the core answers it, the device's
/// reported). Lines from the host longer than the device's line buffer are answered
/// before they get here ([`relay::Config::line_max`]).
pub const MAX_LINE: usize = 4 << 20;

/// Bytes of lines read and not yet handled, each line counted with [`QUEUED_LINE`]
/// bytes more, beyond which a reader waits: the stdio host's (until what they asked of
/// the device was written to it) and the device's (until the loop took them). A longer
/// line still passes, alone.
pub const QUEUE: usize = 64 * 1024;

/// What a queued host line costs beyond its bytes (its allocation, its slot in the
/// channel), so that short lines are bounded too.
const QUEUED_LINE: usize = 64;

/// Lines from [`Lines`] get room in steps of this many bytes, so that lines whose
/// lengths differ a little (ids one digit longer) share an allocation size.
const LINE_ROOM: usize = 256;

/// A [`Lines`] reader's buffer for a line being read is given back down to this size
/// after a longer line.
const SCRATCH_KEEP: usize = 64 * 1024;

/// How long the end waits for the device to be written what is queued for it, before
/// the link is stopped anyway.
const WRITE_GRACE: Duration = Duration::from_secs(2);

/// A connection that lasted this long resets the link's backoff.
const STABLE: Duration = Duration::from_secs(10);

/// What the loop reacts to. `H`: events of the host side ([`HostSide::Event`]).
pub enum Event<H = std::convert::Infallible> {
    /// A line from the host (without its newline).
    Host(Vec<u8>),
    /// A line from the host longer than [`MAX_LINE`], dropped.
    HostTooLong,
    /// An event of the host side (an HTTP request arriving, a stream closing).
    Side(H),
    /// The host's input ended.
    HostEnd,
    /// The device link opened: connection number and its input.
    Up(u64, Box<dyn Write + Send>),
    /// Writing to this connection failed (the writer thread reported why).
    WriteFailed(u64),
    /// A line from the device on this connection.
    Line(u64, Vec<u8>),
    /// This connection ended.
    Down(u64),
}

/// Options of [`run`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// The relay's timeouts and bounds.
    pub relay: relay::Config,
}

/// The device link shared between the connecting thread and the loop (which stops it).
pub type SharedLink = Arc<Mutex<Box<dyn Link>>>;

fn lock(link: &SharedLink) -> MutexGuard<'_, Box<dyn Link>> {
    link.lock().unwrap_or_else(|p| p.into_inner())
}

/// The host's end of the pump: where the relay's host lines go, and what its own
/// events mean.
pub trait HostSide {
    /// Events of this side, sent to the pump as [`Event::Side`].
    type Event: Send + 'static;

    /// A line the relay produced for the host.
    ///
    /// # Errors
    ///
    /// The host cannot be written to any more: the pump stops.
    fn deliver(&mut self, line: Vec<u8>) -> io::Result<()>;

    /// A line the relay produced for the host, read already: [`HostSide::deliver`] of
    /// its line unless the side has a use for what was read.
    ///
    /// # Errors
    ///
    /// As [`HostSide::deliver`].
    fn deliver_message(&mut self, message: Message) -> io::Result<()> {
        self.deliver(message.into_line())
    }

    /// One of this side's events; returns the host lines it makes for the relay
    /// ([`Relay::host_message`]).
    fn event(&mut self, event: Self::Event) -> Vec<Message>;
}

/// The stdio host: lines to a writer (stdout).
struct Stdio<W>(W);

impl<W: Write> HostSide for Stdio<W> {
    type Event = std::convert::Infallible;

    fn deliver(&mut self, line: Vec<u8>) -> io::Result<()> {
        self.0.write_all(&line)?;
        self.0.write_all(b"\n")?;
        self.0.flush()
    }

    fn event(&mut self, event: Self::Event) -> Vec<Message> {
        match event {}
    }
}

/// Relay between the host (`host_in`, `host_out`) and the device behind `link` until
/// the host's input ends and every request is answered.
///
/// # Errors
///
/// Writing to the host failed.
pub fn run(
    link: Box<dyn Link>,
    host_in: impl Read + Send + 'static,
    host_out: impl Write,
    options: Options,
) -> io::Result<()> {
    let (tx, rx) = mpsc::channel();
    let backlog = Arc::new(Backlog::default());
    spawn_host_reader(host_in, tx.clone(), Arc::clone(&backlog));
    let result = serve(link, tx, &rx, &mut Stdio(host_out), options, Some(&backlog));
    backlog.close(); // a reader waiting for room returns
    result
}

/// Relay between any host side and the device behind `link`: `tx` is the sending end
/// of `rx` (the device thread sends on it; the host side's threads too).
///
/// # Errors
///
/// [`HostSide::deliver`] failed.
pub fn run_side<S: HostSide>(
    link: Box<dyn Link>,
    tx: Sender<Event<S::Event>>,
    rx: &Receiver<Event<S::Event>>,
    side: &mut S,
    options: Options,
) -> io::Result<()> {
    serve(link, tx, rx, side, options, None)
}

/// [`run_side`], giving back room in `backlog` for each host line handled.
fn serve<S: HostSide>(
    link: Box<dyn Link>,
    tx: Sender<Event<S::Event>>,
    rx: &Receiver<Event<S::Event>>,
    side: &mut S,
    options: Options,
    backlog: Option<&Arc<Backlog>>,
) -> io::Result<()> {
    let link: SharedLink = Arc::new(Mutex::new(link));
    let stopping = Arc::new(AtomicBool::new(false));
    let device_backlog = Arc::new(Backlog::default());
    spawn_device(
        Arc::clone(&link),
        Arc::clone(&stopping),
        tx.clone(),
        Arc::clone(&device_backlog),
    );
    let mut pump = Pump {
        relay: Relay::new(options.relay),
        device: None,
        host_open: true,
        backlog: backlog.cloned(),
        held: None,
        wrote: false,
        device_backlog: Arc::clone(&device_backlog),
        events: tx,
    };
    let result = pump.run(rx, side);
    stopping.store(true, Ordering::Release);
    device_backlog.close(); // a device reader waiting for room returns
    if let Some(writer) = pump.device.take() {
        // What is queued is written, then a child's stdin closed.
        writer.close(WRITE_GRACE);
    }
    lock(&link).stop();
    result
}

struct Pump<H> {
    relay: Relay,
    /// The current connection's writer.
    device: Option<DeviceWriter>,
    host_open: bool,
    /// The host reader's bound, when it has one.
    backlog: Option<Arc<Backlog>>,
    /// The host line being handled, to give back to `backlog`.
    held: Option<Vec<u8>>,
    /// A line went to the device while it was handled.
    wrote: bool,
    /// The device reader's bound.
    device_backlog: Arc<Backlog>,
    /// For the writer threads' reports.
    events: Sender<Event<H>>,
}

impl<H: Send + 'static> Pump<H> {
    fn run<S: HostSide<Event = H>>(
        &mut self,
        rx: &Receiver<Event<H>>,
        host: &mut S,
    ) -> io::Result<()> {
        loop {
            if !self.host_open && self.relay.is_idle() {
                let out = self.relay.close();
                return self.apply(out, host);
            }
            let now = Instant::now();
            let event = match self.relay.next_deadline() {
                Some(d) => rx.recv_timeout(d.saturating_duration_since(now)),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            let now = Instant::now();
            let out = match event {
                Ok(Event::Host(line)) => {
                    let out = self.relay.host_line(&line, now);
                    self.held = Some(line);
                    out
                }
                Ok(Event::HostTooLong) => self.relay.host_too_long(),
                Ok(Event::Side(event)) => {
                    let mut out = Vec::new();
                    for message in host.event(event) {
                        out.extend(self.relay.host_message(message, now));
                    }
                    out
                }
                Ok(Event::HostEnd) => {
                    self.host_open = false;
                    Vec::new()
                }
                Ok(Event::Up(n, writer)) => {
                    self.device = Some(DeviceWriter::spawn(
                        n,
                        writer,
                        self.events.clone(),
                        self.backlog.clone(),
                    ));
                    self.relay.connected(now)
                }
                Ok(Event::Line(n, line)) => {
                    let out = if self.is_current(n) {
                        self.relay.device_line(&line, now)
                    } else {
                        Vec::new() // an old connection
                    };
                    self.device_backlog.give_back(line);
                    out
                }
                Ok(Event::Down(n) | Event::WriteFailed(n)) if self.is_current(n) => {
                    // A writer that failed: the device is gone, its connection's end
                    // is ignored.
                    self.device = None;
                    self.relay.disconnected(now)
                }
                Ok(Event::Down(_) | Event::WriteFailed(_)) => Vec::new(), // an old connection
                Err(RecvTimeoutError::Timeout) => Vec::new(),
                Err(RecvTimeoutError::Disconnected) => {
                    // Both readers are gone: nothing more can happen.
                    let out = self.relay.close();
                    return self.apply(out, host);
                }
            };
            let applied = self.apply(out, host);
            self.settle();
            applied?;
            let out = self.relay.tick(Instant::now());
            self.apply(out, host)?;
        }
    }

    fn is_current(&self, n: u64) -> bool {
        self.device.as_ref().is_some_and(|w| w.connection == n)
    }

    /// Carry out what the relay asked for.
    fn apply<S: HostSide>(&mut self, out: Vec<Out>, host: &mut S) -> io::Result<()> {
        for o in out {
            match o {
                Out::Host(line) => host.deliver(line)?,
                Out::HostMessage(message) => host.deliver_message(message)?,
                Out::Device(line) => {
                    let Some(writer) = self.device.as_ref() else {
                        eprintln!("emcp-bridge: no device: line dropped");
                        continue;
                    };
                    writer.send(ToDevice::Line(line));
                    self.wrote = true;
                }
                Out::Note(text) => eprintln!("emcp-bridge: {text}"),
            }
        }
        Ok(())
    }

    /// The host line just handled goes back to the host's bound once what it sent to
    /// the device is written (at once when it sent nothing).
    fn settle(&mut self) {
        let wrote = std::mem::take(&mut self.wrote);
        let (Some(line), Some(backlog)) = (self.held.take(), self.backlog.as_ref()) else {
            return;
        };
        match self.device.as_ref().filter(|_| wrote) {
            Some(writer) => writer.send(ToDevice::GiveBack(line)),
            None => backlog.give_back(line),
        }
    }
}

/// What the loop gives a connection's writer thread.
enum ToDevice {
    /// A line to write (without its newline).
    Line(Vec<u8>),
    /// A host line to give back to the host's bound once the lines before are written.
    GiveBack(Vec<u8>),
}

/// The thread writing to one connection: lines are queued to it, so that the loop
/// never waits for the device.
struct DeviceWriter {
    connection: u64,
    queue: Sender<ToDevice>,
    /// Disconnected when the thread ends.
    done: Receiver<()>,
}

impl DeviceWriter {
    /// Write to connection `connection` through `writer`; report a failure on
    /// `events`; give room back to `backlog`.
    fn spawn<H: Send + 'static>(
        connection: u64,
        mut writer: Box<dyn Write + Send>,
        events: Sender<Event<H>>,
        backlog: Option<Arc<Backlog>>,
    ) -> Self {
        let (queue, lines) = mpsc::channel();
        let (ended, done) = mpsc::sync_channel::<()>(0);
        thread::spawn(move || {
            let _ended = ended;
            let mut failed = false;
            // Ends when the loop dropped the queue, once what was queued is written.
            for to in lines {
                match to {
                    ToDevice::Line(line) if !failed => {
                        let sent = writer
                            .write_all(&line)
                            .and_then(|()| writer.write_all(b"\n"))
                            .and_then(|()| writer.flush());
                        if let Err(e) = sent {
                            eprintln!("emcp-bridge: writing to the device: {e}");
                            failed = true;
                            let _ = events.send(Event::WriteFailed(connection));
                        }
                    }
                    ToDevice::Line(_) => {} // the device is gone
                    ToDevice::GiveBack(line) => {
                        if let Some(backlog) = &backlog {
                            backlog.give_back(line);
                        }
                    }
                }
            }
        });
        DeviceWriter {
            connection,
            queue,
            done,
        }
    }

    fn send(&self, to: ToDevice) {
        // The thread ends only when the queue is dropped.
        let _ = self.queue.send(to);
    }

    /// Write what is queued, then close the device's input (a child's stdin); wait at
    /// most `grace` for it.
    fn close(self, grace: Duration) {
        drop(self.queue);
        let _ = self.done.recv_timeout(grace);
    }
}

/// The lines one reader has read and not yet seen handled, in bytes ([`QUEUE`]).
///
/// Handled lines come back to the reader, which frees them: memory a thread allocates is
/// freed by that thread, so that no thread's allocator keeps taking fresh memory for
/// what the others hold (glibc's per-thread caches keep what a thread frees for that
/// thread's next allocations).
#[derive(Default)]
pub struct Backlog {
    state: Mutex<BacklogState>,
    /// Signalled when room is given back or the pump stopped.
    room: Condvar,
}

#[derive(Default)]
struct BacklogState {
    queued: usize,
    /// Handled lines, for the reader to free.
    spent: Vec<Vec<u8>>,
    /// The reader waits for room (only then is it woken).
    waiting: bool,
    /// The pump stopped: nothing will be taken any more.
    closed: bool,
}

/// What `line` counts in a [`Backlog`].
fn queued_cost(line: &[u8]) -> usize {
    line.len().saturating_add(QUEUED_LINE)
}

impl Backlog {
    fn lock(&self) -> MutexGuard<'_, BacklogState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The reader: wait until `cost` more bytes fit under [`QUEUE`] (or nothing is
    /// queued), and count them; free the lines handled meanwhile. `false` once the
    /// pump stopped.
    fn reserve(&self, cost: usize) -> bool {
        let mut state = self.lock();
        loop {
            state.spent.clear();
            if state.closed || state.queued == 0 || state.queued + cost <= QUEUE {
                break;
            }
            state.waiting = true;
            state = self.room.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        state.waiting = false;
        state.queued += cost;
        !state.closed
    }

    /// `line` was handled: its room is free, the line goes back to its reader.
    fn give_back(&self, line: Vec<u8>) {
        let mut state = self.lock();
        state.queued = state.queued.saturating_sub(queued_cost(&line));
        state.spent.push(line);
        let waiting = state.waiting;
        drop(state);
        if waiting {
            self.room.notify_one();
        }
    }

    /// The pump stopped.
    fn close(&self) {
        self.lock().closed = true;
        self.room.notify_one();
    }
}

/// Read lines from the host until its input ends, at most [`QUEUE`] of them ahead of
/// the device.
fn spawn_host_reader<H: Send + 'static>(
    input: impl Read + Send + 'static,
    tx: Sender<Event<H>>,
    backlog: Arc<Backlog>,
) {
    thread::spawn(move || {
        let mut lines = Lines::new(input);
        loop {
            let event = match lines.next_line() {
                Ok(Some(Frame::Line(line))) => {
                    if !backlog.reserve(queued_cost(&line)) {
                        return;
                    }
                    Event::Host(line)
                }
                Ok(Some(Frame::TooLong)) => Event::HostTooLong,
                Ok(None) | Err(_) => {
                    let _ = tx.send(Event::HostEnd);
                    return;
                }
            };
            if tx.send(event).is_err() {
                return;
            }
        }
    });
}

/// Keep the device link open: open it (again), read its lines, at most [`QUEUE`] of
/// them ahead of the loop (`backlog`), note its end.
pub fn spawn_device<H: Send + 'static>(
    link: SharedLink,
    stopping: Arc<AtomicBool>,
    tx: Sender<Event<H>>,
    backlog: Arc<Backlog>,
) {
    thread::spawn(move || {
        let describe = lock(&link).describe();
        let mut attempt = 0u32;
        let mut connection = 0u64;
        let mut waiting_noted = false;
        loop {
            let delay = lock(&link).retry_delay(attempt);
            thread::sleep(delay);
            if stopping.load(Ordering::Acquire) {
                return;
            }
            let opened = lock(&link).open();
            let conn = match opened {
                Ok(conn) => conn,
                Err(e) => {
                    if !waiting_noted {
                        eprintln!("emcp-bridge: waiting for the device ({describe}): {e}");
                        waiting_noted = true;
                    }
                    attempt = attempt.saturating_add(1);
                    continue;
                }
            };
            waiting_noted = false;
            connection += 1;
            eprintln!("emcp-bridge: device connected ({describe})");
            let since = Instant::now();
            if tx.send(Event::Up(connection, conn.writer)).is_err() {
                return;
            }
            let mut lines = Lines::new(conn.reader);
            let end = loop {
                match lines.next_line() {
                    Ok(Some(Frame::Line(line))) => {
                        if !backlog.reserve(queued_cost(&line))
                            || tx.send(Event::Line(connection, line)).is_err()
                        {
                            return;
                        }
                    }
                    Ok(Some(Frame::TooLong)) => {
                        eprintln!("emcp-bridge: a device line over {MAX_LINE} bytes was dropped");
                    }
                    Ok(None) => break "end of stream".to_string(),
                    Err(e) => break e.to_string(),
                }
            };
            if stopping.load(Ordering::Acquire) {
                return;
            }
            eprintln!("emcp-bridge: device went away ({end})");
            let _ = tx.send(Event::Down(connection));
            lock(&link).close();
            attempt = if since.elapsed() >= STABLE {
                1
            } else {
                attempt.saturating_add(1).max(1)
            };
        }
    });
}

/// What [`Lines`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A line, without its newline (and `\r`).
    Line(Vec<u8>),
    /// A line over [`MAX_LINE`] bytes, dropped to its newline.
    TooLong,
}

/// Newline-delimited lines from a byte stream: `\r\n` tolerated, empty lines skipped,
/// lines over [`MAX_LINE`] dropped and reported ([`Frame::TooLong`]).
pub struct Lines<R> {
    reader: BufReader<R>,
    /// The line being read, however many reads it takes; copied out once whole.
    scratch: Vec<u8>,
}

impl<R: Read> Lines<R> {
    /// Lines of `reader`.
    pub fn new(reader: R) -> Self {
        Lines {
            reader: BufReader::with_capacity(64 * 1024, reader),
            scratch: Vec::new(),
        }
    }

    /// The next line; `None` at end of stream (an unterminated last line is still
    /// returned first).
    ///
    /// # Errors
    ///
    /// The reader's error.
    pub fn next_line(&mut self) -> io::Result<Option<Frame>> {
        loop {
            let read = read_line_into(&mut self.reader, MAX_LINE, &mut self.scratch)?;
            let line = self.scratch.len().div_ceil(LINE_ROOM) * LINE_ROOM;
            let line = (!self.scratch.is_empty()).then(|| {
                let mut line = Vec::with_capacity(line);
                line.extend_from_slice(&self.scratch);
                line
            });
            if self.scratch.capacity() > SCRATCH_KEEP {
                self.scratch = Vec::new();
            }
            let Some((too_long, _)) = read else {
                return Ok(None);
            };
            if too_long {
                return Ok(Some(Frame::TooLong));
            }
            if let Some(line) = line {
                return Ok(Some(Frame::Line(line)));
            }
        }
    }
}

/// One line read by [`read_line`].
pub(crate) struct BoundedLine {
    /// Its bytes without the line end (a final `\r` removed); empty when too long.
    pub bytes: Vec<u8>,
    /// It was longer than the limit: read to its end and dropped.
    pub too_long: bool,
    /// It ended with `\n` (else the stream ended in it).
    pub terminated: bool,
}

/// The next line of `reader`, holding at most `max` bytes of it (a longer one is
/// read to its end and dropped); `None` at end of stream with nothing read. The
/// host's lines ([`Lines`]) and a device's event streams (`net::sse`) both read so.
pub(crate) fn read_line(reader: &mut impl BufRead, max: usize) -> io::Result<Option<BoundedLine>> {
    let mut bytes = Vec::new();
    Ok(
        read_line_into(reader, max, &mut bytes)?.map(|(too_long, terminated)| BoundedLine {
            bytes,
            too_long,
            terminated,
        }),
    )
}

/// [`read_line`] into `bytes` (emptied first): whether the line was too long and
/// whether it ended with `\n`.
fn read_line_into(
    reader: &mut impl BufRead,
    max: usize,
    bytes: &mut Vec<u8>,
) -> io::Result<Option<(bool, bool)>> {
    bytes.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !read_any {
                return Ok(None);
            }
            break;
        }
        read_any = true;
        let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        if bytes.len() + chunk.len() > max {
            too_long = true;
            bytes.clear();
        } else if !too_long {
            bytes.extend_from_slice(chunk);
        }
        reader.consume(used);
        if done {
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
            return Ok(Some((too_long, true)));
        }
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    Ok(Some((too_long, false)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_trim_and_skip_empty() {
        let mut l = Lines::new(&b"a\r\n\n{\"x\":1}\nlast"[..]);
        let line = |l: &[u8]| Some(Frame::Line(l.to_vec()));
        assert_eq!(l.next_line().unwrap(), line(b"a"));
        assert_eq!(l.next_line().unwrap(), line(b"{\"x\":1}"));
        assert_eq!(l.next_line().unwrap(), line(b"last"));
        assert!(l.next_line().unwrap().is_none());
    }

    #[test]
    fn a_reader_waits_for_room_and_frees_what_was_handled() {
        let backlog = Arc::new(Backlog::default());
        let line = vec![b'x'; QUEUE / 2];
        assert!(backlog.reserve(queued_cost(&line)));
        let reader = {
            let backlog = Arc::clone(&backlog);
            let cost = queued_cost(&line);
            thread::spawn(move || backlog.reserve(cost))
        };
        thread::sleep(Duration::from_millis(50));
        assert!(
            !reader.is_finished(),
            "two halves and their overhead do not fit"
        );
        backlog.give_back(line);
        assert!(reader.join().unwrap());
        // The reader freed the line it was given back.
        assert!(backlog.lock().spent.is_empty());
    }

    #[test]
    fn a_line_over_the_bound_passes_alone_and_close_releases_the_reader() {
        let backlog = Arc::new(Backlog::default());
        assert!(backlog.reserve(2 * QUEUE));
        let reader = {
            let backlog = Arc::clone(&backlog);
            thread::spawn(move || backlog.reserve(1))
        };
        thread::sleep(Duration::from_millis(50));
        assert!(!reader.is_finished());
        backlog.close();
        assert!(!reader.join().unwrap(), "the pump stopped");
    }

    #[test]
    fn oversize_lines_are_dropped_to_the_next_newline_and_reported() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nok\n");
        input.extend(vec![b'y'; MAX_LINE + 1]);
        let mut l = Lines::new(&input[..]);
        assert_eq!(l.next_line().unwrap(), Some(Frame::TooLong));
        assert_eq!(l.next_line().unwrap(), Some(Frame::Line(b"ok".to_vec())));
        assert_eq!(l.next_line().unwrap(), Some(Frame::TooLong));
        assert!(l.next_line().unwrap().is_none());
    }
}
