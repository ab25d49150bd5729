//! The framer (`emcp::wire::framing`): bytes of any chunking in, lines out.
//!
//! Input: one knob byte (line buffer size 1..=64), eight knob bytes (the seed of the
//! chunk sizes), then the stream. Invariants, for `SliceFramer` with that buffer and
//! for `Framer<16>`:
//! - the frames equal a plain model of the documented rules (lines split at `\n`, one
//!   trailing `\r` dropped, blank lines skipped, a line over the buffer reported once
//!   as `TooLong` and dropped, a last unterminated line returned by `finish`), whether
//!   the stream is pushed whole or in the fuzzed chunks;
//! - no line is longer than the buffer; `push` consumes at most its input, makes
//!   progress, and `(n, None)` means all of it; `buffered()` is the pending tail.
#![no_main]

use emcp::wire::framing::{Frame, Framer, Frames, SliceFramer};
use emcp_fuzz::{knobs, segments, strip_cr};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, PartialEq, Eq)]
enum Expect<'a> {
    Line(&'a [u8]),
    TooLong,
}

/// The documented rules, written plainly, over the input's `segments`: the frames
/// (lines borrowed from the input) and what stays buffered before `finish`.
fn model<'a>(segments: &[(&'a [u8], bool)], n: usize) -> (Vec<Expect<'a>>, usize) {
    let mut frames = Vec::with_capacity(segments.len());
    let mut buffered = 0;
    for &(seg, ended) in segments {
        if seg.len() > n {
            frames.push(Expect::TooLong);
            continue;
        }
        if !ended {
            buffered = seg.len();
        }
        if seg.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            continue;
        }
        frames.push(Expect::Line(strip_cr(seg)));
    }
    (frames, buffered)
}

/// Push `data` in the given chunk sizes, then finish; each frame is compared with the
/// model's as it comes (`what` names the run in a failure).
fn run(
    framer: &mut dyn Frames,
    data: &[u8],
    n: usize,
    chunks: &mut dyn FnMut() -> usize,
    (expect, buffered): &(Vec<Expect<'_>>, usize),
    what: &str,
) {
    let mut next = expect.iter();
    let mut check = |frame: Expect<'_>| {
        assert_eq!(
            Some(&frame),
            next.next(),
            "{what}: frame differs from the model"
        );
    };
    let mut rest = data;
    while !rest.is_empty() {
        let mut chunk = &rest[..chunks().clamp(1, rest.len())];
        rest = &rest[chunk.len()..];
        while !chunk.is_empty() {
            let (used, frame) = framer.push(chunk);
            assert!(used <= chunk.len(), "consumed more than the input");
            assert!(used > 0, "push makes no progress");
            match frame {
                None => assert_eq!(used, chunk.len(), "(n, None) must consume everything"),
                Some(Frame::Line(line)) => {
                    assert!(line.len() <= n, "a line longer than the buffer");
                    check(Expect::Line(line));
                }
                Some(Frame::TooLong) => check(Expect::TooLong),
            }
            chunk = &chunk[used..];
        }
    }
    assert_eq!(
        framer.buffered(),
        *buffered,
        "{what}: buffered before finish"
    );
    match framer.finish() {
        Some(Frame::Line(line)) => check(Expect::Line(line)),
        Some(Frame::TooLong) => panic!("finish reports TooLong"),
        None => {}
    }
    assert_eq!(next.next(), None, "{what}: frames missing");
    assert_eq!(framer.buffered(), 0, "finish leaves bytes buffered");
}

fuzz_target!(|data: &[u8]| {
    let (k, data) = knobs::<9>(data);
    let n = 1 + usize::from(k[0] % 64);
    let mut seed = u64::from_le_bytes(k[1..9].try_into().unwrap_or_default()) | 1;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 24) as usize
    };
    let segments = segments(data);
    let expect = model(&segments, n);

    let mut buf = vec![0u8; n];
    let mut whole = || usize::MAX;
    run(
        &mut SliceFramer::new(&mut buf),
        data,
        n,
        &mut whole,
        &expect,
        "whole input",
    );
    run(
        &mut SliceFramer::new(&mut buf),
        data,
        n,
        &mut random,
        &expect,
        "split input",
    );

    let expect16 = model(&segments, 16);
    let mut f16: Box<Framer<16>> = Box::default();
    run(&mut *f16, data, 16, &mut random, &expect16, "Framer<16>");
});
