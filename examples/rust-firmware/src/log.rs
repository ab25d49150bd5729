//! The `defmt` logger over semihosting: frames go to QEMU's stdout (`run.sh` decodes
//! them with `defmt-print`), never to a UART.
//!
//! A logger of its own rather than the `defmt-semihosting` crate: that one panics on
//! re-entry and through `semihosting`'s `write_all`, which would link a panic path
//! into an image meant to have none. Here nothing can panic: a write the host refuses
//! is dropped (a log line lost, the protocol untouched).

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::semihosting::{self, MODE_W};

/// No handle yet.
const NO_HANDLE: u32 = u32::MAX;

/// The host's stdout, opened on first use.
static STDOUT: AtomicU32 = AtomicU32::new(NO_HANDLE);

/// Write `bytes` to the host's stdout (dropped if the host refuses).
fn write_stdout(bytes: &[u8]) {
    let mut handle = STDOUT.load(Ordering::Relaxed);
    if handle == NO_HANDLE {
        handle = semihosting::open(b":tt\0", MODE_W).unwrap_or(NO_HANDLE);
        STDOUT.store(handle, Ordering::Relaxed);
    }
    if handle != NO_HANDLE && !bytes.is_empty() {
        // A partial write loses a log frame.
        semihosting::write(handle, bytes);
    }
}

/// The frame encoder, used between `acquire` and `release`.
struct Encoder(UnsafeCell<defmt::Encoder>);

// SAFETY: the image runs on one core and enables no interrupt; the only handler that
// can preempt the program is the board's fault handler (HardFault, or the RISC-V
// exception handler), which logs and exits. A fault in the middle of a frame therefore
// yields at worst a garbled frame (defmt-print skips to the next frame delimiter),
// never two live users of the encoder outside that case.
unsafe impl Sync for Encoder {}

static ENCODER: Encoder = Encoder(UnsafeCell::new(defmt::Encoder::new()));

#[defmt::global_logger]
struct Logger;

// SAFETY: defmt calls `acquire` before and `release` after each frame's `write`s, on
// the one thread of the program (see `Encoder`'s Sync).
unsafe impl defmt::Logger for Logger {
    fn acquire() {
        // SAFETY: one user at a time (see `Encoder`).
        let encoder = unsafe { &mut *ENCODER.0.get() };
        encoder.start_frame(write_stdout);
    }

    unsafe fn flush() {}

    unsafe fn release() {
        // SAFETY: between acquire and release (defmt's contract; see `Encoder`).
        let encoder = unsafe { &mut *ENCODER.0.get() };
        encoder.end_frame(write_stdout);
    }

    unsafe fn write(bytes: &[u8]) {
        // SAFETY: between acquire and release (defmt's contract; see `Encoder`).
        let encoder = unsafe { &mut *ENCODER.0.get() };
        encoder.write(bytes, write_stdout);
    }
}
