//! What validating a request line alone costs, in emcp and elsewhere
//! (`instr --parse PARSER ERA COUNT`; the last table of `callgrind.sh`): the part of
//! a message's instructions that no server can skip, beside the whole of
//! [`Server::handle`](emcp::Server::handle).

/// A parser run over a request line, keeping nothing: only whether it is JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parser {
    /// `emcp::wire::json::parse`: the core's validating scanner (its depth limit,
    /// `json::MAX_DEPTH`), as `Server::handle` runs it before looking at members.
    Emcp,
    /// [`crate::minimal::validate`]: validation and nothing else, as a reference.
    Minimal,
    /// `str::from_utf8`, then `serde_json::from_str::<IgnoredAny>`: serde_json's
    /// cheapest full parse (every value is read and dropped), after the UTF-8 check
    /// it leaves out when ignoring strings (a line read as a `String` has had it). It
    /// does not check what a `\u` escape spells (a lone surrogate passes).
    SerdeJson,
    /// `serde_json::from_slice::<serde_json::Value>`: the tree most servers build
    /// first (heap-allocated).
    SerdeJsonValue,
}

impl Parser {
    /// Every parser, in table order.
    pub const ALL: [Parser; 4] = [
        Parser::Emcp,
        Parser::Minimal,
        Parser::SerdeJson,
        Parser::SerdeJsonValue,
    ];

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Parser::Emcp => "emcp",
            Parser::Minimal => "minimal",
            Parser::SerdeJson => "serde_json",
            Parser::SerdeJsonValue => "serde_json_value",
        }
    }

    /// By [`Parser::name`].
    pub fn parse(s: &str) -> Option<Parser> {
        Self::ALL.into_iter().find(|p| p.name() == s)
    }

    /// What it runs (a table's row label, Markdown).
    pub fn label(self) -> &'static str {
        match self {
            Parser::Emcp => "`emcp::wire::json::parse` (the core's validating scan)",
            Parser::Minimal => "minimal validating scanner (`src/minimal.rs`, reference)",
            Parser::SerdeJson => "`str::from_utf8` + `serde_json::from_str::<IgnoredAny>`",
            Parser::SerdeJsonValue => "`serde_json::from_slice::<Value>` (a heap tree)",
        }
    }

    /// Whether `line` is one JSON text, by this parser.
    pub fn validate(self, line: &[u8]) -> bool {
        match self {
            Parser::Emcp => emcp::wire::json::parse(line).is_ok(),
            Parser::Minimal => crate::minimal::validate(line),
            Parser::SerdeJson => std::str::from_utf8(line)
                .is_ok_and(|s| serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()),
            Parser::SerdeJsonValue => serde_json::from_slice::<serde_json::Value>(line).is_ok(),
        }
    }
}
