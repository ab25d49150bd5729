//! What every request context shares: the request's facts ([`Exchange`]), the
//! openings of results, and the phases of a content array.

use super::LogLevel;
use crate::wire::json::writer::member_key;
use crate::wire::json::JsonWriter;
use crate::wire::rpc;
use crate::wire::rpc::Id;
use crate::wire::version::Era;

/// The opening of a text content block, up to its text (comma first, dropped when
/// none is due).
pub(super) const TEXT_BLOCK: &[u8] = b",{\"type\":\"text\",\"text\":";

/// Per-request facts shared by the contexts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exchange<'a> {
    pub id: Id<'a>,
    pub era: Era,
    pub progress_token: Option<&'a [u8]>,
    pub log_level: Option<LogLevel>,
    /// The input capabilities the client declared (empty without `input`).
    #[cfg_attr(not(feature = "input"), allow(dead_code))]
    pub caps: crate::device::input::Capabilities,
    /// The client accepts a task for this request (2026-07-28: the request's `_meta`
    /// declares the tasks extension; 2025-11-25: `params.task`); nothing without
    /// `tasks`.
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    pub tasks: TaskOffer,
}

/// Whether a request accepts a task: a `bool` with the `tasks` feature, nothing
/// without.
#[cfg(feature = "tasks")]
pub(crate) type TaskOffer = bool;
#[cfg(not(feature = "tasks"))]
pub(crate) type TaskOffer = ();

impl<'a> Exchange<'a> {
    /// Open the result envelope (and `resultType` for 2026-07-28).
    pub(crate) fn begin_result(&self, w: &mut JsonWriter<'_>) {
        super::forms::begin_result(self, w);
    }

    /// Open the result envelope and, in it, the array the content goes into: `open` is
    /// its key and bracket after a comma (`,"content":[`), written at once.
    pub(super) fn begin_list(&self, w: &mut JsonWriter<'_>, open: &'static [u8]) {
        self.begin_result(w);
        w.begin(open);
    }

    pub(super) fn log(
        &self,
        w: &mut JsonWriter<'_>,
        level: LogLevel,
        logger: &str,
        data: &str,
    ) -> bool {
        // Without the `logging` feature no level is ever set: nothing is sent, and the
        // writing below is not linked.
        if !crate::features::LOGGING || self.log_level.is_none_or(|min| level < min) {
            return false;
        }
        rpc::begin_notification(w, "message");
        w.key_raw(member_key!("level"));
        w.str_lit(level.as_str());
        w.key_raw(member_key!("logger"));
        w.str(logger);
        w.key_raw(member_key!("data"));
        w.str(data);
        rpc::end_response(w);
        true
    }

    pub(super) fn progress<N: ProgressNumber>(
        &self,
        w: &mut JsonWriter<'_>,
        progress: N,
        total: Option<N>,
        message: Option<&str>,
    ) -> bool {
        let Some(token) = self.progress_token else {
            return false;
        };
        rpc::begin_notification(w, "progress");
        w.key_raw(member_key!("progressToken"));
        w.raw_value(token);
        w.key_raw(member_key!("progress"));
        progress.write(w);
        if let Some(t) = total {
            w.key_raw(member_key!("total"));
            t.write(w);
        }
        if let Some(m) = message {
            w.key_raw(member_key!("message"));
            w.str(m);
        }
        rpc::end_response(w);
        true
    }
}

/// A progress figure: written by its own writer method, so that integer progress
/// never reaches the `f64` formatter.
pub(super) trait ProgressNumber: Copy {
    fn write(self, w: &mut JsonWriter<'_>);
}

impl ProgressNumber for f64 {
    fn write(self, w: &mut JsonWriter<'_>) {
        w.f64(self);
    }
}

impl ProgressNumber for u64 {
    fn write(self, w: &mut JsonWriter<'_>) {
        w.u64(self);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Nothing written yet.
    Idle,
    /// Inside the `content` array.
    Content,
    /// Inside the `content` array after a whole text block, whose `}` is not written
    /// yet: what comes next (another block, `structuredContent`, the end of the
    /// array) writes it with its own text, one sink write for both. Entered by the
    /// fast forms only ([`super::forms`]).
    #[allow(dead_code)] // never entered by the plain forms
    Block,
    /// A text string is open (parts may follow).
    Text,
    /// A base64 string is open (data may follow).
    Data,
    /// `content` closed (structured content written, or the result finished).
    Closed,
}

impl Phase {
    pub(super) fn streaming(self) -> bool {
        matches!(self, Phase::Text | Phase::Data)
    }
}
