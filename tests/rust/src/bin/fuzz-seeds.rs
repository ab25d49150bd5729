//! Write the seed corpora of the fuzz targets (`fuzz/`) from the transcripts.
//!
//! `cargo run -q -p emcp-tests --bin fuzz-seeds -- OUT_DIR` writes `OUT_DIR/TARGET/NAME`
//! for the targets `framer`, `json`, `server`, `ffi_feed`, `http` and `relay`, each seed in the
//! input format its target documents (knob bytes first, then the data):
//! - framer, server, ffi_feed: each transcript's whole input, with a few knob settings;
//! - json: every line sent and every line expected, one seed each;
//! - http: each transcript's messages as pipelined `POST /mcp` requests, with the
//!   2026-07-28 headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) when the
//!   body is a 2026-07-28 request;
//! - relay: each transcript's lines as host bytes, the device answering each and
//!   resetting once.
//!
//! Seeds are generated rather than committed; `scripts/fuzz.sh` runs this first.

use std::path::{Path, PathBuf};

use emcp_tests::Transcript;

fn main() -> std::process::ExitCode {
    let Some(out) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz-seeds OUT_DIR");
        return std::process::ExitCode::from(2);
    };
    match run(&out) {
        Ok(n) => {
            eprintln!("fuzz-seeds: {n} seeds in {}", out.display());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("fuzz-seeds: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(out: &Path) -> std::io::Result<usize> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../transcripts");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    let mut n = 0;
    let mut put = |target: &str, name: String, bytes: &[u8]| -> std::io::Result<()> {
        let d = out.join(target);
        std::fs::create_dir_all(&d)?;
        std::fs::write(d.join(name), bytes)?;
        n += 1;
        Ok(())
    };
    for path in &paths {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("t");
        let text = std::fs::read_to_string(path)?;
        let t = Transcript::parse(&text);
        // framer: buffer size knob, chunk-seed knobs.
        for (i, size) in [63u8, 15, 7].into_iter().enumerate() {
            let mut seed = vec![size, 1 + i as u8, 2, 3, 4, 5, 6, 7, 8];
            seed.extend_from_slice(&t.input);
            put("framer", format!("{stem}-{size}"), &seed)?;
        }
        // server: polls per line and halves.
        for knob in [0u8, 1, 6] {
            put(
                "server",
                format!("{stem}-{knob}"),
                &[&[knob][..], &t.input].concat(),
            )?;
        }
        // ffi_feed: mode, output buffer size, take size.
        for knobs in [[0u8, 0, 0], [1, 255, 255], [3, 0, 7]] {
            let name = format!("{stem}-{}-{}", knobs[0], knobs[1]);
            put("ffi_feed", name, &[&knobs[..], &t.input].concat())?;
        }
        // json: every line, sent and expected.
        let sent = t.input.split(|&b| b == b'\n').filter(|l| !l.is_empty());
        for (i, line) in sent.enumerate() {
            put("json", format!("{stem}-in-{i}"), line)?;
        }
        for (i, line) in t.expected.iter().enumerate() {
            put("json", format!("{stem}-out-{i}"), line.as_bytes())?;
        }
        // http: pipelined POSTs (chunk-seed knobs first).
        let mut http = vec![0u8, 0];
        for line in t.input.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            http.extend_from_slice(&post(line));
        }
        put("http", format!("{stem}-0"), &http)?;
        http[..2].copy_from_slice(&[7, 3]);
        put("http", format!("{stem}-7"), &http)?;
        // relay: knobs (timeout 1 s, 4 held lines, a 1 KiB device line buffer), the
        // device up, then each line as host bytes, each followed by the device's
        // answer to the oldest request it was sent; a reset half way.
        let lines: Vec<&[u8]> = t
            .input
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let mut relay = vec![10u8, 3, 252, 4];
        for (i, line) in lines.iter().enumerate() {
            if i == lines.len() / 2 {
                relay.extend_from_slice(&[4, 4]);
            }
            for chunk in line.chunks(254) {
                relay.extend_from_slice(&[0, chunk.len() as u8 + 1]);
                relay.extend_from_slice(chunk);
                relay.push(b'\n');
            }
            relay.extend_from_slice(&[3, 0, 5, 1]);
        }
        put("relay", format!("{stem}-0"), &relay)?;
    }
    Ok(n)
}

/// One `POST /mcp` carrying `body`, with the headers a 2026-07-28 request needs.
fn post(body: &[u8]) -> Vec<u8> {
    let mut head = String::from(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n",
    );
    let json: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let meta = json.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion");
    if let (Some(version), Some(method)) = (meta.and_then(|v| v.as_str()), json["method"].as_str())
    {
        head.push_str(&format!(
            "MCP-Protocol-Version: {version}\r\nMcp-Method: {method}\r\n"
        ));
        let name = match method {
            "tools/call" | "prompts/get" => json.pointer("/params/name"),
            "resources/read" => json.pointer("/params/uri"),
            _ => None,
        };
        if let Some(name) = name.and_then(|n| n.as_str()) {
            head.push_str(&format!("Mcp-Name: {name}\r\n"));
        }
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    [head.as_bytes(), body].concat()
}
