//! Transcript harness: request lines in, exact response lines out.
//!
//! A transcript file holds lines:
//! - `> JSON` — bytes sent to the server, followed by `\n`;
//! - `>> TEXT` — raw bytes sent as written, with escapes `\n`, `\r`, `\t`, `\\` and
//!   `\xNN` (for CRLF, invalid UTF-8, missing newlines);
//! - `< JSON` — the next line the server must write, byte for byte;
//! - `#` comments and blank lines.
//!
//! [`run_chunks`] feeds the whole input to a sensor-board server in chunks (whole,
//! one byte at a time, random splits) and polls only at the end, so the output must
//! not depend on the chunking.

use emcp::transport::serve::feed;
use emcp::wire::framing::{Framer, Frames};
use emcp::{Config, Server};
use sensor_board::{Board, CONFIG};

/// A parsed transcript.
#[derive(Debug, Default, Clone)]
pub struct Transcript {
    /// Every byte the client sends.
    pub input: Vec<u8>,
    /// Every line the server must write (without newlines).
    pub expected: Vec<String>,
}

fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'\\' => out.push(b'\\'),
                b'x' => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).expect("hex");
                    out.push(u8::from_str_radix(hex, 16).expect("hex"));
                    i += 4;
                    continue;
                }
                other => panic!("unknown escape \\{}", other as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

impl Transcript {
    /// Parse transcript text.
    pub fn parse(text: &str) -> Self {
        let mut t = Transcript::default();
        for line in text.lines() {
            if let Some(raw) = line.strip_prefix(">> ") {
                t.input.extend(unescape(raw));
            } else if let Some(json) = line.strip_prefix("> ") {
                t.input.extend_from_slice(json.as_bytes());
                t.input.push(b'\n');
            } else if let Some(json) = line.strip_prefix("< ") {
                t.expected.push(json.to_string());
            } else if line.trim().is_empty() || line.starts_with('#') {
            } else {
                panic!("bad transcript line: {line}");
            }
        }
        t
    }
}

/// Feed `input` in the given chunks to a fresh sensor board (with `config`), then
/// finish and poll until idle. Returns every output line.
pub fn run_chunks(config: Config, input: &[u8], splits: &[usize]) -> Vec<String> {
    let mut server: Server<Board> = Server::new(Board::new(), config).expect("valid board");
    let mut framer: Box<Framer<4096>> = Box::default();
    let mut out: Vec<u8> = Vec::new();
    let mut sink = VecSink(&mut out);
    let mut start = 0;
    for &end in splits.iter().chain(std::iter::once(&input.len())) {
        let end = end.min(input.len());
        if end > start {
            feed(&mut server, &mut *framer, &input[start..end], &mut sink);
            start = end;
        }
    }
    if let Some(frame) = framer.finish() {
        server.handle_frame(frame, &mut sink);
    }
    let mut guard = 0;
    while server.poll(&mut sink) {
        guard += 1;
        assert!(guard < 10_000, "jobs never finish");
    }
    split_lines(&out)
}

/// Every line of `out`; each must end with `\n` and contain no other newline.
pub fn split_lines(out: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(out).expect("output is UTF-8");
    if !text.is_empty() {
        assert!(text.ends_with('\n'), "output ends mid-line: {text:?}");
    }
    text.lines().map(str::to_string).collect()
}

/// A `Vec<u8>` sink.
pub struct VecSink<'a>(pub &'a mut Vec<u8>);

impl emcp::wire::json::Sink for VecSink<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), emcp::wire::json::SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// The board configuration a transcript runs with: files named `paged*` use a page
/// size of 2 (to exercise cursors), all others the board's own configuration.
pub fn config_for(path: &str) -> Config {
    let name = std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if name.starts_with("paged") {
        CONFIG.page_size(2)
    } else {
        CONFIG
    }
}

/// A small deterministic PRNG (xorshift) for random splits.
pub struct Rng(pub u64);

impl Rng {
    /// Next value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// The status line of one HTTP answer.
pub fn http_status(answer: &str) -> &str {
    answer.lines().next().unwrap_or("")
}

/// The body of one HTTP answer, de-chunked when it is chunked.
pub fn http_body(answer: &str) -> String {
    let (head, mut rest) = answer.split_once("\r\n\r\n").unwrap();
    if !head.contains("Transfer-Encoding: chunked") {
        return rest.to_string();
    }
    let mut out = String::new();
    loop {
        let (size, tail) = rest.split_once("\r\n").unwrap();
        let n = usize::from_str_radix(size, 16).unwrap();
        if n == 0 {
            return out;
        }
        out.push_str(&tail[..n]);
        assert_eq!(&tail[n..n + 2], "\r\n");
        rest = &tail[n + 2..];
    }
}

#[cfg(test)]
mod sizes {
    /// Prints the RAM a board server and its framer take (run with --nocapture).
    #[test]
    fn print_sizes() {
        let server = std::mem::size_of::<emcp::Server<sensor_board::Board>>();
        let framer = std::mem::size_of::<emcp::wire::framing::Framer<4096>>();
        println!("Server<Board>: {server} bytes; Framer<4096>: {framer} bytes");
        assert!(server < 2048, "server state grew past 2 KiB: {server}");
    }
}
