//! Developer tool: read a transcript, send its `>`/`>>` input to an in-process sensor
//! board line by line, and print the transcript with the board's answers as `<` lines
//! after the input that caused them (existing `<` lines are dropped). Every recorded
//! line must be reviewed against the specification before it is committed.
//!
//! `cargo run -p emcp-tests --bin transcript-record -- tests/transcripts/NAME.txt`

use emcp::transport::serve::feed;
use emcp::wire::framing::{Framer, Frames};
use emcp::Server;
use emcp_tests::{config_for, split_lines, Transcript, VecSink};
use sensor_board::Board;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: transcript-record FILE");
    let text = std::fs::read_to_string(&path).expect("read transcript");
    let mut server: Server<Board> = Server::new(Board::new(), config_for(&path)).expect("board");
    let mut framer: Box<Framer<4096>> = Box::default();
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("< ") {
            continue;
        }
        println!("{line}");
        let input = Transcript::parse(line).input;
        if input.is_empty() {
            continue;
        }
        feed(&mut server, &mut *framer, &input, &mut VecSink(&mut out));
        for l in split_lines(&std::mem::take(&mut out)) {
            println!("< {l}");
        }
    }
    if let Some(frame) = framer.finish() {
        server.handle_frame(frame, &mut VecSink(&mut out));
    }
    while server.poll(&mut VecSink(&mut out)) {}
    for l in split_lines(&out) {
        println!("< {l}");
    }
}
