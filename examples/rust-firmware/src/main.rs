//! emcp without the C ABI: the sensor board (`examples/sensor-board`, `no_std`) as an
//! MCP server on UART0 of QEMU's mps2-an385 (Cortex-M3) or mps2-an386 (Cortex-M4F), the
//! way a Rust firmware links emcp: a `cortex-m-rt` entry, a blocking `embedded-io`
//! stream over the UART ([`uart`]), and `emcp::transport::serve::serve`, which
//! frames the bytes, answers every line and runs the board's pending tool jobs while
//! no input waits. Both protocol eras are compiled in.
//!
//! UART0 carries MCP bytes and nothing else. Logs are `defmt` frames over semihosting
//! (QEMU's stdout, which `run.sh` decodes with `defmt-print` onto stderr). At the end of
//! input (the relay's `E<n>` on UART1) `serve` returns once every job has finished;
//! the firmware then logs its stack high-water mark and answers `I` (idle).
#![no_std]
#![no_main]
#![deny(clippy::undocumented_unsafe_blocks)]

mod log;
mod stack;
mod uart;

use cortex_m::singleton;
use cortex_m_rt::{entry, exception, ExceptionFrame};
use emcp::transport::serve::{serve, ServeError};
use emcp::wire::framing::Framer;
use emcp::Server;
use sensor_board::{Board, CONFIG};

use uart::{McpReader, McpWriter, Uart};

/// The longest request line, as the C image's `line_buffer` (a longer one is answered
/// with an error and skipped to its newline).
const LINE_LEN: usize = 1024;

#[entry]
fn main() -> ! {
    defmt::info!(
        "emcp: emcp-rust-firmware {=str} ({=str}): MCP on UART0",
        env!("CARGO_PKG_VERSION"),
        CPU
    );
    let Some((server, framer)) = init() else {
        fail("init: the server's configuration is invalid, or init ran twice");
    };
    defmt::info!(
        "emcp: server {=usize} bytes, framer {=usize} bytes (static)",
        core::mem::size_of::<Server<Board>>(),
        core::mem::size_of::<Framer<LINE_LEN>>()
    );

    // SAFETY: UART0 and UART1 are the board's CMSDK UARTs, and these are their only
    // users.
    let (uart0, link) = unsafe { (Uart::new(Uart::UART0), Uart::new(Uart::UART1)) };
    let (rx, tx) = uart0.split();
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
    // The relay stops QEMU once it has read `I`.
    loop {
        cortex_m::asm::wfi();
    }
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

/// The core this image is built for, in the start-up log.
#[cfg(target_abi = "eabihf")]
const CPU: &str = "cortex-m4f";
#[cfg(not(target_abi = "eabihf"))]
const CPU: &str = "cortex-m3";

/// A fault (a bus error, an undefined instruction): log it and end the program. A
/// stack overflow faults while entering this handler and locks the core up instead.
#[exception]
unsafe fn HardFault(_frame: &ExceptionFrame) -> ! {
    fail("hard fault")
}

/// Log and end the program (QEMU exits with status 2, as after the C image's fault).
fn fail(why: &str) -> ! {
    defmt::error!("emcp: {=str}", why);
    log::exit(2)
}

/// No formatting: the message is never read, so none of `core::fmt` is linked for it.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    fail("panic")
}
