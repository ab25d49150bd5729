//! The MCP server: era and version selection, capability gating, routing.
//!
//! [`Server::handle`] takes one framed line and writes every line it causes (the
//! response, progress and log notifications before it, resource-updated notifications
//! after it) into a [`Sink`]. [`Server::poll`] continues pending tool jobs and turns
//! device-raised change flags into notifications. Nothing else is needed to serve MCP:
//! the [`crate::serve`] loop is a thin `embedded-io` wrapper around these two calls.
//!
//! **Eras, chosen per request.** A request whose `params._meta` carries an
//! `io.modelcontextprotocol/…` key is a 2026-07-28 (stateless) request: it must carry
//! both `protocolVersion` and `clientCapabilities`, and gets `resultType`, `ttlMs`,
//! `cacheScope` and `serverInfo`. `server/discover` and `subscriptions/listen` are
//! always stateless requests. Any other request is served with initialize-era
//! semantics, at the version `initialize` negotiated (2025-11-25 before that).

use crate::device::{
    Completion, Device, Exchange, LogLevel, PromptGet, ReadError, Reference, ResourceRead, Step,
    Target, ToolCall,
};
use crate::error::{ConfigError, DispatchError};
use crate::framing::Frame;
use crate::json::scanner::Level;
use crate::json::{self, JsonWriter, Kind, Sink, SinkError, Str, Value};
use crate::rpc::{self, Id, Message, Notification, OwnedId, Request};
use crate::subscription::{self, Listen, Subscriptions, MAX_RESOURCES};
use crate::version::{Version, MODERN};

pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";
const META_PREFIX: &[u8] = b"io.modelcontextprotocol/";

/// The members of `params` the server reads, found in one pass ([`Params`]). A small
/// target files the first five only, and looks `uri` and `cursor` up when it needs
/// them ([`uri_param`], [`cursor_param`]): fewer picks to set up, less flash.
const PARAM_KEYS: &[&str] = match FILE_URI_CURSOR {
    true => &[
        "_meta",
        "name",
        "arguments",
        "inputResponses",
        "requestState",
        "uri",
        "cursor",
    ],
    false => &[
        "_meta",
        "name",
        "arguments",
        "inputResponses",
        "requestState",
    ],
};
const _: () = assert!(json::scanner::plain_names(PARAM_KEYS));
const _: () = assert!(json::scanner::plain_names(&META_KEYS));
/// Whether `uri` and `cursor` are in [`PARAM_KEYS`] (64-bit hosts).
const FILE_URI_CURSOR: bool = cfg!(target_pointer_width = "64");
/// Index of `_meta` in [`PARAM_KEYS`].
const P_META: usize = 0;
/// Index of `name` in [`PARAM_KEYS`].
const P_NAME: usize = 1;
/// Index of `arguments` in [`PARAM_KEYS`].
const P_ARGUMENTS: usize = 2;
/// Index of `inputResponses` in [`PARAM_KEYS`].
#[cfg(feature = "input")]
const P_INPUTS: usize = 3;
/// Index of `requestState` in [`PARAM_KEYS`].
#[cfg(feature = "input")]
const P_STATE: usize = 4;
/// Index of `uri` in [`PARAM_KEYS`].
const P_URI: usize = 5;
/// Index of `cursor` in [`PARAM_KEYS`].
const P_CURSOR: usize = 6;

/// The members of `params._meta` the server reads: the progress token, then the
/// 2026-07-28 version, capabilities and log level.
const META_KEYS: [&str; 4] = [
    "progressToken",
    META_VERSION,
    META_CAPABILITIES,
    META_LOG_LEVEL,
];

/// The members of a request's `params` named by [`PARAM_KEYS`] (first wins, as with
/// [`Value::get`]), filed while the request is validated.
#[derive(Clone, Copy, Default)]
struct Params<'a>([Option<Value<'a>>; PARAM_KEYS.len()]);

/// The members of `params._meta` named by [`META_KEYS`].
type Meta<'a> = [Option<Value<'a>>; 4];

/// Longest resource URI a request may name, in bytes after unescaping.
pub const MAX_URI_LEN: usize = 256;

/// Most descriptors of one kind the server walks (a guard against a device whose
/// index accessor never ends).
pub const MAX_DESCRIPTORS: usize = 1024;

/// Static facts about the server. Every field has a documented default.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// `serverInfo.name`.
    pub name: &'static str,
    /// `serverInfo.version`.
    pub version: &'static str,
    /// `serverInfo.title` (default none).
    pub title: Option<&'static str>,
    /// Instructions for the model (default none).
    pub instructions: Option<&'static str>,
    /// Items per page of `*/list` results (default 16; 0 is taken as 1).
    pub page_size: usize,
    /// `ttlMs` of discover and list results (default 3 600 000: descriptors are static).
    pub list_ttl_ms: u32,
    /// `ttlMs` of `resources/read` results (default 0: sensor data is always fresh).
    pub read_ttl_ms: u32,
}

impl Config {
    /// A configuration with defaults.
    pub const fn new(name: &'static str, version: &'static str) -> Self {
        Self {
            name,
            version,
            title: None,
            instructions: None,
            page_size: 16,
            list_ttl_ms: 3_600_000,
            read_ttl_ms: 0,
        }
    }
    /// Set the title.
    pub const fn title(mut self, v: &'static str) -> Self {
        self.title = Some(v);
        self
    }
    /// Set the instructions.
    pub const fn instructions(mut self, v: &'static str) -> Self {
        self.instructions = Some(v);
        self
    }
    /// Set the page size.
    pub const fn page_size(mut self, v: usize) -> Self {
        self.page_size = v;
        self
    }

    /// Whether `name`, `title` and `version` hold nothing to escape (checked once, by
    /// [`Server::new`]): [`Config::write_info`] then writes them as they are.
    fn info_plain(&self) -> bool {
        [self.name, self.version, self.title.unwrap_or_default()]
            .iter()
            .all(|s| !json::writer::needs_escape(s))
    }

    /// `serverInfo`: the strings escaped unless `plain` ([`Config::info_plain`]).
    fn write_info(&self, w: &mut JsonWriter<'_>, plain: bool) {
        w.begin_object();
        w.key_lit("name");
        w.str_as(self.name, plain);
        if let Some(title) = self.title {
            w.key_lit("title");
            w.str_as(title, plain);
        }
        w.key_lit("version");
        w.str_as(self.version, plain);
        w.end_object();
    }
}

/// A tool call that outlives its request.
#[derive(Clone, Debug)]
struct Job {
    id: OwnedId,
    progress_token: Option<OwnedId>,
    tool: usize,
    modern: bool,
    log_level: Option<LogLevel>,
    state: u32,
    /// The job finished, but neither its response nor the -32603 error in its place
    /// fitted the output buffer: the error is owed at the next poll.
    owes: bool,
}

/// What a tool call waiting for the client's input keeps (initialize era).
#[cfg(feature = "input")]
#[derive(Clone, Debug)]
struct Waiting {
    /// The request the call answers (its job's id).
    id: OwnedId,
    /// The call's arguments (JSON text; empty when it had none).
    args: heapless::Vec<u8, { crate::input::MAX_WAIT_ARGS }>,
    /// Requests still unanswered.
    asks: heapless::Vec<crate::input::Ask, { crate::input::MAX_ASKS }>,
    /// The responses so far, as the JSON object text the handler will see.
    answers: heapless::Vec<u8, { crate::input::MAX_WAIT_ANSWERS }>,
    /// The handler's state for its next round.
    state: heapless::Vec<u8, { crate::input::MAX_STATE }>,
    caps: crate::input::Capabilities,
}

#[cfg(feature = "input")]
impl Waiting {
    /// Record the client's response (`result`, or `null` for an error or one that
    /// does not fit) to request `id`; returns whether it was one of ours.
    fn answer(&mut self, id: u32, result: Option<&[u8]>) -> bool {
        let Some(i) = self.asks.iter().position(|a| a.id == id) else {
            return false;
        };
        let Some(ask) = subscription::swap_remove(&mut self.asks, i) else {
            return false;
        };
        let mark = self.answers.len();
        let _ = self.answers.pop(); // the closing brace
        let ok = (mark <= 2 || self.answers.push(b',').is_ok())
            && self.answers.push(b'"').is_ok()
            && self.answers.extend_from_slice(ask.key.as_bytes()).is_ok()
            && self.answers.extend_from_slice(b"\":").is_ok();
        let value_at = self.answers.len();
        let fitted = ok
            && self
                .answers
                .extend_from_slice(result.unwrap_or(b"null"))
                .is_ok()
            && self.answers.push(b'}').is_ok();
        if !fitted {
            // Too large: the handler sees null for this key (or, without room even
            // for that, no answer at all).
            self.answers
                .truncate(if ok { value_at } else { mark.saturating_sub(1) });
            let _ = self
                .answers
                .extend_from_slice(if ok { b"null}" } else { b"}" });
        }
        true
    }
}

/// Extra `data` of an error response.
#[derive(Clone, Copy, Debug)]
enum ErrorData<'a> {
    None,
    /// -32022: the versions we speak and the one requested.
    Versions(Str<'a>),
    /// Resource not found: the URI.
    Uri(Str<'a>),
    /// -32021: the capability the request needs.
    #[cfg(feature = "input")]
    Capability(crate::input::Capability),
}

#[derive(Clone, Copy)]
struct Failure<'a> {
    error: DispatchError,
    data: ErrorData<'a>,
}

impl From<DispatchError> for Failure<'_> {
    fn from(error: DispatchError) -> Self {
        Failure {
            error,
            data: ErrorData::None,
        }
    }
}

type Outcome<'a> = Result<(), Failure<'a>>;

/// Passes writes through and remembers whether the sink ran full, so that a line that
/// did not fit can be taken back whole ([`Sink::rollback`]) instead of being cut. On
/// 64-bit hosts its writers tell it of a refused write ([`Sink::failed`]): every write
/// into a guard comes from a [`JsonWriter`], so a write itself is passed on without a
/// look at the answer.
struct Guard<'a> {
    inner: &'a mut dyn Sink,
    full: bool,
}

impl<'a> Guard<'a> {
    /// Out of line on 32-bit targets: smaller than a copy at each of its five uses
    /// (24 bytes on Cortex-M3).
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn new(inner: &'a mut dyn Sink) -> Self {
        inner.mark();
        Guard { inner, full: false }
    }

    /// The guard as a sink. Out of line and not generic, so that the guard's vtable is
    /// emitted once (the generic server and this module's own functions would each
    /// carry a copy in a small image); inlined on 64-bit hosts.
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn sink(&mut self) -> &mut dyn Sink {
        self
    }
}

impl Sink for Guard<'_> {
    /// As it is: a refusal comes back through [`Sink::failed`] (every write into a
    /// guard comes from a [`JsonWriter`]).
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.inner.write(bytes)
    }

    fn failed(&mut self, error: SinkError) {
        if error == SinkError::Full {
            self.full = true;
        }
        self.inner.failed(error);
    }

    /// Taking back goes to the start of the guarded response (the guard's own mark).
    fn rollback(&mut self) -> bool {
        self.inner.rollback()
    }

    #[cfg(feature = "routes")]
    fn route(&mut self, request: Option<&[u8]>) {
        self.inner.route(request);
    }
}

/// Write one error response line whole: taken back when it did not fit.
fn error_line(out: &mut dyn Sink, id: Option<Id<'_>>, error: crate::error::RpcError) -> bool {
    let mut g = Guard::new(out);
    rpc::write_error(g.sink(), id, error, None);
    if g.full {
        g.inner.rollback();
    }
    !g.full
}

/// Answer `id` with -32603 after its response was taken back for not fitting. False
/// when the error did not fit either (a full fixed buffer: try again once drained).
fn too_large(out: &mut dyn Sink, id: Id<'_>) -> bool {
    let busy = DispatchError::Busy("Response too large for the output buffer");
    !out.rollback() || error_line(out, Some(id), busy.into())
}

/// Longest `serverInfo` object (`{"name":…,"version":…}`) a [`Server`] keeps written
/// for its 2026-07-28 results (64-bit targets): the C ABI's server storage must still
/// hold the server.
#[cfg(all(target_pointer_width = "64", feature = "stateless"))]
pub const SERVER_INFO_LEN: usize = 96;

/// A 2026-07-28 result's `_meta` member, opened, with the `serverInfo` key (after a
/// member's comma).
#[cfg(all(target_pointer_width = "64", feature = "stateless"))]
const META_SERVER_INFO_KEY: &[u8] = b",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":";

/// [`CACHE_SCOPE`] then [`META_SERVER_INFO_KEY`], as one literal.
#[cfg(all(target_pointer_width = "64", feature = "stateless"))]
const CACHE_SCOPE_META_KEY: &[u8] =
    b",\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":";

/// The `cacheScope` member of a 2026-07-28 list or read result, comma first.
const CACHE_SCOPE: &[u8] = b",\"cacheScope\":\"public\"";

/// The cache members a 2026-07-28 result carries: none (a tool call, a prompt), a
/// list's [`Config::list_ttl_ms`] or a read's [`Config::read_ttl_ms`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ttl {
    List,
    Read,
    None,
}

/// Which protocol era a request is served in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// Decide from the body: 2026-07-28 when `params._meta` carries an
    /// `io.modelcontextprotocol/` key or the method exists only there, otherwise the
    /// initialize era (stdio's rule).
    Auto,
    /// 2026-07-28 (stateless), whatever the body says.
    Modern,
    /// The initialize era, whatever the body says.
    Legacy,
}

/// The request methods the server answers, named once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Discover,
    Listen,
    Initialize,
    Ping,
    SetLevel,
    Subscribe,
    Unsubscribe,
    ToolsList,
    ResourcesList,
    TemplatesList,
    PromptsList,
    ToolsCall,
    ResourcesRead,
    PromptsGet,
    Complete,
}

impl Method {
    /// Every method, in the order of [`Method::NAMES`] (the calls first: looked up in
    /// this order, they are found first).
    const ALL: [Method; 15] = [
        Method::ToolsCall,
        Method::ResourcesRead,
        Method::Discover,
        Method::Listen,
        Method::Initialize,
        Method::Ping,
        Method::SetLevel,
        Method::Subscribe,
        Method::Unsubscribe,
        Method::ToolsList,
        Method::ResourcesList,
        Method::TemplatesList,
        Method::PromptsList,
        Method::PromptsGet,
        Method::Complete,
    ];

    /// The wire name of each of [`Method::ALL`] (two arrays rather than one of pairs:
    /// no padding after each name, which a small image notices).
    const NAMES: [&'static str; 15] = [
        "tools/call",
        "resources/read",
        "server/discover",
        "subscriptions/listen",
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "prompts/get",
        "completion/complete",
    ];

    /// The method a request names, if the server knows it.
    fn parse(name: Str<'_>) -> Option<Method> {
        // A name written as one of them (they have no escapes) is that one, with no look
        // for an escape; any other is decoded as it is compared.
        let i = match Self::NAMES.iter().position(|n| n.as_bytes() == name.raw()) {
            Some(i) => i,
            None => name.position_in(&Self::NAMES)?,
        };
        Self::ALL.get(i).copied()
    }
}

/// A log level parameter (`logging/setLevel`'s `level`, the `_meta` log level).
fn parse_level(level: Option<Value<'_>>) -> Result<LogLevel, DispatchError> {
    level
        .and_then(|l| l.as_str())
        .and_then(LogLevel::parse)
        .ok_or(DispatchError::InvalidParams("Invalid log level"))
}

/// The stateless versions served, as a JSON array.
fn write_versions(w: &mut JsonWriter<'_>) {
    w.begin_array();
    for v in MODERN {
        w.str_lit(v.as_str());
    }
    w.end_array();
}

/// An MCP server for one connection, around a [`Device`].
///
/// `L` bounds open `subscriptions/listen` streams (default 4), `J` pending tool jobs
/// (default 2), `W` tool calls waiting for the client's input in the initialize era
/// (default 0: such calls cannot ask; with the `input` feature each slot keeps
/// `input::MAX_WAIT_ARGS` + `input::MAX_WAIT_ANSWERS` bytes).
pub struct Server<D: Device, const L: usize = 4, const J: usize = 2, const W: usize = 0> {
    device: D,
    config: Config,
    /// Version negotiated by `initialize` (initialize-era requests).
    session_version: Option<Version>,
    /// Log threshold set by `logging/setLevel` (initialize era).
    session_log: Option<LogLevel>,
    subs: Subscriptions<L>,
    jobs: heapless::Vec<Job, J>,
    changed: u32,
    /// [`Config::info_plain`], checked once.
    info_plain: bool,
    /// The `serverInfo` object every 2026-07-28 result carries in its `_meta`, written
    /// once by [`Server::new`]. On 64-bit targets only, where one write in place of a
    /// dozen saves ~550 instructions a response; empty when it does not fit
    /// [`SERVER_INFO_LEN`] (then written piece by piece).
    #[cfg(all(target_pointer_width = "64", feature = "stateless"))]
    server_info: heapless::Vec<u8, SERVER_INFO_LEN>,
    /// Input capabilities the client declared in `initialize`.
    #[cfg(feature = "input")]
    session_caps: crate::input::Capabilities,
    /// The key that seals `requestState` (none: input-required results carry none).
    #[cfg(feature = "input")]
    state_key: Option<crate::input::StateKey>,
    /// Id of the next server-to-client request (initialize era).
    #[cfg(feature = "input")]
    next_request: u32,
    /// Tool calls waiting for the client's responses (initialize era).
    #[cfg(feature = "input")]
    waits: heapless::Vec<Waiting, W>,
}

fn page(
    cursor: Option<Value<'_>>,
    count: usize,
    size: usize,
) -> Result<(usize, usize), DispatchError> {
    let start = match cursor {
        None => 0,
        Some(c) => {
            // The raw text: a cursor with an escape is no run of digits either.
            let s = c.as_str().ok_or(DispatchError::InvalidCursor)?.raw();
            if s.is_empty() || s.len() > 9 || !s.iter().all(|b| b.is_ascii_digit()) {
                return Err(DispatchError::InvalidCursor);
            }
            // At most nine digits: the value cannot overflow.
            let n = s.iter().fold(0usize, |n, b| n * 10 + usize::from(b - b'0'));
            if n > count {
                return Err(DispatchError::InvalidCursor);
            }
            n
        }
    };
    Ok((start, count.min(start.saturating_add(size.max(1)))))
}

fn count(f: &dyn Fn(usize) -> bool) -> usize {
    (0..MAX_DESCRIPTORS)
        .find(|&i| !f(i))
        .unwrap_or(MAX_DESCRIPTORS)
}

impl<D: Device, const L: usize, const J: usize, const W: usize> Server<D, L, J, W> {
    /// A server for `device`. Checks the device's static descriptors: every schema must
    /// be a JSON object, every template valid, and at most [`MAX_RESOURCES`] resources.
    pub fn new(device: D, config: Config) -> Result<Self, ConfigError> {
        let object =
            |schema: &str| json::parse(schema.as_bytes()).is_ok_and(|v| v.kind() == Kind::Object);
        for i in 0..MAX_DESCRIPTORS {
            let Some(tool) = device.tool(i) else { break };
            let plan = device.tool_plan(i);
            let planned = plan.is_none_or(|p| p.source() == tool.input_schema);
            if !object(tool.input_schema) || !tool.output_schema.is_none_or(object) || !planned {
                return Err(ConfigError::InvalidSchema(i));
            }
        }
        for i in 0..MAX_DESCRIPTORS {
            let Some(t) = device.resource_template(i) else {
                break;
            };
            if !crate::template::is_valid(t.uri_template) {
                return Err(ConfigError::InvalidTemplate(i));
            }
        }
        if device.resource(MAX_RESOURCES).is_some() {
            return Err(ConfigError::TooManyResources);
        }
        #[cfg_attr(
            not(all(target_pointer_width = "64", feature = "stateless")),
            allow(unused_mut)
        )]
        let mut server = Self {
            device,
            config,
            session_version: None,
            session_log: None,
            subs: Subscriptions::new(),
            jobs: heapless::Vec::new(),
            changed: 0,
            info_plain: config.info_plain(),
            #[cfg(all(target_pointer_width = "64", feature = "stateless"))]
            server_info: heapless::Vec::new(),
            #[cfg(feature = "input")]
            session_caps: crate::input::Capabilities::default(),
            #[cfg(feature = "input")]
            state_key: None,
            #[cfg(feature = "input")]
            next_request: 1,
            #[cfg(feature = "input")]
            waits: heapless::Vec::new(),
        };
        #[cfg(all(target_pointer_width = "64", feature = "stateless"))]
        {
            let mut info = heapless::Vec::new();
            let mut w = JsonWriter::new(&mut info);
            config.write_info(&mut w, server.info_plain);
            if w.is_ok() {
                server.server_info = info;
            }
        }
        Ok(server)
    }

    /// Set the key that seals the `requestState` of input-required results (see
    /// [`crate::input`]). Without one, a handler's state is not sent, and any
    /// `requestState` a client sends is refused.
    #[cfg(feature = "input")]
    pub fn set_state_key(&mut self, key: crate::input::StateKey) {
        self.state_key = Some(key);
    }

    /// The device.
    pub fn device(&self) -> &D {
        &self.device
    }
    /// The device, mutably.
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.device
    }
    /// True while tool jobs can make progress ([`Server::poll`] has work). A call
    /// waiting for the client's input is not counted until the input has arrived.
    pub fn busy(&self) -> bool {
        self.jobs.iter().any(|j| self.runnable(j))
    }

    /// Whether a job can make progress now (not waiting for the client's input).
    fn runnable(&self, job: &Job) -> bool {
        #[cfg(feature = "input")]
        if self
            .waits
            .iter()
            .any(|w| w.id == job.id && !w.asks.is_empty())
        {
            return false;
        }
        let _ = job;
        true
    }

    /// Whether the request with this id (JSON text) is still being served by a
    /// pending job (a transport keeps its stream open meanwhile).
    pub fn is_pending(&self, request: &[u8]) -> bool {
        self.jobs.iter().any(|j| j.id.as_slice() == request)
    }

    /// The link was lost (the host went away, the UART was unplugged): forget the
    /// session, its subscriptions and listen streams; pending jobs are cancelled.
    pub fn reset(&mut self) {
        for job in self.jobs.iter() {
            self.device.cancel_tool(job.tool, job.state);
        }
        self.jobs.clear();
        #[cfg(feature = "input")]
        self.waits.clear();
        self.subs.clear();
        self.session_version = None;
        self.session_log = None;
        self.changed = 0;
    }

    /// Mark a resource changed by URI; subscribers hear of it at the next
    /// [`Server::poll`] or request. Returns false for an unknown URI.
    pub fn resource_changed(&mut self, uri: &str) -> bool {
        match self.find_resource(&|r| r == uri) {
            Some(i) => {
                self.changed |= subscription::bit(i).unwrap_or(0);
                true
            }
            None => false,
        }
    }

    /// End the `subscriptions/listen` stream whose subscription id (the listen
    /// request's id, as JSON text) is `subscription`, e.g. when its connection closed.
    /// Returns whether there was one.
    pub fn close_listen(&mut self, subscription: &[u8]) -> bool {
        self.subs.close(subscription)
    }

    fn find_resource(&self, eq: &dyn Fn(&str) -> bool) -> Option<usize> {
        (0..MAX_DESCRIPTORS)
            .map_while(|i| self.device.resource(i))
            .position(|r| eq(r.uri))
    }

    /// Handle one frame from a [`crate::framing::Framer`].
    pub fn handle_frame(&mut self, frame: Frame<'_>, out: &mut dyn Sink) {
        match frame {
            Frame::Line(line) => self.handle(line, out),
            Frame::TooLong => {
                rpc::write_error(out, None, crate::error::RequestError::TooLong.into(), None)
            }
        }
    }

    /// Handle one line (one JSON-RPC message, without its newline).
    ///
    /// Every line written is whole: when `out` runs full (a fixed buffer) and can take
    /// bytes back ([`Sink::rollback`]), a response that does not fit is replaced by a
    /// -32603 error for the same id.
    pub fn handle(&mut self, line: &[u8], out: &mut dyn Sink) {
        self.handle_in(line, Era::Auto, out);
        self.flush_changes(out);
    }

    /// [`Server::handle`] for a transport that knows the era from outside the body
    /// (HTTP: the `MCP-Protocol-Version` and `Mcp-Session-Id` headers). A request
    /// forced to [`Era::Modern`] must carry the 2026-07-28 `_meta` (-32602 otherwise);
    /// one forced to [`Era::Legacy`] is served with initialize-era semantics.
    ///
    /// Unlike [`Server::handle`], resource-updated notifications are not sent after
    /// the response: they belong to other streams ([`Server::poll`] sends them).
    pub fn handle_in(&mut self, line: &[u8], era: Era, out: &mut dyn Sink) {
        // The members of `params` and of its `_meta` that `request` reads, filed while
        // the line is validated.
        let mut p = Params::default();
        let mut m: Meta<'_> = [None; META_KEYS.len()];
        let (parsed, claims) = rpc::parse_picks(
            line,
            Level::new(PARAM_KEYS, &mut p.0, P_META),
            Level::last(&META_KEYS, &mut m),
            META_PREFIX,
        );
        match parsed {
            Err(rejected) => {
                crate::trace::trace!("rejected line: {}", rejected.error);
                error_line(out, rejected.id, rejected.error.into());
            }
            Ok(Message::Response) => {
                #[cfg(feature = "input")]
                self.response(line);
            }
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
                    write_failure(sink, r.id, f);
                }
                if guard.is_some_and(|g| g.full) {
                    too_large(out, r.id);
                }
            }
        }
    }

    /// Continue pending jobs one step each and send change notifications. Returns true
    /// while jobs can make progress (call again soon): [`Server::busy`]. A call waiting
    /// for the client's input does not count until the input has arrived.
    pub fn poll(&mut self, out: &mut dyn Sink) -> bool {
        self.poll_jobs(out);
        self.flush_changes(out);
        self.busy()
    }

    /// [`Server::poll`] without the change notifications: continue pending jobs one
    /// step each (for a transport that answers each request on its own stream).
    /// Returns true while jobs remain.
    pub fn poll_jobs(&mut self, out: &mut dyn Sink) -> bool {
        let mut i = 0;
        while let Some(job) = self.jobs.get(i) {
            #[cfg(feature = "input")]
            if let Some(w) = self.waits.iter().position(|w| w.id == job.id) {
                let ready = self.waits.get(w).is_some_and(|w| w.asks.is_empty());
                if ready {
                    let job = job.clone();
                    if self.resume(job, w, out) {
                        let _ = subscription::swap_remove(&mut self.waits, w);
                        let _ = subscription::swap_remove(&mut self.jobs, i);
                        continue;
                    }
                }
                i += 1;
                continue;
            }
            #[cfg(feature = "routes")]
            out.route(Some(&job.id));
            let ex = Exchange {
                id: Id::from_raw(&job.id),
                modern: job.modern,
                progress_token: job.progress_token.as_deref(),
                log_level: job.log_level,
                #[cfg(feature = "input")]
                caps: crate::input::Capabilities::default(),
            };
            let mut g = Guard::new(out);
            let mut call = ToolCall::new(JsonWriter::new(g.sink()), ex, job.tool, None);
            call.state = job.state;
            // A job that owes its answer is over: only the -32603 error is left to send.
            let owes = job.owes;
            let done = owes || self.device.poll_tool(&mut call) == Step::Done || call.written();
            let state = call.state;
            if done && !owes {
                self.finish_call(&mut call);
            }
            let full = g.full || owes;
            if done {
                if !full || too_large(out, Id::from_raw(&job.id)) {
                    let _ = subscription::swap_remove(&mut self.jobs, i);
                } else {
                    // Neither fitted: owe the error, answer it once there is room.
                    if let Some(job) = self.jobs.get_mut(i) {
                        job.owes = true;
                    }
                    i += 1;
                }
            } else {
                if full {
                    // A progress notification did not fit: drop it, keep the job.
                    out.rollback();
                }
                if let Some(job) = self.jobs.get_mut(i) {
                    job.state = state;
                }
                i += 1;
            }
        }
        self.busy()
    }

    fn flush_changes(&mut self, out: &mut dyn Sink) {
        let mut changed = self.changed | self.device.take_changes();
        if changed == 0 {
            return;
        }
        self.changed = 0;
        // No subscription to any of them (the common case): nothing to write. On a
        // 64-bit host only (8 bytes of code on a microcontroller, where the loop below
        // finds the same).
        #[cfg(target_pointer_width = "64")]
        if changed & self.subs.session == 0 && self.subs.listens.is_empty() {
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
                #[cfg(feature = "routes")]
                w.route(None);
                rpc::begin_notification(&mut w, "resources/updated");
                w.key_lit("uri");
                w.str(resource.uri);
                rpc::end_response(&mut w);
            }
            for listen in self.subs.listens.iter().filter(|l| l.resources & bit != 0) {
                #[cfg(feature = "routes")]
                w.route(Some(&listen.id));
                rpc::begin_notification(&mut w, "resources/updated");
                w.key_lit("_meta");
                w.begin_object();
                w.key_lit(META_SUBSCRIPTION);
                w.raw_value(&listen.id);
                w.end_object();
                w.key_lit("uri");
                w.str(resource.uri);
                rpc::end_response(&mut w);
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

    fn notification(&mut self, n: Notification<'_>) {
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
        let found = self.jobs.iter().position(|j| j.id.as_slice() == id.raw());
        if let Some(job) = found.and_then(|i| subscription::swap_remove(&mut self.jobs, i)) {
            #[cfg(feature = "input")]
            self.waits.retain(|w| w.id != job.id);
            self.device.cancel_tool(job.tool, job.state);
        } else {
            self.subs.close(id.raw());
        }
    }

    /// Serve request `r`, given the members of its `params` ([`PARAM_KEYS`]) and of
    /// their `_meta` ([`META_KEYS`]), and whether a `_meta` member name claims the
    /// 2026-07-28 namespace.
    fn request<'a>(
        &mut self,
        r: Request<'a>,
        p: &Params<'a>,
        m: Meta<'a>,
        claims: bool,
        era: Era,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let [token, meta_version, meta_caps, meta_log] = m;
        let method = Method::parse(r.method);
        let stateless_only = matches!(method, Some(Method::Discover | Method::Listen));
        let progress_token = token
            .filter(|t| matches!(t.kind(), Kind::String | Kind::Number))
            .filter(|t| t.raw().len() <= rpc::MAX_ID_LEN)
            .map(|t| t.raw());
        let modern = match era {
            // A one-era build serves every request in its era.
            _ if !cfg!(feature = "legacy") => true,
            _ if !cfg!(feature = "stateless") => false,
            Era::Auto => claims || stateless_only,
            Era::Modern => true,
            Era::Legacy => false,
        };
        #[cfg(not(feature = "legacy"))]
        if !claims && method == Some(Method::Initialize) {
            // An initialize-era client: tell it the versions spoken (its only diagnostic).
            if let Some(requested) = r.params.and_then(|p| str_member(p, "protocolVersion")) {
                return Err(Failure {
                    error: DispatchError::UnsupportedVersion,
                    data: ErrorData::Versions(requested),
                });
            }
        }
        #[cfg(feature = "input")]
        let caps = if modern {
            crate::input::Capabilities::from_value(meta_caps)
        } else {
            self.session_caps
        };
        let log_level = if modern {
            let version = meta_version
                .and_then(|v| v.as_str())
                .ok_or(DispatchError::MissingProtocolVersion)?;
            if meta_caps.is_none_or(|c| c.kind() != Kind::Object) {
                return Err(DispatchError::MissingClientCapabilities.into());
            }
            if !Version::parse(version.raw()).is_some_and(Version::is_modern) {
                return Err(Failure {
                    error: DispatchError::UnsupportedVersion,
                    data: ErrorData::Versions(version),
                });
            }
            match meta_log {
                None => None,
                Some(l) => Some(parse_level(Some(l))?),
            }
        } else {
            self.session_log
        };
        let ex = Exchange {
            id: r.id,
            modern,
            progress_token,
            log_level,
            #[cfg(feature = "input")]
            caps,
        };
        self.dispatch(method, r, p, ex, out)
    }

    fn has_tools(&self) -> bool {
        self.device.tool(0).is_some()
    }
    fn has_resources(&self) -> bool {
        self.device.resource(0).is_some() || self.device.resource_template(0).is_some()
    }
    fn has_prompts(&self) -> bool {
        self.device.prompt(0).is_some()
    }

    /// Route a request of either era. Era-specific methods answer only in their era;
    /// the primitives' methods only when the device has that primitive.
    fn dispatch<'a>(
        &mut self,
        method: Option<Method>,
        r: Request<'a>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        use Method as M;
        let modern = ex.modern;
        match method {
            Some(M::Discover) if modern => {
                let mut w = JsonWriter::new(out);
                ex.begin_result(&mut w);
                w.key_lit("supportedVersions");
                write_versions(&mut w);
                w.key_lit("capabilities");
                self.write_capabilities(&mut w);
                crate::registry::opt_str(&mut w, "instructions", self.config.instructions);
                self.end_result(&mut w, ex.modern, Ttl::List);
            }
            Some(M::Listen) if modern => return self.listen(r, p, out),
            Some(M::Initialize) if !modern => {
                let requested = r
                    .params
                    .and_then(|p| str_member(p, "protocolVersion"))
                    .ok_or(DispatchError::MissingParam("protocolVersion"))?;
                // Echo a supported initialize-era version, otherwise offer the newest
                // one; never a stateless version.
                let version = Version::parse(requested.raw())
                    .filter(|v| !v.is_modern())
                    .unwrap_or(Version::V2025_11_25);
                self.session_version = Some(version);
                #[cfg(feature = "input")]
                {
                    self.session_caps = crate::input::Capabilities::from_value(
                        r.params.and_then(|p| p.get("capabilities")),
                    );
                }
                let mut w = JsonWriter::new(out);
                rpc::begin_result(&mut w, r.id);
                w.key_lit("protocolVersion");
                w.str_lit(version.as_str());
                w.key_lit("capabilities");
                self.write_capabilities(&mut w);
                w.key_lit("serverInfo");
                self.config.write_info(&mut w, self.info_plain);
                crate::registry::opt_str(&mut w, "instructions", self.config.instructions);
                rpc::end_response(&mut w);
            }
            Some(M::Ping) if !modern => self.empty_result(r.id, out),
            Some(M::SetLevel) if !modern => {
                self.session_log = Some(parse_level(r.params.and_then(|p| p.get("level")))?);
                self.empty_result(r.id, out);
            }
            Some(m @ (M::Subscribe | M::Unsubscribe)) if !modern && self.has_resources() => {
                let uri = uri_param(r.params, p)?;
                let bit = self.resource_bit(uri).ok_or(Failure {
                    error: DispatchError::ResourceNotFound { modern: false },
                    data: ErrorData::Uri(uri),
                })?;
                if m == M::Subscribe {
                    self.subs.session |= bit;
                } else {
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
            Some(M::Complete) if self.device.completions() => return self.complete(r, p, ex, out),
            _ => return Err(DispatchError::MethodNotFound.into()),
        }
        Ok(())
    }

    fn resource_bit(&self, uri: Str<'_>) -> Option<u32> {
        self.find_resource(&|u| uri.eq_str(u))
            .and_then(subscription::bit)
    }

    fn empty_result(&self, id: Id<'_>, out: &mut dyn Sink) {
        let mut w = JsonWriter::new(out);
        rpc::begin_result(&mut w, id);
        rpc::end_response(&mut w);
    }

    /// Close a result: cache fields and `serverInfo` for 2026-07-28, then the envelope.
    fn end_result(&self, w: &mut JsonWriter<'_>, modern: bool, ttl: Ttl) {
        if modern {
            #[cfg(all(target_pointer_width = "64", feature = "stateless"))]
            if !self.server_info.is_empty() {
                // The cache members, if any, written with the `_meta` key after them
                // (a member is then due).
                match self.ttl_ms(ttl) {
                    Some(ms) => {
                        w.key_raw(crate::json::writer::member_key!("ttlMs"));
                        w.u64(u64::from(ms));
                        w.raw(CACHE_SCOPE_META_KEY);
                    }
                    None => w.raw_lead(META_SERVER_INFO_KEY),
                }
                w.raw(&self.server_info);
                // `_meta`, the result, the envelope, the line.
                w.end(b"}}}\n");
                return;
            }
            self.write_ttl(w, ttl);
            w.key_lit("_meta");
            w.begin_object();
            w.key_lit(META_SERVER_INFO);
            self.config.write_info(w, self.info_plain);
            w.end_object();
        }
        rpc::end_response(w);
    }

    /// The `ttlMs` of a result.
    fn ttl_ms(&self, ttl: Ttl) -> Option<u32> {
        match ttl {
            Ttl::List => Some(self.config.list_ttl_ms),
            Ttl::Read => Some(self.config.read_ttl_ms),
            Ttl::None => None,
        }
    }

    /// A 2026-07-28 result's cache members, for a list or a read.
    fn write_ttl(&self, w: &mut JsonWriter<'_>, ttl: Ttl) {
        let Some(ms) = self.ttl_ms(ttl) else { return };
        w.key_raw(crate::json::writer::member_key!("ttlMs"));
        w.u64(u64::from(ms));
        w.member_lit(CACHE_SCOPE);
    }

    fn write_capabilities(&self, w: &mut JsonWriter<'_>) {
        w.begin_object();
        if self.has_tools() {
            w.key_lit("tools");
            w.raw_value(b"{}");
        }
        if self.has_resources() {
            w.key_lit("resources");
            w.raw_value(b"{\"subscribe\":true}");
        }
        if self.has_prompts() {
            w.key_lit("prompts");
            w.raw_value(b"{}");
        }
        if self.device.completions() {
            w.key_lit("completions");
            w.raw_value(b"{}");
        }
        w.key_lit("logging");
        w.raw_value(b"{}");
        w.end_object();
    }

    fn listen<'a>(&mut self, r: Request<'a>, p: &Params<'a>, out: &mut dyn Sink) -> Outcome<'a> {
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

    /// Whether descriptor `i` of the kind `list` (a `*/list` method) walks exists and,
    /// given a writer, write it.
    fn item(&self, list: Method, i: usize, w: Option<&mut JsonWriter<'_>>) -> bool {
        let d = &self.device;
        match list {
            Method::ToolsList => d.tool(i).map(|t| w.map(|w| t.write(w))).is_some(),
            Method::ResourcesList => d.resource(i).map(|t| w.map(|w| t.write(w))).is_some(),
            Method::TemplatesList => d
                .resource_template(i)
                .map(|t| w.map(|w| t.write(w)))
                .is_some(),
            Method::PromptsList => d
                .prompt(i)
                .map(|p| {
                    let args = (0..MAX_DESCRIPTORS).map_while(|j| d.prompt_argument(i, j));
                    w.map(|w| p.write_with(w, args))
                })
                .is_some(),
            _ => false,
        }
    }

    /// A paginated `*/list` result of the descriptors [`Server::item`] walks for `list`.
    fn list<'a>(
        &self,
        params: Option<Value<'a>>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
        list: Method,
    ) -> Outcome<'a> {
        // The list's key: on 64-bit targets with its bracket (`,"tools":[`, one write).
        macro_rules! list_key {
            ($key:literal) => {{
                #[cfg(target_pointer_width = "64")]
                let key = concat!(",\"", $key, "\":[").as_bytes();
                #[cfg(not(target_pointer_width = "64"))]
                let key = $key;
                key
            }};
        }
        let key = match list {
            Method::ToolsList => list_key!("tools"),
            Method::ResourcesList => list_key!("resources"),
            Method::TemplatesList => list_key!("resourceTemplates"),
            _ => list_key!("prompts"),
        };
        let cursor = cursor_param(params, p);
        let total = count(&|i| self.item(list, i, None));
        let (start, end) = page(cursor, total, self.config.page_size)?;
        let mut w = JsonWriter::new(out);
        ex.begin_result(&mut w);
        #[cfg(target_pointer_width = "64")]
        w.begin(key);
        #[cfg(not(target_pointer_width = "64"))]
        {
            w.key_lit(key);
            w.begin_array();
        }
        for i in start..end {
            self.item(list, i, Some(&mut w));
        }
        w.end_array();
        if end < total {
            w.key_lit("nextCursor");
            w.u64_str(end as u64);
        }
        self.end_result(&mut w, ex.modern, Ttl::List);
        Ok(())
    }

    /// The index of the tool (`tools`) or else the prompt called `name`.
    fn named(&self, tools: bool, name: Str<'_>) -> Option<usize> {
        (0..MAX_DESCRIPTORS)
            .map_while(|i| match tools {
                true => self.device.tool(i).map(|t| t.name),
                false => self.device.prompt(i).map(|p| p.name),
            })
            .position(|n| name.eq_str(n))
    }

    /// The index of the tool (`tools`) or prompt a tools/call or prompts/get names, and
    /// its `arguments` (`null` taken as none).
    fn find<'a>(
        &self,
        p: &Params<'a>,
        tools: bool,
    ) -> Result<(usize, Option<Value<'a>>), DispatchError> {
        let (missing, unknown) = match tools {
            true => ("tool name", DispatchError::UnknownTool),
            false => ("prompt name", DispatchError::UnknownPrompt),
        };
        let missing = DispatchError::MissingParam(missing);
        let name = p.0[P_NAME].and_then(|v| v.as_str()).ok_or(missing)?;
        let index = self.named(tools, name).ok_or(unknown)?;
        Ok((index, p.0[P_ARGUMENTS].filter(|a| !a.is_null())))
    }

    fn call_tool<'a>(
        &mut self,
        r: Request<'a>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let (index, args) = self.find(p, true)?;
        if args.is_some_and(|a| a.kind() != Kind::Object) {
            return Err(DispatchError::InvalidParams("arguments must be an object").into());
        }
        let tool = self
            .device
            .tool(index)
            .ok_or(DispatchError::Internal("Invalid tool schema"))?;
        #[cfg(feature = "input")]
        let mut state_buf = [0u8; crate::input::MAX_STATE + crate::input::TAG_LEN];
        #[cfg(feature = "input")]
        let owner = self.device.tool(index).map_or("", |t| t.name);
        #[cfg(feature = "input")]
        let input = self.modern_input(p, ex, owner, &mut state_buf)?;
        let mut call = ToolCall::new(JsonWriter::new(out), ex, index, args);
        // The schema was checked when the server was built (descriptors are static):
        // not parsed again, and not walked at all when compiled into a plan.
        let checked = match self.device.tool_plan(index) {
            #[cfg(target_pointer_width = "64")]
            Some(plan) => plan.validate_filing(args, &mut call.filed),
            #[cfg(not(target_pointer_width = "64"))]
            Some(plan) => plan.validate(args),
            None => crate::schema::validate(Value::trusted(tool.input_schema.as_bytes()), args),
        };
        if let Err(violation) = checked {
            // A tool execution error, not a protocol error (SEP-1303).
            call.violation(&violation);
            self.finish_call(&mut call);
            return Ok(());
        }
        match self.device.authorize(index, args) {
            crate::policy::Verdict::Allow => {}
            verdict => {
                call.refusal(verdict);
                self.finish_call(&mut call);
                return Ok(());
            }
        }
        call.can_defer = !self.jobs.is_full();
        #[cfg(feature = "input")]
        {
            (call.input.inputs, call.input.state) = input;
            call.input.next_id = self.next_request;
            call.input.can_wait = call.can_defer
                && !self.waits.is_full()
                && args.is_none_or(|a| a.raw().len() <= crate::input::MAX_WAIT_ARGS);
        }
        let step = self.device.call_tool(&mut call);
        #[cfg(feature = "input")]
        {
            self.next_request = call.input.next_id;
            if let Some(c) = call.input.missing.filter(|_| !call.written()) {
                return Err(Failure {
                    error: DispatchError::MissingCapability,
                    data: ErrorData::Capability(c),
                });
            }
            if !call.input.asks.is_empty() {
                // Initialize era: wait for the client's responses.
                let wait = Waiting {
                    id: rpc::own(r.id),
                    args: args
                        .and_then(|a| heapless::Vec::from_slice(a.raw()).ok())
                        .unwrap_or_default(),
                    asks: core::mem::take(&mut call.input.asks),
                    answers: heapless::Vec::from_slice(b"{}").unwrap_or_default(),
                    state: call.input.new_state.take().unwrap_or_default(),
                    caps: ex.caps,
                };
                let job = Job {
                    id: rpc::own(r.id),
                    progress_token: ex.progress_token.map(|t| rpc::own(Id::from_raw(t))),
                    tool: index,
                    modern: false,
                    log_level: ex.log_level,
                    state: call.state,
                    owes: false,
                };
                // Cannot fail: can_wait checked for room in both tables.
                let _ = self.jobs.push(job);
                let _ = self.waits.push(wait);
                return Ok(());
            }
        }
        if step == Step::Pending && call.can_defer() {
            let job = Job {
                id: rpc::own(r.id),
                // `own` copies a token whole too: `request` bounds it like an id.
                progress_token: ex.progress_token.map(|t| rpc::own(Id::from_raw(t))),
                tool: index,
                modern: ex.modern,
                log_level: ex.log_level,
                state: call.state,
                owes: false,
            };
            // Cannot fail: can_defer checked for room.
            let _ = self.jobs.push(job);
            return Ok(());
        }
        self.finish_call(&mut call);
        Ok(())
    }

    fn finish_call(&self, call: &mut ToolCall<'_>) {
        call.close();
        #[cfg(feature = "input")]
        if call.input.asking {
            let owner = self.device.tool(call.tool).map_or("", |t| t.name);
            self.write_state(&mut call.w, owner, call.input.new_state.as_deref());
        }
        self.end_result(&mut call.w, call.ex.modern, Ttl::None);
    }

    fn read_resource<'a>(
        &mut self,
        raw_uri: Str<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let not_found = Failure {
            error: DispatchError::ResourceNotFound { modern: ex.modern },
            data: ErrorData::Uri(raw_uri),
        };
        let mut buf = [0u8; MAX_URI_LEN];
        // A resource's URI is its descriptor's text, equal to the decoded one (not
        // decoded into `buf`, nor checked as UTF-8 again); one no longer than the
        // buffer, as a decoded URI is.
        let named = (0..MAX_DESCRIPTORS)
            .map_while(|i| self.device.resource(i))
            .position(|r| raw_uri.eq_str(r.uri))
            .and_then(|i| Some((i, self.device.resource(i)?.uri)))
            .filter(|(_, u)| u.len() <= MAX_URI_LEN);
        let (target, template, uri) = match named {
            Some((i, u)) => (Target::Resource(i), None, u),
            None => {
                let uri = match raw_uri.unescape_into(&mut buf) {
                    Ok(u) => u,
                    Err(_) => return Err(not_found),
                };
                let (i, t) = (0..MAX_DESCRIPTORS)
                    .map_while(|i| self.device.resource_template(i))
                    .enumerate()
                    .find(|(_, t)| crate::template::matches(t.uri_template, uri))
                    .ok_or(not_found)?;
                (Target::Template(i), Some(t.uri_template), uri)
            }
        };
        let mut read = ResourceRead::new(JsonWriter::new(out), ex, uri, target, template);
        let result = self.device.read_resource(&mut read);
        let failed_late = result.is_err() && read.written();
        match result {
            Err(ReadError::NotFound) if !read.written() => return Err(not_found),
            Err(ReadError::Failed) if !read.written() => {
                return Err(DispatchError::Internal("Failed to read resource").into());
            }
            _ => {}
        }
        read.close();
        self.end_result(&mut read.w, ex.modern, Ttl::Read);
        // Failed after writing: a sink that can take the line back gets -32603 instead;
        // on a stream the partial contents were already sent and stand.
        if failed_late && out.rollback() {
            return Err(DispatchError::Internal("Failed to read resource").into());
        }
        Ok(())
    }

    fn get_prompt<'a>(
        &mut self,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let (index, args) = self.find(p, false)?;
        if let Some(a) = args {
            if a.kind() != Kind::Object || a.members().any(|(_, v)| v.kind() != Kind::String) {
                return Err(
                    DispatchError::InvalidParams("Prompt arguments must be strings").into(),
                );
            }
        }
        let declared = (0..MAX_DESCRIPTORS).map_while(|j| self.device.prompt_argument(index, j));
        for arg in declared.filter(|a| a.required) {
            if args.and_then(|a| a.get(arg.name)).is_none() {
                return Err(DispatchError::MissingPromptArgument.into());
            }
        }
        #[cfg(feature = "input")]
        let mut state_buf = [0u8; crate::input::MAX_STATE + crate::input::TAG_LEN];
        #[cfg(feature = "input")]
        let owner = self.device.prompt(index).map_or("", |p| p.name);
        #[cfg(feature = "input")]
        let input = self.modern_input(p, ex, owner, &mut state_buf)?;
        let mut get = PromptGet::new(JsonWriter::new(out), ex, index, args);
        #[cfg(feature = "input")]
        {
            (get.input.inputs, get.input.state) = input;
        }
        let result = self.device.get_prompt(&mut get);
        let written = get.written();
        match result {
            Err(ReadError::NotFound) if !written => return Err(DispatchError::UnknownPrompt.into()),
            Err(ReadError::Failed) if !written => {
                return Err(DispatchError::Internal("Failed to get prompt").into());
            }
            _ => {}
        }
        get.close();
        #[cfg(feature = "input")]
        if get.input.asking {
            self.write_state(&mut get.w, owner, get.input.new_state.as_deref());
        }
        self.end_result(&mut get.w, ex.modern, Ttl::None);
        if result.is_err() && out.rollback() {
            return Err(DispatchError::Internal("Failed to get prompt").into());
        }
        Ok(())
    }

    /// Out of line on 32-bit targets: apart from the dispatch it is inlined into, it
    /// takes less code there (40 bytes on Cortex-M3).
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn complete<'a>(
        &mut self,
        r: Request<'a>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let bad = DispatchError::InvalidParams("Invalid completion request");
        let params = r.params.ok_or(bad)?;
        // `_meta` passed over, not walked.
        let meta = p.0[P_META];
        let reference = params.get_past("ref", meta).ok_or(bad)?;
        let kind = str_member(reference, "type").ok_or(bad)?;
        let reference = if kind.eq_str("ref/prompt") {
            let name = str_member(reference, "name").ok_or(bad)?;
            Reference::Prompt(
                self.named(false, name)
                    .ok_or(DispatchError::UnknownPrompt)?,
            )
        } else if kind.eq_str("ref/resource") {
            Reference::Resource(str_member(reference, "uri").ok_or(bad)?)
        } else {
            return Err(bad.into());
        };
        let argument = params.get_past("argument", meta).ok_or(bad)?;
        let arg_name = str_member(argument, "name").ok_or(bad)?;
        let value = str_member(argument, "value").ok_or(bad)?;
        let mut w = JsonWriter::new(out);
        ex.begin_result(&mut w);
        w.key_lit("completion");
        w.begin_object();
        w.key_lit("values");
        w.begin_array();
        let mut c = Completion {
            w,
            reference,
            argument: arg_name,
            value,
            count: 0,
        };
        self.device.complete(&mut c);
        let w = &mut c.w;
        w.end_array();
        w.key_lit("total");
        w.u64(c.count as u64);
        w.member_lit(b",\"hasMore\":false");
        w.end_object();
        self.end_result(w, ex.modern, Ttl::None);
        Ok(())
    }
}

/// Input-required results and server-to-client requests (see [`crate::input`]).
#[cfg(feature = "input")]
impl<D: Device, const L: usize, const J: usize, const W: usize> Server<D, L, J, W> {
    /// The input side of a 2026-07-28 tools/call or prompts/get: `inputResponses`, and
    /// `requestState` opened with the server's key for `owner` (-32602 when it does
    /// not verify). Nothing for the initialize era. The caller puts them into the two
    /// fields of its [`Input`](crate::input::Input) (cheaper than copying a whole one).
    fn modern_input<'a>(
        &self,
        p: &Params<'a>,
        ex: Exchange<'_>,
        owner: &str,
        buf: &'a mut [u8; crate::input::MAX_STATE + crate::input::TAG_LEN],
    ) -> Result<(Option<Value<'a>>, Option<&'a [u8]>), DispatchError> {
        if !ex.modern {
            return Ok((None, None));
        }
        let mut state = None;
        if let Some(sealed) = p.0[P_STATE] {
            let bad = DispatchError::InvalidParams("Invalid requestState");
            let text = sealed.as_str().ok_or(bad)?;
            let key = self.state_key.as_ref().ok_or(bad)?;
            state = Some(key.open(owner, text, buf).map_err(|_| bad)?);
        }
        Ok((p.0[P_INPUTS], state))
    }

    /// `requestState` of an input-required result: the handler's state sealed for
    /// `owner` (nothing without state or key).
    fn write_state(&self, w: &mut JsonWriter<'_>, owner: &str, state: Option<&[u8]>) {
        let (Some(state), Some(key)) = (state, self.state_key.as_ref()) else {
            return;
        };
        let mut buf = [0u8; crate::input::MAX_SEALED];
        if let Some(sealed) = key.seal(owner, state, &mut buf) {
            w.key_lit("requestState");
            w.str(sealed);
        }
    }

    /// A client's response: file it with the call that asked (unknown ids are ignored).
    fn response(&mut self, line: &[u8]) {
        let Ok(v) = json::parse(line) else { return };
        let Some(id) = v
            .get("id")
            .and_then(|i| i.as_u64())
            .and_then(|n| u32::try_from(n).ok())
        else {
            return;
        };
        let result = v.get("result").map(|r| r.raw());
        for wait in self.waits.iter_mut() {
            if wait.answer(id, result) {
                return;
            }
        }
    }

    /// Call a waiting tool again with the responses it asked for. Returns true when
    /// the call is over (its result written); false when it asked again.
    fn resume(&mut self, job: Job, w: usize, out: &mut dyn Sink) -> bool {
        let Some(wait) = self.waits.get(w).cloned() else {
            return true;
        };
        out.route(Some(&job.id));
        let ex = Exchange {
            id: Id::from_raw(&job.id),
            modern: false,
            progress_token: job.progress_token.as_deref(),
            log_level: job.log_level,
            caps: wait.caps,
        };
        let mut g = Guard::new(out);
        let args = json::parse(&wait.args).ok();
        let mut call = ToolCall::new(JsonWriter::new(g.sink()), ex, job.tool, args);
        call.state = job.state;
        call.input.inputs = json::parse(&wait.answers).ok();
        call.input.state = Some(&wait.state[..]).filter(|s| !s.is_empty());
        call.input.next_id = self.next_request;
        call.input.can_wait = true; // its own job slot
                                    // A resumed call finishes or asks again; `Step::Pending` is taken as done.
        let _ = self.device.call_tool(&mut call);
        self.next_request = call.input.next_id;
        if !call.input.asks.is_empty() {
            let again = Waiting {
                id: wait.id.clone(),
                args: wait.args.clone(),
                asks: core::mem::take(&mut call.input.asks),
                answers: heapless::Vec::from_slice(b"{}").unwrap_or_default(),
                state: call.input.new_state.take().unwrap_or_default(),
                caps: wait.caps,
            };
            let state = call.state;
            if let Some(slot) = self.waits.get_mut(w) {
                *slot = again;
            }
            if let Some(j) = self.jobs.iter_mut().find(|j| j.id == job.id) {
                j.state = state;
            }
            return false;
        }
        if let Some(c) = call.input.missing.filter(|_| !call.written()) {
            let failure = Failure {
                error: DispatchError::MissingCapability,
                data: ErrorData::Capability(c),
            };
            drop(call);
            write_failure(g.sink(), ex.id, failure);
        } else {
            self.finish_call(&mut call);
        }
        if g.full {
            too_large(out, ex.id);
        }
        true
    }
}

/// Member `key` of an object when it is a string.
fn str_member<'a>(object: Value<'a>, key: &str) -> Option<Str<'a>> {
    object.get(key).and_then(|v| v.as_str())
}

/// `params.uri` as a string: filed while the request was validated ([`PARAM_KEYS`]),
/// or looked up in `params` on a small target.
fn uri_param<'a>(params: Option<Value<'a>>, p: &Params<'a>) -> Result<Str<'a>, DispatchError> {
    let uri = match FILE_URI_CURSOR {
        true => p.0.get(P_URI).copied().flatten(),
        false => params.and_then(|p| p.get("uri")),
    };
    uri.and_then(|v| v.as_str())
        .ok_or(DispatchError::MissingParam("uri"))
}

/// `params.cursor`: filed while the request was validated ([`PARAM_KEYS`]), or looked
/// up in `params` on a small target.
fn cursor_param<'a>(params: Option<Value<'a>>, p: &Params<'a>) -> Option<Value<'a>> {
    match FILE_URI_CURSOR {
        true => p.0.get(P_CURSOR).copied().flatten(),
        false => params.and_then(|p| p.get("cursor")),
    }
}

fn write_failure(out: &mut dyn Sink, id: Id<'_>, f: Failure<'_>) {
    let data = |w: &mut JsonWriter<'_>| {
        w.begin_object();
        match f.data {
            ErrorData::Uri(uri) => {
                w.key_lit("uri");
                w.str_raw(uri);
            }
            ErrorData::Versions(requested) => {
                w.key_lit("supported");
                write_versions(w);
                w.key_lit("requested");
                w.str_raw(requested);
            }
            #[cfg(feature = "input")]
            ErrorData::Capability(c) => {
                w.key_lit("requiredCapabilities");
                w.begin_object();
                w.key_lit(c.name());
                w.raw_value(b"{}");
                w.end_object();
            }
            ErrorData::None => {}
        }
        w.end_object();
    };
    let data: Option<&dyn Fn(&mut JsonWriter<'_>)> = match f.data {
        ErrorData::None => None,
        _ => Some(&data),
    };
    rpc::write_error(out, Some(id), f.error.into(), data);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::device::{ReadError, Role};
    use crate::registry::{Prompt, Resource, Tool};
    use std::string::String;
    use std::vec::Vec;

    static TOOLS: [Tool<'static>; 3] = [
        Tool::new("kinds", r#"{"type":"object"}"#),
        Tool::new("stream", r#"{"type":"object"}"#),
        Tool::new("wait", r#"{"type":"object"}"#),
    ];
    static RESOURCES: [Resource<'static>; 2] = [
        Resource::new("mem://big", "big").mime_type("application/octet-stream"),
        Resource::new("mem://broken", "broken"),
    ];
    static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("media")];

    /// A device that uses every content kind.
    #[derive(Default)]
    struct Kinds {
        cancelled: Vec<(usize, u32)>,
    }

    impl Device for Kinds {
        fn tool(&self, i: usize) -> Option<Tool<'static>> {
            TOOLS.get(i).copied()
        }
        fn resource(&self, i: usize) -> Option<Resource<'static>> {
            RESOURCES.get(i).copied()
        }
        fn prompt(&self, i: usize) -> Option<Prompt<'static>> {
            PROMPTS.get(i).copied()
        }
        fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
            match call.tool() {
                0 => {
                    call.image("image/png", b"\x89PNG");
                    call.audio("audio/wav", b"RIFF!");
                    call.resource_link(&RESOURCES[0]);
                    call.embedded_text("mem://t", Some("text/plain"), "hi\n");
                    call.embedded_blob("mem://b", None, &[0, 1, 2]);
                    call.structured(|w| {
                        w.begin_object();
                        w.key_lit("ok");
                        w.bool(true);
                        w.end_object();
                    });
                    call.text("dropped: after structuredContent");
                    Step::Done
                }
                1 => {
                    call.text_begin();
                    call.part("a\"");
                    call.part("b");
                    call.image_begin("image/gif");
                    call.data(b"G");
                    call.data(b"IF");
                    call.error("then it failed");
                    Step::Done
                }
                _ => {
                    call.set_state(7);
                    // Pending is honoured only when a slot is free.
                    Step::Pending
                }
            }
        }
        fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
            call.text_fmt(format_args!("waited {}", call.state()));
            Step::Done
        }
        fn cancel_tool(&mut self, tool: usize, state: u32) {
            self.cancelled.push((tool, state));
        }
        fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
            match read.target() {
                Target::Resource(0) => {
                    read.blob_begin(Some("application/octet-stream"));
                    for _ in 0..1000 {
                        read.data(&[0xff; 30]);
                    }
                    read.text(None, "second");
                    Ok(())
                }
                _ => Err(ReadError::Failed),
            }
        }
        fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
            get.text(Role::Assistant, "look:");
            get.image(Role::User, "image/png", b"abc");
            get.embedded_text(Role::User, "mem://t", None, "t");
            Ok(())
        }
    }

    fn run(server: &mut Server<Kinds, 1, 1>, line: &str) -> Vec<String> {
        let mut out = Vec::new();
        struct S<'a>(&'a mut Vec<u8>);
        impl Sink for S<'_> {
            fn write(&mut self, b: &[u8]) -> Result<(), crate::json::SinkError> {
                self.0.extend_from_slice(b);
                Ok(())
            }
        }
        server.handle(line.as_bytes(), &mut S(&mut out));
        while server.poll(&mut S(&mut out)) {}
        let text = String::from_utf8(out).unwrap();
        for l in text.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["jsonrpc"], "2.0");
        }
        text.lines().map(String::from).collect()
    }

    fn server() -> Server<Kinds, 1, 1> {
        Server::new(Kinds::default(), Config::new("k", "1")).unwrap()
    }

    /// Every 2026-07-28 result ends with `_meta.serverInfo`, escaped as needed, whether
    /// the server keeps it written (short) or writes it each time (too long to keep).
    #[test]
    fn modern_results_carry_server_info() {
        // Longer than `SERVER_INFO_LEN` with the other members.
        const LONG: &str = concat!(
            "tttttttttttttttttttttttttttttttttttttttt",
            "tttttttttttttttttttttttttttttttttttttttt",
            "tttttttttttttttttttttttttttttttttttttttt"
        );
        let long = LONG;
        for (config, info) in [
            (
                Config::new("k", "1"),
                String::from(r#"{"name":"k","version":"1"}"#),
            ),
            (
                Config::new("k\"q", "1").title("T"),
                String::from(r#"{"name":"k\"q","title":"T","version":"1"}"#),
            ),
            (
                Config::new("k", "1").title(long),
                std::format!(r#"{{"name":"k","title":"{long}","version":"1"}}"#),
            ),
        ] {
            let mut s: Server<Kinds, 1, 1> = Server::new(Kinds::default(), config).unwrap();
            let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
            for method in ["tools/list", "prompts/list"] {
                let line = std::format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{meta}}}}}"#
                );
                let out = run(&mut s, &line);
                let want =
                    std::format!(r#","_meta":{{"io.modelcontextprotocol/serverInfo":{info}}}}}}}"#);
                assert!(out.len() == 1 && out[0].ends_with(&want), "{out:?}");
            }
        }
    }

    #[test]
    fn every_content_kind() {
        let mut s = server();
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kinds"}}"#,
        );
        assert_eq!(
            out,
            [concat!(
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":["#,
                r#"{"type":"image","mimeType":"image/png","data":"iVBORw=="},"#,
                r#"{"type":"audio","mimeType":"audio/wav","data":"UklGRiE="},"#,
                r#"{"type":"resource_link","uri":"mem://big","name":"big","mimeType":"application/octet-stream"},"#,
                r#"{"type":"resource","resource":{"uri":"mem://t","mimeType":"text/plain","text":"hi\n"}},"#,
                r#"{"type":"resource","resource":{"uri":"mem://b","blob":"AAEC"}}],"#,
                r#""structuredContent":{"ok":true}}}"#
            )]
        );
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stream"}}"#,
        );
        assert_eq!(
            out,
            [concat!(
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":["#,
                r#"{"type":"text","text":"a\"b"},"#,
                r#"{"type":"image","mimeType":"image/gif","data":"R0lG"},"#,
                r#"{"type":"text","text":"then it failed"}],"isError":true}}"#
            )]
        );
    }

    #[test]
    fn big_blob_streams_and_failed_read_is_internal_error() {
        let mut s = server();
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"mem://big"}}"#,
        );
        let v: serde_json::Value = serde_json::from_str(&out[0]).unwrap();
        let blob = v["result"]["contents"][0]["blob"].as_str().unwrap();
        assert_eq!(blob.len(), 40_000);
        assert!(blob.bytes().all(|b| b == b'/'));
        assert_eq!(v["result"]["contents"][1]["text"], "second");
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"mem://broken"}}"#,
        );
        assert_eq!(
            out,
            [
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Failed to read resource"}}"#
            ]
        );
    }

    #[test]
    fn prompt_messages_of_every_kind() {
        let mut s = server();
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"media"}}"#,
        );
        assert_eq!(
            out,
            [concat!(
                r#"{"jsonrpc":"2.0","id":1,"result":{"messages":["#,
                r#"{"role":"assistant","content":{"type":"text","text":"look:"}},"#,
                r#"{"role":"user","content":{"type":"image","mimeType":"image/png","data":"YWJj"}},"#,
                r#"{"role":"user","content":{"type":"resource","resource":{"uri":"mem://t","text":"t"}}}]}}"#
            )]
        );
    }

    #[test]
    fn jobs_table_full_then_frees_and_cancel_reaches_device() {
        let mut s = server();
        let mut out = Vec::new();
        let mut sink = heapless::Vec::<u8, 4096>::new();
        s.handle(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}"#,
            &mut sink,
        );
        assert!(sink.is_empty() && s.busy());
        // The only slot is taken: the second call cannot defer and completes empty.
        s.handle(
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}"#,
            &mut sink,
        );
        out.extend_from_slice(&sink);
        assert_eq!(
            core::str::from_utf8(&out).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n"
        );
        sink.clear();
        s.handle(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            &mut sink,
        );
        assert!(sink.is_empty() && !s.busy());
        assert_eq!(s.device().cancelled, [(2, 7)]);
        // The slot is free again.
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait"}}"#,
        );
        assert_eq!(
            out,
            [
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"waited 7"}]}}"#
            ]
        );
    }

    #[test]
    fn a_finished_job_whose_answer_does_not_fit_is_answered_at_a_later_poll() {
        // Found by the ffi_feed fuzz target: two jobs finish in one poll, the first
        // answer fills a fixed buffer, and neither the second answer nor its -32603
        // error fit. The error is owed, not lost.
        use crate::json::SliceSink;
        let mut s: Server<Kinds, 1, 2> =
            Server::new(Kinds::default(), Config::new("k", "1")).unwrap();
        let mut staging = heapless::Vec::<u8, 512>::new();
        for id in [1, 2] {
            let line = std::format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"wait"}}}}"#
            );
            s.handle(line.as_bytes(), &mut staging);
        }
        assert!(staging.is_empty() && s.busy());
        let mut buf = [0u8; 120];
        let mut sink = SliceSink::new(&mut buf);
        s.poll(&mut sink);
        let first = String::from(core::str::from_utf8(sink.written()).unwrap());
        assert_eq!(first.lines().count(), 1, "{first}");
        assert!(
            s.busy() || !s.jobs.is_empty(),
            "the second answer is still owed"
        );
        sink.clear();
        s.poll(&mut sink);
        let second = String::from(core::str::from_utf8(sink.written()).unwrap());
        let mut ids: Vec<&str> = [first.as_str(), second.as_str()]
            .iter()
            .map(|l| {
                if l.contains(r#""id":1,"#) {
                    "1"
                } else if l.contains(r#""id":2,"#) {
                    "2"
                } else {
                    "?"
                }
            })
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, ["1", "2"], "{first} / {second}");
        assert!(s.jobs.is_empty());
    }

    #[test]
    fn method_names_pair_with_methods() {
        // Each name parses to the method at its position, and every method is there once.
        for (i, name) in Method::NAMES.iter().enumerate() {
            let text = std::format!("\"{name}\"");
            let v = json::parse(text.as_bytes()).unwrap();
            assert_eq!(
                Method::parse(v.as_str().unwrap()),
                Method::ALL.get(i).copied()
            );
        }
        for (i, m) in Method::ALL.iter().enumerate() {
            assert_eq!(
                Method::ALL.iter().position(|x| x == m),
                Some(i),
                "{m:?} twice"
            );
        }
        // Spelled with escapes: decoded; a name that is none of them: none.
        for (text, method) in [
            (r#""tools\/call""#, Some(Method::ToolsCall)),
            (r#""\u0070ing""#, Some(Method::Ping)),
            (r#""tools/cal""#, None),
            (r#""tools\/calls""#, None),
        ] {
            let v = json::parse(text.as_bytes()).unwrap();
            assert_eq!(Method::parse(v.as_str().unwrap()), method, "{text}");
        }
    }

    #[test]
    fn capabilities_follow_primitives() {
        let mut s = server();
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        );
        assert!(out[0].contains(r#""capabilities":{"tools":{},"resources":{"subscribe":true},"prompts":{},"logging":{}}"#));
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{}}"#,
        );
        assert_eq!(
            out,
            [r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#]
        );
        let out = run(
            &mut s,
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}"#,
        );
        assert_eq!(
            out,
            [r#"{"jsonrpc":"2.0","id":3,"result":{"resourceTemplates":[]}}"#]
        );
    }

    #[test]
    fn listen_refuses_a_non_string_uri_and_opens_nothing() {
        let mut s = server();
        let listen = |uris: &str| {
            std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":{uris}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            )
        };
        let out = run(&mut s, &listen(r#"["mem://big",1]"#));
        assert_eq!(
            out,
            [
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"resourceSubscriptions must be an array of strings"}}"#
            ]
        );
        // The only listen slot is still free.
        let out = run(&mut s, &listen(r#"["mem://big","mem://none"]"#));
        assert_eq!(
            out,
            [
                r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"resourceSubscriptions":["mem://big"]}}}"#
            ]
        );
    }

    #[test]
    fn bad_descriptors_are_refused() {
        struct Bad;
        static BAD: [Tool<'static>; 1] = [Tool::new("x", r#"{"type":"object""#)];
        impl Device for Bad {
            fn tool(&self, i: usize) -> Option<Tool<'static>> {
                BAD.get(i).copied()
            }
        }
        assert_eq!(
            Server::<Bad>::new(Bad, Config::new("b", "1")).err(),
            Some(ConfigError::InvalidSchema(0))
        );
        struct NoPrimitives;
        impl Device for NoPrimitives {}
        let mut s: Server<NoPrimitives> = Server::new(NoPrimitives, Config::new("n", "1")).unwrap();
        let mut sink = heapless::Vec::<u8, 256>::new();
        s.handle(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            &mut sink,
        );
        assert_eq!(&sink[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n");
    }

    #[test]
    fn change_by_uri_and_reset() {
        let mut s = server();
        let mut sink = heapless::Vec::<u8, 512>::new();
        s.handle(br#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"mem://big"}}"#, &mut sink);
        sink.clear();
        assert!(s.resource_changed("mem://big"));
        assert!(!s.resource_changed("mem://none"));
        s.poll(&mut sink);
        assert_eq!(&sink[..], b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"mem://big\"}}\n");
        sink.clear();
        s.reset();
        assert!(s.resource_changed("mem://big"));
        s.poll(&mut sink);
        assert!(sink.is_empty(), "subscriptions are gone after reset");
    }

    #[test]
    fn response_too_large_for_a_fixed_buffer_becomes_an_error_with_its_id() {
        use crate::json::SliceSink;
        let mut s = server();
        let mut buf = [0u8; 120];
        let mut sink = SliceSink::new(&mut buf);
        s.handle(br#"{"jsonrpc":"2.0","id":"big","method":"resources/read","params":{"uri":"mem://big"}}"#, &mut sink);
        assert_eq!(
            sink.written(),
            b"{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"error\":{\"code\":-32603,\"message\":\"Response too large for the output buffer\"}}\n"
        );
        // A subscription notification that does not fit waits for room.
        sink.clear();
        s.handle(br#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"mem://big"}}"#, &mut sink);
        assert_eq!(
            sink.written(),
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
        );
        s.resource_changed("mem://big");
        sink.write(&[b' '; 60]).unwrap();
        let before = sink.len();
        s.poll(&mut sink);
        assert_eq!(
            sink.len(),
            before,
            "the notification did not fit and was taken back"
        );
        sink.clear();
        s.poll(&mut sink);
        assert_eq!(
            sink.written(),
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"mem://big\"}}\n"
        );
        // Even the error does not fit: nothing partial is left behind.
        let mut tiny = [0u8; 10];
        let mut sink = SliceSink::new(&mut tiny);
        s.handle(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, &mut sink);
        assert!(sink.is_empty());
        s.handle(b"nonsense", &mut sink);
        assert!(sink.is_empty());
    }
}
