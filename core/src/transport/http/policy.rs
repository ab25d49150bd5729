//! What an endpoint accepts: its path, the names it answers to in `Host` and
//! `Origin` (DNS-rebinding protection), the body bound and the bearer token.
//!
//! The names are loopback, a static list ([`Policy::hosts`]), and the device's own
//! names that change at run time ([`OwnHost`]: the address DHCP gave it, its mDNS
//! name `NAME.local`). Names compare without regard to case, with any port.

use core::sync::atomic::{AtomicU32, Ordering};

/// What an endpoint accepts. `const`-constructible ([`Policy::new`]) so that it can
/// be a `static`.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// The endpoint's path (default `/mcp`); a query string is ignored.
    pub endpoint: &'static str,
    /// Host names allowed in `Host` and `Origin` besides `localhost`, `127.0.0.1` and
    /// `[::1]` (default none: a loopback bind). A device on a network lists the names
    /// it is known by that do not change; [`Policy::own`] adds those that do.
    pub hosts: &'static [&'static str],
    /// The device's own address and mDNS name, read at each request (default none).
    /// Its network task keeps the address current ([`OwnHost::set_ipv4`]).
    pub own: Option<&'static OwnHost>,
    /// Largest request body in bytes (default 8192).
    pub max_body: usize,
    /// A bearer token every request must carry (`Authorization: Bearer <token>`,
    /// compared in constant time), for a device on a network; 401 without it. Default
    /// none.
    pub bearer: Option<&'static str>,
}

impl Policy {
    /// The default policy: `/mcp`, loopback names only, bodies up to 8192 bytes, no
    /// token.
    pub const fn new() -> Self {
        Policy {
            endpoint: "/mcp",
            hosts: &[],
            own: None,
            max_body: 8192,
            bearer: None,
        }
    }

    /// Whether a `Host` value names this endpoint: loopback, one of
    /// [`Policy::hosts`], or [`Policy::own`]'s address or name; any port.
    ///
    /// ```
    /// use emcp::transport::http::{OwnHost, Policy};
    /// static OWN: OwnHost = OwnHost::new("valve");
    /// let policy = Policy { hosts: &["bench-pi"], own: Some(&OWN), ..Policy::new() };
    /// assert!(policy.allows_host(b"localhost:8080"));
    /// assert!(policy.allows_host(b"Valve.LOCAL"));
    /// assert!(policy.allows_host(b"bench-pi"));
    /// assert!(!policy.allows_host(b"192.168.1.50"));
    /// OWN.set_ipv4(Some([192, 168, 1, 50]));
    /// assert!(policy.allows_host(b"192.168.1.50:80"));
    /// assert!(!policy.allows_host(b"evil.example"));
    /// ```
    pub fn allows_host(&self, value: &[u8]) -> bool {
        let name = host_name(value);
        allowed_host(value, self.hosts) || self.own.is_some_and(|own| own.names(name))
    }

    /// Whether an `Origin` value (`scheme://host[:port]`) names this endpoint
    /// ([`Policy::allows_host`]).
    pub fn allows_origin(&self, value: &[u8]) -> bool {
        origin_host(value).is_some_and(|h| self.allows_host(h))
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new()
    }
}

/// The device's own names that change at run time: its current IPv4 address and its
/// mDNS name. Put one in a `static` (or a `StaticCell`), point [`Policy::own`] at
/// it, and have the task that watches the network stack call
/// [`OwnHost::set_ipv4`] whenever the address changes (DHCP). Plain atomic loads
/// and stores only, so it works on targets without atomic read-modify-write
/// (Cortex-M0+, RV32IMC).
#[derive(Debug)]
pub struct OwnHost {
    /// The address's octets as a big-endian `u32`; 0 (0.0.0.0, never a `Host`) when
    /// the device has none.
    ipv4: AtomicU32,
    /// The mDNS name without `.local` (empty: none).
    name: &'static str,
}

impl OwnHost {
    /// A device called `name` on mDNS (without `.local`: `"valve"` answers
    /// `Host: valve.local`; empty for none), with no address yet.
    pub const fn new(name: &'static str) -> Self {
        OwnHost {
            ipv4: AtomicU32::new(0),
            name,
        }
    }

    /// The device's current IPv4 address (`None`: it has none, as while DHCP has
    /// not answered yet).
    pub fn set_ipv4(&self, address: Option<[u8; 4]>) {
        let bits = address.map_or(0, u32::from_be_bytes);
        self.ipv4.store(bits, Ordering::Relaxed);
    }

    /// The address last set.
    pub fn ipv4(&self) -> Option<[u8; 4]> {
        match self.ipv4.load(Ordering::Relaxed) {
            0 => None,
            bits => Some(bits.to_be_bytes()),
        }
    }

    /// The mDNS name, without `.local`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether a host name (without its port) is this device's address or its
    /// `.local` name.
    fn names(&self, name: &[u8]) -> bool {
        let local = !self.name.is_empty()
            && name.len() == self.name.len() + LOCAL.len()
            && name
                .get(..self.name.len())
                .is_some_and(|n| n.eq_ignore_ascii_case(self.name.as_bytes()))
            && name
                .get(self.name.len()..)
                .is_some_and(|d| d.eq_ignore_ascii_case(LOCAL));
        local || self.ipv4().is_some_and(|own| parse_ipv4(name) == Some(own))
    }
}

/// The mDNS domain.
const LOCAL: &[u8] = b".local";

/// A dotted-quad IPv4 address in canonical form (no leading zeros).
fn parse_ipv4(name: &[u8]) -> Option<[u8; 4]> {
    let mut octets = [0u8; 4];
    let mut parts = name.split(|&b| b == b'.');
    for octet in octets.iter_mut() {
        let part = parts.next()?;
        let canonical = matches!(part, [b'0'] | [b'1'..=b'9', ..]) && part.len() <= 3;
        if !canonical || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = part.iter().fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
        *octet = u8::try_from(n).ok()?;
    }
    parts.next().is_none().then_some(octets)
}

/// A `Host` value without its port (`[::1]:80` → `[::1]`, `valve.local:8080` →
/// `valve.local`).
fn host_name(value: &[u8]) -> &[u8] {
    match value {
        [b'[', ..] => value
            .iter()
            .position(|&b| b == b']')
            .and_then(|i| value.get(..=i))
            .unwrap_or(value),
        _ => value.split(|&b| b == b':').next().unwrap_or(value),
    }
}

/// The `host[:port]` of an `Origin` value (`scheme://host[:port]`, no path).
fn origin_host(value: &[u8]) -> Option<&[u8]> {
    value
        .strip_prefix(b"http://")
        .or_else(|| value.strip_prefix(b"https://"))
        .filter(|r| !r.contains(&b'/'))
}

/// Whether a `Host` value names this endpoint: loopback or one of `hosts`, any port.
///
/// ```
/// use emcp::transport::http::allowed_host;
/// assert!(allowed_host(b"localhost:8080", &[]));
/// assert!(allowed_host(b"[::1]:1", &[]));
/// assert!(!allowed_host(b"evil.example", &[]));
/// assert!(allowed_host(b"bench-pi:8080", &["bench-pi"]));
/// ```
pub fn allowed_host(value: &[u8], hosts: &[&str]) -> bool {
    let name = host_name(value);
    ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .chain(hosts.iter())
        .any(|h| name.eq_ignore_ascii_case(h.as_bytes()))
}

/// Whether an `Origin` value (`scheme://host[:port]`) names an allowed host.
///
/// ```
/// use emcp::transport::http::allowed_origin;
/// assert!(allowed_origin(b"http://127.0.0.1:3000", &[]));
/// assert!(!allowed_origin(b"http://evil.example", &[]));
/// assert!(!allowed_origin(b"http://localhost/path", &[]));
/// ```
pub fn allowed_origin(value: &[u8], hosts: &[&str]) -> bool {
    origin_host(value).is_some_and(|r| allowed_host(r, hosts))
}

/// `a == b` in time that depends only on the lengths (no early exit on the first
/// differing byte), for comparing secrets.
pub(super) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for (x, y) in a.iter().zip(b.iter()) {
        diff |= x ^ y;
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_canonical_only() {
        assert_eq!(parse_ipv4(b"10.0.2.15"), Some([10, 0, 2, 15]));
        assert_eq!(parse_ipv4(b"255.255.255.255"), Some([255; 4]));
        assert_eq!(parse_ipv4(b"0.0.0.0"), Some([0; 4]));
        for bad in [
            &b"256.0.0.1"[..],
            b"10.0.2",
            b"10.0.2.15.1",
            b"010.0.2.15",
            b"10..2.15",
            b"10.0.2.1a",
            b"1000.0.0.1",
            b"",
            b"valve.local",
        ] {
            assert_eq!(parse_ipv4(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn own_names_follow_the_address() {
        static OWN: OwnHost = OwnHost::new("emcp-sensor");
        let policy = Policy {
            own: Some(&OWN),
            ..Policy::new()
        };
        assert!(policy.allows_host(b"emcp-sensor.local"));
        assert!(policy.allows_host(b"EMCP-Sensor.Local:80"));
        assert!(policy.allows_origin(b"http://emcp-sensor.local:8080"));
        assert!(!policy.allows_host(b"emcp-sensor"));
        assert!(!policy.allows_host(b"emcp-sensorx.local"));
        assert!(!policy.allows_host(b"x.emcp-sensor.local"));
        assert!(!policy.allows_host(b"0.0.0.0"));
        OWN.set_ipv4(Some([192, 168, 1, 50]));
        assert_eq!(OWN.ipv4(), Some([192, 168, 1, 50]));
        assert!(policy.allows_host(b"192.168.1.50"));
        assert!(policy.allows_origin(b"http://192.168.1.50:80"));
        assert!(!policy.allows_host(b"192.168.1.51"));
        OWN.set_ipv4(Some([192, 168, 1, 51]));
        assert!(!policy.allows_host(b"192.168.1.50"));
        assert!(policy.allows_host(b"192.168.1.51"));
        OWN.set_ipv4(None);
        assert!(!policy.allows_host(b"192.168.1.51"));
        assert!(policy.allows_host(b"localhost"));
        // No name: nothing ends in `.local` for it.
        static NAMELESS: OwnHost = OwnHost::new("");
        let policy = Policy {
            own: Some(&NAMELESS),
            ..Policy::new()
        };
        assert!(!policy.allows_host(b".local"));
    }
}
