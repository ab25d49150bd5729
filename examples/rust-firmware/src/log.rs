//! Semihosting, and the `defmt` logger over it: frames go to QEMU's stdout
//! (`run.sh` decodes them with `defmt-print`), never to a UART.
//!
//! A logger of its own rather than the `defmt-semihosting` crate: that one panics on
//! re-entry and through `semihosting`'s `write_all`, which would link a panic path
//! into an image meant to have none. Here nothing can panic: a write the host refuses
//! is dropped (a log line lost, the protocol untouched).

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, Ordering};

const SYS_OPEN: u32 = 0x01;
const SYS_WRITE: u32 = 0x05;
const SYS_EXIT_EXTENDED: u32 = 0x20;
const ADP_STOPPED_APPLICATION_EXIT: u32 = 0x20026;
/// SYS_OPEN's mode "w": `:tt` opened for writing is the host's stdout.
const MODE_W: u32 = 4;
/// No handle yet.
const NO_HANDLE: u32 = u32::MAX;

/// One semihosting call: operation `op` with the parameter block at `block`.
fn call(op: u32, block: &[u32]) -> u32 {
    // SAFETY: `op` is one of the operations above and `block` the parameter block it
    // reads (every pointer in it is valid for the call's length); the host only reads
    // the block and the memory it names. Under QEMU with semihosting enabled (run.sh)
    // `bkpt 0xab` is that call; without a debugger it would fault (HardFault: the
    // image is made for QEMU).
    unsafe { cortex_m::asm::semihosting_syscall(op, block.as_ptr() as u32) }
}

/// The host's stdout, opened on first use.
static STDOUT: AtomicU32 = AtomicU32::new(NO_HANDLE);

/// Write `bytes` to the host's stdout (dropped if the host refuses).
fn write_stdout(bytes: &[u8]) {
    let mut handle = STDOUT.load(Ordering::Relaxed);
    if handle == NO_HANDLE {
        let name = b":tt\0";
        handle = call(SYS_OPEN, &[name.as_ptr() as u32, MODE_W, 3]);
        STDOUT.store(handle, Ordering::Relaxed);
    }
    if handle != NO_HANDLE && !bytes.is_empty() {
        // Answers the number of bytes not written; a partial write loses a log frame.
        let _ = call(
            SYS_WRITE,
            &[handle, bytes.as_ptr() as u32, bytes.len() as u32],
        );
    }
}

/// End the program: QEMU exits with `code`.
pub fn exit(code: u32) -> ! {
    let _ = call(SYS_EXIT_EXTENDED, &[ADP_STOPPED_APPLICATION_EXIT, code]);
    loop {
        cortex_m::asm::wfi();
    }
}

/// The frame encoder, used between `acquire` and `release`.
struct Encoder(UnsafeCell<defmt::Encoder>);

// SAFETY: the image runs on one core and enables no interrupt; the only handler that
// can preempt the program is HardFault, which logs and exits. A fault in the middle
// of a frame therefore yields at worst a garbled frame (defmt-print skips to the next
// frame delimiter), never two live users of the encoder outside that case.
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
