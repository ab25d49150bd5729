// Chooses the code forms the crate compiles, once for the whole crate.
//
// Some hot paths have two forms that give the same bytes: a *plain* form, smallest
// in code, and a *fast* form that spends code (wider loads, merged literals, tables
// filed while scanning) to save instructions. Pointer width stands in for "host or
// microcontroller": 64-bit targets are hosts, where cycles matter more than bytes,
// and get `cfg(emcp_fast)`; every other target (Cortex-M, RISC-V, i686 test builds)
// gets the plain forms, its flash being scarcer than its cycles.
//
// `EMCP_FORMS=fast` or `EMCP_FORMS=plain` in the build's environment overrides the
// choice (to test the plain forms on a host, or measure the fast ones on a target).

fn forms() {
    println!("cargo::rustc-check-cfg=cfg(emcp_fast)");
    println!("cargo::rerun-if-env-changed=EMCP_FORMS");
    let wide = std::env::var("CARGO_CFG_TARGET_POINTER_WIDTH").is_ok_and(|w| w == "64");
    let fast = match std::env::var("EMCP_FORMS").as_deref() {
        Ok("fast") => true,
        Ok("plain") => false,
        Ok("") | Err(_) => wide,
        Ok(other) => panic!("EMCP_FORMS={other:?}: expected `fast` or `plain`"),
    };
    if fast {
        println!("cargo::rustc-cfg=emcp_fast");
    }
}
