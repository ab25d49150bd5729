//! The internal logging facade: `trace!` goes to `defmt` when the `defmt` feature is on
//! and compiles to nothing otherwise. Logs never touch the protocol stream.

/// Log a debug message through `defmt` (feature `defmt`), or do nothing.
#[cfg(feature = "defmt")]
macro_rules! trace {
    ($($arg:tt)*) => { defmt::debug!($($arg)*) };
}

/// Log a debug message through `defmt` (feature `defmt`), or do nothing — but still
/// type-check the format string and every argument (as smoltcp's `net_log!` does), so
/// that a call site that would not compile with `defmt` does not compile without it.
#[cfg(not(feature = "defmt"))]
macro_rules! trace {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{
        let _: &str = $fmt;
        $( let _ = &$arg; )*
    }};
}

pub(crate) use trace;
