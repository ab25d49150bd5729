//! Names the board this image is for and puts its memory layout where the runtime's
//! linker script finds it.
//!
//! Each Rust target here has one board (`cfg(board = "…")`, read once in `main.rs`,
//! where it picks `src/board/<board>.rs`), so `cargo build --target T` needs no
//! feature to say which: `memory/<board>.x` becomes `memory.x` on the link path, where
//! cortex-m-rt's and riscv-rt's `link.x` include it.

use std::{env, fs, path::PathBuf};

/// The boards, by Rust target.
const BOARDS: &[(&str, &str)] = &[
    ("thumbv6m-none-eabi", "microbit"),
    ("thumbv7m-none-eabi", "mps2"),
    ("thumbv7em-none-eabihf", "mps2"),
    ("thumbv8m.main-none-eabihf", "mps2_an505"),
    ("riscv32imc-unknown-none-elf", "sifive_e"),
];

fn main() {
    let names: Vec<String> = BOARDS.iter().map(|(_, b)| format!("\"{b}\"")).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(board, values({}))",
        names.join(", ")
    );
    let target = env::var("TARGET").expect("cargo sets TARGET");
    let Some(&(_, board)) = BOARDS.iter().find(|(t, _)| *t == target) else {
        let targets: Vec<&str> = BOARDS.iter().map(|(t, _)| *t).collect();
        panic!(
            "no board for {target}: build for one of {}",
            targets.join(", ")
        );
    };
    println!("cargo::rustc-cfg=board=\"{board}\"");

    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let layout = format!("memory/{board}.x");
    fs::copy(&layout, out.join("memory.x")).expect("memory/<board>.x is readable");
    println!("cargo::rustc-link-search={}", out.display());
    println!("cargo::rerun-if-changed={layout}");
}
