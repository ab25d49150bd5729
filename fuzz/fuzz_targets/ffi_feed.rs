//! The C ABI (`emcp-ffi`) through its exported functions, with the C sensor board
//! (`examples/c-sensor-board/board.c`, compiled by `build.rs`) behind it: the path a C
//! firmware takes — `emcp_server_init`, `emcp_server_feed`, `emcp_server_poll`,
//! `emcp_server_finish`, and in output-buffer mode `emcp_server_take_output`.
//!
//! Input: three knob bytes — k0 bit 0: output buffer instead of the write callback;
//! bits 1–2: polls after each line; bit 3: feed each line in two calls; k1: output
//! buffer size, 192 + 16·k1 bytes; k2: bytes taken per `take_output`, 1 + 8·k2 — then
//! the byte stream. Invariants:
//! - every status is the documented one for the situation (`EMCP_OK` throughout: the
//!   caller always takes output before feeding on or polling); `consumed` never
//!   exceeds the input, and feeding an empty output buffer makes progress;
//! - the output, and the exactly-once accounting, as for the `server` target
//!   (`emcp_fuzz::Ledger`), except that the C ABI has no `is_pending` to cross-check;
//! - the library writes only inside the memory it is given: the storage, the line
//!   buffer, the output buffer and `take_output`'s destination each sit between two
//!   guard zones of a known pattern ([`Guarded`]), checked after every call.
//!
//! The guards check writes on every run, built with or without AddressSanitizer:
//! `scripts/fuzz.sh` fuzzes this target without it, as the others, and replays the
//! corpus under it (which also sees reads out of bounds, and `board.c`, built with
//! ASan then, as `build.rs` says).
//!
//! The oracle's verdicts on output lines (`emcp_fuzz::message`) and input lines
//! (`emcp_fuzz::classify`) are kept for the process by the lines' bytes
//! (`emcp_fuzz::Memo`): a run reads with serde_json only the lines no earlier run
//! had, and every line is still checked.
#![no_main]

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr::{addr_of_mut, null_mut};
use std::sync::OnceLock;

use emcp_ffi::descriptor::emcp_config;
use emcp_ffi::server::*;
use emcp_ffi::status::*;
use emcp_fuzz::{classify, knobs, segments, strip_cr, Ledger, Memo, Out};
use libfuzzer_sys::fuzz_target;

const LINE: usize = 1024;

/// `struct board` of board.h.
#[repr(C)]
struct BoardState {
    server: *mut c_void,
    led: u8,
    brightness: u8,
    servo: i32,
    cancelled: u32,
    disarmed: u8,
}

extern "C" {
    static board_config: emcp_config;
    static mut board: BoardState;
}

thread_local! {
    /// What the write callback received.
    static WRITTEN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The oracle's verdicts on output lines, kept across runs.
    static OUTPUT: RefCell<Memo> = RefCell::new(Memo::new(64 << 20, 1 << 18));
    /// The oracle's verdicts on input lines (with their `\r`, for this `LINE`).
    static INPUT: RefCell<Memo> = RefCell::new(Memo::new(32 << 20, 1 << 17));
}

/// `emcp_fuzz::messages`, its verdicts kept in `OUTPUT`.
fn messages(out: &[u8]) -> Vec<Out> {
    OUTPUT.with(|m| m.borrow_mut().messages(out))
}

/// The board's output callback (board.h): collect the bytes.
#[no_mangle]
extern "C" fn board_write(_userdata: *mut c_void, bytes: *const u8, len: usize) -> emcp_status {
    // SAFETY: the library passes a valid buffer of `len` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(bytes, len) };
    WRITTEN.with(|w| w.borrow_mut().extend_from_slice(bytes));
    EMCP_OK
}

/// The board's configuration with `write` NULL: output goes to the output buffer.
struct Buffered(emcp_config);
// SAFETY: the configuration is immutable static data.
unsafe impl Sync for Buffered {}
unsafe impl Send for Buffered {}
static BUFFERED: OnceLock<Buffered> = OnceLock::new();

/// Bytes of each guard zone, before and after a buffer given to the library.
const GUARD: usize = 64;
/// What a guard zone holds.
const PATTERN: u8 = 0xA5;

/// `len` bytes for the library, between two guard zones (the allocation is 8-aligned,
/// and `GUARD` a multiple of 8: the storage's alignment holds). Read and written
/// through one raw pointer only, so that no reference here overlaps what the library
/// holds a pointer to.
struct Guarded {
    /// Owns `GUARD` + `len` + `GUARD` bytes, as `u64`s for the alignment; never resized.
    _words: Vec<u64>,
    /// Its first byte.
    base: *mut u8,
    len: usize,
}

impl Guarded {
    fn new(len: usize) -> Guarded {
        let mut words = vec![u64::from_ne_bytes([PATTERN; 8]); (2 * GUARD + len).div_ceil(8)];
        let base = words.as_mut_ptr().cast();
        Guarded {
            _words: words,
            base,
            len,
        }
    }

    /// The buffer the library gets.
    fn ptr(&self) -> *mut u8 {
        // SAFETY: within the allocation (`GUARD` < its size).
        unsafe { self.base.add(GUARD) }
    }

    /// The first `n` bytes of the buffer (`n` at most its length).
    fn head(&self, n: usize) -> &[u8] {
        assert!(n <= self.len);
        // SAFETY: initialised bytes within the buffer; the library is not running.
        unsafe { std::slice::from_raw_parts(self.ptr(), n) }
    }

    /// Panics when the library wrote into a guard zone.
    fn check(&self, what: &str) {
        // A word at a time, folded, then one comparison: this runs after every call,
        // and instrumented code pays for each comparison.
        let zone = |at: *const u8| {
            (0..GUARD / 8).fold(0u64, |acc, i| {
                // SAFETY: within a guard zone of the allocation, initialised.
                let w = unsafe { at.add(8 * i).cast::<u64>().read_unaligned() };
                acc | (w ^ u64::from_ne_bytes([PATTERN; 8]))
            })
        };
        // SAFETY: both zones are within the allocation, apart from the buffer the
        // library holds.
        let wrote = zone(self.base) | zone(unsafe { self.base.add(GUARD + self.len) });
        assert!(wrote == 0, "the library wrote outside {what}");
    }
}

struct Conn {
    server: *mut emcp_server,
    buffered: bool,
    /// Room for one `take_output`, exactly its size.
    buf: Guarded,
    storage: Guarded,
    line: Guarded,
    outbuf: Guarded,
}

impl Conn {
    /// Everything written since the last call.
    fn output(&mut self) -> Vec<u8> {
        if !self.buffered {
            return WRITTEN.with(|w| std::mem::take(&mut *w.borrow_mut()));
        }
        let mut all = Vec::new();
        let take = self.buf.len;
        loop {
            let mut n = usize::MAX;
            // SAFETY: an initialised server; `buf` has `take` writable bytes.
            let st = unsafe { emcp_server_take_output(self.server, self.buf.ptr(), take, &mut n) };
            assert_eq!(st, EMCP_OK, "take_output");
            assert!(n <= take, "take_output wrote {n} of {take}");
            self.buf.check("take_output's buffer");
            self.check();
            if n == 0 {
                return all;
            }
            all.extend_from_slice(self.buf.head(n));
        }
    }

    /// Panics when the library wrote outside the server's buffers.
    fn check(&self) {
        self.storage.check("the storage");
        self.line.check("the line buffer");
        self.outbuf.check("the output buffer");
    }

    /// Feed all of `bytes`, taking output whenever the server pauses; returns the output.
    fn feed(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut rest = bytes;
        let mut out = Vec::new();
        loop {
            let mut used = usize::MAX;
            // SAFETY: an initialised server; `rest` is readable.
            let st = unsafe { emcp_server_feed(self.server, rest.as_ptr(), rest.len(), &mut used) };
            assert_eq!(st, EMCP_OK, "feed");
            assert!(used <= rest.len(), "consumed {used} of {}", rest.len());
            self.check();
            let taken = self.output();
            assert!(
                used > 0 || rest.is_empty() || !taken.is_empty(),
                "feed stalls with room"
            );
            out.extend_from_slice(&taken);
            rest = &rest[used..];
            if rest.is_empty() {
                return out;
            }
        }
    }

    /// One poll step; returns (busy, output).
    fn poll(&mut self) -> (bool, Vec<u8>) {
        let mut busy = false;
        // SAFETY: an initialised server.
        let st = unsafe { emcp_server_poll(self.server, &mut busy) };
        assert_eq!(st, EMCP_OK, "poll with an empty output buffer");
        self.check();
        (busy, self.output())
    }
}

fuzz_target!(
    init: {
        // The memos take their memory before the first run (see `Memo`).
        OUTPUT.with(|_| ());
        INPUT.with(|_| ());
    },
    |data: &[u8]| {
    if emcp_fuzz::serde_refuses(data) {
        return; // the JSON oracle cannot read such output (emcp_fuzz::RAW_VALUE_TOKEN)
    }
    let (k, data) = knobs::<3>(data);
    let buffered = k[0] & 1 != 0;
    let polls = (k[0] >> 1) & 3;
    let halves = k[0] & 8 != 0;
    // The arm switch: open, move_servo is refused by the board's authorize callback.
    let disarmed = u8::from(k[0] & 16 != 0);
    // SAFETY: the board's globals, reset between runs (one thread).
    unsafe {
        addr_of_mut!(board).write(BoardState {
            server: null_mut(),
            led: 0,
            brightness: 0,
            servo: 0,
            cancelled: 0,
            disarmed,
        });
    }
    WRITTEN.with(|w| w.borrow_mut().clear());
    let config: *const emcp_config = if buffered {
        // SAFETY: reads the C board's static configuration.
        &BUFFERED
            .get_or_init(|| {
                Buffered(emcp_config {
                    write: None,
                    ..unsafe { board_config }
                })
            })
            .0
    } else {
        &raw const board_config
    };
    let take = 1 + 8 * usize::from(k[2]);
    let mut conn = Conn {
        server: null_mut(),
        buffered,
        buf: Guarded::new(if buffered { take } else { 0 }),
        storage: Guarded::new(EMCP_SERVER_STORAGE_SIZE),
        line: Guarded::new(LINE),
        outbuf: Guarded::new(EMCP_OUTPUT_MIN_ROOM + 16 * usize::from(k[1])),
    };
    let out_len = conn.outbuf.len;
    // SAFETY: every buffer outlives the server (dropped with `conn` at the end of this
    // run); the storage is `EMCP_SERVER_STORAGE_SIZE` bytes, 8-aligned (`Guarded`).
    let st = unsafe {
        emcp_server_init(
            conn.storage.ptr().cast::<emcp_server_storage>(),
            EMCP_SERVER_STORAGE_SIZE,
            config,
            conn.line.ptr(),
            LINE,
            if buffered {
                conn.outbuf.ptr()
            } else {
                null_mut()
            },
            out_len,
            addr_of_mut!(board.server).cast(),
        )
    };
    assert_eq!(st, EMCP_OK, "init");
    conn.check();
    conn.server = unsafe { board.server }.cast();
    let mut ledger = Ledger::default();

    for (seg, ended) in segments(data) {
        let (a, b) = seg.split_at(if halves { seg.len() / 2 } else { seg.len() });
        let mut out = conn.feed(a);
        out.extend(conn.feed(b));
        if ended {
            out.extend(conn.feed(b"\n"));
        } else {
            // SAFETY: an initialised server.
            assert_eq!(
                unsafe { emcp_server_finish(conn.server) },
                EMCP_OK,
                "finish"
            );
            conn.check();
            out.extend(conn.output());
        }
        let class = INPUT.with(|m| {
            m.borrow_mut()
                .get(seg, || classify(strip_cr(seg), seg.len(), LINE))
        });
        ledger.line(&class, &messages(&out), &|_| true);
        for _ in 0..polls {
            ledger.poll(&messages(&conn.poll().1));
        }
    }
    for round in 0.. {
        assert!(round < 10_000, "jobs never finish");
        let (busy, out) = conn.poll();
        ledger.poll(&messages(&out));
        if !busy {
            break;
        }
    }
    let unanswered = ledger.unanswered();
    assert!(unanswered.is_empty(), "never answered: {unanswered:?}");
    drop(conn);
});
