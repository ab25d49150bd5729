//! Serving on stdin/stdout, for programs on a computer (host builds with `std` only;
//! a bare-metal library has neither function).
//!
//! `emcp_serve_stdio` is the whole main loop of a stdio MCP server: it reads stdin,
//! feeds the server, keeps pending tools moving while no input waits, writes output to
//! stdout, and at end of input runs the pending tools to completion. Output goes to
//! stdout either way the server was set up: drained from the output buffer when
//! `write` was NULL, or through a write callback that writes to stdout —
//! `emcp_stdout_write` is one (a callback of your own must flush stdout after every
//! `\n`, or the client waits for an answer that sits in a buffer).

use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::Duration;

use crate::server::{
    emcp_server, emcp_server_feed, emcp_server_finish, emcp_server_output_len, emcp_server_poll,
    emcp_server_take_output,
};
use crate::status::*;
use crate::{ffi_boundary, non_null};

/// How often pending tools are continued while no input arrives.
const POLL_EVERY: Duration = Duration::from_millis(1);

/// Bytes read from stdin at once.
const READ_LEN: usize = 64 * 1024;

/// Input buffers of `READ_LEN` bytes, allocated once and passed back and forth between
/// the reading thread and the loop (one fed, two waiting, one read into): reading
/// allocates nothing, whatever the sizes of the chunks stdin gives.
const BUFFERS: usize = 4;

/// A write callback that writes to the process's stdout, flushing at the end of every
/// line: give it as `write` in `emcp_config` for a server on stdin/stdout. Host
/// builds only (a bare-metal library has no stdout).
///
/// Returns `EMCP_WRITE_FAILED` when stdout cannot be written (the client went away;
/// ignore `SIGPIPE` so that this is reported instead of ending the process).
///
/// Pointers: `bytes` points to `len` readable bytes (NULL only when `len` is 0);
/// `userdata` is not used.
#[no_mangle]
pub unsafe extern "C" fn emcp_stdout_write(
    userdata: *mut core::ffi::c_void,
    bytes: *const u8,
    len: usize,
) -> emcp_status {
    let _ = userdata;
    ffi_boundary!({
        if len == 0 {
            return EMCP_OK;
        }
        non_null!(bytes);
        // SAFETY: not NULL (checked above); the contract: `len` readable bytes.
        let bytes = unsafe { core::slice::from_raw_parts(bytes, len) };
        // Rust's stdout is line-buffered: each complete line is flushed.
        match io::stdout().write_all(bytes) {
            Ok(()) => EMCP_OK,
            Err(_) => EMCP_WRITE_FAILED,
        }
    })
}

/// Serve `server` on stdin/stdout until end of input: the main loop of a stdio MCP
/// server (host builds only). Returns `EMCP_OK` at end of input, once every pending
/// tool has finished and all output is written.
///
/// Output: with an output buffer (`write` NULL in the configuration) it is written to
/// stdout here; with a write callback, the callback writes it (`emcp_stdout_write`, or
/// your own that flushes stdout after each line). Input: stdin, read by a thread of
/// this function's own (so that pending tools keep running while the client is
/// quiet); nothing else may read stdin meanwhile.
///
/// Returns `EMCP_WRITE_FAILED` when stdout (or the write callback) fails,
/// `EMCP_READ_FAILED` when stdin cannot be read or the reading thread cannot start,
/// and any status of `emcp_server_feed` / `_poll` / `_finish`.
///
/// Pointers: `server` as for `emcp_server_feed`, for the whole call.
#[no_mangle]
pub unsafe extern "C" fn emcp_serve_stdio(server: *mut emcp_server) -> emcp_status {
    ffi_boundary!({
        non_null!(server);
        let Ok(input) = reader() else {
            return EMCP_READ_FAILED;
        };
        let mut busy = false;
        loop {
            let chunk = if busy {
                match input.chunks.recv_timeout(POLL_EVERY) {
                    Ok(chunk) => Some(chunk),
                    Err(RecvTimeoutError::Timeout) => {
                        // SAFETY: the contract: `server` valid and not in use.
                        let status = unsafe { step(server, &mut busy) };
                        if status != EMCP_OK {
                            return status;
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => None,
                }
            } else {
                if io::stdout().flush().is_err() {
                    return EMCP_WRITE_FAILED;
                }
                input.chunks.recv().ok()
            };
            let status = match chunk {
                Some(Ok((buf, n))) => {
                    // SAFETY: the contract: `server` valid and not in use.
                    let status =
                        unsafe { feed(server, buf.get(..n).unwrap_or_default(), &mut busy) };
                    // The reader may be gone (end of input): the buffer is then dropped.
                    let _ = input.empty.send(buf);
                    status
                }
                Some(Err(())) => return EMCP_READ_FAILED,
                // SAFETY: the contract: `server` valid and not in use.
                None => return unsafe { end(server) },
            };
            if status != EMCP_OK {
                return status;
            }
        }
    })
}

/// The loop's end of the reading thread.
struct Input {
    /// A buffer and the bytes read into it, `Err` when reading failed; closed at end of
    /// input.
    chunks: Receiver<Result<(Vec<u8>, usize), ()>>,
    /// Where the loop gives a buffer back once fed.
    empty: SyncSender<Vec<u8>>,
}

/// Start the thread that reads stdin into the `BUFFERS` buffers.
fn reader() -> io::Result<Input> {
    // Bounded by the buffers: a client that sends faster than the server answers waits
    // for it.
    let (tx, chunks) = mpsc::sync_channel(BUFFERS);
    let (empty, free) = mpsc::sync_channel(BUFFERS);
    for _ in 0..BUFFERS {
        // Cannot fail: the channel has room for every buffer and its receiver is here.
        let _ = empty.send(vec![0u8; READ_LEN]);
    }
    thread::Builder::new()
        .name("emcp-stdin".into())
        .spawn(move || {
            let mut stdin = io::stdin().lock();
            // Ends when the loop is gone (it holds the other end of `free`).
            while let Ok(mut buf) = free.recv() {
                let chunk = loop {
                    match stdin.read(&mut buf) {
                        Ok(0) => return,
                        Ok(n) => break Ok((buf, n)),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(_) => break Err(()),
                    }
                };
                let failed = chunk.is_err();
                if tx.send(chunk).is_err() || failed {
                    return;
                }
            }
        })?;
    Ok(Input { chunks, empty })
}

/// Feed `bytes` (taking output out of the way when the buffer fills), then continue
/// pending tools once.
///
/// # Safety
///
/// `server` as for `emcp_server_feed`.
unsafe fn feed(server: *mut emcp_server, mut bytes: &[u8], busy: &mut bool) -> emcp_status {
    while !bytes.is_empty() {
        let mut used = 0;
        // SAFETY: the caller's contract; `bytes` is this function's own memory.
        let status = unsafe { emcp_server_feed(server, bytes.as_ptr(), bytes.len(), &mut used) };
        if status != EMCP_OK {
            return status;
        }
        // SAFETY: the caller's contract.
        let status = unsafe { drain(server) };
        if status != EMCP_OK {
            return status;
        }
        bytes = bytes.get(used..).unwrap_or_default();
    }
    // SAFETY: the caller's contract.
    unsafe { step(server, busy) }
}

/// Continue pending tools one step and write what they produced.
///
/// # Safety
///
/// `server` as for `emcp_server_feed`.
unsafe fn step(server: *mut emcp_server, busy: &mut bool) -> emcp_status {
    // SAFETY: the caller's contract; `busy` is a valid `bool`.
    let status = unsafe { emcp_server_poll(server, busy) };
    if status != EMCP_OK && status != EMCP_OUTPUT_FULL {
        return status;
    }
    // SAFETY: the caller's contract.
    unsafe { drain(server) }
}

/// End of input: the last line without a newline, every pending tool to its end, all
/// output written.
///
/// # Safety
///
/// `server` as for `emcp_server_feed`.
unsafe fn end(server: *mut emcp_server) -> emcp_status {
    // SAFETY: the caller's contract.
    let mut status = unsafe { emcp_server_finish(server) };
    if status == EMCP_OUTPUT_FULL {
        // SAFETY: the caller's contract.
        status = unsafe { drain(server) };
        if status == EMCP_OK {
            // SAFETY: the caller's contract.
            status = unsafe { emcp_server_finish(server) };
        }
    }
    if status != EMCP_OK {
        return status;
    }
    let mut busy = true;
    while busy {
        // SAFETY: the caller's contract.
        let status = unsafe { step(server, &mut busy) };
        if status != EMCP_OK {
            return status;
        }
    }
    // SAFETY: the caller's contract.
    let status = unsafe { drain(server) };
    if status != EMCP_OK {
        return status;
    }
    match io::stdout().flush() {
        Ok(()) => EMCP_OK,
        Err(_) => EMCP_WRITE_FAILED,
    }
}

/// Write the output buffer's contents to stdout (nothing with a write callback).
///
/// # Safety
///
/// `server` as for `emcp_server_feed`.
unsafe fn drain(server: *mut emcp_server) -> emcp_status {
    let mut buf = [0u8; 4096];
    loop {
        let mut waiting = 0;
        // SAFETY: the caller's contract; `waiting` is a valid `size_t`.
        let status = unsafe { emcp_server_output_len(server, &mut waiting) };
        if status != EMCP_OK || waiting == 0 {
            return status;
        }
        let mut n = 0;
        // SAFETY: the caller's contract; `buf` is this function's own memory, apart
        // from the server's buffers.
        let status =
            unsafe { emcp_server_take_output(server, buf.as_mut_ptr(), buf.len(), &mut n) };
        if status != EMCP_OK {
            return status;
        }
        if io::stdout()
            .write_all(buf.get(..n).unwrap_or_default())
            .is_err()
        {
            return EMCP_WRITE_FAILED;
        }
    }
}
