//! Compiles the C sensor board (`examples/c-sensor-board/board.c`) for the `ffi_feed`
//! target: the real C device behind the C ABI. `board_write`, its output callback, is
//! defined by the target.
fn main() {
    let board = "../examples/c-sensor-board";
    println!("cargo:rerun-if-changed={board}/board.c");
    println!("cargo:rerun-if-changed={board}/board.h");
    println!("cargo:rerun-if-changed=../include/emcp.h");
    cc::Build::new()
        .file(format!("{board}/board.c"))
        .include(board)
        .include("../include")
        .flag_if_supported("-std=c99")
        .warnings(true)
        .compile("c_sensor_board");
}
