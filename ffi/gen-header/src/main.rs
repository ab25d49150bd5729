//! `cargo run -p emcp-gen-header` regenerates `include/emcp.h` from the `emcp-ffi`
//! sources with the pinned cbindgen; `-- --check` fails (exit 1) when the checked-in
//! header differs from what the sources generate.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let ffi = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let header = ffi.join("../include/emcp.h");
    let config = match cbindgen::Config::from_file(ffi.join("cbindgen.toml")) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("emcp-gen-header: {e}");
            return ExitCode::FAILURE;
        }
    };
    // with_config replaces the whole configuration: it comes first.
    let bindings = match cbindgen::Builder::new()
        .with_config(config)
        .with_crate(&ffi)
        .generate()
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("emcp-gen-header: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    if check {
        let current = std::fs::read(&header).unwrap_or_default();
        if current == generated {
            eprintln!("emcp-gen-header: include/emcp.h is up to date");
            ExitCode::SUCCESS
        } else {
            eprintln!("emcp-gen-header: include/emcp.h differs from what ffi/src generates; run `cargo run -p emcp-gen-header`");
            ExitCode::FAILURE
        }
    } else if let Err(e) = std::fs::write(&header, &generated) {
        eprintln!("emcp-gen-header: cannot write {}: {e}", header.display());
        ExitCode::FAILURE
    } else {
        eprintln!("emcp-gen-header: wrote {}", header.display());
        ExitCode::SUCCESS
    }
}
