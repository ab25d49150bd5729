//! # emcp-ffi — the C ABI of emcp
//!
//! A stable C interface to the emcp MCP server core, built as a static library
//! (`libemcp_ffi.a`; `no_std` on bare-metal targets); `include/emcp.h` is generated
//! from this crate by cbindgen. It follows the
//! rustls-ffi conventions, adapted to a world without a heap:
//!
//! - **Caller-provided memory only.** The server lives in storage the caller declares
//!   (`emcp_server_storage`, size and alignment exported as constants and checked at
//!   compile time); the line buffer and the optional output buffer are the caller's
//!   too. Nothing in the library allocates: the firmware build links no allocator.
//! - Every fallible function returns an `emcp_status`; outputs go through
//!   out-parameters, written only on success; every pointer is NULL-checked; a buffer is
//!   followed by its `size_t` length; text crosses as `(pointer, length)` and must be
//!   UTF-8; callbacks take `void *userdata` first.
//! - Integers from C are converted with total functions, never transmuted to Rust
//!   enums. Every exported body runs inside one boundary macro: with the `std` feature
//!   (host builds) a panic becomes `EMCP_PANIC`; without it the library is built with
//!   `panic = "abort"`. A panic never unwinds into C — and the core is written so that
//!   none can happen.
//!
//! Every exported function's doc ends with its contract for a C caller, a "Pointers:"
//! paragraph: what each pointer must point to and for how long, what its length counts,
//! and from where the function may be called. Every `unsafe` block carries a `SAFETY:`
//! comment; in them, "the contract" is that paragraph of the enclosing function.
//!
//! Modules: [`status`] (status codes), [`text`] (`emcp_str`), [`descriptor`] (the C
//! descriptors and the device they make), [`server`] (storage, init, feed, poll,
//! output), [`call`] (tool arguments and results), [`read`] (resource contents),
//! [`prompt`] (prompt messages and completions).
//!
//! ## Cargo features
//!
//! Every feature of the crate; the repository's `docs/features.md` adds what each one
//! costs in flash and which combinations CI builds and tests.
//!
//! | feature | default | what it adds | needs |
//! |---|---|---|---|
//! | `std` | yes | host builds: a panic inside the library becomes `EMCP_PANIC` instead of an abort; ignored on bare-metal targets (`target_os = "none"`), always `no_std` | |
//! | `legacy` | yes | emcp's `legacy`: the initialize era | at least one era |
//! | `stateless` | yes | emcp's `stateless`: the 2026-07-28 era | at least one era |
//! | `resources` | yes | emcp's `resources`; without it `emcp_server_init` refuses resources or templates (`EMCP_INVALID_CONFIG`) | |
//! | `prompts` | yes | emcp's `prompts`; without it prompts are refused the same way | |
//! | `completions` | yes | emcp's `completions`; without it a `complete` callback is refused | |
//! | `logging` | yes | emcp's `logging` | |
//! | `pagination` | yes | emcp's `pagination` | |
//! | `plans` | yes | input schemas compiled at build time (`emcp_tool.plan`, written by `emcp-plan`) checked without walking the schema's text | `plans` or `schema-walk` |
//! | `schema-walk` | yes | emcp's `schema-walk`: a tool without a plan checked by walking its schema; without it `emcp_server_init` refuses such a tool (`EMCP_INVALID_SCHEMA`) | `plans` or `schema-walk` |
//! | `error-data` | yes | emcp's `error-data`: errors name the method, tool, prompt, offset or limit they refuse (in `data`); the firmware's images leave it out | |
//! | `tasks` | | emcp's `tasks`: task slots in the server storage (`EMCP_MAX_TASKS`), `emcp_server_set_key`; a C program built against it defines `EMCP_TASKS` | |
//! | `critical-section-single-core` | | on a target without atomic read-modify-write (thumbv6m, riscv32imc), a critical section that masks interrupts; without it the firmware defines `emcp_critical_section_acquire` and `_release`; inert elsewhere | `cortex-m` or `riscv` |
#![cfg_attr(not(emcp_ffi_std), no_std)]
#![allow(non_camel_case_types)]
#![deny(missing_docs)]
// Every `unsafe` block says why it is sound there; an unsafe function's body is no
// blanket licence (each unsafe operation inside it sits in a block of its own).
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::unnecessary_safety_comment,
    clippy::unnecessary_safety_doc
)]
// An exported function's doc is what C programmers read in `include/emcp.h`: its
// contract is a closing "Pointers:" paragraph in C terms, not a Rust `# Safety` heading
// (tests/header.rs checks that every function with a pointer parameter has one).
#![allow(clippy::missing_safety_doc)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

// Without the walker every tool needs its plan, and without `plans` none is read: a
// library that could serve no tool with a schema.
#[cfg(not(any(feature = "plans", feature = "schema-walk")))]
compile_error!("emcp-ffi needs `plans` or `schema-walk` (or both): a tool's arguments are checked by one of them");

pub mod call;
// Targets without atomic read-modify-write, unless the library masks interrupts itself.
#[cfg(all(
    not(target_has_atomic = "32"),
    not(feature = "critical-section-single-core")
))]
mod critical_section;
pub mod descriptor;
pub mod prompt;
pub mod read;
pub mod server;
pub mod status;
#[cfg(emcp_ffi_std)]
pub mod stdio;
pub mod text;

use core::ffi::c_char;

// The crates whose critical section the feature brings are linked for their
// `critical_section::Impl` alone: nothing here names them.
#[cfg(all(feature = "critical-section-single-core", target_arch = "arm"))]
use cortex_m as _;
#[cfg(all(feature = "critical-section-single-core", target_arch = "riscv32"))]
use riscv as _;

/// Major version of this library (kept equal to `Cargo.toml` by a test).
pub const EMCP_VERSION_MAJOR: u32 = 0;
/// Minor version of this library.
pub const EMCP_VERSION_MINOR: u32 = 1;
/// Patch version of this library.
pub const EMCP_VERSION_PATCH: u32 = 0;
/// Version of the C ABI: changes whenever a change can break a program built against an
/// earlier header (a parameter, return type or struct layout changed, a function
/// removed). New functions and constants, and `const` added to a pointer parameter, leave
/// it as it is.
pub const EMCP_ABI_VERSION: u32 = 1;

/// Run an exported function's body at the C boundary: a panic (host builds with the
/// `std` feature) becomes `EMCP_PANIC` instead of unwinding into C.
macro_rules! ffi_boundary {
    ($body:block) => {{
        #[cfg(emcp_ffi_std)]
        {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                || -> $crate::status::emcp_status { $body },
            )) {
                Ok(status) => status,
                Err(_) => $crate::status::EMCP_PANIC,
            }
        }
        #[cfg(not(emcp_ffi_std))]
        {
            // A closure all the same: a `return` in the body leaves it, as it does the
            // one `catch_unwind` runs.
            #[allow(clippy::redundant_closure_call)]
            let status = (|| -> $crate::status::emcp_status { $body })();
            status
        }
    }};
}
pub(crate) use ffi_boundary;

/// Return `EMCP_NULL_PARAMETER` from the enclosing function when a pointer is NULL.
macro_rules! non_null {
    ($($p:expr),+) => {
        $(if $p.is_null() {
            return $crate::status::EMCP_NULL_PARAMETER;
        })+
    };
}
pub(crate) use non_null;

/// The library version as a NUL-terminated string, e.g. `"0.1.0"`: the
/// `EMCP_VERSION_MAJOR`, `_MINOR` and `_PATCH` this library was built with. The string
/// is static: do not free or modify it.
#[no_mangle]
pub extern "C" fn emcp_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(all(not(emcp_ffi_std), not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // Unreachable by construction (the core has no panic paths); stop here rather than
    // continue in an unknown state.
    loop {
        core::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_macros_match_cargo_toml() {
        let v = env!("CARGO_PKG_VERSION");
        let expect = format!(
            "{}.{}.{}",
            super::EMCP_VERSION_MAJOR,
            super::EMCP_VERSION_MINOR,
            super::EMCP_VERSION_PATCH
        );
        assert_eq!(v, expect);
        // SAFETY: `emcp_version` returns a pointer into a static string literal that ends
        // in the NUL `concat!` appends.
        let c = unsafe { core::ffi::CStr::from_ptr(super::emcp_version()) };
        assert_eq!(c.to_str().unwrap(), v);
    }
}
