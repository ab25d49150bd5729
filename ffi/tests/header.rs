//! `include/emcp.h` as C programmers read it: C words in its comments, and every
//! function that takes a pointer saying what must hold for it ("Pointers:").
//!
//! Reads the checked-in header; `cargo run -p emcp-gen-header -- --check` keeps that
//! equal to what the sources generate.

use std::collections::HashSet;

fn header() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../include/emcp.h");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of every comment line (`// ...` and the ` * ` lines of `/* ... */`).
fn comment_lines(h: &str) -> Vec<(usize, &str)> {
    h.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start();
            let text = t
                .strip_prefix("//")
                .or_else(|| t.strip_prefix("/*"))
                .or_else(|| t.strip_prefix("* "))
                .or_else(|| (t == "*" || t == "*/").then_some(""))?;
            Some((i + 1, text))
        })
        .collect()
}

#[test]
fn comments_speak_c() {
    let h = header();
    let lines = comment_lines(&h);
    assert!(
        lines.len() > 100,
        "too few comment lines read: {}",
        lines.len()
    );
    // Rust words a C reader should not meet; checked as whole words (`emcp_str` and
    // `emcp_args_get_f64` are C names and stay).
    let words: HashSet<&str> = [
        "Option", "Some", "None", "Result", "Ok", "Err", "slice", "usize", "isize", "u8", "u16",
        "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "str", "Self", "impl", "fn",
        "unsafe", "trait", "Safety",
    ]
    .into_iter()
    .collect();
    let mut found = Vec::new();
    for (n, text) in &lines {
        for marker in ["&mut", "&'", "::", "# Safety", "Vec<", "[u8]"] {
            if text.contains(marker) {
                found.push(format!("line {n}: {marker:?} in {text:?}"));
            }
        }
        for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if words.contains(w) {
                found.push(format!("line {n}: {w:?} in {text:?}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "Rust vocabulary in include/emcp.h:\n{}",
        found.join("\n")
    );
}

/// Each function declaration: its name, its parameter list and the comment above it.
fn functions(h: &str) -> Vec<(String, String, String)> {
    let lines: Vec<&str> = h.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        // A declaration starts at the line's start with its return type: not a comment,
        // a directive, a typedef or a struct member (indented).
        let is_decl =
            !l.starts_with([' ', '/', '#', '}']) && !l.starts_with("typedef") && l.contains('(');
        if !is_decl {
            i += 1;
            continue;
        }
        let before = &l[..l.find('(').unwrap()];
        let name = before.rsplit([' ', '*']).next().unwrap().to_string();
        let mut params = String::new();
        let mut j = i;
        loop {
            params.push_str(lines[j]);
            if lines[j].ends_with(");") {
                break;
            }
            j += 1;
        }
        let params = params[params.find('(').unwrap()..].to_string();
        let mut doc = Vec::new();
        let mut k = i;
        while k > 0 && lines[k - 1].starts_with("//") {
            k -= 1;
            doc.push(lines[k].trim_start_matches('/').trim());
        }
        doc.reverse();
        out.push((name, params, doc.join(" ")));
        i = j + 1;
    }
    out
}

#[test]
fn every_pointer_has_its_contract() {
    let h = header();
    let fns = functions(&h);
    // Every exported function was found: one declaration per `#[no_mangle]` in ffi/src,
    // and one per function the firmware defines for the library (an `extern "C"` block's
    // `fn emcp_`).
    let sources = [
        "call",
        "critical_section",
        "descriptor",
        "lib",
        "prompt",
        "read",
        "server",
        "status",
        "stdio",
        "text",
    ];
    let exported: usize = sources
        .iter()
        .map(|m| {
            let path = format!("{}/src/{m}.rs", env!("CARGO_MANIFEST_DIR"));
            let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            src.matches("#[no_mangle]").count() + src.matches("\n    fn emcp_").count()
        })
        .sum();
    let dir = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert_eq!(dir.count(), sources.len(), "a source file not listed here");
    assert_eq!(
        fns.len(),
        exported,
        "{:?}",
        fns.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let names: Vec<&str> = fns.iter().map(|f| f.0.as_str()).collect();
    for want in [
        "emcp_server_init",
        "emcp_server_feed",
        "emcp_args_get_str",
        "emcp_status_str",
    ] {
        assert!(names.contains(&want), "{want} not found in {names:?}");
    }
    let mut missing = Vec::new();
    for (name, params, doc) in &fns {
        if doc.is_empty() {
            missing.push(format!("{name}: no comment"));
        }
        if params.contains('*') && !doc.contains("Pointers:") {
            missing.push(format!(
                "{name}: takes a pointer, no \"Pointers:\" paragraph"
            ));
        }
        if !params.contains('*') && doc.contains("Pointers:") {
            missing.push(format!("{name}: \"Pointers:\" without a pointer"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
