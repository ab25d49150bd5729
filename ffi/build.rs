// The C ABI compiles the same code forms as the core (../core/build/forms.rs), and
// decides whether it is built with `std`.
include!("../core/build/forms.rs");

fn main() {
    forms();
    // The `std` feature (default: a panic becomes EMCP_PANIC at the boundary) applies
    // to targets with an operating system only. On a bare-metal target the library is
    // `no_std` whatever the features, so the obvious
    // `cargo build -p emcp-ffi --target thumbv7m-none-eabi` builds.
    println!("cargo::rustc-check-cfg=cfg(emcp_ffi_std)");
    let std = std::env::var_os("CARGO_FEATURE_STD").is_some();
    let bare = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "none");
    if std && !bare {
        println!("cargo::rustc-cfg=emcp_ffi_std");
    }
}
