//! The server object: caller-provided storage, init, feeding bytes, polling, output.
//!
//! ```c
//! static emcp_server_storage storage;          /* EMCP_SERVER_STORAGE_SIZE bytes, aligned */
//! static uint8_t line[1024];                   /* the longest message accepted */
//! emcp_server *server;
//! emcp_server_init(&storage, sizeof storage, &config, line, sizeof line, NULL, 0, &server);
//! /* UART RX: */ emcp_server_feed(server, rx, n, &consumed);
//! /* main loop: */ emcp_server_poll(server, &busy);
//! ```

use core::ffi::c_char;
use core::mem::{align_of, size_of};

use emcp::state::subscription::ChangeFlags;
use emcp::wire::framing::{Frames, SliceFramer};
use emcp::wire::json::{Sink, SinkError, SliceSink};
use emcp::{Config, Server};

/// The task slots of the server type (`K`): none without the feature.
#[cfg(feature = "tasks")]
const TASK_SLOTS: usize = EMCP_MAX_TASKS;
#[cfg(not(feature = "tasks"))]
const TASK_SLOTS: usize = 0;

/// The server a C configuration runs: the core's defaults (4 listen streams, 2 jobs,
/// no waiting input calls) and the task slots.
pub(crate) type CServer = Server<CDevice, 4, 2, 0, TASK_SLOTS>;

use crate::descriptor::{emcp_config, opt, text, CDevice};
use crate::status::*;
use crate::text::{bytes, tri, utf8};
use crate::{ffi_boundary, non_null};

/// Bytes of storage a server needs (an upper bound for every target; checked at
/// compile time).
#[cfg(not(feature = "tasks"))]
pub const EMCP_SERVER_STORAGE_SIZE: usize = 1024;
/// Bytes of storage a server needs with tasks (`EMCP_TASKS`): the server without
/// tasks, `EMCP_TASK_STORAGE_SIZE` for each of its `EMCP_MAX_TASKS` task slots, and
/// `EMCP_TASKS_KEY_STORAGE_SIZE` for the key and what comes with it (an upper bound
/// for every target; checked at compile time).
#[cfg(feature = "tasks")]
pub const EMCP_SERVER_STORAGE_SIZE: usize =
    1024 + EMCP_TASKS_KEY_STORAGE_SIZE + EMCP_MAX_TASKS * EMCP_TASK_STORAGE_SIZE;
/// Task slots of a server built with tasks (`EMCP_TASKS`): at most this many tasks
/// are kept at once (working, or ended and not yet expired). A task-required tool
/// called while all are taken is refused (JSON-RPC -32603 `Task table full`); an
/// optional one runs as an ordinary call.
pub const EMCP_MAX_TASKS: usize = 4;
/// Storage bytes reserved for one task slot (measured: about 250 bytes on a 32-bit
/// target, 288 on a 64-bit host).
pub const EMCP_TASK_STORAGE_SIZE: usize = 288;
/// Storage bytes reserved, with tasks, for the key and the server state that comes
/// with it.
pub const EMCP_TASKS_KEY_STORAGE_SIZE: usize = 64;
/// Bytes of the secret key `emcp_server_set_key` takes (HMAC-SHA-256 key of the task
/// ids).
pub const EMCP_KEY_LEN: usize = 32;
/// Alignment the storage needs.
pub const EMCP_SERVER_STORAGE_ALIGN: usize = 8;
/// Smallest line buffer `emcp_server_init` accepts.
pub const EMCP_LINE_BUFFER_MIN: usize = 128;
/// Free output-buffer room the server needs before it handles another message (room
/// for an error response with the longest id), and the smallest output buffer accepted.
pub const EMCP_OUTPUT_MIN_ROOM: usize = 192;

/// Storage for one server: declare one (static or on a long-lived stack) and pass it to
/// `emcp_server_init`. Its size and alignment are `EMCP_SERVER_STORAGE_SIZE` and
/// `EMCP_SERVER_STORAGE_ALIGN`. A program linked with a library built with tasks
/// defines `EMCP_TASKS` before including emcp.h (e.g. `-DEMCP_TASKS`), for the larger
/// size; a storage of the size without tasks is refused by such a library
/// (`EMCP_STORAGE_TOO_SMALL`).
#[repr(C)]
pub union emcp_server_storage {
    /// The bytes.
    pub bytes: [u8; EMCP_SERVER_STORAGE_SIZE],
    /// Forces the alignment.
    pub align: u64,
}

/// A server (opaque; lives in an `emcp_server_storage`).
pub struct emcp_server {
    _private: [u8; 0],
}

/// Where output goes.
enum Output {
    /// To the configuration's write callback, as it is produced.
    Callback(CallbackSink),
    /// Into the caller's output buffer, taken with `emcp_server_take_output`.
    Buffer(SliceSink<'static>),
}

impl Output {
    /// Whether the server may produce output now: a callback always takes it; an output
    /// buffer needs `EMCP_OUTPUT_MIN_ROOM` free. Out of line, as `status`: feed, poll and
    /// finish share one copy.
    #[inline(never)]
    fn has_room(&self) -> bool {
        match self {
            Output::Callback(_) => true,
            Output::Buffer(sink) => sink.remaining() >= EMCP_OUTPUT_MIN_ROOM,
        }
    }

    /// The sink output goes to: the output itself, one sink whichever way the output
    /// goes (one vtable, no choice between two at every call).
    fn sink(&mut self) -> &mut dyn Sink {
        self
    }

    /// `EMCP_WRITE_FAILED` when the write callback failed since the last call (the
    /// failure is then forgotten), `EMCP_OK` otherwise.
    #[inline(never)]
    fn status(&mut self) -> emcp_status {
        match self {
            Output::Callback(sink) if sink.failed => {
                sink.failed = false;
                EMCP_WRITE_FAILED
            }
            _ => EMCP_OK,
        }
    }
}

impl Sink for Output {
    fn write(&mut self, data: &[u8]) -> Result<(), SinkError> {
        match self {
            Output::Callback(sink) => sink.write(data),
            Output::Buffer(sink) => sink.write(data),
        }
    }

    fn mark(&mut self) {
        match self {
            Output::Callback(sink) => sink.mark(),
            Output::Buffer(sink) => sink.mark(),
        }
    }

    fn rollback(&mut self) -> bool {
        match self {
            Output::Callback(sink) => sink.rollback(),
            Output::Buffer(sink) => sink.rollback(),
        }
    }

    /// The callback streams (what it was given is gone); the buffer takes back.
    fn can_rollback(&self) -> bool {
        matches!(self, Output::Buffer(_))
    }
}

/// A sink over the C write callback.
struct CallbackSink {
    write: unsafe extern "C" fn(*mut core::ffi::c_void, *const u8, usize) -> emcp_status,
    userdata: *mut core::ffi::c_void,
    failed: bool,
}

impl Sink for CallbackSink {
    fn write(&mut self, data: &[u8]) -> Result<(), SinkError> {
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: `write` is the configuration's callback (set: it came out of a
        // `Some`), and emcp_server_init's contract keeps it and `userdata` valid as long
        // as the server; `data` is a live slice, `data.len()` readable bytes for the call.
        let status = unsafe { (self.write)(self.userdata, data.as_ptr(), data.len()) };
        if is_ok(status) {
            Ok(())
        } else {
            self.failed = true;
            Err(SinkError::Io)
        }
    }
}

/// What lives in the storage: the change flags and the configuration beside the
/// server state, so that `emcp_server_resource_changed` — called from a tool callback
/// while the server is running, or from an interrupt — only ever touches the flags
/// (an atomic) and never creates a second reference to the running server.
#[repr(C)]
struct Storage {
    changes: ChangeFlags,
    config: &'static emcp_config,
    inner: Inner,
}

/// The server state.
struct Inner {
    server: CServer,
    framer: SliceFramer<'static>,
    out: Output,
}

const _: () = assert!(size_of::<Storage>() <= EMCP_SERVER_STORAGE_SIZE);
const _: () = assert!(align_of::<Storage>() <= EMCP_SERVER_STORAGE_ALIGN);
const _: () = assert!(size_of::<emcp_server_storage>() == EMCP_SERVER_STORAGE_SIZE);
const _: () = assert!(align_of::<emcp_server_storage>() == EMCP_SERVER_STORAGE_ALIGN);

/// The server state behind a handle, for a function that changes it.
///
/// # Safety
/// `server` is not NULL and came from a successful `emcp_server_init` whose storage is
/// still in place, and nothing else refers to the server state while the result lives:
/// the exported functions' contract (not from inside one of the server's callbacks, not
/// beside another call on the same server).
///
/// Out of line in the plain forms: one copy is smaller than one per entry point.
#[cfg_attr(not(emcp_fast), inline(never))]
unsafe fn inner<'a>(server: *mut emcp_server) -> &'a mut Inner {
    // SAFETY: by this function's contract, init wrote a `Storage` at this address and
    // nothing else refers to its `inner` field now. Only that field is borrowed: the
    // change flags and the configuration beside it stay free for
    // `emcp_server_resource_changed`.
    unsafe { &mut *core::ptr::addr_of_mut!((*server.cast::<Storage>()).inner) }
}

/// The server state behind a handle, for a function that only reads it.
///
/// # Safety
/// As for [`inner`]: nothing changes the server state while the result lives.
///
/// Out of line in the plain forms, as [`inner`] is.
#[cfg_attr(not(emcp_fast), inline(never))]
unsafe fn inner_ref<'a>(server: *const emcp_server) -> &'a Inner {
    // SAFETY: by this function's contract, init wrote a `Storage` at this address and
    // nothing changes its `inner` field now; only that field is borrowed.
    unsafe { &*core::ptr::addr_of!((*server.cast::<Storage>()).inner) }
}

/// The core's configuration from a checked C configuration. Out of line: built here,
/// it is not held in registers and stack slots through the descriptor checks of
/// `Server::new` (inlined into `emcp_server_init`).
#[inline(never)]
fn server_config(config: &'static emcp_config) -> Config {
    // Checked at init: present and UTF-8, valid for the server's life.
    let mut cfg = Config::new(text(&config.name), text(&config.version));
    cfg.title = opt(&config.title);
    cfg.instructions = opt(&config.instructions);
    if config.page_size > 0 {
        cfg.page_size = config.page_size;
    }
    if config.list_ttl_ms > 0 {
        cfg.list_ttl_ms = config.list_ttl_ms;
    }
    cfg.read_ttl_ms = config.read_ttl_ms;
    cfg
}

/// The status of a configuration the core refused, and the index of the descriptor at
/// fault (a tool for a schema, a resource template for a template; else 0).
fn config_status(e: emcp::wire::error::ConfigError) -> (emcp_status, usize) {
    use emcp::wire::error::ConfigError;
    match e {
        ConfigError::InvalidSchema { tool }
        | ConfigError::InvalidOutputSchema { tool }
        | ConfigError::InvalidPlan { tool }
        | ConfigError::NoPlan { tool } => (EMCP_INVALID_SCHEMA, tool),
        ConfigError::InvalidTemplate { template } => (EMCP_INVALID_TEMPLATE, template),
        ConfigError::TooManyResources { .. } => (EMCP_TOO_MANY_RESOURCES, 0),
        _ => (EMCP_INVALID_CONFIG, 0),
    }
}

/// Check a configuration as `emcp_server_init` does, without setting up a server:
/// the same status for it, and, for `EMCP_INVALID_SCHEMA` or `EMCP_INVALID_TEMPLATE`,
/// which descriptor is at fault: `*index_out` is its index in `config->tools` (a
/// tool's input or output schema is not a JSON object) or in
/// `config->templates` (0 for any other status). Meant for development: it
/// takes a server's worth of stack.
///
/// Pointers: `config` points to an `emcp_config` that, with every descriptor, text and
/// array it points to, stays in place and unchanged during the call; `index_out`
/// points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_config_check(
    config: *const emcp_config,
    index_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(config, index_out);
        // SAFETY: not NULL (checked above); the contract: the configuration stays in
        // place and unchanged during the call. The device and server that hold this
        // reference are dropped before the call returns, so nothing keeps it longer.
        let config: &'static emcp_config = unsafe { &*config };
        let changes = emcp::state::subscription::ChangeFlags::new();
        let device = CDevice {
            config,
            changes: &changes,
        };
        let (status, index) = if !device.check() {
            (EMCP_INVALID_CONFIG, 0)
        } else {
            match CServer::new(device, server_config(config)) {
                Ok(_) => (EMCP_OK, 0),
                Err(e) => config_status(e),
            }
        };
        // SAFETY: not NULL (checked above); the contract: a writable `size_t`.
        unsafe { *index_out = index };
        status
    })
}

/// Set up a server in `storage`.
///
/// `config` and every descriptor, text and array it points to must stay valid and
/// unchanged for the server's life (make them `static const`). `line_buffer` holds one
/// incoming message (its length is the longest line accepted, and the `limit` the
/// error answering a longer line names with `error-data`; at least
/// `EMCP_LINE_BUFFER_MIN`). Output goes to `config->write` when set; otherwise into
/// `output_buffer` (at least `EMCP_OUTPUT_MIN_ROOM` bytes), taken with
/// `emcp_server_take_output`. On success `*server_out` is the server.
///
/// Returns `EMCP_STORAGE_TOO_SMALL`, `EMCP_STORAGE_MISALIGNED`, `EMCP_BUFFER_TOO_SMALL`,
/// `EMCP_INVALID_CONFIG`, `EMCP_INVALID_SCHEMA`, `EMCP_INVALID_TEMPLATE`,
/// `EMCP_TOO_MANY_RESOURCES` or `EMCP_NULL_PARAMETER`; nothing is written then.
/// `emcp_config_check` says which tool or template a refused configuration is
/// refused for.
///
/// Pointers: `storage` points to `storage_len` writable bytes, `line_buffer` to
/// `line_buffer_len` writable bytes and `output_buffer` (ignored, and may be NULL, with
/// a write callback) to `output_buffer_len` writable bytes; the three do not overlap
/// each other or anything `config` points to, and belong to the server until it is no
/// longer used (nothing else reads or writes them meanwhile). `config` points to an
/// `emcp_config` that, with every descriptor, text and array it points to, stays in
/// place and unchanged as long as the server is used. `server_out` points to a writable
/// `emcp_server *`. A storage is not set up again while its server is in use (inside a
/// call or a callback).
#[no_mangle]
pub unsafe extern "C" fn emcp_server_init(
    storage: *mut emcp_server_storage,
    storage_len: usize,
    config: *const emcp_config,
    line_buffer: *mut u8,
    line_buffer_len: usize,
    output_buffer: *mut u8,
    output_buffer_len: usize,
    server_out: *mut *mut emcp_server,
) -> emcp_status {
    ffi_boundary!({
        non_null!(storage, config, line_buffer, server_out);
        // The documented contract, not this build's actual need (which is smaller).
        if storage_len < EMCP_SERVER_STORAGE_SIZE {
            return EMCP_STORAGE_TOO_SMALL;
        }
        if storage.cast::<u8>().align_offset(EMCP_SERVER_STORAGE_ALIGN) != 0 {
            return EMCP_STORAGE_MISALIGNED;
        }
        if line_buffer_len < EMCP_LINE_BUFFER_MIN {
            return EMCP_BUFFER_TOO_SMALL;
        }
        // SAFETY: not NULL (checked above); the contract: `config` points to an
        // `emcp_config` that stays in place and unchanged as long as the server, which
        // is as long as anything holds this reference (it lives in the storage).
        let config: &'static emcp_config = unsafe { &*config };
        let out = match config.write {
            Some(write) => Output::Callback(CallbackSink {
                write,
                userdata: config.userdata,
                failed: false,
            }),
            None => {
                if output_buffer.is_null() {
                    return EMCP_NULL_PARAMETER;
                }
                if output_buffer_len < EMCP_OUTPUT_MIN_ROOM {
                    return EMCP_BUFFER_TOO_SMALL;
                }
                // SAFETY: not NULL (checked above); the contract: `output_buffer_len`
                // writable bytes that belong to the server as long as it is used and
                // overlap neither the storage nor the line buffer.
                Output::Buffer(SliceSink::new(unsafe {
                    core::slice::from_raw_parts_mut(output_buffer, output_buffer_len)
                }))
            }
        };
        let place = storage.cast::<Storage>();
        let device = CDevice {
            config,
            // SAFETY: `place` points into the caller's storage, at least
            // `EMCP_SERVER_STORAGE_SIZE` bytes (checked above) and so large enough for a
            // `Storage` (asserted at compile time): the field's address is in bounds.
            // Nothing is read through it before `place.write` below fills the storage.
            changes: unsafe { core::ptr::addr_of!((*place).changes) },
        };
        if !device.check() {
            return EMCP_INVALID_CONFIG;
        }
        if let Err(e) = CServer::check_device(&device) {
            return config_status(e).0;
        }
        // SAFETY: not NULL (checked above); the contract: `line_buffer_len` writable
        // bytes that belong to the server as long as it is used and overlap neither the
        // storage nor the output buffer.
        let line = unsafe { core::slice::from_raw_parts_mut(line_buffer, line_buffer_len) };
        // Field by field, the server last and straight from its constructor: no whole
        // `Storage` (kilobytes with tasks) is put together on the stack first.
        // SAFETY: `place` is the caller's storage: writable, at least
        // `EMCP_SERVER_STORAGE_SIZE` bytes and aligned to `EMCP_SERVER_STORAGE_ALIGN`
        // (both checked above), so room for a `Storage` at its alignment (asserted at
        // compile time), and every field's address is in bounds and aligned. The
        // writes do not read or drop what was there (the contract rules out a server in
        // use in this storage), and together they initialise every field of `Storage`
        // and `Inner`, so the storage holds a whole `Storage` afterwards.
        unsafe {
            core::ptr::addr_of_mut!((*place).changes).write(ChangeFlags::new());
            core::ptr::addr_of_mut!((*place).config).write(config);
            core::ptr::addr_of_mut!((*place).inner.framer).write(SliceFramer::new(line));
            core::ptr::addr_of_mut!((*place).inner.out).write(out);
            core::ptr::addr_of_mut!((*place).inner.server)
                .write(CServer::new_checked(device, server_config(config)));
        }
        // SAFETY: not NULL (checked above); the contract: `server_out` points to a
        // writable `emcp_server *`.
        unsafe { *server_out = storage.cast::<emcp_server>() };
        EMCP_OK
    })
}

/// Feed received bytes, in any chunking (one byte at a time is fine). Complete messages
/// are handled and their responses written. `*consumed_out` is how many bytes were
/// taken: all of them with a write callback; with an output buffer, feeding stops while
/// the buffer has less than `EMCP_OUTPUT_MIN_ROOM` free — take output, then feed the
/// rest again.
///
/// Returns `EMCP_WRITE_FAILED` when the write callback failed (the input was consumed).
///
/// Pointers: `server` comes from `emcp_server_init`, with its storage, configuration
/// and buffers still in place, and is not in use (this is not called from inside one of
/// its callbacks, nor beside another call on it). `data` points to `len` readable bytes
/// outside the server's buffers (NULL only when `len` is 0). `consumed_out` points to a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_server_feed(
    server: *mut emcp_server,
    data: *const u8,
    len: usize,
    consumed_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(server, consumed_out);
        // SAFETY: the contract: `data` points to `len` readable bytes outside the
        // server's buffers (so unchanged while the server runs), or is NULL with 0.
        let mut rest = tri!(unsafe { bytes(data, len) });
        // SAFETY: not NULL (checked above); the contract: an initialised server not in
        // use, so this is the only reference to its state.
        let s = unsafe { inner(server) };
        let limit = s.framer.limit();
        while !rest.is_empty() && s.out.has_room() {
            let (used, frame) = s.framer.push(rest);
            if let Some(frame) = frame {
                s.server.handle_frame_limit(frame, limit, s.out.sink());
            }
            rest = rest.get(used..).unwrap_or(&[]);
        }
        let status = s.out.status();
        if status == EMCP_OK {
            // SAFETY: not NULL (checked above); the contract: a writable `size_t`.
            unsafe { *consumed_out = len - rest.len() };
        }
        status
    })
}

/// Continue pending tools one step and send resource-changed notifications. Call it
/// from the main loop; `*busy_out` tells whether tools are still pending (call again
/// soon).
///
/// Pointers: `server` as for `emcp_server_feed`; `busy_out` points to a writable
/// `bool`.
#[no_mangle]
pub unsafe extern "C" fn emcp_server_poll(
    server: *mut emcp_server,
    busy_out: *mut bool,
) -> emcp_status {
    ffi_boundary!({
        non_null!(server, busy_out);
        // SAFETY: not NULL (checked above); the contract: an initialised server not in
        // use, so this is the only reference to its state.
        let s = unsafe { inner(server) };
        if !s.out.has_room() {
            return EMCP_OUTPUT_FULL;
        }
        s.server.poll(s.out.sink());
        let status = s.out.status();
        if status == EMCP_OK {
            // SAFETY: not NULL (checked above); the contract: a writable `bool`.
            unsafe { *busy_out = s.server.busy() };
        }
        status
    })
}

/// End of input (the host closed the stream): handle a last message that had no
/// newline. With tasks (`EMCP_TASKS`), every task still working is then cancelled (its
/// `cancel` callback runs) and every task forgotten: no one is left to fetch them.
///
/// Pointers: `server` as for `emcp_server_feed`.
#[no_mangle]
pub unsafe extern "C" fn emcp_server_finish(server: *mut emcp_server) -> emcp_status {
    ffi_boundary!({
        non_null!(server);
        // SAFETY: not NULL (checked above); the contract: an initialised server not in
        // use, so this is the only reference to its state.
        let s = unsafe { inner(server) };
        if !s.out.has_room() {
            return EMCP_OUTPUT_FULL;
        }
        if let Some(frame) = s.framer.finish() {
            s.server.handle_frame(frame, s.out.sink());
        }
        #[cfg(feature = "tasks")]
        s.server.end_tasks();
        s.out.status()
    })
}

/// Copy waiting output (output-buffer mode) into `buf`, oldest first, and drop it from
/// the server's buffer. `*written_out` is the number of bytes copied (0 when none wait).
/// `EMCP_WRONG_STATE` with a write callback.
///
/// Pointers: `server` as for `emcp_server_feed`; `buf` points to `buf_len` writable
/// bytes outside the server's buffers; `written_out` points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_server_take_output(
    server: *mut emcp_server,
    buf: *mut u8,
    buf_len: usize,
    written_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(server, buf, written_out);
        // SAFETY: not NULL (checked above); the contract: an initialised server not in
        // use, so this is the only reference to its state.
        let Output::Buffer(sink) = &mut unsafe { inner(server) }.out else {
            return EMCP_WRONG_STATE;
        };
        let n = sink.len().min(buf_len);
        // SAFETY: not NULL (checked above); the contract: `buf_len` (at least `n`)
        // writable bytes outside the server's buffers, so apart from `sink`.
        let dst = unsafe { core::slice::from_raw_parts_mut(buf, n) };
        // One `memcpy`: both sides are `n` long, which the compiler sees, so
        // `copy_from_slice`'s length check folds away (no panic path).
        if let Some(src) = sink.written().get(..n) {
            dst.copy_from_slice(src);
        }
        sink.consume(n);
        // SAFETY: not NULL (checked above); the contract: a writable `size_t`.
        unsafe { *written_out = n };
        EMCP_OK
    })
}

/// How many output bytes wait in the output buffer (0 with a write callback).
///
/// Pointers: `server` as for `emcp_server_feed` (it is only read); `len_out` points to a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn emcp_server_output_len(
    server: *const emcp_server,
    len_out: *mut usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(server, len_out);
        // SAFETY: not NULL (checked above); the contract: an initialised server not in
        // use, so nothing changes its state while it is read here.
        let n = match &unsafe { inner_ref(server) }.out {
            Output::Buffer(sink) => sink.len(),
            Output::Callback(_) => 0,
        };
        // SAFETY: not NULL (checked above); the contract: a writable `size_t`.
        unsafe { *len_out = n };
        EMCP_OK
    })
}

/// Tell subscribers that a resource changed (by URI); the notification goes out at the
/// next poll or feed. May be called from anywhere: the main loop, a tool callback (e.g.
/// an actuator changed its state resource) or an interrupt handler — it only raises an
/// atomic flag. `EMCP_NOT_FOUND` for a URI that is not a static resource.
///
/// Pointers: `server` comes from `emcp_server_init`, with its storage and configuration
/// still in place; unlike every other `emcp_server_*` function it may be in use (called
/// from inside its callbacks or from an interrupt handler). `uri` points to `uri_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn emcp_server_resource_changed(
    server: *mut emcp_server,
    uri: *const c_char,
    uri_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(server, uri);
        // SAFETY: not NULL (checked above); the contract: `uri_len` readable bytes,
        // unchanged during this call (the text is not kept).
        let uri = tri!(unsafe { utf8(uri, uri_len) });
        // Without `resources` a configuration has no resources (init refuses one that
        // declares any): no URI is one.
        if !cfg!(feature = "resources") {
            return EMCP_NOT_FOUND;
        }
        let storage = server.cast::<Storage>();
        // SAFETY: the contract: init wrote a `Storage` here, still in place. Only its
        // `config` (a reference that never changes after init) is copied and its change
        // flags (atomics, made to be shared) are borrowed; the `inner` field, which a
        // running call may hold mutably, is never referenced.
        let (config, changes) = unsafe {
            (
                *core::ptr::addr_of!((*storage).config),
                &*core::ptr::addr_of!((*storage).changes),
            )
        };
        let device = CDevice { config, changes };
        let is_uri = |i: &usize| {
            device
                .resource_desc(*i)
                .is_some_and(|r| text(&r.uri) == uri)
        };
        match (0..config.resources_len).find(is_uri) {
            Some(i) => {
                changes.raise(i);
                EMCP_OK
            }
            None => EMCP_NOT_FOUND,
        }
    })
}

/// The link was lost (USB unplugged, host gone): forget the session, subscriptions,
/// pending tools (their `cancel` callbacks run), any partial line and waiting output.
///
/// Pointers: `server` as for `emcp_server_feed`.
#[no_mangle]
pub unsafe extern "C" fn emcp_server_reset(server: *mut emcp_server) -> emcp_status {
    ffi_boundary!({
        non_null!(server);
        // SAFETY: not NULL (checked above); the contract: an initialised server not in
        // use, so this is the only reference to its state.
        let s = unsafe { inner(server) };
        s.server.reset();
        s.framer.reset();
        if let Output::Buffer(sink) = &mut s.out {
            sink.clear();
        }
        EMCP_OK
    })
}

/// Give the server its secret key (`EMCP_KEY_LEN` bytes, copied): task ids are
/// HMAC-SHA-256 tags under it, so that no client can guess another's task id. Take it
/// from a hardware random number generator at boot (or provisioned key storage); a
/// new key at each boot only makes ids from before the boot unknown. Without a key the
/// server offers no tasks (no `tasks` capability; a task-required tool is refused).
/// Setting it again replaces it; tasks already made keep their ids.
///
/// Only in a library built with the `tasks` feature (`EMCP_TASKS` defined).
///
/// Returns `EMCP_INVALID_PARAMETER` when `key_len` is not `EMCP_KEY_LEN`.
///
/// Pointers: `server` as for `emcp_server_feed`; `key` points to `key_len` readable
/// bytes (not kept after the call).
#[cfg(feature = "tasks")]
#[no_mangle]
pub unsafe extern "C" fn emcp_server_set_key(
    server: *mut emcp_server,
    key: *const u8,
    key_len: usize,
) -> emcp_status {
    ffi_boundary!({
        non_null!(server, key);
        if key_len != EMCP_KEY_LEN {
            return EMCP_INVALID_PARAMETER;
        }
        let mut bytes = [0u8; EMCP_KEY_LEN];
        // SAFETY: not NULL (checked above); the contract: `key_len` (= EMCP_KEY_LEN,
        // checked above) readable bytes, only copied here.
        let src = unsafe { core::slice::from_raw_parts(key, EMCP_KEY_LEN) };
        for (d, s) in bytes.iter_mut().zip(src) {
            *d = *s;
        }
        // SAFETY: not NULL (checked above); the contract: an initialised server not in
        // use, so this is the only reference to its state.
        let s = unsafe { inner(server) };
        s.server
            .set_state_key(emcp::state::seal::StateKey::new(bytes));
        EMCP_OK
    })
}
