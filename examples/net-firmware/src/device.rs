//! The device this image serves, chosen by cargo feature: `sensor` (default), the
//! simulated sensor board of `examples/sensor-board`, compiled `no_std`; or
//! `conformance`, the official conformance suite's device.

#[cfg(all(feature = "sensor", feature = "conformance"))]
compile_error!("choose one device: `--features conformance --no-default-features`");

#[cfg(feature = "sensor")]
mod chosen {
    pub use sensor_board::{Board as Device, CONFIG};

    /// The device at power-on.
    pub fn new() -> Device {
        Device::new()
    }

    /// Its name in logs.
    pub const NAME: &str = "sensor board";
}

// TODO(issue 22, branch `libs`): the conformance suite's device as a `no_std` library
// crate (`examples/conformance-device`), shared with `examples/conformance-server`.
// When it lands: depend on it behind the `conformance` feature and re-export its
// `Device` type, `CONFIG`, `new()` and `NAME` here, as the `sensor` module does.
#[cfg(feature = "conformance")]
compile_error!(
    "the conformance device is not a no_std library yet (issue 22, branch `libs`): \
     see the TODO in src/device.rs"
);

pub use chosen::*;
