use crate::device::LogLevel;
use crate::wire::error::DispatchError;
use crate::wire::json::Str;
use crate::wire::json::Value;

/// The request methods the server answers, named once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Method {
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
    pub(super) const ALL: [Method; 15] = [
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
    pub(super) const NAMES: [&'static str; 15] = [
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
    pub(super) fn parse(name: Str<'_>) -> Option<Method> {
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
pub(super) fn parse_level(level: Option<Value<'_>>) -> Result<LogLevel, DispatchError> {
    level
        .and_then(|l| l.as_str())
        .and_then(LogLevel::parse)
        .ok_or(DispatchError::InvalidParams("Invalid log level"))
}
