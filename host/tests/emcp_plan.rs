//! The `emcp-plan` generator: the checked-in headers are what it writes now, and a
//! file it cannot compile is refused with exit status 2.

use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_emcp-plan"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(args)
        .output()
        .unwrap()
}

/// Every generated header of the repository, regenerated, is the file checked in (so
/// that a schema edited in its `.schemas` file and not regenerated fails here, before
/// `emcp_server_init` refuses it).
#[test]
fn generated_plans_are_current() {
    for (prefix, schemas, header) in [
        (
            "board_",
            "examples/c-sensor-board/board.schemas",
            "examples/c-sensor-board/board_plans.h",
        ),
        ("edge_", "tests/c/edge.schemas", "tests/c/edge_plans.h"),
    ] {
        let out = run(&["--prefix", prefix, schemas]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../").to_string() + header;
        let checked_in = std::fs::read_to_string(&path).unwrap();
        assert!(
            out.stdout == checked_in.as_bytes(),
            "{header} is not what emcp-plan writes from {schemas}: regenerate it \
             (cargo run -p emcp-host --bin emcp-plan -- --prefix {prefix} {schemas} > {header})"
        );
    }
}

#[test]
fn bad_schema_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("emcp-plan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (text, says) in [
        ("x {\"type\":", "not JSON"),
        ("x [1]", "a JSON object"),
        ("x-y {}", "letters, digits"),
        ("lonely", "NAME JSON"),
        (
            "x {\"properties\":{\"a\":{},\"b\":{},\"c\":{},\"d\":{},\"e\":{},\"f\":{},\"g\":{},\"h\":{},\"i\":{}}}",
            "cannot hold",
        ),
    ] {
        let path = dir.join("bad.schemas");
        std::fs::write(&path, format!("// a comment\n\n{text}\n")).unwrap();
        let out = run(&[path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("line 3") && err.contains(says), "{text}: {err}");
        assert!(out.stdout.is_empty());
    }
    assert_eq!(run(&["--nope"]).status.code(), Some(2));
    assert_eq!(run(&[]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
