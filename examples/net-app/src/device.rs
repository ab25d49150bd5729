//! The device the application serves, chosen by cargo feature: `sensor` (default), the
//! simulated sensor board of `examples/sensor-board`, or `conformance`, the official
//! conformance suite's fixtures (`examples/conformance-device`); both `no_std`
//! libraries shared with their host binaries.

#[cfg(all(feature = "sensor", feature = "conformance"))]
compile_error!("choose one device: `--no-default-features --features conformance`");

#[cfg(feature = "sensor")]
mod chosen {
    use emcp::wire::error::ConfigError;
    use sensor_board::{Board, CONFIG};

    /// Its name in logs.
    pub const NAME: &str = "sensor board";

    /// Connections served at once.
    pub const CONNECTIONS: usize = 4;
    /// Sockets beyond one per connection: a new connection's SYN often comes
    /// before the device has seen the end of the client's last one, so the sockets
    /// of those ends and of the new connections are in use at once. With five, no
    /// connection is refused while there are no more clients than connections, each
    /// opening a new connection per request (benches/firmware/load.py).
    pub const BACKLOG: usize = 5;
    /// A backlog socket's receive window: small (a request it takes in is served
    /// through it, in more round trips), for the RAM.
    pub const BACK_RX: usize = 192;
    /// A backlog socket's send ring: holds a 503 whole.
    pub const BACK_TX: usize = 256;
    /// A socket's send buffer, which holds a whole response: the board's longest,
    /// the `log://samples` read, is over 5 KiB.
    pub const SOCKET_TX: usize = 6400;
    /// A socket's receive window.
    pub const SOCKET_RX: usize = 768;
    /// A request's head and body.
    pub const REQUEST: usize = 3072;
    /// A request's body.
    pub const MAX_BODY: usize = 2048;

    /// The server type, with the core's default bounds.
    pub type AppServer = emcp::Server<Board>;

    /// The server around the board at power-on.
    #[inline(always)]
    pub fn server(_seed: u64) -> Result<AppServer, ConfigError> {
        emcp::Server::new(Board::new(), CONFIG)
    }
}

#[cfg(feature = "conformance")]
mod chosen {
    use conformance_device::{Conformance, Fixtures, CONFIG};
    use emcp::state::seal::StateKey;
    use emcp::wire::error::ConfigError;

    /// Its name in logs.
    pub const NAME: &str = "conformance fixtures";

    /// Connections served at once: the suite keeps several open at a time (event
    /// streams, concurrent requests, idle keep-alive connections).
    pub const CONNECTIONS: usize = 6;
    /// Sockets beyond one per connection: one, for the RAM (it answers 503 when
    /// every connection is busy).
    pub const BACKLOG: usize = 1;
    /// A backlog socket's receive window: small (a request it takes in is served
    /// through it, slower).
    pub const BACK_RX: usize = 64;
    /// A backlog socket's send ring: holds a 503 whole.
    pub const BACK_TX: usize = 256;
    /// A socket's send buffer, which holds a whole response.
    pub const SOCKET_TX: usize = 3072;
    /// A socket's receive window.
    pub const SOCKET_RX: usize = 512;
    /// A request's head and body.
    pub const REQUEST: usize = 2048;
    /// A request's body.
    pub const MAX_BODY: usize = 1536;

    /// The server type, with the bounds the fixtures need.
    pub type AppServer = Conformance;

    /// The server around the fixtures, its `requestState` sealed with a key drawn
    /// from `seed` (QEMU's board has no random source; a product takes the key from
    /// its TRNG).
    #[inline(always)]
    pub fn server(seed: u64) -> Result<AppServer, ConfigError> {
        let mut server = emcp::Server::new(Fixtures, CONFIG)?;
        let mut key = [0u8; 32];
        let mut state = seed;
        for chunk in key.chunks_mut(8) {
            // SplitMix64: spreads the seed over the key's bytes.
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            for (d, s) in chunk.iter_mut().zip(z.to_le_bytes()) {
                *d = s;
            }
        }
        server.set_state_key(StateKey::new(key));
        Ok(server)
    }
}

pub use chosen::*;
