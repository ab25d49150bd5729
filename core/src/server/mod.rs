//! The MCP server: era and version selection, capability gating, routing.
//!
//! [`Server::handle`] takes one framed line and writes every line it causes (the
//! response, progress and log notifications before it, resource-updated notifications
//! after it) into a [`Sink`](crate::wire::json::Sink). [`Server::poll`] continues pending tool jobs and turns
//! device-raised change flags into notifications. Nothing else is needed to serve MCP:
//! the [`crate::transport::serve`] loop is a thin `embedded-io` wrapper around these two calls.
//!
//! **Eras, chosen per request.** A request whose `params._meta` carries an
//! `io.modelcontextprotocol/…` key is a 2026-07-28 (stateless) request: it must carry
//! both `protocolVersion` and `clientCapabilities`, and gets `resultType`, `ttlMs`,
//! `cacheScope` and `serverInfo`. `server/discover` and `subscriptions/listen` are
//! always stateless requests. Any other request is served with legacy-era
//! semantics, at the version `initialize` negotiated (2025-11-25 before that).

use crate::device::Device;
use crate::device::LogLevel;
use crate::state::subscription;
use crate::state::subscription::Subscriptions;
use crate::state::subscription::MAX_RESOURCES;
use crate::wire::error::ConfigError;

use self::jobs::Job;
use crate::wire::version::Version;

mod complete;
mod config;
mod failure;
mod forms;
mod guard;
mod handle;
// Each optional capability of the request path is a module whose "off" form
// (`off.rs`: empty types, hooks that do nothing) is chosen here, where it is
// declared: the code that serves a request reads the same in every build.
#[cfg_attr(not(feature = "input"), path = "input/off.rs")]
mod input;
mod jobs;
mod list;
mod method;
mod named;
mod params;
mod prompts;
mod resources;
mod result;
mod session;
mod subscribe;
#[cfg_attr(not(feature = "tasks"), path = "tasks/off.rs")]
mod tasks;
#[cfg(test)]
mod tests;
mod tools;

pub use crate::wire::version::Era;
pub use config::Config;
pub use session::Session;

/// Longest resource URI a request may name, in bytes after unescaping.
pub const MAX_URI_LEN: usize = 256;

/// Most descriptors of one kind the server walks (a guard against a device whose
/// index accessor never ends).
pub const MAX_DESCRIPTORS: usize = 1024;

/// Tell the sink which request the lines that follow belong to ([`crate::wire::json::Sink::route`]),
/// with the `routes` feature; without it nothing is routed.
#[cfg(feature = "routes")]
fn route(out: &mut dyn crate::wire::json::Sink, request: &[u8]) {
    out.route(Some(request));
}

#[cfg(not(feature = "routes"))]
#[inline(always)]
fn route(_out: &mut dyn crate::wire::json::Sink, _request: &[u8]) {}

/// An MCP server for one connection, around a [`Device`].
///
/// `L` bounds open `subscriptions/listen` streams (default 4), `J` pending tool jobs
/// (default 2), `W` tool calls waiting for the client's input in the legacy era
/// (default 0: such calls cannot ask; with the `input` feature each slot keeps
/// `input::MAX_WAIT_ARGS` + `input::MAX_WAIT_ANSWERS` bytes), `K` tasks (default 0:
/// no tasks; with the `tasks` feature each slot keeps about 250 bytes on a 32-bit
/// target, see the `tasks` module; without it `K` is unused).
pub struct Server<
    D: Device,
    const L: usize = 4,
    const J: usize = 2,
    const W: usize = 0,
    const K: usize = 0,
> {
    device: D,
    config: Config,
    /// Version negotiated by `initialize` (legacy-era requests).
    session_version: Option<Version>,
    /// Log threshold set by `logging/setLevel` (legacy era).
    session_log: Option<LogLevel>,
    subs: Subscriptions<L>,
    jobs: heapless::Vec<Job, J>,
    changed: u32,
    /// [`Config::info_plain`], checked once.
    info_plain: bool,
    /// What the code forms keep of `serverInfo` for stateless results ([`forms`];
    /// nothing without `stateless`).
    server_info: forms::ServerInfo,
    /// The input side ([`input::Part`]; empty without the `input` feature).
    input: input::Part<W>,
    /// The task table (empty without the `tasks` feature).
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    tasks: tasks::Table<K>,
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// A server for `device`. Checks the device's static descriptors: every schema must
    /// be a JSON object, every template valid, and at most [`MAX_RESOURCES`] resources.
    pub fn new(device: D, config: Config) -> Result<Self, ConfigError> {
        Self::check_device(&device)?;
        Ok(Self::new_checked(device, config))
    }

    /// What [`Server::new`] checks of a device's descriptors.
    ///
    /// # Errors
    ///
    /// The first descriptor that is not valid.
    pub fn check_device(device: &D) -> Result<(), ConfigError> {
        for i in 0..MAX_DESCRIPTORS {
            let Some(tool) = device.tool(i) else { break };
            config::check_tool(i, &tool, device.tool_plan(i))?;
        }
        // Without the `resources` feature templates are never served: not checked (nor
        // their parser linked).
        let templates = if crate::features::RESOURCES {
            MAX_DESCRIPTORS
        } else {
            0
        };
        for i in 0..templates {
            let Some(t) = device.resource_template(i) else {
                break;
            };
            if !crate::model::template::is_valid(t.uri_template) {
                return Err(ConfigError::InvalidTemplate { template: i });
            }
        }
        if device.resource(MAX_RESOURCES).is_some() {
            return Err(ConfigError::TooManyResources {
                limit: MAX_RESOURCES,
            });
        }
        Ok(())
    }

    /// A server for a device that passed [`Server::check_device`]: [`Server::new`] in
    /// two steps, for a caller that builds the server in place (the C ABI writes it
    /// straight into the caller's storage, not through a `Result` on its stack). A
    /// device that did not pass is still served without a panic, but a bad schema or
    /// template then answers its calls with errors instead of being refused here.
    pub fn new_checked(device: D, config: Config) -> Self {
        let info_plain = config.info_plain();
        Self {
            device,
            config,
            session_version: None,
            session_log: None,
            subs: Subscriptions::new(),
            jobs: heapless::Vec::new(),
            changed: 0,
            info_plain,
            server_info: forms::written_info(&config, info_plain),
            input: input::Part::new(),
            tasks: tasks::Table::new(),
        }
    }

    /// Set the key that seals the `requestState` of input-required results (see
    /// [`crate::device::input`]). Without one, a handler's state is not sent, and any
    /// `requestState` a client sends is refused.
    #[cfg(feature = "input")]
    pub fn set_state_key(&mut self, key: crate::state::seal::StateKey) {
        self.input.state_key = Some(key);
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
        self.tasks_busy() || self.jobs.iter().any(|j| self.runnable(j))
    }

    /// Whether a job can make progress now (not waiting for the client's input).
    fn runnable(&self, job: &Job) -> bool {
        !self.input.waiting(&job.id)
    }

    /// Whether the request with this id (JSON text) is still being served by a
    /// pending job (a transport keeps its stream open meanwhile).
    pub fn is_pending(&self, request: &[u8]) -> bool {
        self.task_waits(request) || self.jobs.iter().any(|j| j.id.as_slice() == request)
    }

    /// The link was lost (the host went away, the UART was unplugged): forget the
    /// session, its subscriptions and listen streams; pending jobs are cancelled.
    pub fn reset(&mut self) {
        for job in self.jobs.iter() {
            self.device.cancel_tool(job.tool, job.state);
        }
        self.jobs.clear();
        self.input.clear();
        // The session's tasks go with it; 2026-07-28 tasks belong to no session.
        self.drop_tasks(true);
        self.subs.clear();
        self.session_version = None;
        self.session_log = None;
        self.changed = 0;
    }

    /// The client is gone for good (end of input on a stream): cancel every task
    /// still running and forget all tasks (feature `tasks`), so that nothing is left
    /// for [`Server::poll`] — a serve loop draining its jobs at end of input does not
    /// wait for a task no one will fetch. Without the feature there are none: it does
    /// nothing.
    pub fn end_tasks(&mut self) {
        self.drop_tasks(false);
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

    /// Whether a `subscriptions/listen` stream with this subscription id (JSON text)
    /// is open (not cancelled by the client, not dropped by [`Server::reset`]).
    pub fn is_listening(&self, subscription: &[u8]) -> bool {
        self.subs
            .listens
            .iter()
            .any(|l| l.id.as_slice() == subscription)
    }

    fn find_resource(&self, eq: &dyn Fn(&str) -> bool) -> Option<usize> {
        (0..MAX_DESCRIPTORS)
            .map_while(|i| self.device.resource(i))
            .position(|r| eq(r.uri))
    }
}
