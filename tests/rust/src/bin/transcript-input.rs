//! Print the bytes a transcript sends (its `>` and `>>` lines, parsed exactly as the
//! transcript tests parse them) to stdout, for scripts that feed a board by hand.
//!
//! `cargo run -q -p emcp-tests --bin transcript-input -- tests/transcripts/NAME.txt`

use std::io::Write;

use emcp_tests::Transcript;

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: transcript-input FILE");
        return std::process::ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("transcript-input: {path}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let input = Transcript::parse(&text).input;
    match std::io::stdout().lock().write_all(&input) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::FAILURE,
    }
}
