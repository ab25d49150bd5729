use super::failure::Outcome;
use super::guard::Guard;
use super::params::Params;
use super::params::P_META;
use super::Server;
use crate::device::Device;
use crate::state::subscription;
use crate::state::subscription::Listen;
use crate::state::subscription::MAX_RESOURCES;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Kind;
use crate::wire::json::Sink;
use crate::wire::json::Str;
use crate::wire::mcp::META_SUBSCRIPTION;
use crate::wire::rpc;
use crate::wire::rpc::Request;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Send the change notifications: one line per subscriber of each changed
    /// resource. (Without `routes`, all lines share one stream: nothing is kept per
    /// subscriber.)
    #[cfg(not(feature = "routes"))]
    pub(super) fn flush_changes(&mut self, out: &mut dyn Sink) {
        // Change notifications are of resources: none without the feature.
        if !crate::features::RESOURCES {
            return;
        }
        let mut changed = self.changed | self.device.take_changes();
        if changed == 0 {
            return;
        }
        self.changed = 0;
        if super::forms::nothing_to_notify(
            changed,
            self.subs.session,
            !self.subs.listens.is_empty(),
        ) {
            return;
        }
        for i in 0..MAX_RESOURCES {
            let Some(bit) = subscription::bit(i).filter(|b| changed & b != 0) else {
                continue;
            };
            let Some(resource) = self.device.resource(i) else {
                break;
            };
            let mut g = Guard::new(out);
            let mut w = JsonWriter::new(g.sink());
            if self.subs.session & bit != 0 {
                updated(&mut w, resource.uri, None);
            }
            for listen in self.subs.listens.iter().filter(|l| l.resources & bit != 0) {
                updated(&mut w, resource.uri, Some(&listen.id));
            }
            if g.full {
                // No room now: take the lines back and send them at the next poll.
                g.inner.rollback();
                self.changed = changed;
                return;
            }
            changed &= !bit;
        }
    }

    /// Send every pending change notification, each routed to its stream.
    #[cfg(feature = "routes")]
    pub(super) fn flush_changes(&mut self, out: &mut dyn Sink) {
        // Change notifications are of resources: none without the feature.
        if !crate::features::RESOURCES {
            return;
        }
        self.write_changes(None, out);
    }

    /// Send the change notifications pending for one stream only, and nothing else:
    /// `None` for the legacy-era session's stream (`resources/subscribe`), `Some(id)`
    /// for the `subscriptions/listen` stream with that subscription id (JSON text).
    /// The device's changes ([`Device::take_changes`]) are noted for every subscriber
    /// first (one pending bit per resource each), so what belongs to other streams
    /// waits for their own call. For a transport where each stream's connection polls
    /// for itself (async HTTP). Feature `routes` (`http` turns it on).
    #[cfg(feature = "routes")]
    pub fn poll_changes(&mut self, stream: Option<&[u8]>, out: &mut dyn Sink) {
        self.write_changes(Some(stream), out);
    }

    /// Note new changes, then write what is pending: for every stream (`only` none),
    /// or for one. A resource's lines that do not fit are taken back and stay pending.
    #[cfg(feature = "routes")]
    fn write_changes(&mut self, only: Option<Option<&[u8]>>, out: &mut dyn Sink) {
        let changed = self.changed | self.device.take_changes();
        self.changed = 0;
        let listens = !self.subs.listens.is_empty();
        if changed != 0 && !super::forms::nothing_to_notify(changed, self.subs.session, listens) {
            self.subs.note(changed);
        }
        // A resource unsubscribed since its change was noted is not announced.
        self.subs.session_pending &= self.subs.session;
        let session = only.is_none_or(|s| s.is_none());
        let mine = |l: &Listen| only.is_none_or(|s| s == Some(l.id.as_slice()));
        let mut todo = if session {
            self.subs.session_pending
        } else {
            0
        };
        for l in self.subs.listens.iter().filter(|l| mine(l)) {
            todo |= l.pending;
        }
        if todo == 0 {
            return;
        }
        for i in 0..MAX_RESOURCES {
            let Some(bit) = subscription::bit(i).filter(|b| todo & b != 0) else {
                continue;
            };
            let Some(resource) = self.device.resource(i) else {
                break;
            };
            let mut g = Guard::new(out);
            let mut w = JsonWriter::new(g.sink());
            let to_session = session && self.subs.session_pending & bit != 0;
            if to_session {
                updated(&mut w, resource.uri, None);
            }
            let listens = self.subs.listens.iter();
            for listen in listens.filter(|l| l.pending & bit != 0 && mine(l)) {
                updated(&mut w, resource.uri, Some(&listen.id));
            }
            if g.full {
                // No room now: take the lines back; they stay pending for the next poll.
                g.inner.rollback();
                return;
            }
            if to_session {
                self.subs.session_pending &= !bit;
            }
            for listen in self.subs.listens.iter_mut() {
                if only.is_none_or(|s| s == Some(listen.id.as_slice())) {
                    listen.pending &= !bit;
                }
            }
        }
    }

    pub(super) fn resource_bit(&self, uri: Str<'_>) -> Option<u32> {
        self.find_resource(&|u| uri.eq_str(u))
            .and_then(subscription::bit)
    }

    pub(super) fn listen<'a>(
        &mut self,
        r: Request<'a>,
        p: &Params<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let filter = r
            .params
            .and_then(|params| params.get_past("notifications", p.0[P_META]))
            .filter(|f| f.kind() == Kind::Object)
            .ok_or(DispatchError::MissingParam("notifications filter"))?;
        let uris = filter.get("resourceSubscriptions");
        let not_strings =
            DispatchError::InvalidParams("resourceSubscriptions must be an array of strings");
        let mut resources = 0;
        if let Some(uris) = uris {
            if uris.kind() != Kind::Array {
                return Err(not_strings.into());
            }
            for item in uris.items() {
                // A value of the parsed request: `as_str` fails exactly for non-strings.
                let uri = item.as_str().ok_or(not_strings)?;
                resources |= self.resource_bit(uri).unwrap_or(0);
            }
        }
        self.subs
            .listen(Listen {
                id: rpc::own(r.id),
                resources,
                pending: 0,
            })
            .map_err(|_| DispatchError::Busy("Too many open subscriptions"))?;
        let mut w = JsonWriter::new(out);
        rpc::begin_notification(&mut w, "subscriptions/acknowledged");
        w.key_lit("_meta");
        w.begin_object();
        w.key_lit(META_SUBSCRIPTION);
        w.raw(r.id.raw());
        w.end_object();
        w.key_lit("notifications");
        w.begin_object();
        if let Some(uris) = uris {
            // Only what is honoured: the static resources among the URIs asked for.
            w.key_lit("resourceSubscriptions");
            w.begin_array();
            for uri in uris.items().filter_map(|u| u.as_str()) {
                if self.resource_bit(uri).is_some() {
                    w.str_raw(uri);
                }
            }
            w.end_array();
        }
        w.end_object();
        rpc::end_response(&mut w);
        Ok(())
    }
}

/// One `notifications/resources/updated` line: for the legacy-era session (`listen`
/// none) or for the listen stream with that subscription id.
#[inline(always)]
fn updated(w: &mut JsonWriter<'_>, uri: &str, listen: Option<&[u8]>) {
    route(w, listen);
    rpc::begin_notification(w, "resources/updated");
    if let Some(id) = listen {
        w.key_lit("_meta");
        w.begin_object();
        w.key_lit(META_SUBSCRIPTION);
        w.raw_value(id);
        w.end_object();
    }
    w.key_lit("uri");
    w.str(uri);
    rpc::end_response(w);
}

/// Route the line to the listen stream (feature `routes`; nothing without).
#[cfg(feature = "routes")]
#[inline(always)]
fn route(w: &mut JsonWriter<'_>, listen: Option<&[u8]>) {
    w.route(listen);
}

#[cfg(not(feature = "routes"))]
#[inline(always)]
fn route(_w: &mut JsonWriter<'_>, _listen: Option<&[u8]>) {}
