//! The whole server (`emcp::Server`) with the Rust sensor board behind it, fed through
//! `emcp::transport::serve::feed` and a `Framer`, as the board's stdio loop does.
//!
//! Input: one knob byte (bits 0–1: polls after each line, 0–3; bit 2: feed each line in
//! two chunks), then the byte stream. Each `\n`-terminated line is fed, its output
//! checked, then the server is polled; at the end a last unterminated line is finished
//! and the server polled until no job remains. Invariants (`emcp_fuzz`):
//! - every output line is a JSON-RPC 2.0 response or notification (`serde_json`);
//! - every request line (by the oracle) is answered exactly once — during its own
//!   handling, by a later poll (a pending tool), or by the `acknowledged` notification
//!   of a `subscriptions/listen` stream — unless a `notifications/cancelled` withdrew
//!   it while unanswered, after which it is never answered; a request neither answered
//!   nor acknowledged must be pending by the server's own account (`is_pending`);
//! - notifications and blank lines get no response; an overlong line gets one error
//!   with id `null`; any other line at most one response, with id `null` or its own;
//! - polls answer only pending requests; every job finishes.
#![no_main]

use emcp::transport::serve::feed;
use emcp::wire::framing::{Framer, Frames};
use emcp::Server;
use emcp_fuzz::{classify, knobs, messages, segments, strip_cr, Collected, Ledger};
use libfuzzer_sys::fuzz_target;
use sensor_board::{Board, CONFIG};

/// Line buffer of the framer (the examples use 4096; smaller makes overlong lines
/// reachable within libFuzzer's input sizes).
const LINE: usize = 1024;

fuzz_target!(|data: &[u8]| {
    if emcp_fuzz::serde_refuses(data) {
        return; // the JSON oracle cannot read such output (emcp_fuzz::RAW_VALUE_TOKEN)
    }
    let (k, data) = knobs::<1>(data);
    let polls = k[0] & 3;
    let halves = k[0] & 4 != 0;
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).expect("the board");
    let mut framer: Box<Framer<LINE>> = Box::default();
    let mut ledger = Ledger::default();

    for (seg, ended) in segments(data) {
        let mut out = Collected(Vec::new());
        let (a, b) = seg.split_at(if halves { seg.len() / 2 } else { seg.len() });
        feed(&mut server, &mut *framer, a, &mut out);
        feed(&mut server, &mut *framer, b, &mut out);
        if ended {
            feed(&mut server, &mut *framer, b"\n", &mut out);
        } else if let Some(frame) = framer.finish() {
            server.handle_frame(frame, &mut out);
        }
        let class = classify(strip_cr(seg), seg.len(), LINE);
        ledger.line(&class, &messages(&out.0), &|id| {
            server.is_pending(id.as_bytes())
        });
        for _ in 0..polls {
            let mut out = Collected(Vec::new());
            server.poll(&mut out);
            ledger.poll(&messages(&out.0));
        }
    }
    for round in 0.. {
        assert!(round < 10_000, "jobs never finish");
        let mut out = Collected(Vec::new());
        let more = server.poll(&mut out);
        ledger.poll(&messages(&out.0));
        if !more {
            break;
        }
    }
    assert!(!server.busy());
    let unanswered = ledger.unanswered();
    assert!(unanswered.is_empty(), "never answered: {unanswered:?}");
});
