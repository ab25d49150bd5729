//! The embedded-io serve loop: chunked input, jobs run while no input waits, flushes
//! only when input is drained, everything answered at end of input.

use std::collections::VecDeque;
use std::convert::Infallible;

use emcp::transport::serve::serve;
use emcp::wire::framing::Framer;
use emcp::Server;
use emcp_tests::split_lines;
use sensor_board::{Board, CONFIG};

/// Input arriving in chunks; `ready` says whether the next chunk has arrived yet
/// (every other poll, to let pending jobs run in between).
struct Chunks {
    chunks: VecDeque<Vec<u8>>,
    polls: usize,
}

impl embedded_io::ErrorType for Chunks {
    type Error = Infallible;
}

impl embedded_io::Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let Some(mut chunk) = self.chunks.pop_front() else {
            return Ok(0);
        };
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        if n < chunk.len() {
            self.chunks.push_front(chunk.split_off(n));
        }
        Ok(n)
    }
}

impl embedded_io::ReadReady for Chunks {
    fn read_ready(&mut self) -> Result<bool, Infallible> {
        self.polls += 1;
        Ok(self.polls.is_multiple_of(2) || self.chunks.is_empty())
    }
}

/// Bytes written, and where each flush fell among them.
#[derive(Default)]
struct Out {
    bytes: Vec<u8>,
    flushed_at: Vec<usize>,
}

impl embedded_io::ErrorType for Out {
    type Error = Infallible;
}

impl embedded_io::Write for Out {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Infallible> {
        self.flushed_at.push(self.bytes.len());
        Ok(())
    }
}

#[test]
fn serve_answers_everything_and_finishes_jobs_at_eof() {
    let input: Vec<Vec<u8>> = vec![
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"move_servo","arguments":{"angle":5},"_meta":{"progressToken":"t"}}}"#.to_vec(),
        b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"me".to_vec(),
        b"thod\":\"ping\"}\r\n".to_vec(),
        // the last line has no newline: still answered at end of input
        br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.to_vec(),
    ];
    let mut reader = Chunks {
        chunks: input.into(),
        polls: 0,
    };
    let mut out = Out::default();
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    let mut framer: Framer<256> = Framer::new();
    serve(&mut server, &mut framer, &mut reader, &mut out).unwrap();
    let lines = split_lines(&out.bytes);
    let count = |needle: &str| lines.iter().filter(|l| l.contains(needle)).count();
    assert_eq!(count("notifications/progress"), 3, "{lines:#?}");
    assert_eq!(
        count(r#""id":1,"result":{"content":[{"type":"text","text":"servo: 5.0 deg"}]}"#),
        1
    );
    assert_eq!(count(r#""id":2,"result":{}"#), 1);
    assert_eq!(count(r#""id":3,"result":{}"#), 1);
    assert_eq!(lines.len(), 6);
    let progress_before_result = lines.iter().rposition(|l| l.contains("progress")).unwrap()
        < lines.iter().position(|l| l.contains(r#""id":1,"#)).unwrap();
    assert!(progress_before_result);
    assert!(!out.flushed_at.is_empty());
    assert!(!server.busy());
    assert_eq!(server.device().servo(), 50);
}

/// Input that arrives once, then nothing for `idle` readiness checks, then ends.
struct Quiet {
    input: Option<Vec<u8>>,
    idle: usize,
}

impl embedded_io::ErrorType for Quiet {
    type Error = Infallible;
}

impl embedded_io::Read for Quiet {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let Some(input) = self.input.take() else {
            return Ok(0);
        };
        buf[..input.len()].copy_from_slice(&input);
        Ok(input.len())
    }
}

impl embedded_io::ReadReady for Quiet {
    fn read_ready(&mut self) -> Result<bool, Infallible> {
        if self.input.is_some() || self.idle == 0 {
            return Ok(true);
        }
        self.idle -= 1;
        Ok(false)
    }
}

/// A job's progress is flushed as the job makes it, not held back until its result: while
/// no input waits (and likewise after end of input), each step that writes is followed
/// by a flush. (The servo's last step writes its last progress and the result together.)
fn progress_flushed_before_the_result(idle: usize) {
    let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"move_servo","arguments":{"angle":5},"_meta":{"progressToken":"t"}}}
"#;
    let mut reader = Quiet {
        input: Some(line.to_vec()),
        idle,
    };
    let mut out = Out::default();
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    let mut framer: Framer<256> = Framer::new();
    serve(&mut server, &mut framer, &mut reader, &mut out).unwrap();
    let text = String::from_utf8(out.bytes.clone()).unwrap();
    let end_of = |needle: &str| {
        let start = text
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} in {text}"));
        start + text[start..].find('\n').unwrap() + 1
    };
    let result = text.find(r#""id":1,"result""#).unwrap();
    for step in 1..=2 {
        let progress = end_of(&format!(r#""progress":{step},"#));
        assert!(
            out.flushed_at.iter().any(|&f| f >= progress && f <= result),
            "progress {step} (ends at {progress}) flushed before the result (at {result}): flushes {:?}\n{text}",
            out.flushed_at
        );
    }
    assert_eq!(
        out.flushed_at.last(),
        Some(&out.bytes.len()),
        "everything flushed at the end"
    );
    assert_eq!(server.device().servo(), 50);
}

#[test]
fn progress_is_flushed_as_the_job_makes_it_while_no_input_waits() {
    progress_flushed_before_the_result(100);
}

#[test]
fn progress_is_flushed_as_the_job_makes_it_after_end_of_input() {
    progress_flushed_before_the_result(0);
}
