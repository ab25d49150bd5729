//! [`serve`]: one byte stream (UART, USB-CDC) served over `embedded-io-async`.

use core::pin::pin;

use embassy_futures::select::{select, Either};
use embedded_io_async::{Read, Write};

use super::{flush, send, Tick};
use crate::device::Device;
use crate::server::Server;
use crate::transport::serve::{ServeError, READ_CHUNK};
use crate::wire::framing::Frames;
use crate::wire::json::SliceSink;

/// Serve one byte-stream connection until the reader reports end of input (`Ok(0)`):
/// the async counterpart of [`crate::transport::serve::serve`].
///
/// Each line read is answered into `tx_buf` and written out; a response larger than
/// `tx_buf` is answered with -32603 for its id instead. While no input arrives, every
/// `tick` runs one [`Server::poll`]: pending jobs take a step (their progress goes
/// out as it happens) and change notifications are sent. The read in progress is
/// kept across ticks (not cancelled), so any reader will do, whether or not its
/// `read` is cancel-safe; `reader` and `writer` are the two halves of the stream
/// (for example a UART's `split()`). At end of input a final unterminated line is
/// still answered and pending jobs run to completion, a tick apart.
///
/// ```
/// use embassy_futures::{block_on, yield_now};
/// use emcp::transport::asynch::serve;
/// use emcp::wire::framing::Framer;
/// use emcp::{Config, Device, Server};
///
/// struct Idle; // a device with no tools, resources or prompts
/// impl Device for Idle {}
///
/// let mut server: Server<Idle> = Server::new(Idle, Config::new("demo", "0.1.0")).unwrap();
/// let mut framer: Framer<256> = Framer::new();
/// let mut input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
/// let mut sent = [0u8; 64];
/// let mut output: &mut [u8] = &mut sent;
/// let mut tx_buf = [0u8; 256];
/// let mut tick = yield_now; // on Embassy: || Timer::after_millis(10)
/// block_on(serve(&mut server, &mut framer, &mut input, &mut output, &mut tx_buf, &mut tick))
///     .unwrap();
/// assert!(sent.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"));
/// ```
///
/// # Errors
///
/// The reader's or the writer's error; the server is left as it was (call
/// [`Server::reset`] before serving another link, as the link was lost).
pub async fn serve<
    D,
    F,
    R,
    W,
    T,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    framer: &mut F,
    reader: &mut R,
    writer: &mut W,
    tx_buf: &mut [u8],
    tick: &mut T,
) -> Result<(), ServeError<R::Error, W::Error>>
where
    D: Device,
    F: Frames + ?Sized,
    R: Read,
    W: Write,
    T: Tick,
{
    let mut buf = [0u8; READ_CHUNK];
    let limit = framer.limit();
    loop {
        let n = {
            let mut read = pin!(reader.read(&mut buf));
            loop {
                match select(read.as_mut(), tick.tick()).await {
                    Either::First(r) => break r.map_err(ServeError::Read)?,
                    Either::Second(()) => {
                        poll(server, tx_buf, writer).await?;
                    }
                }
            }
        };
        if n == 0 {
            if let Some(frame) = framer.finish() {
                let mut out = SliceSink::new(tx_buf);
                server.handle_frame(frame, &mut out);
                send(writer, out.written()).await?;
            }
            // No one is left to fetch a task: the drain below waits for jobs only.
            server.end_tasks();
            while poll(server, tx_buf, writer).await? {
                tick.tick().await;
            }
            return flush(writer).await;
        }
        let mut bytes = buf.get(..n).unwrap_or_default();
        while !bytes.is_empty() {
            let (used, frame) = framer.push(bytes);
            if let Some(frame) = frame {
                let mut out = SliceSink::new(tx_buf);
                server.handle_frame_limit(frame, limit, &mut out);
                send(writer, out.written()).await?;
            }
            bytes = bytes.get(used..).unwrap_or_default();
        }
        poll(server, tx_buf, writer).await?;
        flush(writer).await?;
    }
}

/// One [`Server::poll`] into `tx_buf`, written out and flushed when it wrote anything;
/// returns [`Server::busy`].
async fn poll<D, W, R, const L: usize, const J: usize, const WAIT: usize, const K: usize>(
    server: &mut Server<D, L, J, WAIT, K>,
    tx_buf: &mut [u8],
    writer: &mut W,
) -> Result<bool, ServeError<R, W::Error>>
where
    D: Device,
    W: Write,
{
    let mut out = SliceSink::new(tx_buf);
    let busy = server.poll(&mut out);
    if !out.is_empty() {
        send(writer, out.written()).await?;
        flush(writer).await?;
    }
    Ok(busy)
}
