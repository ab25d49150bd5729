//! Errors of every layer, and the **one** place that maps them to JSON-RPC codes.
//!
//! Each layer has its own small `Copy` enum ([`crate::wire::json::ScanError`],
//! [`RequestError`], [`DispatchError`]; the framer reports an overlong line as
//! [`crate::wire::framing::Frame::TooLong`], answered as [`RequestError::TooLong`]);
//! [`RpcError`] gathers them and [`RpcError::code`] / [`RpcError::message`] give the
//! wire form.

use crate::wire::json::ScanError;

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
        /// true for 2026-07-28 (-32602), false for the legacy era (-32002).
        stateless: bool,
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
                DispatchError::ResourceNotFound { stateless: true } => code::INVALID_PARAMS,
                DispatchError::ResourceNotFound { stateless: false } => code::RESOURCE_NOT_FOUND,
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

/// Errors in a device's static configuration, found by [`crate::Server::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ConfigError {
    /// A tool's input or output schema is not valid JSON or not an object, or its
    /// [`Plan`](crate::model::schema::Plan) was compiled from other text (tool index).
    InvalidSchema(usize),
    /// A resource template is not a valid URI template (template index).
    InvalidTemplate(usize),
    /// More resources than [`crate::state::subscription::MAX_RESOURCES`] can be subscribed to.
    TooManyResources,
}

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
        assert_eq!(
            RpcError::from(DispatchError::ResourceNotFound { stateless: true }).code(),
            -32602
        );
        assert_eq!(
            RpcError::from(DispatchError::ResourceNotFound { stateless: false }).code(),
            -32002
        );
    }
}
