//! The link scripts: esp-hal's `linkall.x` (memory map, the ROM's symbols, the
//! runtime) and defmt's. Here rather than in `.cargo/config.toml`, which cargo reads
//! from the directory it runs in, not from `--manifest-path`'s: a build started
//! elsewhere would lose them and fail on `_dram_data_start`.

fn main() {
    println!("cargo:rustc-link-arg-bins=-Tlinkall.x");
    println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
}
