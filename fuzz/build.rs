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
    // reads and writes are checked as the library's are.
    let sanitize = std::env::var("CARGO_CFG_SANITIZE").unwrap_or_default();
    println!("cargo:rerun-if-env-changed=CARGO_CFG_SANITIZE");
    if sanitize.split(',').any(|s| s == "address") {
        build.flag("-fsanitize=address");
    }
    build.compile("c_sensor_board");
}
