//! The gateway: MCP devices behind an MQTT 5 broker (EMQX's MCP over MQTT), served to
//! MCP hosts by the bridge's own stdio and Streamable HTTP serving. Both shapes are a
//! [`crate::link::Link`], so the pump, the relay and the HTTP side are the ones every
//! other device uses:
//!
//! - [`device::MqttDevice`] — one device by server name: the link opens when an
//!   instance is online (retained presence), carries the host's lines over the
//!   control and RPC topics, and ends when the device's presence goes (its will, a
//!   shutdown, or a restart's new presence) or the broker does: the relay answers
//!   what was in flight with -32000 and replays the session on the next instance.
//! - [`fleet::Fleet`] — every device online as one MCP server ([`fleet`] says how
//!   names are namespaced), its lists following the presence topics.
//!
//! Underneath: [`wire`] (the MQTT 5 packets, no I/O) and [`client`] (one broker
//! connection). The MQTT client is the bridge's own: QoS 0, one filter per
//! SUBSCRIBE, user properties both ways, bounded packets — the part of MQTT 5 the
//! protocol uses, over the std threads and blocking sockets the rest of the bridge
//! is built on (no async runtime enters the crate).

pub mod client;
pub mod device;
pub mod fleet;
pub mod wire;

use std::sync::atomic::{AtomicU64, Ordering};

/// The client's goodbye (its will carries the same).
pub const DISCONNECTED: &str = r#"{"jsonrpc":"2.0","method":"notifications/disconnected"}"#;

/// A fresh `mcp-client-id` (the protocol wants a new one per initialization).
pub fn new_client_id() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let seed = emcp_host::session_seed();
    format!(
        "emcp-gw-{}-{:x}-{n}",
        std::process::id(),
        seed & 0xFFFF_FFFF
    )
}

/// The protocol's topics.
pub mod topic {
    /// `$mcp-server/presence/+/{filter}`.
    pub fn presence_filter(filter: &str) -> String {
        format!("$mcp-server/presence/+/{filter}")
    }
    /// `$mcp-server/capability/+/{filter}`.
    pub fn capability_filter(filter: &str) -> String {
        format!("$mcp-server/capability/+/{filter}")
    }
    /// `$mcp-rpc/{client}/#`: every device's RPC topic with this client.
    pub fn rpc_filter(client: &str) -> String {
        format!("$mcp-rpc/{client}/#")
    }
    /// The control topic `$mcp-server/{sid}/{name}` (`initialize` only).
    pub fn control(sid: &str, name: &str) -> String {
        format!("$mcp-server/{sid}/{name}")
    }
    /// `$mcp-rpc/{client}/{sid}/{name}`.
    pub fn rpc(client: &str, sid: &str, name: &str) -> String {
        format!("$mcp-rpc/{client}/{sid}/{name}")
    }
    /// `$mcp-client/presence/{client}`.
    pub fn client_presence(client: &str) -> String {
        format!("$mcp-client/presence/{client}")
    }

    /// Where a topic came from, as the gateway reads it.
    #[derive(Debug, PartialEq, Eq)]
    pub enum Parsed<'a> {
        /// `$mcp-server/presence/{sid}/{name}`.
        Presence { sid: &'a str, name: &'a str },
        /// `$mcp-server/capability/{sid}/{name}`.
        Capability { sid: &'a str, name: &'a str },
        /// `$mcp-rpc/{client}/{sid}/{name}`.
        Rpc {
            client: &'a str,
            sid: &'a str,
            name: &'a str,
        },
    }

    /// Reads a topic; `None` for others and for empty ids or names.
    pub fn parse(topic: &str) -> Option<Parsed<'_>> {
        fn two<'a>(topic: &'a str, prefix: &str) -> Option<(&'a str, &'a str)> {
            let tail = topic.strip_prefix(prefix)?;
            let (sid, name) = tail.split_once('/')?;
            (!sid.is_empty() && !name.is_empty()).then_some((sid, name))
        }
        if let Some((sid, name)) = two(topic, "$mcp-server/presence/") {
            return Some(Parsed::Presence { sid, name });
        }
        if let Some((sid, name)) = two(topic, "$mcp-server/capability/") {
            return Some(Parsed::Capability { sid, name });
        }
        let tail = topic.strip_prefix("$mcp-rpc/")?;
        let (client, rest) = tail.split_once('/')?;
        let (sid, name) = rest.split_once('/')?;
        (!client.is_empty() && !sid.is_empty() && !name.is_empty()).then_some(Parsed::Rpc {
            client,
            sid,
            name,
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn topics_parse_with_hierarchical_names() {
            assert_eq!(
                parse("$mcp-server/presence/s1/greenhouse/bed-3"),
                Some(Parsed::Presence {
                    sid: "s1",
                    name: "greenhouse/bed-3"
                })
            );
            assert_eq!(
                parse("$mcp-rpc/c/s1/a/b"),
                Some(Parsed::Rpc {
                    client: "c",
                    sid: "s1",
                    name: "a/b"
                })
            );
            assert_eq!(parse("$mcp-server/presence/s1"), None);
            assert_eq!(parse("$mcp-server/presence//x"), None);
            assert_eq!(parse("$mcp-rpc/c/s1"), None);
            assert_eq!(parse("other/x/y"), None);
        }
    }
}

/// A payload as one line: CR and LF (JSON whitespace outside strings, invalid inside
/// them) become spaces, so a pretty-printed message still frames as one line.
pub fn one_line(payload: &[u8]) -> Vec<u8> {
    let mut line: Vec<u8> = payload
        .iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
        .collect();
    line.push(b'\n');
    line
}

/// Bytes in, one call per complete line out (without its newline and `\r`; blank
/// lines skipped); a line over `max` bytes is dropped to its newline.
pub struct LineWriter<F> {
    line: Vec<u8>,
    skipping: bool,
    max: usize,
    each: F,
}

impl<F: FnMut(&[u8]) -> std::io::Result<()>> LineWriter<F> {
    /// Lines of at most `max` bytes, each handed to `each`.
    pub fn new(max: usize, each: F) -> Self {
        LineWriter {
            line: Vec::new(),
            skipping: false,
            max,
            each,
        }
    }
}

impl<F: FnMut(&[u8]) -> std::io::Result<()>> std::io::Write for LineWriter<F> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for chunk in buf.split_inclusive(|b| *b == b'\n') {
            let (body, ends) = match chunk.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (chunk, false),
            };
            if !self.skipping {
                if self.line.len() + body.len() > self.max {
                    self.skipping = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(body);
                }
            }
            if ends {
                let line = std::mem::take(&mut self.line);
                let line = line.strip_suffix(b"\r").unwrap_or(&line);
                if !self.skipping && !line.iter().all(u8::is_ascii_whitespace) {
                    (self.each)(line)?;
                }
                self.skipping = false;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn line_writer_splits_anywhere_and_drops_long_lines() {
        let mut got = Vec::new();
        {
            let mut w = LineWriter::new(5, |l: &[u8]| {
                got.push(l.to_vec());
                Ok(())
            });
            for piece in [&b"ab"[..], b"c\r\n\n0123456789", b"\nxy", b"z\n"] {
                w.write_all(piece).unwrap();
            }
        }
        assert_eq!(got, [b"abc".to_vec(), b"xyz".to_vec()]);
    }

    #[test]
    fn payloads_become_one_line() {
        assert_eq!(one_line(b"{\n \"a\": 1\r\n}"), b"{  \"a\": 1  }\n");
    }
}
