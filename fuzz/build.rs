//! Compiles the C sensor board (`examples/c-sensor-board/board.c`) for the `ffi_feed`
//! target: the real C device behind the C ABI. `board_write`, its output callback, is
//! defined by the target.
fn main() {
    let board = "../examples/c-sensor-board";
    println!("cargo:rerun-if-changed={board}/board.c");
    println!("cargo:rerun-if-changed={board}/board.h");
    println!("cargo:rerun-if-changed=../include/emcp.h");
    let mut build = cc::Build::new();
    build
        .file(format!("{board}/board.c"))
        .include(board)
        .include("../include")
        .flag_if_supported("-std=c99")
        .warnings(true);
    // Under AddressSanitizer (`cargo fuzz build --sanitizer address`, which sets
    // `cfg(sanitize = "address")`), the board is instrumented too, so that its own
    // reads and writes are checked as the library's are; and the targets keep the
    // system's allocator, which ASan watches (`cfg(fuzz_asan)`, see `src/lib.rs`).
    let sanitize = std::env::var("CARGO_CFG_SANITIZE").unwrap_or_default();
    println!("cargo::rustc-check-cfg=cfg(fuzz_asan)");
    if sanitize.split(',').any(|s| s == "address") {
        build.flag("-fsanitize=address");
        println!("cargo::rustc-cfg=fuzz_asan");
    }
    build.compile("c_sensor_board");
}
