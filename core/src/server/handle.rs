use super::failure::refuse_line;
use super::failure::refuse_request;
use super::failure::too_large;
use super::failure::ErrorData;
use super::failure::Failure;
use super::failure::Key;
use super::failure::Outcome;
use super::guard::Guard;
use super::method::parse_level;
use super::method::Method;
use super::params::str_member;
use super::params::uri_param;
use super::params::Meta;
use super::params::Params;
use super::params::META_KEYS;
use super::params::PARAM_KEYS;
use super::params::P_META;
use super::result::write_versions;
use super::result::Ttl;
use super::Era;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::wire::error::DispatchError;
use crate::wire::error::RequestError;
use crate::wire::framing::Frame;
use crate::wire::json::scanner::Level;
use crate::wire::json::JsonWriter;
use crate::wire::json::Kind;
use crate::wire::json::Sink;
use crate::wire::mcp::META_PREFIX;
use crate::wire::rpc;
use crate::wire::rpc::Id;
use crate::wire::rpc::Message;
use crate::wire::rpc::Notification;
use crate::wire::rpc::Request;
use crate::wire::version::Version;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Handle one frame from a [`crate::wire::framing::Framer`]. A line too long is
    /// answered without the limit it overflowed: a caller that has the framer at hand
    /// calls [`Server::handle_frame_limit`], which says it.
    pub fn handle_frame(&mut self, frame: Frame<'_>, out: &mut dyn Sink) {
        self.handle_frame_limit(frame, 0, out);
    }

    /// [`Server::handle_frame`] for a framer whose longest line is `limit` bytes (its
    /// [`Frames::limit`](crate::wire::framing::Frames::limit)): a line too long is
    /// answered with `data.limit` (none when `limit` is 0).
    pub fn handle_frame_limit(&mut self, frame: Frame<'_>, limit: usize, out: &mut dyn Sink) {
        match frame {
            Frame::Line(line) => self.handle(line, out),
            Frame::TooLong => refuse_line(out, None, RequestError::TooLong, limit),
        }
    }

    /// Handle one line (one JSON-RPC message, without its newline).
    ///
    /// Every line written is whole: when `out` runs full (a fixed buffer) and can take
    /// bytes back ([`Sink::rollback`]), a response that does not fit is replaced by a
    /// -32603 error for the same id.
    pub fn handle(&mut self, line: &[u8], out: &mut dyn Sink) {
        self.handle_in(line, None, out);
        self.flush_changes(out);
    }

    /// [`Server::handle`] for a transport that knows the era from outside the body
    /// (HTTP: the `MCP-Protocol-Version` and `Mcp-Session-Id` headers). `era` is the
    /// era to serve the request in, or `None` to decide from the body as
    /// [`Server::handle`] does: 2026-07-28 when `params._meta` carries an
    /// `io.modelcontextprotocol/` key or the method exists only there, otherwise the
    /// legacy era (stdio's rule). A request forced to [`Era::Stateless`] must carry the
    /// 2026-07-28 `_meta` (-32602 otherwise); one forced to [`Era::Legacy`] is served
    /// with legacy-era semantics.
    ///
    /// Unlike [`Server::handle`], resource-updated notifications are not sent after
    /// the response: they belong to other streams ([`Server::poll`] sends them).
    pub fn handle_in(&mut self, line: &[u8], era: Option<Era>, out: &mut dyn Sink) {
        // The members of `params` and of its `_meta` that `request` reads, filed while
        // the line is validated.
        let mut p = Params::default();
        let mut m: Meta<'_> = [None; META_KEYS.len()];
        let (parsed, claims, stop) = rpc::parse_picks(
            line,
            Level::new(PARAM_KEYS, &mut p.0, P_META),
            Level::last(&META_KEYS, &mut m),
            META_PREFIX,
        );
        match parsed {
            Err(rejected) => {
                crate::trace::trace!("rejected line: {}", rejected.error);
                refuse_line(out, rejected.id, rejected.error, stop);
            }
            // A client's response to a request of ours (feature `input`).
            Ok(Message::Response) => self.response(line),
            Ok(Message::Notification(n)) => self.notification(n),
            Ok(Message::Request(r)) => {
                // A sink that cannot take a line back is not watched for running full:
                // nothing could be done about it.
                let mut guard = None;
                let sink: &mut dyn Sink = match out.can_rollback() {
                    true => guard.insert(Guard::new(&mut *out)).sink(),
                    false => &mut *out,
                };
                if let Err(f) = self.request(r, &p, m, claims, era, sink) {
                    crate::trace::trace!("request failed: {}", f.error);
                    refuse_request(sink, &r, &p, f);
                }
                if guard.is_some_and(|g| g.full) {
                    too_large(out, r.id);
                }
            }
        }
    }

    pub(super) fn notification(&mut self, n: Notification<'_>) {
        if !n.method.eq_str("notifications/cancelled") {
            // notifications/initialized and everything else: nothing to do.
            return;
        }
        let Some(id) = n
            .params
            .and_then(|p| p.get("requestId"))
            .and_then(|v| Id::from_value(v).ok())
        else {
            return; // malformed cancels are ignored
        };
        if !self.cancel(id.raw()) {
            self.subs.close(id.raw());
        }
    }

    /// Serve request `r`, given the members of its `params` ([`PARAM_KEYS`]) and of
    /// their `_meta` ([`META_KEYS`]), whether a `_meta` member name claims the
    /// 2026-07-28 namespace, and the era it is forced to, if any.
    pub(super) fn request<'a>(
        &mut self,
        r: Request<'a>,
        p: &Params<'a>,
        m: Meta<'a>,
        claims: bool,
        era: Option<Era>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let [token, meta_version, meta_caps, meta_log] = m;
        let method = Method::parse(r.method);
        let stateless_only = matches!(method, Some(Method::Discover | Method::Listen));
        let progress_token = token
            .filter(|t| matches!(t.kind(), Kind::String | Kind::Number))
            .filter(|t| t.raw().len() <= rpc::MAX_ID_LEN)
            .map(|t| t.raw());
        let era = match era {
            // A one-era build serves every request in its era.
            _ if !crate::features::LEGACY => Era::Stateless,
            _ if !crate::features::STATELESS => Era::Legacy,
            Some(forced) => forced,
            None if claims || stateless_only => Era::Stateless,
            None => Era::Legacy,
        };
        if !crate::features::LEGACY && !claims && method == Some(Method::Initialize) {
            // An legacy-era client: tell it the versions spoken (its only diagnostic).
            if let Some(requested) = r.params.and_then(|p| str_member(p, "protocolVersion")) {
                return Err(Failure {
                    error: DispatchError::UnsupportedVersion,
                    data: ErrorData::Versions(requested),
                });
            }
        }
        let caps = self.input.caps(era, meta_caps);
        let log_level = if era.is_stateless() {
            let version = meta_version
                .and_then(|v| v.as_str())
                .ok_or(DispatchError::MissingProtocolVersion)?;
            if meta_caps.is_none_or(|c| c.kind() != Kind::Object) {
                return Err(DispatchError::MissingClientCapabilities.into());
            }
            if !Version::parse(version.raw()).is_some_and(Version::is_stateless) {
                return Err(Failure {
                    error: DispatchError::UnsupportedVersion,
                    data: ErrorData::Versions(version),
                });
            }
            match meta_log.filter(|_| self.has_logging()) {
                None => None,
                Some(l) => Some(parse_level(Some(l))?),
            }
        } else {
            self.session_log
        };
        let ex = Exchange {
            id: r.id,
            era,
            progress_token,
            log_level,
            caps,
            tasks: self.accepts_tasks(era, meta_caps, r.params),
        };
        self.dispatch(method, r, p, ex, out)
    }

    pub(super) fn has_tools(&self) -> bool {
        self.device.tool(0).is_some()
    }

    /// Whether the server serves resources: compiled in (feature `resources`) and the
    /// device has at least one resource or template. A constant `false` without the
    /// feature, so none of the resource code is linked.
    pub(super) fn has_resources(&self) -> bool {
        crate::features::RESOURCES
            && (self.device.resource(0).is_some() || self.device.resource_template(0).is_some())
    }

    /// Whether the server serves prompts (feature `prompts`, and a prompt).
    pub(super) fn has_prompts(&self) -> bool {
        crate::features::PROMPTS && self.device.prompt(0).is_some()
    }

    /// Whether the server offers completions (feature `completions`, and the device).
    pub(super) fn has_completions(&self) -> bool {
        crate::features::COMPLETIONS && self.device.completions()
    }

    /// Whether the server takes log levels and sends `notifications/message`
    /// (feature `logging`).
    pub(super) const fn has_logging(&self) -> bool {
        crate::features::LOGGING
    }

    /// Route a request of either era. Era-specific methods answer only in their era;
    /// the primitives' methods only when the device has that primitive.
    pub(super) fn dispatch<'a>(
        &mut self,
        method: Option<Method>,
        r: Request<'a>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        use Method as M;
        let stateless = ex.era.is_stateless();
        match method {
            Some(M::Discover) if stateless => {
                let mut w = JsonWriter::new(out);
                ex.begin_result(&mut w);
                w.key_lit("supportedVersions");
                write_versions(&mut w);
                w.key_lit("capabilities");
                self.write_capabilities(&mut w, Era::Stateless);
                crate::model::registry::opt_str(&mut w, "instructions", self.config.instructions);
                self.end_result(&mut w, ex.era, Ttl::List);
            }
            Some(M::Listen) if stateless => return self.listen(r, p, out),
            Some(M::Initialize) if !stateless => {
                let requested = r
                    .params
                    .and_then(|p| str_member(p, "protocolVersion"))
                    .ok_or(DispatchError::MissingParam("protocolVersion"))?;
                // Echo a supported legacy-era version, otherwise offer the newest
                // one; never a stateless version.
                let version = Version::parse(requested.raw())
                    .filter(|v| !v.is_stateless())
                    .unwrap_or(Version::V2025_11_25);
                self.session_version = Some(version);
                self.input.initialized(r.params);
                let mut w = JsonWriter::new(out);
                rpc::begin_result(&mut w, r.id);
                w.key_lit("protocolVersion");
                w.str_lit(version.as_str());
                w.key_lit("capabilities");
                self.write_capabilities(&mut w, Era::Legacy);
                w.key_lit("serverInfo");
                self.config.write_info(&mut w, self.info_plain);
                crate::model::registry::opt_str(&mut w, "instructions", self.config.instructions);
                rpc::end_response(&mut w);
            }
            Some(M::Ping) if !stateless => self.empty_result(r.id, out),
            Some(M::SetLevel) if !stateless && self.has_logging() => {
                self.session_log = Some(parse_level(r.params.and_then(|p| p.get("level")))?);
                self.empty_result(r.id, out);
            }
            Some(m @ (M::Subscribe | M::Unsubscribe)) if !stateless && self.has_resources() => {
                let uri = uri_param(r.params, p)?;
                let bit = self.resource_bit(uri).ok_or(Failure {
                    error: DispatchError::ResourceNotFound { era: Era::Legacy },
                    data: ErrorData::Text(Key::Uri, uri),
                })?;
                if m == M::Subscribe {
                    self.subs.session |= bit;
                } else {
                    // What is pending for it is dropped when changes are next
                    // written (unless another session swapped in still wants it).
                    self.subs.session &= !bit;
                }
                self.empty_result(r.id, out);
            }
            Some(m @ M::ToolsList) if self.has_tools() => {
                return self.list(r.params, p, ex, out, m)
            }
            Some(m @ (M::ResourcesList | M::TemplatesList)) if self.has_resources() => {
                return self.list(r.params, p, ex, out, m)
            }
            Some(m @ M::PromptsList) if self.has_prompts() => {
                return self.list(r.params, p, ex, out, m)
            }
            Some(M::ToolsCall) if self.has_tools() => return self.call_tool(r, p, ex, out),
            Some(M::ResourcesRead) if self.has_resources() => {
                return self.read_resource(uri_param(r.params, p)?, ex, out)
            }
            Some(M::PromptsGet) if self.has_prompts() => return self.get_prompt(p, ex, out),
            Some(M::Complete) if self.has_completions() => return self.complete(r, p, ex, out),
            #[cfg(feature = "tasks")]
            None => return self.task_request(r, ex, out),
            _ => return Err(DispatchError::MethodNotFound.into()),
        }
        Ok(())
    }
}
