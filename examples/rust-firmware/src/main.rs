//! emcp without the C ABI: the sensor board (`examples/sensor-board`, `no_std`) as an
//! MCP server on a UART, the way a Rust firmware links emcp: the runtime's entry, a
//! blocking `embedded-io` stream over the UART ([`stream`]), and
//! `emcp::transport::serve::serve`, which frames the bytes, answers every line and runs
//! the board's pending tool jobs while no input waits. Both protocol eras are compiled
//! in.
//!
//! This file and the modules beside it are the application, the same on every board.
//! What differs is in one module of `board/`, chosen once below by `cfg(board)` (which
//! `build.rs` names from the Rust target): the UART's registers, the link line, the
//! runtime crate and its entry, the semihosting instruction and the fault handler.
//!
//! | board | QEMU machine | CPU | Rust target | runtime | link line |
//! |---|---|---|---|---|---|
//! | `mps2` | `mps2-an385`, `mps2-an386` | Cortex-M3, Cortex-M4F | `thumbv7m-none-eabi`, `thumbv7em-none-eabihf` | cortex-m-rt | UART1 |
//! | `mps2_an505` | `mps2-an505` | Cortex-M33 | `thumbv8m.main-none-eabihf` | cortex-m-rt | UART1 |
//! | `microbit` | `microbit` (nRF51822) | Cortex-M0 | `thumbv6m-none-eabi` | cortex-m-rt | files |
//! | `sifive_e` | `sifive_e` (FE310) | RV32IMC (E31) | `riscv32imc-unknown-none-elf` | riscv-rt | UART1 |
//!
//! The UART carries MCP bytes and nothing else. Logs are `defmt` frames over
//! semihosting (QEMU's stdout, which `run.sh` decodes with `defmt-print` onto stderr).
//! At the end of input (the relay's `E<n>` on the link line, [`link`]) `serve` returns
//! once every job has finished; the firmware then logs its stack high-water mark and
//! says it is idle.
#![no_std]
#![no_main]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg_attr(board = "mps2", path = "board/mps2.rs")]
#[cfg_attr(board = "mps2_an505", path = "board/mps2_an505.rs")]
#[cfg_attr(board = "microbit", path = "board/microbit.rs")]
#[cfg_attr(board = "sifive_e", path = "board/sifive_e.rs")]
mod board;
mod link;
mod log;
// The host calls: the file ones serve the file link line, unused on boards with two UARTs.
#[allow(dead_code, reason = "the file calls serve one form of the link line")]
mod semihosting;
mod stack;
mod stream;

use core::mem::MaybeUninit;
use core::ptr::addr_of_mut;

use emcp::transport::serve::{serve, ServeError};
use emcp::wire::framing::Framer;
use emcp::Server;
use sensor_board::{Board, CONFIG};

use stream::{McpReader, McpWriter};

/// The longest request line, as the C image's `line_buffer` (a longer one is answered
/// with an error and skipped to its newline).
const LINE_LEN: usize = 1024;

#[board::entry]
fn main() -> ! {
    defmt::info!(
        "emcp: emcp-rust-firmware {=str} ({=str}): MCP on UART0",
        env!("CARGO_PKG_VERSION"),
        board::CPU
    );
    let Some((server, framer)) = init() else {
        fail("init: the server's configuration is invalid, or init ran twice");
    };
    defmt::info!(
        "emcp: server {=usize} bytes, framer {=usize} bytes (static)",
        core::mem::size_of::<Server<Board>>(),
        core::mem::size_of::<Framer<LINE_LEN>>()
    );

    // SAFETY: called once, here; nothing else uses the board's UARTs.
    let (rx, tx, link) = unsafe { board::parts() };
    let mut reader = McpReader::new(rx, link, stack::check);
    let mut writer = McpWriter::new(tx);
    let result = serve(server, framer, &mut reader, &mut writer);
    match result {
        Ok(()) => {}
        Err(ServeError::Write(None)) => fail("UART0 accepted nothing"),
        Err(ServeError::Read(never) | ServeError::Write(Some(never))) => match never {},
    }
    stack::check();
    defmt::info!("emcp: end of input, every job done: idle");
    reader.send_idle();
    // The relay stops QEMU once it has seen the idle answer.
    loop {
        board::wait();
    }
}

/// `Some(&'static mut $ty)` holding `$expr` the first time it runs, `None` after: a
/// static of its own, in `.bss` (cortex-m's `singleton!`, on the `critical-section`
/// every board provides).
macro_rules! singleton {
    (: $ty:ty = $expr:expr) => {
        critical_section::with(|_| {
            static mut VAR: (MaybeUninit<$ty>, bool) = (MaybeUninit::uninit(), false);
            // SAFETY: only this critical section reaches VAR, and it hands out the one
            // `&'static mut` once (the flag).
            let var = unsafe { &mut *addr_of_mut!(VAR) };
            if var.1 {
                None
            } else {
                let value = $expr;
                var.1 = true;
                Some(var.0.write(value))
            }
        })
    };
}

/// The server and the line framer, in statics (the server is a few KiB: not the
/// stack's). A plain function, so that the values built here on the way into their
/// statics take no room in `main`'s frame.
#[inline(never)]
fn init() -> Option<(&'static mut Server<Board>, &'static mut Framer<LINE_LEN>)> {
    let server = Server::new(Board::new(), CONFIG).ok()?;
    let server = singleton!(: Server<Board> = server)?;
    let framer = singleton!(: Framer<LINE_LEN> = Framer::new())?;
    Some((server, framer))
}

/// Log and end the program (QEMU exits with status 2, as after the C image's fault).
fn fail(why: &str) -> ! {
    defmt::error!("emcp: {=str}", why);
    semihosting::exit(2)
}

/// No formatting: the message is never read, so none of `core::fmt` is linked for it.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    fail("panic")
}
