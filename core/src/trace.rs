//! The internal logging facade: `trace!` goes to `defmt` when the `defmt` feature is on
//! and compiles to nothing otherwise. Logs never touch the protocol stream.

/// Log a debug message through `defmt` (feature `defmt`), or do nothing.
#[cfg(feature = "defmt")]
macro_rules! trace {
    ($($arg:tt)*) => { defmt::debug!($($arg)*) };
}

/// Log a debug message through `defmt` (feature `defmt`), or do nothing.
#[cfg(not(feature = "defmt"))]
macro_rules! trace {
    ($($arg:tt)*) => {{}};
}

pub(crate) use trace;
