//! Errors of every layer, and the **one** place that maps them to JSON-RPC codes.
//!
//! Each layer has its own small `Copy` enum ([`crate::wire::json::ScanError`],
//! [`RequestError`], [`DispatchError`]; the framer reports an overlong line as
//! [`crate::wire::framing::Frame::TooLong`], answered as [`RequestError::TooLong`]);
//! [`RpcError`] gathers them and [`RpcError::code`] / [`RpcError::message`] give the
//! wire form.

use core::fmt;

use crate::wire::json::ScanError;
use crate::wire::version::Era;

/// JSON-RPC 2.0 and MCP error codes emitted by emcp.
pub mod code {
    /// The line is not valid JSON (or not UTF-8, or nested too deeply).
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON is not a valid JSON-RPC request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// Unknown method, or a method of a capability the server does not offer.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// The method's parameters are invalid.
    pub const INVALID_PARAMS: i32 = -32602;
    /// A failure inside the server.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// Resource not found (legacy-era revisions only).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// 2026-07-28 over HTTP: an `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name`
    /// header disagrees with the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// 2026-07-28: the request needs a client capability it did not declare.
    pub const MISSING_CAPABILITY: i32 = -32021;
    /// 2026-07-28: the request's protocol version is not supported.
    pub const UNSUPPORTED_VERSION: i32 = -32022;
}

/// Most bytes of a name an error response echoes in its `data` (the method of
/// -32601, the tool or prompt of -32602): a longer name is cut to its first whole
/// characters within this many bytes of its JSON text.
pub const MAX_ECHO: usize = 64;

/// What is wrong with a message at the JSON-RPC layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum RequestError {
    /// The line is not JSON.
    Parse(ScanError),
    /// The line is longer than the line buffer.
    TooLong,
    /// The message is a JSON array: batches are not supported.
    Batch,
    /// The message is not a JSON object.
    NotObject,
    /// `jsonrpc` is missing or not `"2.0"`.
    Version,
    /// `id` is null, fractional, or of another type than string or integer.
    Id,
    /// `id` is longer than [`crate::wire::rpc::MAX_ID_LEN`] bytes.
    IdTooLong,
    /// `method` is missing or not a string.
    Method,
    /// `params` is present but not an object.
    Params,
}

/// Why a well-formed request could not be served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DispatchError {
    /// The method does not exist (in this protocol era) or its capability is not offered.
    MethodNotFound,
    /// Parameters are missing or wrong; the text says which.
    InvalidParams(&'static str),
    /// A required parameter is missing; the text names it (the message is `Missing `
    /// and the text, e.g. `Missing uri`).
    MissingParam(&'static str),
    /// The named tool does not exist.
    UnknownTool,
    /// The named prompt does not exist.
    UnknownPrompt,
    /// A required prompt argument is missing.
    MissingPromptArgument,
    /// The cursor was not issued by this server.
    InvalidCursor,
    /// `_meta` lacks `io.modelcontextprotocol/protocolVersion`.
    MissingProtocolVersion,
    /// `_meta` lacks `io.modelcontextprotocol/clientCapabilities`.
    MissingClientCapabilities,
    /// The requested protocol version is not supported (data: supported, requested).
    UnsupportedVersion,
    /// The resource does not exist (data: uri). The code depends on the era.
    ResourceNotFound {
        /// The era the request was served in: -32602 in 2026-07-28, -32002 in the
        /// legacy era.
        era: Era,
    },
    /// The request needs a client capability the client did not declare (feature
    /// `input`: only input requests need one).
    #[cfg(feature = "input")]
    MissingCapability,
    /// An HTTP header disagrees with the body (2026-07-28 over HTTP; feature `http`).
    #[cfg(feature = "http")]
    HeaderMismatch,
    /// A bounded table (subscriptions, pending jobs) is full.
    Busy(&'static str),
    /// The device handler failed.
    Internal(&'static str),
}

/// Any error that becomes a JSON-RPC error response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum RpcError {
    /// JSON-RPC layer.
    Request(RequestError),
    /// MCP layer.
    Dispatch(DispatchError),
}

impl From<RequestError> for RpcError {
    fn from(e: RequestError) -> Self {
        RpcError::Request(e)
    }
}

impl From<DispatchError> for RpcError {
    fn from(e: DispatchError) -> Self {
        RpcError::Dispatch(e)
    }
}

impl RpcError {
    /// The JSON-RPC error code.
    pub fn code(&self) -> i32 {
        match self {
            RpcError::Request(RequestError::Parse(_)) => code::PARSE_ERROR,
            RpcError::Request(RequestError::Params) => code::INVALID_PARAMS,
            RpcError::Request(_) => code::INVALID_REQUEST,
            RpcError::Dispatch(d) => match d {
                DispatchError::MethodNotFound => code::METHOD_NOT_FOUND,
                DispatchError::InvalidParams(_)
                | DispatchError::MissingParam(_)
                | DispatchError::UnknownTool
                | DispatchError::UnknownPrompt
                | DispatchError::MissingPromptArgument
                | DispatchError::InvalidCursor
                | DispatchError::MissingProtocolVersion
                | DispatchError::MissingClientCapabilities => code::INVALID_PARAMS,
                DispatchError::UnsupportedVersion => code::UNSUPPORTED_VERSION,
                DispatchError::ResourceNotFound { era } => match era {
                    Era::Stateless => code::INVALID_PARAMS,
                    Era::Legacy => code::RESOURCE_NOT_FOUND,
                },
                #[cfg(feature = "input")]
                DispatchError::MissingCapability => code::MISSING_CAPABILITY,
                #[cfg(feature = "http")]
                DispatchError::HeaderMismatch => code::HEADER_MISMATCH,
                DispatchError::Busy(_) | DispatchError::Internal(_) => code::INTERNAL_ERROR,
            },
        }
    }

    /// The error message, one concise sentence, as two parts written one after the
    /// other: a prefix several messages share (`"Invalid Request: "`, `"Parse error"`,
    /// `"Missing _meta "`, `"Missing "`; empty for the others), then the rest. Each
    /// shared prefix is thus stored once in the image, and messages such as the `_meta`
    /// ones end with text the server holds anyway (member names).
    pub fn message(&self) -> (&'static str, &'static str) {
        (self.message_prefix(), self.message_rest())
    }

    /// The first part of [`RpcError::message`]. Not inlined, as `message_rest`.
    #[inline(never)]
    fn message_prefix(&self) -> &'static str {
        match self {
            RpcError::Request(RequestError::Parse(_)) => "Parse error",
            RpcError::Request(RequestError::Params) => "",
            RpcError::Request(_) => "Invalid Request: ",
            RpcError::Dispatch(
                DispatchError::MissingProtocolVersion | DispatchError::MissingClientCapabilities,
            ) => "Missing _meta ",
            RpcError::Dispatch(DispatchError::MissingParam(_)) => "Missing ",
            RpcError::Dispatch(_) => "",
        }
    }

    /// The rest of [`RpcError::message`], after [`RpcError::message_prefix`]. Not
    /// inlined on hosts: merged into [`crate::wire::rpc::write_error`] with
    /// [`RpcError::code`]'s match it costs more code there; on small targets the
    /// compiler's choice is smaller.
    #[cfg_attr(emcp_fast, inline(never))]
    fn message_rest(&self) -> &'static str {
        match self {
            RpcError::Request(r) => match r {
                RequestError::Parse(ScanError::InvalidUtf8) => ": invalid UTF-8",
                RequestError::Parse(ScanError::TooDeep) => ": nested too deeply",
                RequestError::Parse(_) => "",
                RequestError::TooLong => "line too long",
                RequestError::Batch => "batches are not supported",
                RequestError::NotObject => "not an object",
                RequestError::Version => "jsonrpc must be \"2.0\"",
                RequestError::Id => "id must be a string or an integer",
                RequestError::IdTooLong => "id too long",
                RequestError::Method => "method must be a string",
                RequestError::Params => "Invalid params: params must be an object",
            },
            RpcError::Dispatch(d) => match d {
                DispatchError::MethodNotFound => "Method not found",
                DispatchError::InvalidParams(why) | DispatchError::MissingParam(why) => why,
                DispatchError::UnknownTool => "Unknown tool",
                DispatchError::UnknownPrompt => "Unknown prompt",
                DispatchError::MissingPromptArgument => "Missing required prompt argument",
                DispatchError::InvalidCursor => "Invalid cursor",
                DispatchError::MissingProtocolVersion => crate::wire::mcp::META_VERSION,
                DispatchError::MissingClientCapabilities => crate::wire::mcp::META_CAPABILITIES,
                DispatchError::UnsupportedVersion => "Unsupported protocol version",
                DispatchError::ResourceNotFound { .. } => "Resource not found",
                #[cfg(feature = "input")]
                DispatchError::MissingCapability => "Missing required client capability",
                #[cfg(feature = "http")]
                DispatchError::HeaderMismatch => "Header does not match the request body",
                DispatchError::Busy(why) => why,
                DispatchError::Internal(why) => why,
            },
        }
    }
}

/// The message of the JSON-RPC error answered for this error ([`RpcError::message`]).
impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (prefix, rest) = self.message();
        f.write_str(prefix)?;
        f.write_str(rest)
    }
}

impl core::error::Error for RpcError {}

/// The message of the JSON-RPC error answered for it (`Invalid Request: id too long`);
/// a parse error's cause is its [`source`](core::error::Error::source).
impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&RpcError::Request(*self), f)
    }
}

impl core::error::Error for RequestError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            RequestError::Parse(e) => Some(e),
            _ => None,
        }
    }
}

/// The message of the JSON-RPC error answered for it (`Unknown tool`, `Missing uri`).
impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&RpcError::Dispatch(*self), f)
    }
}

impl core::error::Error for DispatchError {}

/// Errors in a device's static configuration, found by [`crate::Server::new`]: each
/// names the descriptor (by its index) or the limit at fault, and its
/// [`Display`](fmt::Display) says what is wrong in a sentence (`tool 1: its input
/// schema is not a JSON object`).
///
/// Each variant holds one number, so that a `Result<(), ConfigError>` is two words,
/// returned in registers on 32-bit targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ConfigError {
    /// A tool's input schema is not a JSON object.
    InvalidSchema {
        /// The tool's index (`Device::tool`).
        tool: usize,
    },
    /// A tool's output schema is not a JSON object.
    InvalidOutputSchema {
        /// The tool's index.
        tool: usize,
    },
    /// A tool's [`Plan`](crate::model::schema::Plan) was compiled from other text than
    /// its input schema, or does not hold together.
    InvalidPlan {
        /// The tool's index.
        tool: usize,
    },
    /// A tool has no compiled plan, and the schema walker is not built in (cargo
    /// feature `schema-walk`): compile its schema (`emcp::tool!`, `emcp-plan`) or turn
    /// the feature on.
    NoPlan {
        /// The tool's index.
        tool: usize,
    },
    /// A resource template is not a valid RFC 6570 level-1 URI template.
    InvalidTemplate {
        /// The template's index (`Device::resource_template`).
        template: usize,
    },
    /// The device lists more resources than can be subscribed to.
    TooManyResources {
        /// The most resources a device may list
        /// ([`MAX_RESOURCES`](crate::state::subscription::MAX_RESOURCES)).
        limit: usize,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (index, what) = match *self {
            ConfigError::InvalidSchema { tool } => (tool, "its input schema is not a JSON object"),
            ConfigError::InvalidOutputSchema { tool } => {
                (tool, "its output schema is not a JSON object")
            }
            ConfigError::InvalidPlan { tool } => {
                (tool, "its compiled plan is not of its input schema")
            }
            ConfigError::NoPlan { tool } => (
                tool,
                "it has no compiled plan, and the schema walker is not built in \
                 (feature `schema-walk`)",
            ),
            ConfigError::InvalidTemplate { template } => {
                return write!(
                    f,
                    "resource template {template}: not an RFC 6570 level-1 URI template"
                )
            }
            ConfigError::TooManyResources { limit } => {
                return write!(
                    f,
                    "more than {limit} resources (MAX_RESOURCES): they could not all be \
                     subscribed to"
                )
            }
        };
        write!(f, "tool {index}: {what}")
    }
}

impl core::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_by_layer() {
        assert_eq!(
            RpcError::from(RequestError::Parse(ScanError::Syntax)).code(),
            -32700
        );
        assert_eq!(RpcError::from(RequestError::Batch).code(), -32600);
        assert_eq!(RpcError::from(RequestError::Params).code(), -32602);
        assert_eq!(RpcError::from(DispatchError::MethodNotFound).code(), -32601);
        assert_eq!(
            RpcError::from(DispatchError::UnsupportedVersion).code(),
            -32022
        );
        #[cfg(feature = "input")]
        assert_eq!(
            RpcError::from(DispatchError::MissingCapability).code(),
            -32021
        );
        for (era, code) in [(Era::Stateless, -32602), (Era::Legacy, -32002)] {
            assert_eq!(
                RpcError::from(DispatchError::ResourceNotFound { era }).code(),
                code
            );
        }
    }

    /// `e`'s `Display`, as a string.
    fn shown(e: &dyn core::error::Error) -> heapless::String<160> {
        let mut s = heapless::String::new();
        core::fmt::Write::write_fmt(&mut s, format_args!("{e}")).unwrap();
        s
    }

    #[test]
    fn config_errors_name_what_is_at_fault() {
        let cases: [(ConfigError, &str); 6] = [
            (
                ConfigError::InvalidSchema { tool: 1 },
                "tool 1: its input schema is not a JSON object",
            ),
            (
                ConfigError::InvalidOutputSchema { tool: 2 },
                "tool 2: its output schema is not a JSON object",
            ),
            (
                ConfigError::InvalidPlan { tool: 3 },
                "tool 3: its compiled plan is not of its input schema",
            ),
            (
                ConfigError::NoPlan { tool: 0 },
                "tool 0: it has no compiled plan, and the schema walker is not built in \
                 (feature `schema-walk`)",
            ),
            (
                ConfigError::InvalidTemplate { template: 0 },
                "resource template 0: not an RFC 6570 level-1 URI template",
            ),
            (
                ConfigError::TooManyResources { limit: 32 },
                "more than 32 resources (MAX_RESOURCES): they could not all be subscribed to",
            ),
        ];
        for (e, message) in cases {
            assert_eq!(shown(&e), message);
        }
    }

    #[test]
    fn rpc_errors_show_their_wire_message() {
        use core::error::Error as _;
        assert_eq!(shown(&DispatchError::MethodNotFound), "Method not found");
        assert_eq!(shown(&DispatchError::MissingParam("uri")), "Missing uri");
        assert_eq!(
            shown(&DispatchError::MissingProtocolVersion),
            "Missing _meta io.modelcontextprotocol/protocolVersion"
        );
        assert_eq!(
            shown(&RequestError::IdTooLong),
            "Invalid Request: id too long"
        );
        let parse = RequestError::Parse(ScanError::InvalidUtf8);
        assert_eq!(shown(&parse), "Parse error: invalid UTF-8");
        let cause = parse.source().map(shown);
        assert_eq!(cause.as_deref(), Some("input is not valid UTF-8"));
        assert!(RequestError::Batch.source().is_none());
        assert_eq!(
            shown(&RpcError::from(RequestError::Params)),
            "Invalid params: params must be an object"
        );
    }
}
