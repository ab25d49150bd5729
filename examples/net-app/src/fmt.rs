//! The log facade: `log_info!` and `log_warn!` go to `defmt` (feature `defmt`), to
//! `log` (feature `log`), or nowhere, so that call sites carry no `cfg` (as
//! smoltcp's `net_log!`). Format strings use only `{}` with integers and `&str`,
//! which both backends print.

macro_rules! log_at {
    ($level:ident, $fmt:literal $(, $arg:expr)* $(,)?) => {{
        #[cfg(feature = "defmt")]
        ::defmt::$level!($fmt $(, $arg)*);
        #[cfg(feature = "log")]
        ::log::$level!($fmt $(, $arg)*);
        #[cfg(not(any(feature = "defmt", feature = "log")))]
        {
            $(let _ = &$arg;)*
        }
    }};
}

macro_rules! log_info {
    ($($t:tt)*) => { $crate::fmt::log_at!(info, $($t)*) };
}

macro_rules! log_warn {
    ($($t:tt)*) => { $crate::fmt::log_at!(warn, $($t)*) };
}

pub(crate) use {log_at, log_info, log_warn};
