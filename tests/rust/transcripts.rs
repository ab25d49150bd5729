//! Every transcript in `tests/transcripts/`, fed whole, one byte at a time and in
//! random splits: exact response lines, identical for every chunking; and every output
//! line is a JSON-RPC 2.0 message.

use std::path::PathBuf;

use emcp_tests::{config_for, run_chunks, Rng, Transcript};

fn transcripts() -> Vec<(String, Transcript)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("transcripts dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no transcripts in {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read transcript");
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                Transcript::parse(&text),
            )
        })
        .collect()
}

fn check_jsonrpc(name: &str, line: &str) {
    let v: serde_json::Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("{name}: output is not JSON ({e}): {line}"));
    assert_eq!(v["jsonrpc"], "2.0", "{name}: {line}");
    let is_response = v.get("id").is_some();
    if is_response {
        assert!(
            v.get("result").is_some() ^ v.get("error").is_some(),
            "{name}: {line}"
        );
    } else {
        assert!(v["method"].is_string(), "{name}: {line}");
    }
}

fn compare(name: &str, how: &str, got: &[String], want: &[String]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{name} ({how}): line {} differs", i + 1);
    }
    assert_eq!(
        got.len(),
        want.len(),
        "{name} ({how}): {} lines, expected {}\n{got:#?}",
        got.len(),
        want.len()
    );
}

#[test]
fn transcripts_whole_bytewise_and_split() {
    for (name, t) in transcripts() {
        let board_config = || config_for(&name);
        let whole = run_chunks(board_config(), &t.input, &[]);
        compare(&name, "whole", &whole, &t.expected);
        for line in &whole {
            check_jsonrpc(&name, line);
        }
        let bytewise: Vec<usize> = (1..t.input.len()).collect();
        compare(
            &name,
            "byte at a time",
            &run_chunks(board_config(), &t.input, &bytewise),
            &t.expected,
        );
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ t.input.len() as u64);
        for round in 0..20 {
            let mut splits: Vec<usize> = (0..(rng.next_u64() % 12))
                .map(|_| (rng.next_u64() as usize) % (t.input.len() + 1))
                .collect();
            splits.sort();
            compare(
                &name,
                &format!("random split {round} {splits:?}"),
                &run_chunks(board_config(), &t.input, &splits),
                &t.expected,
            );
        }
    }
}
