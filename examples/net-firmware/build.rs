//! Writes `memory.x` where cortex-m-rt's `link.x` finds it: `memory.x.in` with the
//! image's stack size for `STACK_SIZE`: 8,448 bytes for the conformance image, 8,704
//! for the MQTT image, 5,312 for the sensor image (`memory.x.in` says why).

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let stack = if env::var_os("CARGO_FEATURE_CONFORMANCE").is_some() {
        "8448"
    } else if env::var_os("CARGO_FEATURE_MQTT").is_some() {
        "8704"
    } else {
        "5312"
    };
    let memory = fs::read_to_string("memory.x.in").expect("memory.x.in is readable");
    fs::write(out.join("memory.x"), memory.replace("STACK_SIZE", stack))
        .expect("OUT_DIR is writable");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x.in");
}
