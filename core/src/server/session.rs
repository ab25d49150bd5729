//! Several legacy-era sessions on one server, for a transport that serves many
//! clients over one link (MQTT: one session per client id): the per-session state
//! moves out into a [`Session`] the transport keeps, and back in for the requests of
//! that client ([`Server::swap_session`]).

use super::method::Method;
use super::Server;
use super::MAX_DESCRIPTORS;
use crate::device::Device;
use crate::device::LogLevel;
use crate::wire::json::JsonWriter;
use crate::wire::version::Version;

/// What a server keeps of one legacy-era session: the version `initialize`
/// negotiated, the log level of `logging/setLevel` and the input capabilities the
/// client declared, and the resources it subscribed to (`resources/subscribe`). A
/// fresh one is a client that has not initialized.
#[derive(Clone, Copy, Debug, Default)]
pub struct Session {
    version: Option<Version>,
    log: Option<LogLevel>,
    /// The client's input capabilities (nothing without `input`).
    caps: crate::device::input::Capabilities,
    /// The resources the session subscribed to (a bit per resource index).
    resources: u32,
}

impl Session {
    /// A session that has not initialized.
    pub fn new() -> Self {
        Self::default()
    }

    /// The version `initialize` negotiated, if it did.
    pub fn version(&self) -> Option<Version> {
        self.version
    }

    /// A session subscribed to every resource one of `sessions` subscribed to, and
    /// nothing else: swapped in to write change notifications on a stream that all
    /// of those sessions' clients hear (MQTT's capability topic), so that a resource
    /// is announced once while any of them still wants it.
    pub fn subscribed_by<'a>(sessions: impl IntoIterator<Item = &'a Session>) -> Self {
        let resources = sessions.into_iter().fold(0, |all, s| all | s.resources);
        Self {
            resources,
            ..Self::default()
        }
    }
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Exchange the server's current session with `session`: call it before a
    /// client's requests with that client's session, and again after them to put
    /// both back. The session's resource subscriptions go with it; nothing else
    /// changes (jobs, listen streams and changes not yet sent stay with the server).
    pub fn swap_session(&mut self, session: &mut Session) {
        core::mem::swap(&mut self.session_version, &mut session.version);
        core::mem::swap(&mut self.session_log, &mut session.log);
        core::mem::swap(&mut self.input.session_caps, &mut session.caps);
        core::mem::swap(&mut self.subs.session, &mut session.resources);
    }

    /// Write the device's tools as a JSON array, each as `tools/list` lists it (all of
    /// them, in one page): for an announcement that carries them (MQTT's online
    /// notification, whose `meta.tools` EMQX's MCP bridge reads).
    pub fn write_tools(&self, w: &mut JsonWriter<'_>) {
        w.begin_array();
        for i in 0..MAX_DESCRIPTORS {
            if !self.item(Method::ToolsList, i, Some(&mut *w)) {
                break;
            }
        }
        w.end_array();
    }
}
