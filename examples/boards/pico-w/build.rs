//! The linker set-up of the board chosen by feature: its `memory.x` where
//! cortex-m-rt's `link.x` finds it, and the linker scripts, as `-T` arguments here
//! rather than in `.cargo/config.toml` so that `--manifest-path` works from any
//! directory: `link.x` (cortex-m-rt), `link-rp.x` (embassy-rp's RP2040 boot2 and
//! vector table checks; none on the RP2350) and `defmt.x`.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let rp2040 = env::var_os("CARGO_FEATURE_PICO_W").is_some();
    let memory = if rp2040 {
        "memory-rp2040.x"
    } else {
        "memory-rp2350.x"
    };
    fs::copy(memory, out.join("memory.x")).expect("the memory map is readable");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory-rp2040.x");
    println!("cargo:rerun-if-changed=memory-rp2350.x");
    println!("cargo:rustc-link-arg-bins=--nmagic");
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    if rp2040 {
        println!("cargo:rustc-link-arg-bins=-Tlink-rp.x");
    }
    println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
    nvram(&out);
}

/// The radio's NVRAM table in the form the radio loads, from its text form
/// (`firmware/nvram_rp2040.txt`) as embassy's `cyw43-firmware/write_nvrams.rs` makes
/// it: each `key=value` line (comments after `#` and blank lines dropped) followed by
/// a NUL, then two NULs.
fn nvram(out: &std::path::Path) {
    let text =
        fs::read_to_string("firmware/nvram_rp2040.txt").expect("the NVRAM table is readable");
    let mut bytes = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim_end();
        if !line.is_empty() {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(0);
        }
    }
    bytes.extend_from_slice(&[0, 0]);
    fs::write(out.join("nvram_rp2040.bin"), bytes).expect("OUT_DIR is writable");
    println!("cargo:rerun-if-changed=firmware/nvram_rp2040.txt");
}
