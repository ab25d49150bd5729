//! Semihosting: the calls this firmware makes to QEMU's host side (`run.sh` enables
//! it). The board supplies the instruction sequence that makes a call
//! (`board::semihosting_call`: `bkpt 0xab` on Cortex-M, `slli; ebreak; srai` on
//! RISC-V); the operations and their parameter blocks are the same on both.
//!
//! Nothing here can panic: a call the host refuses answers an error value, which the
//! caller drops (a log line lost, a look for a file repeated later).

use crate::board;

const SYS_OPEN: u32 = 0x01;
const SYS_CLOSE: u32 = 0x02;
const SYS_WRITE: u32 = 0x05;
const SYS_READ: u32 = 0x06;
const SYS_EXIT_EXTENDED: u32 = 0x20;
const ADP_STOPPED_APPLICATION_EXIT: u32 = 0x20026;

/// SYS_OPEN's mode "r".
pub const MODE_R: u32 = 0;
/// SYS_OPEN's mode "w" (`:tt` opened for writing is the host's stdout).
pub const MODE_W: u32 = 4;

/// One semihosting call: operation `op` with the parameter block at `block`.
fn call(op: u32, block: &[u32]) -> u32 {
    // SAFETY: `op` is one of the operations above and `block` the parameter block it
    // reads (every pointer in it is valid for the call's length: the functions below
    // build each block from live references); the host only reads the block and the
    // memory it names, and writes only SYS_READ's buffer. Under QEMU with semihosting
    // enabled (run.sh) the board's instruction sequence is that call; without a
    // debugger it would trap (the fault handler's exit: the image is made for QEMU).
    unsafe { board::semihosting_call(op, block.as_ptr()) }
}

/// A file handle of the host.
pub type Handle = u32;

/// Open the host file `name` (NUL-terminated; relative to QEMU's working directory),
/// or `None` when the host refuses (no such file).
pub fn open(name: &[u8], mode: u32) -> Option<Handle> {
    let len = name.len().saturating_sub(1) as u32;
    let handle = call(SYS_OPEN, &[name.as_ptr() as u32, mode, len]);
    (handle != u32::MAX).then_some(handle)
}

/// Write `bytes` to `handle`; a partial write is not repeated.
pub fn write(handle: Handle, bytes: &[u8]) {
    // Answers the number of bytes not written.
    let _ = call(
        SYS_WRITE,
        &[handle, bytes.as_ptr() as u32, bytes.len() as u32],
    );
}

/// Read from `handle` into `buf`: the number of bytes read.
pub fn read(handle: Handle, buf: &mut [u8]) -> usize {
    let len = buf.len() as u32;
    // Answers the number of bytes not read (or, on an error, more than asked).
    let left = call(SYS_READ, &[handle, buf.as_mut_ptr() as u32, len]);
    len.saturating_sub(left) as usize
}

/// Close `handle`.
pub fn close(handle: Handle) {
    let _ = call(SYS_CLOSE, &[handle]);
}

/// End the program: QEMU exits with `code`.
pub fn exit(code: u32) -> ! {
    let _ = call(SYS_EXIT_EXTENDED, &[ADP_STOPPED_APPLICATION_EXIT, code]);
    loop {
        board::wait();
    }
}
