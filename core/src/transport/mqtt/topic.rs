//! MCP over MQTT's names: topics, user properties, identifiers (EMQX's "MCP over
//! MQTT" specification), built as parts without a buffer and recognised in place.

/// Longest client id (ours or a client's) accepted, in bytes.
pub const MAX_CLIENT_ID: usize = 64;

/// Longest server name accepted (configured or suggested by the broker), in bytes.
pub const MAX_SERVER_NAME: usize = 128;

/// User property naming the sender's role (`mcp-server` here).
pub const COMPONENT_TYPE: &str = "MCP-COMPONENT-TYPE";
/// Our role.
pub const SERVER: &str = "mcp-server";
/// User property carrying the sender's MQTT client id on every PUBLISH.
pub const CLIENT_ID: &str = "MCP-MQTT-CLIENT-ID";
/// CONNACK user property: the server name the broker wants this server to use.
pub const SERVER_NAME: &str = "MCP-SERVER-NAME";
/// CONNECT user property: the server's description as JSON (`serverName`,
/// `description`).
pub const META: &str = "MCP-META";

/// The notification that ends a session (either side).
pub const DISCONNECTED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/disconnected\"}";

/// `$mcp-server/presence/{server-id}/{server-name}`: retained online notification.
pub fn presence<'a>(sid: &'a [u8], name: &'a [u8]) -> [&'a [u8]; 4] {
    [b"$mcp-server/presence/", sid, b"/", name]
}

/// `$mcp-server/{server-id}/{server-name}`: the control topic (`initialize`).
pub fn control<'a>(sid: &'a [u8], name: &'a [u8]) -> [&'a [u8]; 4] {
    [b"$mcp-server/", sid, b"/", name]
}

/// `$mcp-server/capability/{server-id}/{server-name}`: change notifications.
pub fn capability<'a>(sid: &'a [u8], name: &'a [u8]) -> [&'a [u8]; 4] {
    [b"$mcp-server/capability/", sid, b"/", name]
}

/// `$mcp-rpc/{client-id}/{server-id}/{server-name}`: one client's messages.
pub fn rpc<'a>(client: &'a [u8], sid: &'a [u8], name: &'a [u8]) -> [&'a [u8]; 6] {
    [b"$mcp-rpc/", client, b"/", sid, b"/", name]
}

/// `$mcp-client/presence/{client-id}`: the client's disconnected notification.
pub fn client_presence(client: &[u8]) -> [&[u8]; 2] {
    [b"$mcp-client/presence/", client]
}

/// `$mcp-client/capability/{client-id}`: the client's change notifications.
pub fn client_capability(client: &[u8]) -> [&[u8]; 2] {
    [b"$mcp-client/capability/", client]
}

/// What a received topic is, for the server `sid` named `name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic<'a> {
    /// Our control topic.
    Control,
    /// The RPC topic of client `.0` with us.
    Rpc(&'a [u8]),
    /// Client `.0`'s presence topic.
    ClientPresence(&'a [u8]),
    /// Client `.0`'s capability topic.
    ClientCapability(&'a [u8]),
    /// Anything else (ignored).
    Other,
}

/// Whether `topic` is the parts of `parts` in a row.
pub fn is(topic: &[u8], parts: &[&[u8]]) -> bool {
    let mut rest = topic;
    for p in parts {
        match rest.strip_prefix(*p) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest.is_empty()
}

/// Classify a received topic.
pub fn classify<'a>(topic: &'a [u8], sid: &[u8], name: &[u8]) -> Topic<'a> {
    if is(topic, &control(sid, name)) {
        return Topic::Control;
    }
    if let Some(rest) = topic.strip_prefix(b"$mcp-rpc/".as_slice()) {
        if let Some(slash) = rest.iter().position(|b| *b == b'/') {
            let (client, tail) = rest.split_at(slash);
            if valid_id(client) && is(tail, &[b"/", sid, b"/", name]) {
                return Topic::Rpc(client);
            }
        }
        return Topic::Other;
    }
    if let Some(c) = topic.strip_prefix(b"$mcp-client/presence/".as_slice()) {
        return if valid_id(c) {
            Topic::ClientPresence(c)
        } else {
            Topic::Other
        };
    }
    if let Some(c) = topic.strip_prefix(b"$mcp-client/capability/".as_slice()) {
        return if valid_id(c) {
            Topic::ClientCapability(c)
        } else {
            Topic::Other
        };
    }
    Topic::Other
}

/// A client or server id: 1 to [`MAX_CLIENT_ID`] bytes of UTF-8 without `/`, `+`,
/// `#` (nor NUL, which MQTT forbids in strings).
pub fn valid_id(id: &[u8]) -> bool {
    !id.is_empty()
        && id.len() <= MAX_CLIENT_ID
        && core::str::from_utf8(id).is_ok()
        && !id.iter().any(|b| matches!(b, b'/' | b'+' | b'#' | 0))
}

/// A server name: 1 to [`MAX_SERVER_NAME`] bytes of UTF-8 with a `/` in it (not
/// first), without `+`, `#`, NUL, or an empty level.
pub fn valid_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SERVER_NAME
        && core::str::from_utf8(name).is_ok()
        && name.contains(&b'/')
        && !name.split(|b| *b == b'/').any(<[u8]>::is_empty)
        && !name.iter().any(|b| matches!(b, b'+' | b'#' | 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SID: &[u8] = b"dev1";
    const NAME: &[u8] = b"lab/sensor";

    #[test]
    fn topics_classified() {
        assert_eq!(
            classify(b"$mcp-server/dev1/lab/sensor", SID, NAME),
            Topic::Control
        );
        assert_eq!(
            classify(b"$mcp-rpc/c1/dev1/lab/sensor", SID, NAME),
            Topic::Rpc(b"c1")
        );
        assert_eq!(
            classify(b"$mcp-rpc/c1/dev2/lab/sensor", SID, NAME),
            Topic::Other
        );
        assert_eq!(
            classify(b"$mcp-rpc//dev1/lab/sensor", SID, NAME),
            Topic::Other
        );
        assert_eq!(classify(b"$mcp-rpc/c1", SID, NAME), Topic::Other);
        assert_eq!(
            classify(b"$mcp-client/presence/c1", SID, NAME),
            Topic::ClientPresence(b"c1")
        );
        assert_eq!(
            classify(b"$mcp-client/presence/a/b", SID, NAME),
            Topic::Other
        );
        assert_eq!(
            classify(b"$mcp-client/capability/c1", SID, NAME),
            Topic::ClientCapability(b"c1")
        );
        assert_eq!(
            classify(b"$mcp-server/dev1/lab/sensorX", SID, NAME),
            Topic::Other
        );
        assert_eq!(classify(b"", SID, NAME), Topic::Other);
    }

    #[test]
    fn ids_and_names() {
        assert!(valid_id(b"abc-1"));
        assert!(!valid_id(b""));
        assert!(!valid_id(b"a/b"));
        assert!(!valid_id(b"a+"));
        assert!(!valid_id(&[0xff]));
        assert!(!valid_id(&[b'a'; MAX_CLIENT_ID + 1]));
        assert!(valid_name(b"lab/sensor"));
        assert!(!valid_name(b"sensor"));
        assert!(!valid_name(b"/lab"));
        assert!(!valid_name(b"lab//x"));
        assert!(!valid_name(b"lab/#"));
    }
}
